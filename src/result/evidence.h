// The evidence measured around a run: block-device deltas, page-cache and
// CPU figures, file layout, the page-cache state set before measuring, the
// --tune outcome and the --interval series. Filled by probes/ and engine/,
// rendered by report/. Unknown figures are empty optionals (null in JSON).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace iomimic::result {

// /sys/block/NAME/stat after - before.
struct DeviceDelta {
  std::string device;
  uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
  double avg_read_kib = 0, avg_write_kib = 0;
  uint64_t read_merges = 0, write_merges = 0, merges = 0, flushes = 0, discards = 0,
           discard_bytes = 0, read_ticks_ms = 0, write_ticks_ms = 0, io_ticks_ms = 0,
           in_flight_end = 0;
  // Device bytes per application byte; empty when the app moved none that way.
  std::optional<double> bytes_per_app_byte_read, bytes_per_app_byte_write;
  // The device's roles in the run ("target", an extra target's option);
  // empty optional in a series row, which has no roles.
  std::optional<std::vector<std::string>> roles;
};

// /proc/vmstat deltas (counter name -> delta, empty when it went backwards)
// and gauges at the end (name_end -> value), in report order.
struct VmStatDelta {
  std::vector<std::pair<std::string, std::optional<uint64_t>>> counters;
  std::vector<std::pair<std::string, uint64_t>> gauges;
};

// Tasks blocked on I/O and runnable, sampled over the measured phase.
struct GaugeSummary {
  uint64_t samples = 0;
  double procs_blocked_mean = 0, procs_running_mean = 0;
  uint64_t procs_blocked_max = 0;
};

struct ProcessCpu {
  double user_s = 0, sys_s = 0;
  uint64_t minor_faults = 0, major_faults = 0;
  double children_user_s = 0, children_sys_s = 0;
};

// CPU shares of all CPUs together (/proc/stat) and the process's own use.
struct CpuDelta {
  std::optional<double> user_pct, system_pct, iowait_pct, idle_pct, other_pct;
  std::optional<uint64_t> procs_blocked_end;
  ProcessCpu process;
  std::optional<GaugeSummary> gauges;  // whole runs only, not series rows
};

// iomimic's own use over the measured phase, beside the system-wide CPU and
// vmstat figures: getrusage(RUSAGE_SELF) and /proc/self/io.
struct ProcessIo {
  uint64_t rchar = 0, wchar = 0;  // bytes through read/write-like calls, cache or not
  uint64_t syscr = 0, syscw = 0;  // read and write calls
  uint64_t read_bytes = 0, write_bytes = 0;  // bytes fetched from / sent to storage
  uint64_t cancelled_write_bytes = 0;  // dirty bytes truncated or deleted before write-back
};
struct ProcessDelta {
  double user_s = 0, sys_s = 0;
  uint64_t minor_faults = 0, major_faults = 0;
  uint64_t voluntary_switches = 0, involuntary_switches = 0;
  uint64_t max_rss_kib = 0;  // the peak so far, not a delta
  std::optional<ProcessIo> io;  // empty when /proc/self/io cannot be read
};

// The dirty data the workers left, written back once they finished
// (--writeback): syncfs of every filesystem the run wrote, and the device
// counters from the start of the measured phase to its end.
struct WritebackReport {
  std::string mode;  // after | measure | none
  double seconds = 0;
  std::optional<DeviceDelta> device;  // the target's device, with the write-back
  std::vector<DeviceDelta> devices;   // every device, with the write-back
};

struct FileLayoutEntry {
  std::string path;  // relative to the run directory when under it
  // All empty when FIEMAP failed; `error` then says why.
  std::optional<uint64_t> size_bytes, extents, contiguous_runs, min_extent_bytes,
      max_extent_bytes, unwritten_extents;
  std::optional<std::string> error;
};

struct LayoutSummary {
  uint64_t files = 0, errors = 0;
  // Over the files that could be mapped; empty when none could.
  std::optional<uint64_t> extents_total;
  std::optional<double> extents_mean;
  std::optional<uint64_t> extents_max, min_extent_bytes, contiguous_runs_total;
};

struct Layout {
  std::vector<FileLayoutEntry> files;  // the first files_listed files
  uint64_t files_omitted = 0;
  LayoutSummary summary;
};

// What --cache did before the measured phase.
struct CacheReport {
  std::string mode;  // keep | cold | drop
  uint64_t files = 0;
  uint64_t cached_bytes_before = 0, cached_bytes_after = 0;
};

// One --tune setting: before, as set, and whether it was put back.
struct TuningOutcome {
  std::string name, path, before;
  std::optional<std::string> value;  // empty: only recorded (a linked setting)
  bool applied = false, restored = false;
  // Left as found (not restored, not an error): "changed by someone else"
  // when it no longer read what iomimic wrote; `found` is what it read.
  std::optional<std::string> reason, found;
  std::optional<std::string> error;
  int err = 0;  // errno of the failed write, with `error`
};

// One --interval row: the figures of the interval since the previous row.
struct SeriesOp {
  std::string name;
  uint64_t count = 0, errors = 0, bytes = 0;
  uint64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, max_ns = 0;
  double mean_ns = 0;
};
struct SeriesRow {
  double t_s = 0, interval_s = 0;
  uint64_t work_units = 0;
  double units_per_s = 0;
  std::vector<SeriesOp> ops;
  // The target device's deltas: absent without a block device; engaged but
  // empty when a counter went backwards (null in JSON).
  std::optional<std::optional<DeviceDelta>> device;
  CpuDelta cpu;
};

}  // namespace iomimic::result
