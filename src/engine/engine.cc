#include "engine/engine.h"

#include <time.h>

#include <algorithm>
#include <latch>
#include <mutex>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/run_dir.h"
#include "iomimic/status.h"
#include "probes/probes.h"
#include "stats/thread_recorder.h"

namespace iomimic::engine {
namespace {

constexpr uint32_t kWarmupEpoch = 0;
constexpr uint32_t kMeasureEpoch = 1;

std::string Relative(const std::string& path, const std::string& base) {
  if (!base.empty() && path.rfind(base + "/", 0) == 0) return path.substr(base.size() + 1);
  return path;
}

std::string NowIso8601() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(now)), ms);
}

// State the workers share with the main thread for one run.
struct Shared {
  StopSource* stop = nullptr;
  RunSettings settings;
  std::string run_dir;
  std::atomic<uint32_t> epoch{kWarmupEpoch};
  std::atomic<uint64_t> limited_units{0};  // only used with an op limit
  std::atomic<int> finished{0};

  std::mutex error_mu;
  std::optional<RunError> error;

  // Keeps the first error; later ones are consequences of the stop.
  void Fail(RunError e) {
    {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::move(e);
    }
    stop->RequestStop();
  }
};

RunError ErrorFrom(const std::exception_ptr& ep, const std::string& phase,
                   const std::string& run_dir, uint64_t ops_before) {
  RunError e;
  e.phase = phase;
  e.ops_before = ops_before;
  try {
    std::rethrow_exception(ep);
  } catch (const SysError& err) {
    e.op = err.op();
    e.path = Relative(err.path(), run_dir);
    e.err = err.err();
    e.message = std::strerror(err.err());
  } catch (const std::exception& err) {
    e.op = "internal";
    e.message = err.what();
  } catch (...) {
    e.op = "internal";
    e.message = "unknown exception";
  }
  return e;
}

DeviceSample Sample(const std::string& path) {
  DeviceSample s;
  s.device = probes::BlockDeviceOf(path);
  if (s.device.empty()) return s;
  const probes::DiskCounters c = probes::ReadDiskCounters(s.device);
  if (!c.valid) return s;
  s.valid = true;
  s.reads = c.reads;
  s.writes = c.writes;
  s.read_bytes = c.read_sectors * 512;
  s.write_bytes = c.write_sectors * 512;
  s.flushes = c.flushes;
  return s;
}

class Worker final : public WorkerContext {
 public:
  Worker(Shared* shared, int index, size_t op_count)
      : shared_(shared), index_(index), recorder_(op_count) {
    const double rate = shared->settings.rate_per_thread;
    period_ns_ = rate > 0 ? static_cast<uint64_t>(1e9 / rate) : 0;
  }

  int thread_index() const override { return index_; }
  const RunSettings& settings() const override { return shared_->settings; }
  Recorder& recorder() override { return recorder_; }
  uint64_t IntendedStartNs() const override { return unit_start_ns_; }
  DeviceSample SampleDevice(const std::string& path) const override { return Sample(path); }

  bool KeepRunning() override {
    if (shared_->stop->stop_requested()) return false;
    const uint32_t epoch = shared_->epoch.load(std::memory_order_acquire);
    if (epoch != epoch_) {
      // Warmup is over: forget what was recorded; only this thread touches it.
      recorder_.Reset();
      epoch_ = epoch;
      units_ = 0;
    }
    if (epoch_ == kMeasureEpoch && shared_->settings.ops != 0) {
      if (shared_->limited_units.fetch_add(1, std::memory_order_relaxed) >= shared_->settings.ops) {
        shared_->stop->RequestStop();
        return false;
      }
    }
    ++units_;
    if (period_ns_ == 0) {
      unit_start_ns_ = NowNs();
      return true;
    }
    if (WaitForSlot()) return true;
    --units_;  // stopped while waiting: this unit never started
    return false;
  }

