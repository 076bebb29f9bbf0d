#include "engine/engine.h"

#include <unistd.h>

#include <algorithm>
#include <latch>
#include <map>
#include <system_error>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/cache_control.h"
#include "engine/interval_series.h"
#include "engine/run_dir.h"
#include "engine/run_marker.h"
#include "engine/signal_watcher.h"
#include "engine/tunings.h"
#include "engine/worker.h"
#include "evidence/disk_section.h"
#include "iomimic/status.h"
#include "probes/probes.h"
#include "stats/thread_recorder.h"
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

 private:
  Shared* shared_;
};

// Every block device the run touches, with the roles it plays.
struct DeviceUse {
  std::string name;
  std::vector<std::string> roles;  // "target", or the option of an extra target
  probes::DiskCounters before, after;
};

struct Snapshot {
  probes::VmStat vm;
  probes::CpuTimes cpu;
};

Snapshot TakeSnapshot(std::vector<DeviceUse>* devices, bool after) {
  for (DeviceUse& d : *devices) (after ? d.after : d.before) = probes::ReadDiskCounters(d.name);
  return {probes::ReadVmStat(), probes::ReadCpuTimes()};
}

// Tasks blocked on I/O and runnable tasks are gauges: sampled every
// 100 ms over the measured phase, they tell an I/O-bound run (blocked > 0)
// from a CPU-bound one (running > CPUs) better than the end value.
constexpr auto kGaugeSamplePeriod = std::chrono::milliseconds(100);
class GaugeSampler {
 public:
  void Sample() {
    const probes::CpuTimes t = probes::ReadCpuTimes();
    if (!t.valid) return;
    ++samples_;
    blocked_sum_ += t.procs_blocked;
    running_sum_ += t.procs_running;
    blocked_max_ = std::max(blocked_max_, t.procs_blocked);
  }
  nlohmann::json Summary() const {
    if (samples_ == 0) return {{"gauge_samples", 0}};
    const double n = static_cast<double>(samples_);
    return {{"gauge_samples", samples_},
            {"procs_blocked_mean", static_cast<double>(blocked_sum_) / n},
            {"procs_blocked_max", blocked_max_},
            {"procs_running_mean", static_cast<double>(running_sum_) / n}};
  }

 private:
  uint64_t samples_ = 0, blocked_sum_ = 0, running_sum_ = 0, blocked_max_ = 0;
};

