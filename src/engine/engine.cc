#include "engine/engine.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/cache_control.h"
#include "engine/evidence.h"
#include "engine/measure_phase.h"
#include "engine/run_dir.h"
#include "engine/run_marker.h"
#include "engine/run_state.h"
#include "engine/signal_watcher.h"
#include "engine/tunings.h"
#include "engine/worker.h"
#include "iomimic/status.h"
#include "probes/probes.h"
#include "util/stderr_line.h"

namespace iomimic::engine {
namespace {

std::string NowIso8601() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(now)), ms);
}

class Prep final : public PrepareContext {
 public:
  explicit Prep(Shared* shared) : shared_(shared) {}
  const std::string& run_dir() const override { return shared_->run_dir; }
  const RunSettings& settings() const override { return shared_->settings; }
  const std::vector<std::string>& extra_dirs() const override { return shared_->extra_dirs; }
  bool StopRequested() const override { return shared_->stop->stop_requested(); }
  DeviceSample SampleDevice(const std::string& path) const override {
    return SampleDeviceOf(path);
  }
  void Info(const std::string& line) const override {
    if (!shared_->settings.quiet) PrintErr("iomimic: {}\n", line);
  }

 private:
  Shared* shared_;
};

void CheckConfig(const EngineConfig& c) {
  if (c.interval_ns != 0 && c.interval_ns < 100'000'000) {
    throw UsageError(fmt::format("invalid value for option 'interval': must be 0 or at least "
                                 "100ms (each tick copies every thread's histograms)"));
  }
  if ((c.burst_on_ns == 0) != (c.burst_off_ns == 0)) {
    throw UsageError("options 'burst_on' and 'burst_off' go together: give both or neither");
  }
  if (c.cache == "drop" && ::geteuid() != 0) {
    throw UsageError("option 'cache' = drop writes /proc/sys/vm/drop_caches and needs root; "
                     "use cache = cold to evict only this run's files");
  }
}

// While it lives, a second signal restores the tunings before the process
// ends; destroyed before the tunings it names.
class ExitHookScope {
 public:
  explicit ExitHookScope(Tunings& tunings) : active_(!tunings.empty()) {
    if (active_) SetExitHook([&tunings] { tunings.Restore(/*quiet=*/false); });
  }
  ~ExitHookScope() {
    if (active_) ClearExitHook();
  }
  ExitHookScope(const ExitHookScope&) = delete;
  ExitHookScope& operator=(const ExitHookScope&) = delete;

 private:
  bool active_;
};

// Puts the settings back and says so in the result; a setting left changed
// fails the run (restore_error), whatever else happened.
void RestoreTunings(Tunings* tunings, bool quiet, RunResult* result) {
  if (tunings->empty()) return;
  tunings->Restore(quiet);
  result->tunings = tunings->Report();
  if (!tunings->restore_failed()) return;
  for (const result::TuningOutcome& t : result->tunings) {
    if (!t.error) continue;
    result->restore_error = RunError{"restore", "write", t.path, t.err, *t.error,
                                     result->work_units};
    break;
  }
}

}  // namespace

// One line per phase on stderr: a user watching a long prepare knows what
// it does, and scripts (and the signal tests) can wait for a phase.
void Engine::Announce(const std::string& what) const {
  if (!config_.quiet) PrintErr("iomimic: {}\n", what);
}