  void Run(Workload& workload, std::latch& start) {
    start.arrive_and_wait();
    try {
      workload.RunWorker(*this);
    } catch (...) {
      const bool measuring = epoch_ == kMeasureEpoch;
      if (units_ > 0) --units_;  // the unit in progress did not complete
      shared_->Fail(ErrorFrom(std::current_exception(), measuring ? "measure" : "warmup",
                              shared_->run_dir, units_));
    }
    if (epoch_ != kMeasureEpoch) {
      // Ended during warmup: nothing of it belongs to the measured phase.
      recorder_.Reset();
      units_ = 0;
    }
    finish_ns_ = NowNs();
    shared_->finished.fetch_add(1);
    shared_->stop->Notify();
  }

  // Open loop: unit k is due at first + k * period whatever happened
  // before, so a stall shows up as latency of the units behind it
  // (coordinated omission) instead of silently lowering the rate.
  bool WaitForSlot() {
    const uint64_t now = NowNs();
    if (next_due_ns_ == 0) next_due_ns_ = now;
    unit_start_ns_ = next_due_ns_;
    next_due_ns_ += period_ns_;
    for (uint64_t t = now; t < unit_start_ns_; t = NowNs()) {
      // Sleep in slices so a stop is seen within 50 ms.
      const uint64_t wait = std::min<uint64_t>(unit_start_ns_ - t, 50'000'000);
      const timespec ts{static_cast<time_t>(wait / 1'000'000'000),
                        static_cast<long>(wait % 1'000'000'000)};
      ::nanosleep(&ts, nullptr);
      if (shared_->stop->stop_requested()) return false;
    }
    return true;
  }

  const stats::ThreadRecorder& stats() const { return recorder_; }
  uint64_t units() const { return units_; }
  uint64_t finish_ns() const { return finish_ns_; }

 private:
  Shared* shared_;
  int index_;
  stats::ThreadRecorder recorder_;
  uint32_t epoch_ = kWarmupEpoch;
  uint64_t units_ = 0;
  uint64_t unit_start_ns_ = 0;
  uint64_t finish_ns_ = 0;
  uint64_t period_ns_ = 0;    // 0: unpaced
  uint64_t next_due_ns_ = 0;  // the next unit's intended start
};

class Prep final : public PrepareContext {
 public:
  explicit Prep(Shared* shared) : shared_(shared) {}
  const std::string& run_dir() const override { return shared_->run_dir; }
  const RunSettings& settings() const override { return shared_->settings; }
  bool StopRequested() const override { return shared_->stop->stop_requested(); }
  DeviceSample SampleDevice(const std::string& path) const override { return Sample(path); }

 private:
  Shared* shared_;
};

struct Snapshot {
  probes::DiskCounters disk;
  probes::VmStat vm;
  probes::CpuTimes cpu;
};

Snapshot TakeSnapshot(const std::string& device) {
  Snapshot s;
  if (!device.empty()) s.disk = probes::ReadDiskCounters(device);
  s.vm = probes::ReadVmStat();
  s.cpu = probes::ReadCpuTimes();
  return s;
}

// A run over 100,000 files must not write a 20 MB report: the summary
// covers every file, the per-file list the first kMaxListedFiles.
constexpr size_t kMaxListedFiles = 1000;
void LimitListedFiles(nlohmann::json* layout) {
  if (!layout->is_object() || !layout->contains("files")) return;
  auto& files = (*layout)["files"];
  const size_t total = files.size();
  if (total > kMaxListedFiles) {
    files.erase(files.begin() + kMaxListedFiles, files.end());
  }
  (*layout)["files_listed"] = files.size();
  (*layout)["files_omitted"] = total - files.size();
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

RunResult Engine::Run(const std::string& module_name, Workload& workload) {
  Shared shared;
  shared.stop = stop_;
  shared.settings.threads = static_cast<int>(config_.threads);
  shared.settings.duration_ns = config_.duration_ns;
  shared.settings.ops = static_cast<uint64_t>(config_.ops);
  shared.settings.seed = static_cast<uint64_t>(config_.seed);
  shared.settings.rate_per_thread = config_.rate;

  if (std::string why = workload.Validate(shared.settings); !why.empty()) throw UsageError(why);
  const std::string target =
      CheckTarget(config_.target, config_.space_check ? workload.Footprint(shared.settings) : 0,
                  config_.space_check ? config_.min_free : 0);

  RunResult result;
  result.module = module_name;
  result.work_unit = workload.WorkUnit();
  result.started_at = NowIso8601();
  result.system = probes::SystemInfo();
  result.target = probes::DescribeTarget(target);
  result.clock_source = stats::ClockSource();
  result.clock_read_ns = stats::ClockReadCostNs();

  shared.run_dir = CreateRunDir(target, module_name);
  result.run_dir = shared.run_dir;
  const std::string device = probes::BlockDeviceOf(shared.run_dir);
  const std::vector<std::string> op_names = workload.OpNames();

  // --- prepare (untimed) ---
  try {
    Prep prep(&shared);
    workload.Prepare(prep);
  } catch (...) {
    shared.Fail(ErrorFrom(std::current_exception(), "prepare", shared.run_dir, 0));
  }

  // --- warmup and measure ---
  Snapshot before, after;
  uint64_t measure_start_ns = 0;
  std::vector<std::unique_ptr<Worker>> workers;
  if (!stop_->stop_requested()) {
    for (int i = 0; i < shared.settings.threads; ++i) {
      workers.push_back(std::make_unique<Worker>(&shared, i, op_names.size()));
    }
    std::latch start(shared.settings.threads + 1);
    std::vector<std::thread> threads;
    for (auto& w : workers) {
      threads.emplace_back([&workload, &start, worker = w.get()] { worker->Run(workload, start); });
    }
    const auto all_finished = [&] { return shared.finished.load() == shared.settings.threads; };
    if (config_.warmup_ns == 0) {
      shared.epoch.store(kMeasureEpoch, std::memory_order_release);
      before = TakeSnapshot(device);
      measure_start_ns = NowNs();
      start.arrive_and_wait();
    } else {
      start.arrive_and_wait();
      stop_->WaitUntil(std::chrono::steady_clock::now() + std::chrono::nanoseconds(config_.warmup_ns),
                       all_finished);
      before = TakeSnapshot(device);
      measure_start_ns = NowNs();
      shared.epoch.store(kMeasureEpoch, std::memory_order_release);
    }
    const auto deadline = config_.duration_ns == 0
                              ? std::chrono::steady_clock::time_point::max()
                              : std::chrono::steady_clock::now() +
                                    std::chrono::nanoseconds(config_.duration_ns);
    stop_->WaitUntil(deadline, all_finished);
    stop_->RequestStop();
    for (auto& t : threads) t.join();
    after = TakeSnapshot(device);

    uint64_t last_finish = measure_start_ns;
    std::vector<const stats::ThreadRecorder*> recorders;
    for (const auto& w : workers) {
      last_finish = std::max(last_finish, w->finish_ns());
      result.work_units += w->units();
      recorders.push_back(&w->stats());
    }
    result.duration_s = static_cast<double>(last_finish - measure_start_ns) / 1e9;
    result.ops = stats::MergeThreads(recorders, op_names);
  }

  const auto reads = workload.AppReadOps();
  const auto writes = workload.AppWriteOps();
  for (const auto& op : result.ops) {
    if (Contains(reads, op.name)) result.app_read_bytes += op.bytes;
    if (Contains(writes, op.name)) result.app_write_bytes += op.bytes;
  }
  if (!device.empty() && before.disk.valid && after.disk.valid) {
    result.device = probes::DiskDelta(device, before.disk, after.disk, result.app_read_bytes,
                                      result.app_write_bytes);
  }
  if (before.vm.valid && after.vm.valid) result.vmstat = probes::VmStatDelta(before.vm, after.vm);
  if (before.cpu.valid && after.cpu.valid) result.cpu = probes::CpuDelta(before.cpu, after.cpu);

  // --- evidence that needs the files, then cleanup ---
  try {
    result.layout = probes::FileLayout(workload.Files(), shared.run_dir);
    LimitListedFiles(&result.layout);
    result.module_report = workload.Report();
  } catch (...) {
    shared.Fail(ErrorFrom(std::current_exception(), "report", shared.run_dir, result.work_units));
  }
  result.run_dir_kept = config_.keep;
  if (!config_.keep) {
    try {
      RemoveRunDir(shared.run_dir);
    } catch (...) {
      shared.Fail(
          ErrorFrom(std::current_exception(), "cleanup", shared.run_dir, result.work_units));
    }
  }

  result.error = shared.error;
  result.signal = stop_->signal();
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
