#!/usr/bin/env bash
# Calibration of the emulated disk's models with fio (docs/emulated-disk.md):
# for each case, `iomimic disk up` a fresh disk, run fio against its loop
# device (reads) or a file on it (writes), RUNS times; prints the median and
# the spread (min-max) of IOPS, MB/s and mean completion latency, next to
# what the model predicts. The `fast` rows are compared with a loop device
# (direct I/O) over a plain file on the same backing filesystem: the
# difference is what the emulation adds per request.
# Needs root and fio (scripts/setup installs it). Cleans up after itself.
#
#   bench/emulated_disk_calibration.sh [runs=3] [seconds=10] [build=build/release]
set -euo pipefail
runs="${1:-3}"; secs="${2:-10}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${3:-$root/build/release}"
bin="$build/iomimic"
[[ -x "$bin" && -x "$build/iomimic-diskd" ]] || { echo "build first: scripts/setup release" >&2; exit 1; }
work="$(mktemp -d /var/tmp/iomimic-calib-XXXXXX)"
mnt="$work/mnt"
plain_loop=""
cleanup() {
  mountpoint -q "$mnt" && "$bin" disk down --force "$mnt" >/dev/null || true
  [[ -n "$plain_loop" ]] && losetup -d "$plain_loop" || true
  rm -rf "$work"
}
trap cleanup EXIT

# fio JSON -> "iops MB/s clat_mean_us"
fio_run() {  # dev rw bs iodepth [size]
  fio --name=c --filename="$1" --rw="$2" --bs="$3" --iodepth="$4" --ioengine=libaio --direct=1 \
    --runtime="$secs" --time_based --size="${5:-100%}" --output-format=json --randseed=$RANDOM |
    python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
s = j["read"] if j["read"]["io_bytes"] else j["write"]
print("%.1f %.1f %.1f" % (s["iops"], s["bw_bytes"] / 1e6, s["clat_ns"]["mean"] / 1e3))'
}

# Prints one table row: label, then median [min-max] of each column.
summarize() {  # label expected lines...
  local label="$1" expected="$2"; shift 2
  printf '%s\n' "$@" | python3 -c '
import sys, statistics
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
cols = list(zip(*rows))
fmt = lambda c: "%.1f [%.1f-%.1f]" % (statistics.median(c), min(c), max(c))
print("| %s | %s | %s | %s | %s |" % (sys.argv[1], fmt(cols[0]), fmt(cols[1]), fmt(cols[2]), sys.argv[2]))
' "$label" "$expected"
}

up() {  # model [extra args]
  local model="$1"; shift
  "$bin" disk up --model "$model" --size 4G --fs xfs --mount "$mnt" --backing-dir "$work" "$@" >/dev/null
  dev="$(awk -v m="$mnt" '$2==m{print $1}' /proc/mounts)"
}
down() { "$bin" disk down "$mnt" >/dev/null; }

case_rows() {  # label expected model rw bs iodepth size [up args]
  local label="$1" expected="$2" model="$3" rw="$4" bs="$5" qd="$6" size="$7"; shift 7
  local out=()
  for _ in $(seq "$runs"); do
    up "$model" "$@"
    out+=("$(fio_run "$dev" "$rw" "$bs" "$qd" "$size")")
    down
  done
  summarize "$label" "$expected" "${out[@]}"
}

echo "| case | IOPS | MB/s | mean latency (us) | model says |"
echo "|---|---|---|---|---|"
case_rows "hdd-7200 4KiB random read QD1" "~78 IOPS (12.8 ms)" hdd-7200 randread 4k 1 100%
case_rows "hdd-7200 4KiB random read QD8" "~78 IOPS (FIFO, no NCQ)" hdd-7200 randread 4k 8 100%
case_rows "hdd-7200 1MiB sequential read (first 1 GiB)" "~138 MB/s" hdd-7200 read 1M 1 1G
case_rows "hdd-2006 4KiB random read QD1" "~75 IOPS (13.3 ms)" hdd-2006 randread 4k 1 100%
case_rows "hdd-2006 1MiB sequential read (first 1 GiB)" "~60 MB/s" hdd-2006 read 1M 1 1G
case_rows "san-2ms 4KiB random read QD1" "~500 IOPS (2.0 ms)" san-2ms randread 4k 1 100%
case_rows "san-2ms 4KiB random read QD8" "~4000 IOPS" san-2ms randread 4k 8 100%
case_rows "cloud-gp3 4KiB random read QD32" "3000 IOPS cap" cloud-gp3 randread 4k 32 100%
case_rows "cloud-gp3 1MiB sequential read QD8" "131 MB/s (125 MiB/s) cap" cloud-gp3 read 1M 8 100%
case_rows "fast 4KiB random read QD1" "no delay" fast randread 4k 1 100%
case_rows "fast 1MiB sequential read QD1" "no delay" fast read 1M 1 100%

# The same without the emulation: loop (direct I/O) over a plain file.
truncate -s 4G "$work/plain.img"
plain_loop="$(losetup --direct-io=on --find --show "$work/plain.img")"
out=(); for _ in $(seq "$runs"); do out+=("$(fio_run "$plain_loop" randread 4k 1 100%)"); done
summarize "plain loop 4KiB random read QD1 (no FUSE)" "reference" "${out[@]}"
out=(); for _ in $(seq "$runs"); do out+=("$(fio_run "$plain_loop" read 1M 1 100%)"); done
summarize "plain loop 1MiB sequential read QD1 (no FUSE)" "reference" "${out[@]}"
