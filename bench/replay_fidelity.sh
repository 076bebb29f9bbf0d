#!/usr/bin/env bash
# Fidelity of the replay module with real programs (issue 16): each program
# runs on a fresh loop-mounted ext4 under strace; its trace is replayed on
# the same filesystem. Per syscall: the trace's count vs the count an strace
# of the replay shows (the workers' calls on the copy's files); device
# bytes: the original run's (loop device counters around it, then sync) vs
# the replay's measured phase (--cache drop before, syncfs_at_end after),
# at the traced pace (speed=original: writeback and journal commits see the
# same timing).
# Writes OUT/fidelity.md, the traces and the reports. Needs root, strace,
# sqlite3, tar, rrdtool (scripts/setup installs them).
#   usage: bench/replay_fidelity.sh [OUT]
#   env: IOMIMIC=path/to/iomimic  PROGS="sqlite3 tar"  REPEATS=3 (device
#   bytes: median of REPEATS original runs and REPEATS replays)  SPEED=original
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${IOMIMIC:-$root/build/debug/iomimic}
out=${1:-$(mktemp -d /tmp/replay_fidelity.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/replay_fid_work.XXXXXX)
mnt=$work/mnt
cleanup() { umount "$mnt" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
truncate -s 1G "$work/fs.img"
mkfs.ext4 -q -F "$work/fs.img"
mkdir "$mnt"
mount -o loop "$work/fs.img" "$mnt"
dev=$(basename "$(findmnt -no SOURCE "$mnt")")
strace_cmd=(strace -f -tt -T -yy -s 0)

# Sectors read, written (fields 3 and 7 of /sys/block/DEV/stat) in bytes.
dev_bytes() { awk '{printf "%.0f %.0f\n", $3 * 512, $7 * 512}' "/sys/block/$dev/stat"; }
cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }

setup_sqlite3() {
  python3 -c '
print("create table t(id integer primary key, v text);")
for i in range(300):
    print(f"begin; insert into t(v) values(\"row{i}\"); update t set v=\"u{i}\" where id={i//2+1}; commit;")
' > "$work/tx.sql"
}
run_sqlite3() { "${strace_cmd[@]}" -o "$1" sqlite3 app.db < "$work/tx.sql" > /dev/null; }

setup_tar() {
  mkdir -p "$work/src"
  for d in 1 2 3 4 5 6 7 8; do
    mkdir -p "$work/src/d$d"
    for f in $(seq 1 25); do head -c $((f * 1500)) /dev/urandom > "$work/src/d$d/f$f"; done
  done
  tar cf "$app/tree.tar" -C "$work" src
}
run_tar() { "${strace_cmd[@]}" -o "$1" tar xf tree.tar; }

setup_rrdtool() {
  mkdir -p "$app/rrd"
  for i in $(seq 1 300); do
    echo "create rrd/h$i.rrd --start 1700000000 --step 300 DS:a:GAUGE:600:U:U DS:b:COUNTER:600:U:U RRA:AVERAGE:0.5:1:600 RRA:MAX:0.5:12:700"
  done | (cd "$app" && rrdtool - > /dev/null)
  for t in 1 2 3; do
    for i in $(seq 1 300); do echo "update rrd/h$i.rrd $((1700000000 + 300 * t)):$t:$((t * 10))"; done
  done > "$work/upd.txt"
}
run_rrdtool() { "${strace_cmd[@]}" -o "$1" rrdtool - < "$work/upd.txt" > /dev/null; }

setup_log_writers() { :; }
run_log_writers() {
  "${strace_cmd[@]}" -o "$1" "$bin" run log_writers --target . --threads 4 --duration 0 \
    --ops 4000 --log_writers.flush=fdatasync:50 > /dev/null 2>&1
}

repeats=${REPEATS:-3}
for prog in ${PROGS:-sqlite3 tar rrdtool log_writers}; do
  app=$mnt/$prog
  : > "$out/$prog.original_device"
  # The original, traced, REPEATS times from the same start; the first
  # run's trace is the one replayed.
  for ((k = 0; k < repeats; k++)); do
    rm -rf "$app" "$work/src"
    mkdir -p "$app"
    "setup_$prog"
    cold
    read -r r0 w0 < <(dev_bytes)
    trace=$out/$prog.strace
    ((k == 0)) || trace=$work/again.strace
    (cd "$app" && "run_$prog" "$trace")
    sync
    read -r r1 w1 < <(dev_bytes)
    echo "$((r1 - r0)) $((w1 - w0))" >> "$out/$prog.original_device"
  done
  "$bin" trace summarize "$out/$prog.strace" --under "$app" --format json > "$out/$prog.summary.json"
  threads=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["threads"]))' \
    "$out/$prog.summary.json")
  args=(run replay "--replay.trace=$out/$prog.strace" "--replay.only_under=$app"
        --replay.syncfs_at_end=true "--replay.speed=${SPEED:-original}" --threads "$threads"
        --target "$mnt" --cache drop --format json)
  for ((k = 0; k < repeats; k++)); do
    "$bin" "${args[@]}" --output "$out/$prog.replay$k.json" > /dev/null 2> "$out/$prog.replay.err"
  done
  "${strace_cmd[@]}" -o "$out/$prog.replay.strace" "$bin" "${args[@]}" \
    --output "$out/$prog.replay_traced.json" > /dev/null 2>&1
  rundir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_dir"])' \
    "$out/$prog.replay_traced.json")
  "$bin" trace summarize "$out/$prog.replay.strace" --under "$rundir/copy0" --format json \
    > "$out/$prog.replay_summary.json"
  rm -f "$out/$prog.replay.strace"  # large; the summary keeps the counts
  echo "replay_fidelity: $prog done" >&2
done
python3 "$root/bench/replay_fidelity_table.py" "$out" > "$out/fidelity.md"
cat "$out/fidelity.md"
