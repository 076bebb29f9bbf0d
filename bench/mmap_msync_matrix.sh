#!/usr/bin/env bash
# The mmap_msync story side by side: for each filesystem (fresh loop-mounted
# ext4, xfs, btrfs) and each layout (prealloc none, fallocate, write, and
# write + cache drop), N runs of THREADS x 4 MiB for DURATION; prints the
# median and the spread (min-max) of msync p50/p99, MiB/s, extents, average
# device write size and page faults. Needs root (loop mounts); cleans up.
#
#   bench/mmap_msync_matrix.sh [runs=3] [duration=20s] [threads=8]
set -euo pipefail
runs="${1:-3}"; duration="${2:-20s}"; threads="${3:-8}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/release/iomimic"
[[ -x "$bin" ]] || { echo "build first: scripts/setup release" >&2; exit 1; }
work="$(mktemp -d /var/tmp/iomimic-matrix-XXXXXX)"
mnt="$work/mnt"; mkdir -p "$mnt"
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$work"; }
trap cleanup EXIT

configs=("none:keep" "fallocate:keep" "write:keep" "write:drop")
for fs in ext4 xfs btrfs; do
  truncate -s 2G "$work/img"
  case "$fs" in
    ext4) mkfs.ext4 -q -F "$work/img" ;;
    xfs) mkfs.xfs -q -f "$work/img" ;;
    btrfs) mkfs.btrfs -q -f "$work/img" >/dev/null ;;
  esac
  mount -o loop "$work/img" "$mnt"
  for c in "${configs[@]}"; do
    for r in $(seq "$runs"); do
      "$bin" run mmap_msync --target "$mnt" --threads "$threads" --duration "$duration" \
        --mmap_msync.prealloc="${c%%:*}" --mmap_msync.cache_after_prepare="${c##*:}" \
        --quiet --format none --output "$work/$fs-${c/:/-}-$r.json"
    done
  done
  umount "$mnt"; rm -f "$work/img"
done
python3 "$root/bench/summarize_runs.py" "$work"/*.json
