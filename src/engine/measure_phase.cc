#include "engine/measure_phase.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

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
  return {probes::ReadVmStat(), probes::ReadCpuTimes(), probes::ReadProcessCounters()};
}

// A time-bound run of appends is checked up front only for its known
// footprint (Workload::KnownFootprint): while it measures, the free space
// of each filesystem it writes is read often enough that the next period's
// writes, at the last period's pace, cannot take it below --min_free.
constexpr auto kFreeSpacePeriod = std::chrono::milliseconds(20);

class FreeSpaceGuard {
 public:
  FreeSpaceGuard(const std::vector<std::string>& dirs, uint64_t min_free) : min_free_(min_free) {
    for (const std::string& d : dirs) dirs_.push_back({d, Available(d), 0});
  }
  // True when a filesystem would fall below the margin within one period.
  bool Exhausted() {
    for (Dir& d : dirs_) {
      const uint64_t now = Available(d.path);
      const uint64_t used = d.last > now ? d.last - now : 0;
      d.last = now;
      d.pace = std::max(d.pace, used);
      if (now < min_free_ || now - min_free_ < d.pace) return true;
    }
    return false;
  }

 private:
  struct Dir {
    std::string path;
    uint64_t last, pace;  // available bytes at the last read; most used in a period
  };
  static uint64_t Available(const std::string& dir) {
    struct statvfs v {};
    if (::statvfs(dir.c_str(), &v) != 0) return UINT64_MAX;  // no figure: no stop
    return static_cast<uint64_t>(v.f_bavail) * v.f_frsize;
  }
  uint64_t min_free_;
  std::vector<Dir> dirs_;
};

// syncfs of every filesystem the run wrote (one call per filesystem):
// what the workers left dirty, written back. Throws SysError.
void SyncWrittenFilesystems(const std::vector<std::string>& dirs) {
  std::vector<dev_t> done;
  for (const std::string& dir : dirs) {
    const int fd = CheckSys(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), "open", dir);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && std::find(done.begin(), done.end(), st.st_dev) != done.end()) {
      ::close(fd);
      continue;
    }
    done.push_back(st.st_dev);
    const int rc = ::syncfs(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) throw SysError("syncfs", dir, err);
  }
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
  void WriteBack(bool in_measure);
  // Why the workers ran out of work: their op limit, or the module's end.
  const char* EndReason() const {
    if (!AllFinished()) return "duration";
    return config_.ops != 0 ? "ops" : "work_done";
  }
  void Collect(const WorkerPool& pool);

  const EngineConfig& config_;
  StopSource* stop_;
  RunState* state_;
  bool ticking_ = false;
  uint64_t writeback_end_ns_ = 0;  // with --writeback=measure
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
  auto next_guard = state_->guard_free_space ? now + kFreeSpacePeriod : Clock::time_point::max();
  // Read only when guarding: the constructor reads every filesystem once.
  std::optional<FreeSpaceGuard> guard;
  if (state_->guard_free_space) guard.emplace(state_->created, config_.min_free);
  bool first_close = true;
  GaugeSampler gauges;
  for (;;) {
    auto wake = std::min({deadline, next_sample, next_guard});
    if (ticking_) wake = std::min(wake, next_tick);
    stop_->WaitUntil(wake, [this] { return AllFinished(); });
    if (stop_->stop_requested() || AllFinished() || Clock::now() >= deadline) {
      // A signal or an error: Conclude() names it.
      if (!stop_->stop_requested()) state_->result.stop_reason = EndReason();
      break;
    }
    if (Clock::now() >= next_guard) {
      if (guard->Exhausted()) {
        state_->result.stop_reason = "min_free";
        break;
      }
      next_guard += kFreeSpacePeriod;
    }
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

// --writeback: after a run that ended well (an error or a signal leaves
// nothing worth timing), syncfs what the run wrote. Inside the measured
// phase (measure) the last worker's finish moves to its end; after it, the
// devices are read again for the deltas including the write-back.
void MeasureLoop::WriteBack(bool in_measure) {
  result::WritebackReport report;
  report.mode = config_.writeback;
  if (config_.writeback != "none" && !state_->shared.error && stop_->signal() == 0) {
    const uint64_t start = NowNs();
    try {
      SyncWrittenFilesystems(state_->created);
    } catch (...) {
      state_->shared.Fail(ErrorFrom(std::current_exception(), "writeback",
                                    state_->shared.run_dir, state_->result.work_units));
    }
    const uint64_t end = NowNs();
    report.seconds = static_cast<double>(end - start) / 1e9;
    if (in_measure) writeback_end_ns_ = end;
    if (!in_measure) {
      for (DeviceUse& d : state_->devices) d.after_writeback = probes::ReadDiskCounters(d.name);
    }
  }
  state_->result.writeback = std::move(report);
}

void MeasureLoop::Collect(const WorkerPool& pool) {
  RunResult& result = state_->result;
  const uint64_t measure_start_ns = state_->shared.measure_start_ns.load();
  uint64_t last_finish = std::max(measure_start_ns, writeback_end_ns_);
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
  if (config_.writeback == "measure") WriteBack(/*in_measure=*/true);
  stop_->EnterPhase("report");
  state_->after = TakeSnapshot(&state_->devices, true);
  state_->result.disk_model =
      disk::DiskModelSection(state_->disk_before, disk::ReadDiskStats(config_.target));
  if (config_.writeback != "measure") WriteBack(/*in_measure=*/false);
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
