// Probes read the system around a run and never change it.
//
// All readers of /proc and /sys are best-effort: what cannot be read is
// reported as null/"unknown" in the JSON, never guessed and never fatal.
// Results are JSON objects because they go straight into the report; the
// field names are the documented schema (docs/report-schema.md).
// Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace iomimic::probes {

// --- system (kernel, cpus, memory) -----------------------------------------
// {"kernel": "6.18.44", "hostname": ..., "cpus": 2, "cpu_model": "...",
//  "memory_bytes": N, "page_size": 4096,
//  "thp": {"enabled": "madvise", "defrag": "..."}, "vm": {"dirty_ratio": 20, ...}}
nlohmann::json SystemInfo();

// --- target: filesystem, mount, block device ---------------------------------
// The mount that holds `path` (longest mount point prefix in
// /proc/self/mountinfo), and the whole-disk block device behind it: a
// partition resolves to its disk, a loop device reports its backing file.
// {"path", "fs_type", "mount_point", "mount_source", "mount_options",
//  "fs": {"block_size": 4096, ...geometry where known},
//  "device": null | {"name": "loop0", "major", "minor", "partition": "sda1"|null,
//     "backing_file": "/x.img"|null, "size_bytes",
//     "queue": {"scheduler", "nr_requests", "read_ahead_kb", "max_sectors_kb",
//               "rotational", "logical_block_size"}}}
nlohmann::json DescribeTarget(const std::string& path);

// The sysfs name ("loop0", "sda") of the whole disk behind `path`, or "" if
// none (tmpfs, FUSE, overlay without a device).
std::string BlockDeviceOf(const std::string& path);

// --- block device counters (/sys/block/NAME/stat) ----------------------------
struct DiskCounters {
  bool valid = false;
  uint64_t reads = 0, read_merges = 0, read_sectors = 0, read_ticks_ms = 0;
  uint64_t writes = 0, write_merges = 0, write_sectors = 0, write_ticks_ms = 0;
  uint64_t in_flight = 0, io_ticks_ms = 0, time_in_queue_ms = 0;
  uint64_t discards = 0, discard_merges = 0, discard_sectors = 0, discard_ticks_ms = 0;
  uint64_t flushes = 0, flush_ticks_ms = 0;
};
DiskCounters ReadDiskCounters(const std::string& device_name);
// Deltas after-before: {"device", "reads", "writes", "read_bytes", "write_bytes",
//  "avg_read_kib", "avg_write_kib", "read_merges", "write_merges", "flushes",
//  "io_ticks_ms", "device_bytes_per_app_byte": {"read": x|null, "write": y|null}}
// where the ratio is device bytes / application bytes (null when the app
// moved no bytes that way).
nlohmann::json DiskDelta(const std::string& device_name, const DiskCounters& before,
                         const DiskCounters& after, uint64_t app_read_bytes,
                         uint64_t app_write_bytes);

// --- page cache and memory (/proc/vmstat) ------------------------------------
struct VmStat {
  bool valid = false;
  std::vector<std::pair<std::string, uint64_t>> values;  // all counters, file order
};
VmStat ReadVmStat();
// Deltas of the counters that explain page-cache behaviour: pgfault,
// pgmajfault, pgpgin, pgpgout, pswpin, pswpout, thp_file_alloc,
// thp_file_mapped, thp_fault_alloc, nr_dirtied, nr_written, workingset_refault_file,
// pgscan_*, pgsteal_*, plus the gauges nr_dirty/nr_writeback at the end.
nlohmann::json VmStatDelta(const VmStat& before, const VmStat& after);

// --- CPU (/proc/stat) and the process (getrusage) ----------------------------
struct CpuTimes {
  bool valid = false;
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
           steal = 0;  // jiffies summed over CPUs
  uint64_t procs_blocked = 0;  // gauge at read time
  uint64_t procs_running = 0;  // gauge at read time
  double process_user_s = 0, process_sys_s = 0;  // this process (RUSAGE_SELF)
  // Children waited for (RUSAGE_CHILDREN): forked jobs of a module.
  double children_user_s = 0, children_sys_s = 0;
  uint64_t process_minflt = 0, process_majflt = 0;
};
CpuTimes ReadCpuTimes();
// {"user_pct", "system_pct", "iowait_pct", "idle_pct", "other_pct",
//  "procs_blocked_end", "process": {"user_s", "sys_s", "minor_faults", "major_faults"}}
nlohmann::json CpuDelta(const CpuTimes& before, const CpuTimes& after);

// --- page cache residency --------------------------------------------------
// Bytes of the file that are in the page cache now (mincore), or nullopt if
// it cannot be told (not a regular file, no permission).
std::optional<uint64_t> CachedBytes(const std::string& path);

// --- file layout (FIEMAP) -----------------------------------------------------
// {"files": [{"path", "size_bytes", "extents", "contiguous_runs",
//             "min_extent_bytes", "max_extent_bytes", "unwritten_extents",
//             "error": null|"..."}],
//  "summary": {"files", "extents_total", "extents_mean", "extents_max",
//              "min_extent_bytes", "contiguous_runs_total"}}
// "contiguous_runs" counts extents after merging the ones that are physically
// adjacent (what a reader of the disk would see as one seek-free run).
// Paths are reported relative to `base` when they lie under it. Only the
// first `max_listed` files are listed one by one ("files_listed",
// "files_omitted"); the summary covers every file, so 100,000 files cost
// no per-file memory.
nlohmann::json FileLayout(const std::vector<std::string>& files, const std::string& base,
                          size_t max_listed = SIZE_MAX);

}  // namespace iomimic::probes