Engine::Checked Engine::Check(const std::string& module_name, Workload& workload) const {
  CheckConfig(config_);
  Checked c;
  c.settings.threads = static_cast<int>(config_.threads);
  c.settings.duration_ns = config_.duration_ns;
  c.settings.ops = static_cast<uint64_t>(config_.ops);
  c.settings.seed = static_cast<uint64_t>(config_.seed);
  c.settings.rate_per_thread = config_.rate;
  c.settings.quiet = config_.quiet;

  if (std::string why = workload.Validate(c.settings); !why.empty()) throw UsageError(why);
  if (config_.warmup_ns != 0 && workload.RunsToCompletion()) {
    // Its work has an end (passes, a build): a warmup would take an
    // unmeasured part of that work, not run it before the measure.
    throw UsageError(fmt::format(
        "option 'warmup' cannot be used with module {}: it runs to completion (its work has an "
        "end, which a warmup would consume unmeasured)",
        module_name));
  }
  // Appends bounded by time: a worst-case estimate would refuse ordinary
  // runs, so only the known part is checked and the rest is guarded.
  const std::optional<uint64_t> known = workload.KnownFootprint(c.settings);
  c.guard_free_space = config_.space_check && known && c.settings.ops == 0;
  const uint64_t footprint = c.guard_free_space ? *known : workload.Footprint(c.settings);
  c.target = CheckTarget(config_.target, config_.space_check ? footprint : 0,
                         config_.space_check ? config_.min_free : 0);
  c.extras = workload.ExtraTargets();
  for (const ExtraTarget& e : c.extras) {
    try {
      c.extra_canonical.push_back(
          e.writes ? CheckTarget(e.path, config_.space_check ? e.footprint : 0,
                                 config_.space_check ? config_.min_free : 0)
                   : CheckReadable(e.path));
    } catch (const UsageError& err) {
      throw UsageError(fmt::format("option '{}.{}': {}", module_name, e.option, err.what()));
    }
  }

  for (size_t i = 0; i < c.extras.size(); ++i) {
    const std::string& ro = c.extra_canonical[i];
    const bool inside = c.target == ro || c.target.rfind(ro + "/", 0) == 0;
    if (!c.extras[i].writes && inside) {
      throw UsageError(fmt::format(
          "target '{}' lies inside '{}' (option '{}.{}'), which iomimic only reads and never "
          "writes into",
          c.target, ro, module_name, c.extras[i].option));
    }
  }

  if (std::string why = ParseTunings(config_.tune, &c.tunings); !why.empty()) {
    throw UsageError(fmt::format("option 'tune': {}", why));
  }
  // Reads the settings only: a setting the kernel does not offer is refused here.
  Tunings probe;
  probe.Resolve(c.tunings, c.target);
  return c;
}

// The phases of a run, in order; each reads and fills the run state.
// Every phase after the tunings are applied runs whatever happened before
// it: a failed prepare still cleans up and restores.
RunResult Engine::Run(const std::string& module_name, Workload& workload) {
  const Checked checked = Check(module_name, workload);
  RunState state;
  state.shared.stop = stop_;
  state.shared.settings = checked.settings;
  state.shared.bursts = {config_.burst_on_ns, config_.burst_off_ns};
  state.guard_free_space = checked.guard_free_space;

  // From here on every change is undone, whatever happens. A value the
  // kernel refuses is the last refusal (Apply undoes the others first).
  stop_->EnterPhase("prepare");
  state.tunings.Resolve(checked.tunings, checked.target);
  // Before Apply: a second signal while it writes waits for it (Restore
  // takes the same lock), then restores what it applied.
  ExitHookScope restore_on_second_signal(state.tunings);
  state.tunings.Apply(config_.quiet);

  DescribeRun(module_name, workload, checked.target, &state.result);
  if (CreateRunDirs(module_name, checked, &state)) {
    FindDevices(checked.extras, &state);
    state.op_names = workload.OpNames();
    PrepareFiles(workload, &state);
    if (!stop_->stop_requested()) MeasurePhase(config_, stop_, workload, &state);
    CounterEvidence(workload, &state);
    stop_->EnterPhase("report");
    FileEvidence(workload, &state);
    Cleanup(&state);
  }
  Restore(&state);
  Conclude(&state);
  return std::move(state.result);
}

void Engine::DescribeRun(const std::string& module_name, Workload& workload,
                         const std::string& target, RunResult* result) const {
  result->module = module_name;
  result->work_unit = workload.WorkUnit();
  result->started_at = NowIso8601();
  result->system = probes::SystemInfo();
  result->target = probes::DescribeTarget(target);
  result->clock_source = ClockSource();
  result->clock_read_ns = ClockReadCostNs();
}

// The run directory, its marker (whose the directories are, and what to put
// back, for `iomimic clean` after a kill -9), and one directory in each
// extra target that is written. False when not even the first could be
// made (no inode, a dead filesystem): nothing was created, nothing to
// clean. A later failure fails the run in prepare, which then removes
// what was made like any failed run.
bool Engine::CreateRunDirs(const std::string& module_name, const Checked& checked,
                           RunState* state) const {
  Shared& shared = state->shared;
  try {
    shared.run_dir = CreateRunDir(checked.target, module_name);
  } catch (...) {
    state->result.error = ErrorFrom(std::current_exception(), "prepare", checked.target, 0);
    return false;
  }
  state->result.run_dir = shared.run_dir;
  state->created = {shared.run_dir};
  state->marker = MarkerOfThisProcess();
  state->marker.started_at = state->result.started_at;
  state->marker.module = module_name;
  const RunMarker extra_marker = state->marker;
  // (The settings are in the journal of the state directory, not here.)
  try {
    WriteRunMarker(shared.run_dir, state->marker);
    for (size_t i = 0; i < checked.extras.size(); ++i) {
      if (checked.extras[i].writes) {
        shared.extra_dirs.push_back(CreateRunDir(checked.extra_canonical[i], module_name));
        state->created.push_back(shared.extra_dirs.back());
        WriteRunMarker(shared.extra_dirs.back(), extra_marker);
      } else {
        shared.extra_dirs.push_back(checked.extra_canonical[i]);
      }
    }
  } catch (...) {
    shared.Fail(ErrorFrom(std::current_exception(), "prepare", shared.run_dir, 0));
  }
  return true;
}

