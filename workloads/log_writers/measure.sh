#!/bin/bash
# Measures log_writers profiles on fresh 1 GiB loop-mounted ext4 and xfs
# images under /var/tmp, as README.md "Measured here" reports. Root only.
#
#   measure.sh matrix RUNS PROFILE...        each profile RUNS times on ext4 and xfs
#   measure.sh sched RUNS FS PROFILE         the profile under every scheduler of the
#                                            loop device x nr_requests 16 and 128
#                                            (SCHEDS="..." NRS="..." to pick)
#
# Every run gets a freshly made filesystem. Prints one markdown row per
# case: medians [min-max] over the runs. Raw JSON reports stay in
# $OUT (default /var/tmp/lw-results-<date>). Everything it sets up (images,
# mounts, loop devices, queue settings) is undone on exit, also on a signal.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${IOMIMIC:-$HERE/../../build/release/iomimic}
OUT=${OUT:-/var/tmp/lw-results-$(date +%Y%m%d-%H%M%S)}
WORK=$(mktemp -d /var/tmp/lw-measure-XXXXXX)
DEV="" MNT="$WORK/mnt" SAVED_SCHED="" SAVED_NR=""
mkdir -p "$OUT" "$MNT"

teardown_fs() {
  if mountpoint -q "$MNT"; then umount "$MNT"; fi
  if [[ -n "$DEV" ]]; then
    local q=/sys/block/$(basename "$DEV")/queue
    [[ -n "$SAVED_SCHED" ]] && echo "$SAVED_SCHED" > "$q/scheduler" || true
    [[ -n "$SAVED_NR" ]] && echo "$SAVED_NR" > "$q/nr_requests" || true
    losetup -d "$DEV"
  fi
  DEV="" SAVED_SCHED="" SAVED_NR=""
  rm -f "$WORK/img"
}
trap 'teardown_fs; rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM

make_fs() {  # make_fs ext4|xfs
  truncate -s 1G "$WORK/img"
  DEV=$(losetup -f --show "$WORK/img")
  local q=/sys/block/$(basename "$DEV")/queue
  SAVED_SCHED=$(sed 's/.*\[\(.*\)\].*/\1/' "$q/scheduler")
  SAVED_NR=$(cat "$q/nr_requests")
  if [[ $1 == ext4 ]]; then mkfs.ext4 -q -b 4096 "$DEV"; else mkfs.xfs -q -f "$DEV"; fi
  mount "$DEV" "$MNT"
}

# run_one NAME PROFILE [extra iomimic options...]: one run, its JSON saved,
# and beside it NAME.sync.json: the device's write requests and bytes from
# before the run to after a syncfs that follows it (the writeback a short
# run leaves behind is counted too), and the load average when it started.
run_one() {
  local name=$1 profile=$2; shift 2
  local stat=/sys/block/$(basename "$DEV")/stat before after load
  load=$(cut -d' ' -f1 /proc/loadavg)
  before=$(cat "$stat")
  "$BIN" run "$profile" --target="$MNT" --output="$OUT/$name.json" --format=none --quiet "$@" \
    >/dev/null
  sync -f "$MNT"
  after=$(cat "$stat")
  python3 - "$before" "$after" "$load" > "$OUT/$name.sync.json" <<'PY'
import json, sys
b, a = [list(map(int, x.split())) for x in sys.argv[1:3]]
writes, sectors = a[4] - b[4], a[6] - b[6]
print(json.dumps({"writes": writes, "write_bytes": sectors * 512,
                  "avg_write_kib": sectors * 512 / 1024 / writes if writes else 0,
                  "load_1m": float(sys.argv[3])}))
PY
}