constexpr size_t kMaxListedFiles = 1000;

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

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
  for (const nlohmann::json& t : result->tunings) {
    if (!t.contains("error")) continue;
    result->restore_error = RunError{"restore", "write", t["path"], t["errno"], t["error"],
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

  if (std::string why = workload.Validate(c.settings); !why.empty()) throw UsageError(why);
  if (config_.warmup_ns != 0 && workload.RunsToCompletion()) {
    // Its work has an end (passes, a build): a warmup would take an
    // unmeasured part of that work, not run it before the measure.
    throw UsageError(fmt::format(
        "option 'warmup' cannot be used with module {}: it runs to completion (its work has an "
        "end, which a warmup would consume unmeasured)",
        module_name));
  }
  c.target =
      CheckTarget(config_.target, config_.space_check ? workload.Footprint(c.settings) : 0,
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

RunResult Engine::Run(const std::string& module_name, Workload& workload) {
  const Checked checked = Check(module_name, workload);
  Shared shared;
  shared.stop = stop_;
  shared.settings = checked.settings;
  shared.bursts = {config_.burst_on_ns, config_.burst_off_ns};
  const std::string& target = checked.target;
  const std::vector<ExtraTarget>& extras = checked.extras;
  const std::vector<std::string>& extra_canonical = checked.extra_canonical;

  // From here on every change is undone, whatever happens. A value the
  // kernel refuses is the last refusal (Apply undoes the others first).
  stop_->EnterPhase("prepare");
  Tunings tunings;
  tunings.Resolve(checked.tunings, target);
  // Before Apply: a second signal while it writes waits for it (Restore
  // takes the same lock), then restores what it applied.
  ExitHookScope restore_on_second_signal(tunings);
  tunings.Apply(config_.quiet);

  RunResult result;
  result.module = module_name;
  result.work_unit = workload.WorkUnit();
  result.started_at = NowIso8601();
  result.system = probes::SystemInfo();
  result.target = probes::DescribeTarget(target);
  result.clock_source = stats::ClockSource();
  result.clock_read_ns = stats::ClockReadCostNs();

  try {
    shared.run_dir = CreateRunDir(target, module_name);
  } catch (...) {
    // No inode, a dead filesystem: nothing was created, nothing to clean.
    result.error = ErrorFrom(std::current_exception(), "prepare", target, 0);
    result.status = "failed";
    stop_->EnterPhase("restore");
    RestoreTunings(&tunings, config_.quiet, &result);
    result.signal = stop_->signal();
    result.interrupted_in = stop_->signal_phase();
    return result;
  }
  result.run_dir = shared.run_dir;
  std::vector<std::string> created = {shared.run_dir};
  // Whose the directories are, and what to put back, for `iomimic clean`
  // after a kill -9. A marker that cannot be written fails the run in
  // prepare, which then removes the directory like any failed run.
  RunMarker marker = MarkerOfThisProcess();
  marker.started_at = result.started_at;
  marker.module = module_name;
  const RunMarker extra_marker = marker;
  marker.tunings = tunings.Journal();
  try {
    WriteRunMarker(shared.run_dir, marker);
    for (size_t i = 0; i < extras.size(); ++i) {
      if (extras[i].writes) {
        shared.extra_dirs.push_back(CreateRunDir(extra_canonical[i], module_name));
        created.push_back(shared.extra_dirs.back());
        WriteRunMarker(shared.extra_dirs.back(), extra_marker);
      } else {
        shared.extra_dirs.push_back(extra_canonical[i]);
      }
    }
  } catch (...) {
    shared.Fail(ErrorFrom(std::current_exception(), "prepare", shared.run_dir, 0));
  }

  std::vector<DeviceUse> devices;
  auto add_device = [&](const std::string& path, const std::string& role) {
    const std::string name = probes::BlockDeviceOf(path);
    if (name.empty()) return;
    for (DeviceUse& d : devices) {
      if (d.name == name) {
        d.roles.push_back(role);
        return;
      }
    }
    devices.push_back({name, {role}, {}, {}});
  };
  add_device(shared.run_dir, "target");
  for (size_t i = 0; i < shared.extra_dirs.size(); ++i) {
    add_device(shared.extra_dirs[i], extras[i].option);
  }
  const std::string primary_device = probes::BlockDeviceOf(shared.run_dir);
  const std::vector<std::string> op_names = workload.OpNames();

  // --- prepare (untimed), then the page cache as asked ---
  if (!shared.error) {
    Announce(fmt::format("prepare: creating the files in {}", shared.run_dir));
    try {
      Prep prep(&shared);
      workload.Prepare(prep);
      if (!stop_->stop_requested()) {
        result.cache = ApplyCacheMode(config_.cache, workload.CacheFiles(), config_.quiet);
      }
    } catch (...) {
      shared.Fail(ErrorFrom(std::current_exception(), "prepare", shared.run_dir, 0));
    }
  }

  // --- warmup and measure ---
  Snapshot before, after;
  std::optional<nlohmann::json> disk_before;  // an emulated disk's counters (disk/)
  nlohmann::json gauges_summary = nlohmann::json::object();
  if (!stop_->stop_requested()) {
    const bool ticking = config_.interval_ns != 0 || config_.progress;
    const uint64_t tick_ns = config_.interval_ns != 0 ? config_.interval_ns : 1'000'000'000;
    if (ticking) shared.slots = std::vector<IntervalSlot>(static_cast<size_t>(config_.threads));
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < shared.settings.threads; ++i) {
      workers.push_back(std::make_unique<Worker>(&shared, i, op_names.size()));
    }
    std::latch start(shared.settings.threads + 1);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < workers.size(); ++i) {
      try {
        threads.emplace_back(
            [&workload, &start, worker = workers[i].get()] { worker->Run(workload, start); });
      } catch (const std::system_error& e) {
        // Out of threads (ulimit, a pids cgroup): the run fails, and the
        // threads already started are let through the latch to see the
        // stop, so that they are joined and everything is put back.
        shared.Fail(ErrorFrom(std::make_exception_ptr(SysError("pthread_create", fmt::format(
                                                                   "worker thread {}", i),
                                                               e.code().value())),
                              "prepare", shared.run_dir, 0));
        stop_->RequestStop();
        start.count_down(static_cast<std::ptrdiff_t>(workers.size() - i));
        break;
      }
    }
    const auto all_finished = [&] { return shared.finished.load() == shared.settings.threads; };
    auto begin_measure = [&] {
      stop_->EnterPhase("measure");
      Announce("measure");
      before = TakeSnapshot(&devices, false);
      disk_before = disk::ReadDiskStats(config_.target);
      shared.measure_start_ns.store(NowNs());
      shared.epoch.store(kMeasureEpoch, std::memory_order_release);
    };
    if (config_.warmup_ns == 0) {
      begin_measure();
      start.arrive_and_wait();
    } else {
      stop_->EnterPhase("warmup");
      start.arrive_and_wait();
      stop_->WaitUntil(
          std::chrono::steady_clock::now() + std::chrono::nanoseconds(config_.warmup_ns),
          all_finished);
      begin_measure();
    }
    const uint64_t measure_start_ns = shared.measure_start_ns.load();
    std::optional<IntervalSeries> series;
    if (ticking) {
      series.emplace(op_names, result.work_unit, &shared.slots, primary_device, measure_start_ns);
    }
    const auto now = std::chrono::steady_clock::now();
    const auto deadline = config_.duration_ns == 0
                              ? std::chrono::steady_clock::time_point::max()
                              : now + std::chrono::nanoseconds(config_.duration_ns);
    auto next_tick = now + std::chrono::nanoseconds(tick_ns);
    auto next_sample = now + kGaugeSamplePeriod;
    bool first_close = true;
    GaugeSampler gauges;
    for (;;) {
      auto wake = std::min(deadline, next_sample);
      if (ticking) wake = std::min(wake, next_tick);
      stop_->WaitUntil(wake, all_finished);
      if (stop_->stop_requested() || all_finished() ||
          std::chrono::steady_clock::now() >= deadline) {
        break;
      }
      if (std::chrono::steady_clock::now() >= next_sample) {
        gauges.Sample();
        next_sample += kGaugeSamplePeriod;
      }
      if (ticking && std::chrono::steady_clock::now() >= next_tick) {
        // Workers hand over at their next unit; close the previous interval
        // now, from what they handed over since the last tick.
        shared.tick.fetch_add(1, std::memory_order_relaxed);
        if (!first_close) series->Close(NowNs());
        first_close = false;
        if (config_.progress) PrintErr("\r{}   ", series->ProgressLine(NowNs()));
        next_tick += std::chrono::nanoseconds(tick_ns);
      }
    }
    stop_->RequestStop();
    for (auto& t : threads) t.join();
    stop_->EnterPhase("report");
    after = TakeSnapshot(&devices, true);
    result.disk_model = disk::DiskModelSection(disk_before, disk::ReadDiskStats(config_.target));
    if (series) {
      series->Close(NowNs());
      if (config_.progress) PrintErr("\r{}\n", series->ProgressLine(NowNs()));
      if (config_.interval_ns != 0) result.series = series->rows();
    }

    uint64_t last_finish = measure_start_ns;
    std::vector<const stats::ThreadRecorder*> recorders;
    for (const auto& w : workers) {
      last_finish = std::max(last_finish, w->finish_ns());
      result.work_units += w->units();
      recorders.push_back(&w->stats());
    }
    result.duration_s = static_cast<double>(last_finish - measure_start_ns) / 1e9;
    result.ops = stats::MergeThreads(recorders, op_names);
    gauges_summary = gauges.Summary();
  }

  const auto reads = workload.AppReadOps();
  const auto writes = workload.AppWriteOps();
  for (const auto& op : result.ops) {
    if (Contains(reads, op.name)) result.app_read_bytes += op.bytes;
    if (Contains(writes, op.name)) result.app_write_bytes += op.bytes;
  }
  for (const DeviceUse& d : devices) {
    if (!d.before.valid || !d.after.valid) continue;
    // Application bytes are attributed to the target's device only: a
    // module spreading over devices reports its own split.
    const bool primary = d.name == primary_device;
    nlohmann::json delta = probes::DiskDelta(d.name, d.before, d.after,
                                             primary ? result.app_read_bytes : 0,
                                             primary ? result.app_write_bytes : 0);
    if (delta.is_null()) continue;
    delta["roles"] = d.roles;
    if (primary) result.device = delta;
    result.devices.push_back(std::move(delta));
  }
  if (before.vm.valid && after.vm.valid) result.vmstat = probes::VmStatDelta(before.vm, after.vm);
  if (before.cpu.valid && after.cpu.valid) {
    result.cpu = probes::CpuDelta(before.cpu, after.cpu);
    result.cpu.update(gauges_summary);
  }

  // --- evidence that needs the files, then cleanup ---
  stop_->EnterPhase("report");
  try {
    // A run over 100,000 files must not write a 20 MB report.
    result.layout = probes::FileLayout(workload.Files(), shared.run_dir, kMaxListedFiles);
    result.module_report = workload.Report();
  } catch (...) {
    shared.Fail(ErrorFrom(std::current_exception(), "report", shared.run_dir, result.work_units));
  }
  result.run_dir_kept = config_.keep;
  if (!config_.keep) {
    stop_->EnterPhase("cleanup");
    Announce(fmt::format("cleanup: removing {}", fmt::join(created, ", ")));
    for (const std::string& dir : created) {
      try {
        RemoveRunDir(dir);
      } catch (...) {
        // Kept apart as well: after an earlier error, the report must still
        // say that files were left behind.
        RunError e = ErrorFrom(std::current_exception(), "cleanup", dir, result.work_units);
        if (!result.cleanup_error) result.cleanup_error = e;
        shared.Fail(std::move(e));
      }
    }
  }
  for (size_t i = 1; i < created.size(); ++i) result.extra_run_dirs.push_back(created[i]);
  stop_->EnterPhase("restore");
  RestoreTunings(&tunings, config_.quiet, &result);
  if (result.restore_error) {
    shared.Fail(*result.restore_error);
  } else if (config_.keep) {
    // A kept directory is the user's now: `clean` neither removes it nor
    // restores its settings again.
    marker.tunings = nlohmann::json::array();
    marker.kept = true;
    try {
      WriteRunMarker(shared.run_dir, marker);
    } catch (...) {
      shared.Fail(
          ErrorFrom(std::current_exception(), "restore", shared.run_dir, result.work_units));
    }
  }

  result.error = shared.error;
  result.signal = stop_->signal();
  result.interrupted_in = stop_->signal_phase();
  if (result.error) {
    result.status = "failed";
  } else if (result.signal != 0) {
    result.status = "interrupted";
  } else {
    result.status = "complete";
  }
  return result;
}

}  // namespace iomimic::engine
