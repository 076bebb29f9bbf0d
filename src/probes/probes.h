// Probes read the system around a run and never change it.
//
// All readers of /proc and /sys are best-effort: what cannot be read is an
// empty optional (null in the JSON report), never guessed and never fatal.
// Results are the typed structs of result/ (system.h, evidence.h); their
// JSON names are the documented schema (docs/report-schema.md).
// Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result/evidence.h"
#include "result/system.h"

namespace iomimic::probes {

// --- system (kernel, cpus, memory) -----------------------------------------
result::SystemInfo SystemInfo();

// --- target: filesystem, mount, block device ---------------------------------
// The mount that holds `path` (longest mount point prefix in
// /proc/self/mountinfo), and the whole-disk block device behind it: a
// partition resolves to its disk, a loop device reports its backing file.
// No device for tmpfs, FUSE, overlay.
result::TargetInfo DescribeTarget(const std::string& path);

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
// Deltas after - before, with device bytes per application byte (empty
// when the app moved no bytes that way); nullopt when either read failed
// or a counter went backwards (the device was re-created in between).
std::optional<result::DeviceDelta> DiskDelta(const std::string& device_name, const DiskCounters& before,
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
// Empty when either snapshot is invalid.
result::VmStatDelta VmStatDelta(const VmStat& before, const VmStat& after);

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
// Shares of all CPUs' time (empty when no jiffies passed or a snapshot is
// invalid), and this process's own use (getrusage) over the interval.
result::CpuDelta CpuDelta(const CpuTimes& before, const CpuTimes& after);

// --- this process (getrusage, /proc/self/io) ---------------------------------
struct ProcessCounters {
  bool valid = false;  // getrusage worked
  double user_s = 0, sys_s = 0;
  uint64_t minflt = 0, majflt = 0, nvcsw = 0, nivcsw = 0, maxrss_kib = 0;
  std::optional<result::ProcessIo> io;  // /proc/self/io (all threads), when readable
};
ProcessCounters ReadProcessCounters();
result::ProcessDelta ProcessDelta(const ProcessCounters& before, const ProcessCounters& after);

// --- page cache residency --------------------------------------------------
// Bytes of the file that are in the page cache now (mincore), or nullopt if
// it cannot be told (not a regular file, no permission).
std::optional<uint64_t> CachedBytes(const std::string& path);

// --- file layout (FIEMAP) -----------------------------------------------------
// Per file: size, extents, contiguous runs, smallest and largest extent,
// unwritten extents, or the error FIEMAP met; and a summary. "contiguous
// runs" counts extents after merging the ones that are physically
// adjacent (what a reader of the disk would see as one seek-free run).
// Paths are reported relative to `base` when they lie under it. Only the
// first `max_listed` files are listed one by one (files_omitted counts the
// rest); the summary covers every file, so 100,000 files cost no per-file
// memory.
result::Layout FileLayout(const std::vector<std::string>& files, const std::string& base,
                          size_t max_listed = SIZE_MAX);

}  // namespace iomimic::probes
