// The engine owns a run: checks the target, creates the run directory,
// runs the phases prepare -> warmup -> measure -> cleanup, enforces the stop
// condition, catches workers' errors, and always returns a RunResult marked
// complete, interrupted or failed.
//
// Threading: Run() is called on the main thread; it starts settings.threads
// workers behind a start barrier and joins them before returning.
#pragma once

#include <cstdint>
#include <string>

#include "engine/run_result.h"
#include "engine/stop_source.h"
#include "engine/tunings.h"
#include "iomimic/options.h"
#include "iomimic/workload.h"

namespace iomimic::engine {

struct RunState;

struct EngineConfig {
  // Where the run directory is created. Default: $TMPDIR or /tmp.
  std::string target;
  // Worker threads. Default: 1. REQUIRES: 1..1024.
  int64_t threads = 1;
  // Measured phase length; 0 = until the op count or the module's work is done.
  uint64_t duration_ns = 10ull * 1000 * 1000 * 1000;
  // Total units of work to measure (over all threads); 0 = no limit.
  int64_t ops = 0;
  // Unmeasured time before the measured phase.
  uint64_t warmup_ns = 0;
  // Units of work per second per thread, open loop; 0 = unthrottled.
  double rate = 0;
  // Periodic bursts: work for burst_on, idle for burst_off (both 0: off).
  uint64_t burst_on_ns = 0;
  uint64_t burst_off_ns = 0;
  // Page cache at the start of the measured phase: keep | cold | drop.
  std::string cache = "keep";
  // Time series interval; 0 = no series.
  uint64_t interval_ns = 0;
  // A live progress line on stderr (the CLI decides: a terminal, not --quiet).
  bool progress = false;
  bool quiet = false;
  // Dirty data when the workers finish: after | measure | none (see
  // DeclareEngineOptions). Default: after, the measured phase unchanged.
  std::string writeback = "after";
  // Keep the run directory afterwards.
  bool keep = false;
  // Seed for the module's random choices.
  int64_t seed = 1;
  // Free space that must remain on the target after the run's footprint.
  uint64_t min_free = 64ull << 20;
  // Refuse a run whose footprint would not fit. Off only to reproduce a full
  // filesystem on purpose (ENOSPC, SIGBUS on a store into a hole).
  bool space_check = true;
  // System settings changed for the run and restored afterwards:
  // "queue.read_ahead_kb=4096,vm.dirty_ratio=5" (engine/tunings.h).
  std::string tune;
};

// Binds the engine's options (no section: --threads, threads = ...).
void DeclareEngineOptions(OptionSet& options, EngineConfig* config);

class Engine {
 public:
  Engine(EngineConfig config, StopSource* stop) : config_(std::move(config)), stop_(stop) {}

  // What Run() checks before it writes anything: the options against the
  // module, the target and extra targets (room for the footprint), the
  // tunings against the kernel's files. Throws UsageError; writes nothing.
  // A sweep checks every point with it before the first point runs.
  struct Checked {
    RunSettings settings;
    std::string target;  // canonical
    std::vector<ExtraTarget> extras;
    std::vector<std::string> extra_canonical;
    std::vector<TuningRequest> tunings;
    // Only the module's KnownFootprint() was checked up front: the free
    // space is guarded while measuring.
    bool guard_free_space = false;
  };
  Checked Check(const std::string& module_name, Workload& workload) const;

  // Throws UsageError before anything is written if the target is refused.
  // Every failure after that is inside the returned result.
  RunResult Run(const std::string& module_name, Workload& workload);

 private:
  void Announce(const std::string& what) const;
  // The phases of Run(), in order (engine.cc).
  void DescribeRun(const std::string& module_name, Workload& workload, const std::string& target,
                   RunResult* result) const;
  bool CreateRunDirs(const std::string& module_name, const Checked& checked,
                     RunState* state) const;
  void FindDevices(const std::vector<ExtraTarget>& extras, RunState* state) const;
  void PrepareFiles(Workload& workload, RunState* state) const;
  void Cleanup(RunState* state) const;
  void Restore(RunState* state) const;
  void Conclude(RunState* state) const;

  EngineConfig config_;
  StopSource* stop_;
};

}  // namespace iomimic::engine
