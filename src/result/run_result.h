// The immutable outcome of one run: what every reporter renders, what
// `compare` and `plot` will read back. Typed throughout; only the module's
// own figures (module_report) are free-form, as each module documents them
// in its README.
//
// Built by engine/ (and the CLI, which adds the command line and config),
// read by report/. Neither depends on the other: both see this folder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/evidence.h"
#include "result/system.h"
#include "stats/thread_recorder.h"

namespace iomimic::result {

enum class RunStatus { kComplete, kInterrupted, kFailed };
// "complete" | "interrupted" | "failed": the report's words.
const char* StatusName(RunStatus status);

struct RunError {
  std::string phase;    // prepare | warmup | measure | report | cleanup | restore
  std::string op;       // the failed call, e.g. "msync" or "fill (SIGBUS)"
  std::string path;     // relative to the run directory where possible
  int err = 0;          // errno
  std::string message;  // strerror-like text
  uint64_t ops_before = 0;  // units of work completed before it happened
};

// Every option as resolved, as text a user could pass back, by section
// ("run", "report", the module's name), in declaration order.
struct ResolvedConfig {
  struct Section {
    std::string name;
    std::vector<std::pair<std::string, std::string>> options;
  };
  std::vector<Section> sections;
  std::string profile;  // the profile file, "" when none
  // The section named `name`, appended when missing.
  Section& section(const std::string& name);
  // Sets an option's value, appending the option (and section) when missing.
  void Set(const std::string& section_name, const std::string& option, const std::string& value);
};

struct RunResult {
  std::string module;
  std::string work_unit;  // "cycles", "updates", ...
  RunStatus status = RunStatus::kFailed;
  std::optional<RunError> error;
  // A failure to remove a run directory, even when an earlier error is the
  // run's `error`: files were left behind.
  std::optional<RunError> cleanup_error;
  int signal = 0;  // the signal that interrupted the run, if any
  // The phase the signal arrived in (prepare, warmup, measure, report,
  // cleanup, restore); empty without a signal.
  std::string interrupted_in;
  // --tune: each setting before, as set, and whether it was put back.
  std::vector<TuningOutcome> tunings;
  // A setting that could not be restored: the machine was left changed.
  std::optional<RunError> restore_error;

  std::string started_at;  // ISO 8601 UTC
  std::string command_line;
  std::string run_dir;
  bool run_dir_kept = false;
  std::vector<std::string> extra_run_dirs;  // created in the module's extra targets

  // Why the measured phase ended: duration | ops | work_done | signal |
  // error | min_free (free space guarded, the figures up to then valid);
  // empty when it never began.
  std::string stop_reason;
  double duration_s = 0;    // measured phase: first start to last finish
  uint64_t work_units = 0;  // measured units of work over all threads
  uint64_t app_read_bytes = 0, app_write_bytes = 0;
  std::vector<stats::OpSummary> ops;

  ResolvedConfig config;
  SystemInfo system;
  TargetInfo target;
  std::optional<DeviceDelta> device;  // the target's device
  std::vector<DeviceDelta> devices;   // every device involved, with roles
  std::optional<VmStatDelta> vmstat;  // system-wide
  std::optional<CpuDelta> cpu;          // system-wide
  std::optional<ProcessDelta> process;  // iomimic's own
  std::optional<WritebackReport> writeback;
  std::optional<Layout> layout;
  std::optional<CacheReport> cache;
  std::optional<std::vector<SeriesRow>> series;  // with --interval
  nlohmann::json module_report = nlohmann::json::object();
  nlohmann::json disk_model;  // disk::DiskModelSection(): target on an emulated disk, or null

  std::string clock_source;
  double clock_read_ns = 0;

  // Derived figures, the same for every reporter.
  uint64_t op_count() const;  // all recorded ops
  double PerSecond(double amount) const { return duration_s > 0 ? amount / duration_s : 0.0; }
};

}  // namespace iomimic::result
