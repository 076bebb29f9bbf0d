#include "engine/measure_phase.h"

#include <algorithm>
#include <chrono>
#include <latch>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "engine/interval_series.h"
#include "evidence/disk_section.h"
#include "iomimic/status.h"
#include "stats/thread_recorder.h"
#include "util/stderr_line.h"

namespace iomimic::engine {
namespace {

using Clock = std::chrono::steady_clock;

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
  result::GaugeSummary Summary() const {
    result::GaugeSummary s;
    s.samples = samples_;
    if (samples_ == 0) return s;
    const double n = static_cast<double>(samples_);
    s.procs_blocked_mean = static_cast<double>(blocked_sum_) / n;
    s.procs_blocked_max = blocked_max_;
    s.procs_running_mean = static_cast<double>(running_sum_) / n;
    return s;
  }

 private:
  uint64_t samples_ = 0, blocked_sum_ = 0, running_sum_ = 0, blocked_max_ = 0;
};

Snapshot TakeSnapshot(std::vector<DeviceUse>* devices, bool after) {
  for (DeviceUse& d : *devices) (after ? d.after : d.before) = probes::ReadDiskCounters(d.name);
  return {probes::ReadVmStat(), probes::ReadCpuTimes()};
}

// The workers of one run, started behind a latch that the main thread
// passes last, so that no worker starts before the clock does.
class WorkerPool {
 public:
  WorkerPool(Shared* shared, size_t op_count) : start_(shared->settings.threads + 1) {
    for (int i = 0; i < shared->settings.threads; ++i) {
      workers_.push_back(std::make_unique<Worker>(shared, i, op_count));
    }
  }

  // Out of threads (ulimit, a pids cgroup): the run fails, and the threads
  // already started are let through the latch to see the stop, so that
  // they are joined and everything is put back.
  void Start(Workload& workload, Shared* shared) {
    for (size_t i = 0; i < workers_.size(); ++i) {
      try {
        threads_.emplace_back(
            [this, &workload, worker = workers_[i].get()] { worker->Run(workload, start_); });
      } catch (const std::system_error& e) {
        shared->Fail(ErrorFrom(std::make_exception_ptr(SysError(
                                   "pthread_create", fmt::format("worker thread {}", i),
                                   e.code().value())),
                               "prepare", shared->run_dir, 0));
        shared->stop->RequestStop();
        start_.count_down(static_cast<std::ptrdiff_t>(workers_.size() - i));
        return;
      }
    }
  }
  void Release() { start_.arrive_and_wait(); }
  void Join() {
    for (auto& t : threads_) t.join();
  }
  const std::vector<std::unique_ptr<Worker>>& workers() const { return workers_; }

 private:
  std::latch start_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
};

class MeasureLoop {
 public:
  MeasureLoop(const EngineConfig& config, StopSource* stop, RunState* state)
      : config_(config), stop_(stop), state_(state) {}

  void Run(Workload& workload);

 private:
  bool AllFinished() const {
    return state_->shared.finished.load() == state_->shared.settings.threads;
  }
  void BeginMeasure() {
    stop_->EnterPhase("measure");
    if (!config_.quiet) PrintErr("iomimic: measure\n");
    state_->before = TakeSnapshot(&state_->devices, false);
    state_->disk_before = disk::ReadDiskStats(config_.target);
    state_->shared.measure_start_ns.store(NowNs());
    state_->shared.epoch.store(kMeasureEpoch, std::memory_order_release);
  }
  void StartAndWarmUp(WorkerPool* pool);
  void WaitForTheEnd(std::optional<IntervalSeries>* series);
  void Collect(const WorkerPool& pool);

