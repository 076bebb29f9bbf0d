#!/usr/bin/env bash
# The stories on an emulated slow disk (docs/emulated-disk.md, the module
# READMEs' "On a slow disk" tables). Each story runs with `run --disk`, so
# every run gets a fresh scratch disk that is removed afterwards. Reports go
# to OUT/*.json; bench/disk_stories_table.py turns them into the tables.
# Needs root. Release build.
#
#   bench/disk_stories.sh rrd|log_writers|mmap_msync [out=/var/tmp/iomimic-stories] [repeat=2]
set -euo pipefail
story="$1"; out="${2:-/var/tmp/iomimic-stories}"; repeat="${3:-2}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/release/iomimic"
[[ -x "$bin" ]] || { echo "build first: scripts/setup release" >&2; exit 1; }
mkdir -p "$out"
run() { "$bin" run "$@" --repeat "$repeat" --format none; }

case "$story" in
  rrd)  # story B: read_ahead_kb 256 vs 2048 (vfs.read_max 8 vs 64 x 32 KiB) on hdd-2006
    for access in pread mmap_random; do
      run rrd_update --disk hdd-2006 --disk_fs ext4 --rrd_update.files=250 \
        --rrd_update.data_sources=32 --rrd_update.cache=cold --rrd_update.passes=2 \
        --rrd_update.access="$access" --sweep queue.read_ahead_kb=256,2048 \
        --output "$out/rrd-$access.json"
    done ;;
  log_writers)  # scheduler x nr_requests x flush policy on hdd-7200
    for profile in gateway-per-record-flush gateway-flush-16; do
      for sched in none mq-deadline bfq; do
        # 40G: the engine's footprint estimate for an unbounded run; sparse.
        # Inode tables initialised by mkfs, not by ext4lazyinit during the run.
        run "$root/workloads/log_writers/profiles/$profile.ini" --disk hdd-7200 --disk_fs ext4 \
          --disk_size 40G --disk_mkfs_opts "-E lazy_itable_init=0,lazy_journal_init=0" \
          --ops 0 --duration 15s --tune queue.scheduler="$sched" \
          --sweep queue.nr_requests=4,128 --output "$out/log-$profile-$sched.json"
      done
    done ;;
  mmap_msync)  # ftruncate (holes) vs dd prefill on hdd-7200
    for profile in customer-ftruncate fix-dd-prefill; do
      run "$root/workloads/mmap_msync/profiles/$profile.ini" --disk hdd-7200 --disk_fs ext4 \
        --duration 20s --output "$out/mmap-$profile.json"
    done
    # Threads moving to fresh regions: where xfs fragments the file.
    for prealloc in none write; do
      run "$root/workloads/mmap_msync/profiles/moving-regions.ini" --disk hdd-7200 --disk_fs xfs \
        --mmap_msync.prealloc="$prealloc" --duration 20s --output "$out/mmap-xfs-moving-$prealloc.json"
      # The same with the drive's write cache off: every write pays its seek.
      run "$root/workloads/mmap_msync/profiles/moving-regions.ini" --disk hdd-7200 --disk_fs xfs \
        --disk_set write_cache=off --mmap_msync.prealloc="$prealloc" --duration 20s \
        --output "$out/mmap-xfs-moving-nowc-$prealloc.json"
    done ;;
  *) echo "unknown story $story" >&2; exit 2 ;;
esac
