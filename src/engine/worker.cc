#include "engine/worker.h"

#include <time.h>

#include <algorithm>
#include <cstring>

#include "iomimic/status.h"
#include "probes/probes.h"

namespace iomimic::engine {
namespace {

std::string Relative(const std::string& path, const std::string& base) {
  if (!base.empty() && path.rfind(base + "/", 0) == 0) return path.substr(base.size() + 1);
  return path;
}

}  // namespace

void Shared::Fail(RunError e) {
  {
    std::lock_guard<std::mutex> lock(error_mu);
    if (!error) error = std::move(e);
  }
  stop->RequestStop();
}

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

DeviceSample SampleDeviceOf(const std::string& path) {
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

Worker::Worker(Shared* shared, int index, size_t op_count)
    : shared_(shared), index_(index), recorder_(op_count) {
  const double rate = shared->settings.rate_per_thread;
  period_ns_ = rate > 0 ? static_cast<uint64_t>(1e9 / rate) : 0;
}

bool Worker::KeepRunning() {
  if (shared_->stop->stop_requested()) return false;
  const uint32_t epoch = shared_->epoch.load(std::memory_order_acquire);
  if (epoch != epoch_) {
    // Warmup is over: forget what was recorded; only this thread touches it.
    recorder_.Reset();
    epoch_ = epoch;
    units_.store(0, std::memory_order_relaxed);
    next_due_ns_ = 0;
  }
  if (const uint32_t tick = shared_->tick.load(std::memory_order_relaxed); tick != tick_) {
    tick_ = tick;
    Deposit();
  }
  if (epoch_ == kMeasureEpoch && shared_->settings.ops != 0) {
    // Past the limit this thread stops, and only this one: others may hold
    // the last claims while they sleep toward a paced slot, and a stop
    // request would wake them into giving up a unit that was counted. Each
    // finds the limit at its next claim; the run ends when all have.
    if (shared_->limited_units.fetch_add(1, std::memory_order_relaxed) >= shared_->settings.ops) {
      return false;
    }
  }
  if (period_ns_ == 0 && shared_->bursts.on_ns == 0) {
    unit_start_ns_ = NowNs();
    units_.store(units_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return true;
  }
  if (!WaitForSlot()) return false;
  units_.store(units_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return true;
}

// Open loop: unit k is due at first + k * period whatever happened before,
// so a stall shows up as latency of the units behind it (coordinated
// omission) instead of silently lowering the rate. Slots that fall in an
// idle part of a burst schedule move to the start of the next burst.
bool Worker::WaitForSlot() {
  const uint64_t now = NowNs();
  if (next_due_ns_ == 0) next_due_ns_ = now;
  uint64_t due = next_due_ns_;
  if (shared_->bursts.on_ns != 0) due = NextBurstStart(due);
  unit_start_ns_ = due;
  next_due_ns_ = due + period_ns_;
  return SleepUntil(due);
}

uint64_t Worker::NextBurstStart(uint64_t t) const {
  const uint64_t origin = shared_->measure_start_ns.load(std::memory_order_relaxed);
  if (origin == 0 || t < origin) return t;
  const uint64_t cycle = shared_->bursts.on_ns + shared_->bursts.off_ns;
  const uint64_t into = (t - origin) % cycle;
  return into < shared_->bursts.on_ns ? t : t + (cycle - into);
}

bool Worker::SleepUntil(uint64_t when_ns) {
  for (uint64_t t = NowNs(); t < when_ns; t = NowNs()) {
    // Sleep in slices so a stop is seen within 50 ms.
    const uint64_t wait = std::min<uint64_t>(when_ns - t, 50'000'000);
    const timespec ts{static_cast<time_t>(wait / 1'000'000'000),
                      static_cast<long>(wait % 1'000'000'000)};
    ::nanosleep(&ts, nullptr);
    if (shared_->stop->stop_requested()) return false;
  }
  return true;
}

void Worker::Deposit() {
  if (shared_->slots.empty() || epoch_ != kMeasureEpoch) return;
  IntervalSlot& slot = shared_->slots[static_cast<size_t>(index_)];
  std::lock_guard<std::mutex> lock(slot.mu);
  recorder_.SnapshotInto(&slot.ops);
  slot.units = units_.load(std::memory_order_relaxed);
}

void Worker::Run(Workload& workload, std::latch& start) {
  start.arrive_and_wait();
  // Without a warmup the phase is already "measure": what the module records
  // before its first KeepRunning() (a walk, a set-up) is kept, not reset.
  epoch_ = shared_->epoch.load(std::memory_order_acquire);
  try {
    workload.RunWorker(*this);
  } catch (...) {
    const bool measuring = epoch_ == kMeasureEpoch;
    uint64_t done = units_.load(std::memory_order_relaxed);
    if (done > 0) --done;  // the unit in progress did not complete
    units_.store(done, std::memory_order_relaxed);
    shared_->Fail(ErrorFrom(std::current_exception(), measuring ? "measure" : "warmup",
                            shared_->run_dir, done));
  }
  if (epoch_ != kMeasureEpoch) {
    // Ended during warmup: nothing of it belongs to the measured phase.
    recorder_.Reset();
    units_.store(0, std::memory_order_relaxed);
  }
  Deposit();
  finish_ns_ = NowNs();
  shared_->finished.fetch_add(1);
  shared_->stop->Notify();
}

}  // namespace iomimic::engine