  const EngineConfig& config_;
  StopSource* stop_;
  RunState* state_;
  bool ticking_ = false;
};

void MeasureLoop::StartAndWarmUp(WorkerPool* pool) {
  if (config_.warmup_ns == 0) {
    BeginMeasure();
    pool->Release();
    return;
  }
  stop_->EnterPhase("warmup");
  pool->Release();
  stop_->WaitUntil(Clock::now() + std::chrono::nanoseconds(config_.warmup_ns),
                   [this] { return AllFinished(); });
  BeginMeasure();
}

// Sleeps until the deadline, the end of the work, an error or a signal;
// meanwhile samples the gauges and, when ticking, closes intervals.
void MeasureLoop::WaitForTheEnd(std::optional<IntervalSeries>* series) {
  const uint64_t tick_ns = config_.interval_ns != 0 ? config_.interval_ns : 1'000'000'000;
  const auto now = Clock::now();
  const auto deadline = config_.duration_ns == 0
                            ? Clock::time_point::max()
                            : now + std::chrono::nanoseconds(config_.duration_ns);
  auto next_tick = now + std::chrono::nanoseconds(tick_ns);
  auto next_sample = now + kGaugeSamplePeriod;
  bool first_close = true;
  GaugeSampler gauges;
  for (;;) {
    auto wake = std::min(deadline, next_sample);
    if (ticking_) wake = std::min(wake, next_tick);
    stop_->WaitUntil(wake, [this] { return AllFinished(); });
    if (stop_->stop_requested() || AllFinished() || Clock::now() >= deadline) break;
    if (Clock::now() >= next_sample) {
      gauges.Sample();
      next_sample += kGaugeSamplePeriod;
    }
    if (ticking_ && Clock::now() >= next_tick) {
      // Workers hand over at their next unit; close the previous interval
      // now, from what they handed over since the last tick.
      state_->shared.tick.fetch_add(1, std::memory_order_relaxed);
      if (!first_close) (*series)->Close(NowNs());
      first_close = false;
      if (config_.progress) PrintErr("\r{}   ", (*series)->ProgressLine(NowNs()));
      next_tick += std::chrono::nanoseconds(tick_ns);
    }
  }
  state_->gauges = gauges.Summary();
}

void MeasureLoop::Collect(const WorkerPool& pool) {
  RunResult& result = state_->result;
  const uint64_t measure_start_ns = state_->shared.measure_start_ns.load();
  uint64_t last_finish = measure_start_ns;
  std::vector<const stats::ThreadRecorder*> recorders;
  for (const auto& w : pool.workers()) {
    last_finish = std::max(last_finish, w->finish_ns());
    result.work_units += w->units();
    recorders.push_back(&w->stats());
  }
  result.duration_s = static_cast<double>(last_finish - measure_start_ns) / 1e9;
  result.ops = stats::MergeThreads(recorders, state_->op_names);
}

void MeasureLoop::Run(Workload& workload) {
  Shared& shared = state_->shared;
  ticking_ = config_.interval_ns != 0 || config_.progress;
  if (ticking_) shared.slots = std::vector<IntervalSlot>(static_cast<size_t>(config_.threads));
  WorkerPool pool(&shared, state_->op_names.size());
  pool.Start(workload, &shared);
  StartAndWarmUp(&pool);
  std::optional<IntervalSeries> series;
  if (ticking_) {
    series.emplace(state_->op_names, state_->result.work_unit, &shared.slots,
                   state_->primary_device, shared.measure_start_ns.load());
  }
  WaitForTheEnd(&series);
  stop_->RequestStop();
  pool.Join();
  stop_->EnterPhase("report");
  state_->after = TakeSnapshot(&state_->devices, true);
  state_->result.disk_model =
      disk::DiskModelSection(state_->disk_before, disk::ReadDiskStats(config_.target));
  if (series) {
    series->Close(NowNs());
    if (config_.progress) PrintErr("\r{}\n", series->ProgressLine(NowNs()));
    if (config_.interval_ns != 0) state_->result.series = series->rows();
  }
  Collect(pool);
  state_->measured = true;
}

}  // namespace

void MeasurePhase(const EngineConfig& config, StopSource* stop, Workload& workload,
                  RunState* state) {
  MeasureLoop(config, stop, state).Run(workload);
}

}  // namespace iomimic::engine
