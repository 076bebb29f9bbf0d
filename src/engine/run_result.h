// The immutable outcome of one run: what the reporters render.
//
// Typed where the engine computes it (status, ops, timing); JSON where a
// probe or the module supplies documented, open-ended evidence.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/thread_recorder.h"

namespace iomimic::engine {

struct RunError {
  std::string phase;    // prepare | warmup | measure | cleanup
  std::string op;       // the failed call, e.g. "msync" or "fill (SIGBUS)"
  std::string path;     // relative to the run directory where possible
  int err = 0;          // errno
  std::string message;  // strerror-like text
  uint64_t ops_before = 0;  // units of work completed before it happened
};

struct RunResult {
  std::string module;
  std::string work_unit;  // "cycles", "updates", ...
  std::string status = "failed";  // complete | interrupted | failed
  std::optional<RunError> error;
  // A failure to remove a run directory, even when an earlier error is the
  // run's `error`: files were left behind.
  std::optional<RunError> cleanup_error;
  int signal = 0;  // the signal that interrupted the run, if any
  // The phase the signal arrived in (prepare, warmup, measure, report,
  // cleanup, restore); empty without a signal.
  std::string interrupted_in;
  // --tune: each setting before, as set, and whether it was put back.
  nlohmann::json tunings = nlohmann::json::array();
  // A setting that could not be restored: the machine was left changed.
  std::optional<RunError> restore_error;

  std::string started_at;    // ISO 8601 UTC
  std::string command_line;
  std::string run_dir;
  bool run_dir_kept = false;
  std::vector<std::string> extra_run_dirs;  // created in the module's extra targets

  double duration_s = 0;   // measured phase: first start to last finish
  uint64_t work_units = 0;  // measured units of work over all threads
  uint64_t app_read_bytes = 0, app_write_bytes = 0;
  std::vector<stats::OpSummary> ops;

  nlohmann::json config;  // {"run": {...}, "<module>": {...}} as resolved
  nlohmann::json system;  // probes::SystemInfo()
  nlohmann::json target;  // probes::DescribeTarget()
  nlohmann::json device;  // probes::DiskDelta() or null
  nlohmann::json vmstat;  // probes::VmStatDelta()
  nlohmann::json cpu;     // probes::CpuDelta()
  nlohmann::json layout;  // probes::FileLayout() or null
  nlohmann::json module_report = nlohmann::json::object();
  nlohmann::json devices = nlohmann::json::array();  // every device involved
  nlohmann::json cache;   // ApplyCacheMode()
  nlohmann::json series;  // --interval rows, or null
  nlohmann::json disk_model;  // disk::DiskModelSection(): target on an emulated disk, or null

  std::string clock_source;
  double clock_read_ns = 0;
};

}  // namespace iomimic::engine
