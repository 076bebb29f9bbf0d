#!/bin/bash
# Reproduces the "Measured here" tables of README.md. As root.
#
#   measure.sh readahead [IOMIMIC] [RUNS] [FILES]
#       For access pread, mmap and mmap_random, cache=cold, read_ahead_kb 16, 128, 4096:
#       device KiB read per update and seconds per pass, median of RUNS runs
#       (default 3) of FILES files (default 2500), 2 passes each.
#   measure.sh scale [IOMIMIC]
#       Seconds per pass at 2,500 and 100,000 files (pread, warm, 2 passes)
#       and iomimic's maximum RSS (/usr/bin/time -v).
#
# RBPS=BYTES (environment, readahead mode): run iomimic in a fresh cgroup
# whose reads from the loop device are throttled to BYTES per second
# (cgroup v1 blkio.throttle.read_bps_device, or v2 io.max rbps): a device
# whose bandwidth, not its latency, is the limit. The cgroup is removed
# on exit.
#
# Each mode makes a sparse ext4 image under /var/tmp (2 GiB, 12 GiB for
# scale), attaches it to a loop device with direct I/O (so the device's
# reads reach the disk instead of the host's page cache of the image),
# mounts it, and on exit, also on error or Ctrl-C, restores read_ahead_kb,
# unmounts, detaches and removes everything.
set -euo pipefail

MODE=${1:?usage: measure.sh readahead|scale [IOMIMIC] [RUNS] [FILES]}
BIN=${2:-build/release/iomimic}
RUNS=${3:-3}
FILES=${4:-2500}
[ "$(id -u)" = 0 ] || { echo "measure.sh: needs root (loop devices, read_ahead_kb)" >&2; exit 2; }

SIZE=2G
[ "$MODE" = scale ] && SIZE=12G
WORK=$(mktemp -d /var/tmp/rrd-measure-XXXXXX)
LOOP=""
CGROUP=""
RA_FILE=""
RA_ORIG=""
cleanup() {
  [ -n "$RA_FILE" ] && [ -n "$RA_ORIG" ] && echo "$RA_ORIG" > "$RA_FILE" || true
  mountpoint -q "$WORK/mnt" 2>/dev/null && umount "$WORK/mnt" || true
  [ -n "$CGROUP" ] && rmdir "$CGROUP" || true
  [ -n "$LOOP" ] && losetup -d "$LOOP" || true
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

truncate -s "$SIZE" "$WORK/ext4.img"
LOOP=$(losetup --find --show --direct-io=on "$WORK/ext4.img")
mkfs.ext4 -q -F -b 4096 "$LOOP"
mkdir "$WORK/mnt"
mount "$LOOP" "$WORK/mnt"
RA_FILE=/sys/block/$(basename "$LOOP")/queue/read_ahead_kb
RA_ORIG=$(cat "$RA_FILE")
RUN=("$BIN")
if [ -n "${RBPS:-}" ]; then
  MAJMIN=$(cat "/sys/block/$(basename "$LOOP")/dev")
  if [ -d /sys/fs/cgroup/blkio ]; then
    CGROUP=/sys/fs/cgroup/blkio/rrd-measure-$$
    mkdir "$CGROUP"
    echo "$MAJMIN $RBPS" > "$CGROUP/blkio.throttle.read_bps_device"
  else
    CGROUP=/sys/fs/cgroup/rrd-measure-$$
    mkdir "$CGROUP"
    echo "$MAJMIN rbps=$RBPS" > "$CGROUP/io.max"
  fi
  # The child moves itself into the cgroup, then becomes iomimic.
  RUN=(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROUP" "$BIN")
  echo "# reads from $LOOP throttled to $RBPS bytes/s ($CGROUP)" >&2
fi
echo "# $(uname -r), $LOOP (direct I/O) over $WORK/ext4.img, ext4, read_ahead_kb was $RA_ORIG" >&2

# One run; prints: device KiB read per update, device reads per update,
# seconds per pass (each the median over the run's passes).
run_once() {  # access cache files passes [extra...]
  local out="$WORK/report.json"
  "${RUN[@]}" run rrd_update --target="$WORK/mnt" --output="$out" --format=none \
    --rrd_update.access="$1" --rrd_update.cache="$2" --rrd_update.files="$3" \
    --rrd_update.passes="$4" "${@:5}" 2>/dev/null
  python3 - "$out" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["module_report"]["summary"]
print(s["device_read_kib_per_update"]["median"], s["device_reads_per_update"]["median"],
      s["pass_seconds"]["median"])
EOF
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

if [ "$MODE" = readahead ]; then
  echo "| access | read_ahead_kb | device KiB read / update | device reads / update | s / pass | s / pass of each run |"
  echo "|---|---|---|---|---|---|"
  for access in pread mmap mmap_random; do
    for ra in 16 128 4096; do
      echo "$ra" > "$RA_FILE"
      : > "$WORK/runs"
      for _ in $(seq "$RUNS"); do run_once "$access" cold "$FILES" 2 >> "$WORK/runs"; done
      kib=$(cut -d' ' -f1 "$WORK/runs" | median)
      reads=$(cut -d' ' -f2 "$WORK/runs" | median)
      secs=$(cut -d' ' -f3 "$WORK/runs" | median)
      printf "| %s | %s | %.1f | %.2f | %.3f | %s |\n" "$access" "$ra" "$kib" "$reads" "$secs" \
        "$(awk '{printf "%.3f ", $3}' "$WORK/runs")"
    done
  done
elif [ "$MODE" = scale ]; then
  echo "$RA_ORIG" > "$RA_FILE"
  echo "| files | s / pass (pread, warm), each pass | µs / update | device KiB read / update | RSS KiB, first pass start → last pass end | max RSS of the run, KiB |"
  echo "|---|---|---|---|---|---|"
  for files in 2500 100000; do
    /usr/bin/time -v -o "$WORK/time.txt" \
      "$BIN" run rrd_update --target="$WORK/mnt" --output="$WORK/report.json" --format=none \
      --rrd_update.files="$files" --rrd_update.passes=2 --rrd_update.cache=warm 2>/dev/null
    figures=$(python3 - "$WORK/report.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["module_report"]
p = m["passes"]
print("%s | %s | %s | %d → %d" % (
    " ".join("%.3f" % x["seconds"] for x in p),
    " ".join("%.1f" % (x["seconds"] / x["updates"] * 1e6) for x in p),
    " ".join("%.2f" % x["device_read_kib_per_update"] for x in p),
    m["rss_kib"]["first_pass_start"], m["rss_kib"]["last_pass_end"]))
EOF
    )
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
    echo "| $files | $figures | $rss |"
  done
else
  echo "measure.sh: unknown mode '$MODE' (readahead or scale)" >&2
  exit 2
fi