# summarize CASE JSON...: one markdown row, medians [min-max].
summarize() {
  local label=$1; shift
  python3 - "$label" "$@" <<'PY'
import json, statistics, sys
label, files = sys.argv[1], sys.argv[2:]
rows = []
for f in files:
    j = json.load(open(f))
    rec = j["ops"]["record"]["latency_ns"]
    lay = j["layout"]["summary"]
    dev = j["device"] or {}
    sync = json.load(open(f[:-len(".json")] + ".sync.json"))
    rows.append({
        "rec/s": j["throughput"]["records_per_s"],
        "p50 us": rec["p50"] / 1e3, "p99 us": rec["p99"] / 1e3,
        "ext mean": lay["extents_mean"], "ext max": lay["extents_max"],
        "dev writes": dev.get("writes", 0), "avg KiB": dev.get("avg_write_kib", 0),
        "dev flushes": dev.get("flushes", 0),
        "writes +sync": sync["writes"], "avg KiB +sync": sync["avg_write_kib"],
        "iowait %": (j.get("cpu") or {}).get("iowait_pct", 0),
        "load": sync["load_1m"],
    })
def fmt(v):
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}"
cells = []
for k in rows[0]:
    vs = [r[k] for r in rows]
    m = statistics.median(vs)
    cells.append(fmt(m) if len(vs) == 1 else f"{fmt(m)} [{fmt(min(vs))}–{fmt(max(vs))}]")
print(f"| {label} | " + " | ".join(cells) + " |")
PY
}

HEADER="| rec/s | record p50 µs | record p99 µs | extents/log mean | extents/log max | dev writes | avg dev write KiB | dev flushes | dev writes +sync | avg KiB +sync | iowait % | load |"
SEP="|---|---|---|---|---|---|---|---|---|---|---|---|---|"

case "${1:-}" in
  matrix)
    # Interleaved as below: run i of every profile, then run i + 1.
    runs=$2; shift 2
    for fs in ext4 xfs; do
      for ((i = 1; i <= runs; i++)); do
        for profile in "$@"; do
          make_fs "$fs"; run_one "$fs-$(basename "$profile" .ini)-$i" "$profile"; teardown_fs
        done
      done
    done
    echo "| fs, profile $HEADER"; echo "$SEP"
    for fs in ext4 xfs; do
      for profile in "$@"; do
        p=$(basename "$profile" .ini) files=()
        for ((i = 1; i <= runs; i++)); do files+=("$OUT/$fs-$p-$i.json"); done
        summarize "$fs, $p" "${files[@]}"
      done
    done ;;
  sched)
    # Runs are interleaved (run 1 of every setting, then run 2, ...) so a
    # busy spell of the machine falls on all settings alike. The loop
    # device is made afresh for each run, so settings are set on it each time
    # and restored by teardown_fs.
    runs=$2 fs=$3 profile=$4; p=$(basename "$profile" .ini)
    settings=()
    for sched in ${SCHEDS:-none mq-deadline bfq kyber}; do
      for nr in ${NRS:-16 128}; do settings+=("$sched,$nr"); done
    done
    for ((i = 1; i <= runs; i++)); do
      for s in "${settings[@]}"; do
        sched=${s%,*} nr=${s#*,}
        make_fs "$fs"
        q=/sys/block/$(basename "$DEV")/queue
        echo "$sched" > "$q/scheduler"; echo "$nr" > "$q/nr_requests"
        [[ $(cat "$q/nr_requests") == "$nr" ]] || { echo "nr_requests $nr refused" >&2; exit 1; }
        run_one "sched-$fs-$p-$sched-$nr-$i" "$profile"; teardown_fs
      done
    done
    echo "| $fs $p: scheduler, nr_requests $HEADER"; echo "$SEP"
    for s in "${settings[@]}"; do
      sched=${s%,*} nr=${s#*,}
      files=()
      for ((i = 1; i <= runs; i++)); do files+=("$OUT/sched-$fs-$p-$sched-$nr-$i.json"); done
      summarize "$sched, $nr" "${files[@]}"
    done ;;
  *) sed -n 2,12p "$0"; exit 2 ;;
esac
echo "raw reports: $OUT" >&2
