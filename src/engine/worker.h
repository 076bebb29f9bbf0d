// One worker thread of a run, and the state the workers share with the
// main thread.
//
// Thread-safety: a Worker is used by its own thread while it runs; the main
// thread reads it only through the atomics below and after join. The
// per-interval handover goes through IntervalSlot's mutex, once per tick.
#pragma once

#include <atomic>
#include <cstdint>
#include <latch>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/run_result.h"
#include "engine/stop_source.h"
#include "iomimic/workload.h"
#include "stats/thread_recorder.h"

namespace iomimic::engine {

constexpr uint32_t kWarmupEpoch = 0;
constexpr uint32_t kMeasureEpoch = 1;

// Periodic bursts: work for on_ns, idle for off_ns, from the measure start.
struct BurstSchedule {
  uint64_t on_ns = 0;   // 0: no bursts
  uint64_t off_ns = 0;
};

// A worker's cumulative stats as of its last tick, for the interval series.
struct IntervalSlot {
  std::mutex mu;
  std::vector<stats::OpStats> ops;
  uint64_t units = 0;
};

struct Shared {
  StopSource* stop = nullptr;
  RunSettings settings;
  BurstSchedule bursts;
  std::string run_dir;
  std::vector<std::string> extra_dirs;
  std::atomic<uint32_t> epoch{kWarmupEpoch};
  std::atomic<uint64_t> measure_start_ns{0};
  std::atomic<uint32_t> tick{0};  // bumped by the main thread every interval
  std::atomic<uint64_t> limited_units{0};  // only used with an op limit
  std::atomic<int> finished{0};
  std::vector<IntervalSlot> slots;  // one per worker; empty when not ticking

  std::mutex error_mu;
  std::optional<RunError> error;

  // Keeps the first error; later ones are consequences of the stop.
  void Fail(RunError e);
};

// Turns the exception in flight into a RunError.
RunError ErrorFrom(const std::exception_ptr& ep, const std::string& phase,
                   const std::string& run_dir, uint64_t ops_before);

// Counters of the device behind path, now.
DeviceSample SampleDeviceOf(const std::string& path);

class Worker final : public WorkerContext {
 public:
  Worker(Shared* shared, int index, size_t op_count);

  int thread_index() const override { return index_; }
  const RunSettings& settings() const override { return shared_->settings; }
  Recorder& recorder() override { return recorder_; }
  const std::vector<std::string>& extra_dirs() const override { return shared_->extra_dirs; }
  uint64_t IntendedStartNs() const override { return unit_start_ns_; }
  bool Measuring() const override { return epoch_ == kMeasureEpoch; }
  DeviceSample SampleDevice(const std::string& path) const override {
    return SampleDeviceOf(path);
  }
  bool KeepRunning() override;
  bool StopRequested() const override { return shared_->stop->stop_requested(); }
  bool SleepUntil(uint64_t when_ns) override;

  // The thread's body: waits at the start barrier, runs the module.
  void Run(Workload& workload, std::latch& start);

  const stats::ThreadRecorder& stats() const { return recorder_; }
  // Completed units of the measured phase; readable from any thread.
  uint64_t units() const { return units_.load(std::memory_order_relaxed); }
  uint64_t finish_ns() const { return finish_ns_; }

 private:
  bool WaitForSlot();
  uint64_t NextBurstStart(uint64_t t) const;
  void Deposit();

  Shared* shared_;
  int index_;
  stats::ThreadRecorder recorder_;
  uint32_t epoch_ = kWarmupEpoch;
  uint32_t tick_ = 0;
  std::atomic<uint64_t> units_{0};
  uint64_t unit_start_ns_ = 0;
  uint64_t finish_ns_ = 0;
  uint64_t period_ns_ = 0;    // 0: unpaced
  uint64_t next_due_ns_ = 0;  // the next unit's intended start
};

}  // namespace iomimic::engine