void Engine::FindDevices(const std::vector<ExtraTarget>& extras, RunState* state) const {
  auto add_device = [state](const std::string& path, const std::string& role) {
    const std::string name = probes::BlockDeviceOf(path);
    if (name.empty()) return;
    for (DeviceUse& d : state->devices) {
      if (d.name == name) {
        d.roles.push_back(role);
        return;
      }
    }
    state->devices.push_back({name, {role}, {}, {}, {}});
  };
  add_device(state->shared.run_dir, "target");
  for (size_t i = 0; i < state->shared.extra_dirs.size(); ++i) {
    add_device(state->shared.extra_dirs[i], extras[i].option);
  }
  state->primary_device = probes::BlockDeviceOf(state->shared.run_dir);
}

// Prepare (untimed), then the page cache as asked.
void Engine::PrepareFiles(Workload& workload, RunState* state) const {
  Shared& shared = state->shared;
  if (shared.error) return;
  Announce(fmt::format("prepare: creating the files in {}", Printable(shared.run_dir)));
  try {
    Prep prep(&shared);
    workload.Prepare(prep);
    if (!stop_->stop_requested()) {
      state->result.cache = ApplyCacheMode(config_.cache, workload.CacheFiles(), config_.quiet);
    }
  } catch (...) {
    shared.Fail(ErrorFrom(std::current_exception(), "prepare", shared.run_dir, 0));
  }
}

void Engine::Cleanup(RunState* state) const {
  RunResult& result = state->result;
  result.run_dir_kept = config_.keep;
  if (!config_.keep) {
    stop_->EnterPhase("cleanup");
    Announce(Printable(fmt::format("cleanup: removing {}", fmt::join(state->created, ", "))));
    for (const std::string& dir : state->created) {
      try {
        RemoveRunDir(dir);
      } catch (...) {
        // Kept apart as well: after an earlier error, the report must still
        // say that files were left behind.
        RunError e = ErrorFrom(std::current_exception(), "cleanup", dir, result.work_units);
        if (!result.cleanup_error) result.cleanup_error = e;
        state->shared.Fail(std::move(e));
      }
    }
  }
  for (size_t i = 1; i < state->created.size(); ++i) {
    result.extra_run_dirs.push_back(state->created[i]);
  }
}

void Engine::Restore(RunState* state) const {
  RunResult& result = state->result;
  stop_->EnterPhase("restore");
  RestoreTunings(&state->tunings, config_.quiet, &result);
  if (result.restore_error) {
    state->shared.Fail(*result.restore_error);
  } else if (config_.keep && !state->created.empty()) {
    // A kept directory is the user's now: `clean` neither removes it nor
    // restores its settings again.
    state->marker.tunings = nlohmann::json::array();
    state->marker.kept = true;
    try {
      WriteRunMarker(state->shared.run_dir, state->marker);
    } catch (...) {
      state->shared.Fail(
          ErrorFrom(std::current_exception(), "restore", state->shared.run_dir, result.work_units));
    }
  }
}

void Engine::Conclude(RunState* state) const {
  RunResult& result = state->result;
  if (state->shared.error) result.error = state->shared.error;
  if (result.error && state->measured) {
    result.stop_reason = "error";
  } else if (stop_->signal() != 0 && state->measured) {
    result.stop_reason = "signal";
  }
  result.signal = stop_->signal();
  result.interrupted_in = stop_->signal_phase();
  if (result.error) {
    result.status = RunStatus::kFailed;
  } else if (result.signal != 0) {
    result.status = RunStatus::kInterrupted;
  } else {
    result.status = RunStatus::kComplete;
  }
}

}  // namespace iomimic::engine
