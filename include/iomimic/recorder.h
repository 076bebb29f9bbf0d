// What a worker thread records its operations into.
//
// One Recorder per worker thread, owned by the engine; it is not
// thread-safe and must only be used by the thread it was handed to. Each op
// is an index into the module's OpNames(). Record() is the hot path: an O(1)
// log-linear histogram insert (3 significant digits, 1 ns .. hours) plus
// counters; bench/recorder_bench.cc measures it.
#pragma once

#include <cstdint>

namespace iomimic {

using OpId = uint16_t;

// Monotonic nanoseconds. Uses the TSC when the CPU says it is constant and
// non-stop (calibrated against CLOCK_MONOTONIC at start), else
// clock_gettime(CLOCK_MONOTONIC): a clock read is most of the cost of
// recording an op, and the TSC is ~2x cheaper on the machines we run on.
uint64_t NowNs();
// Which clock backs NowNs() ("tsc" or "clock_gettime"), and the mean cost
// of one NowNs() in ns, measured once at start.
const char* ClockSource();
double ClockReadCostNs();

class Recorder {
 public:
  virtual ~Recorder() = default;

  // A successful op that started at start_ns and ended at end_ns (NowNs()).
  virtual void Record(OpId op, uint64_t start_ns, uint64_t end_ns, uint64_t bytes) = 0;
  // A failed op: counted as an error, its latency kept apart from successes.
  virtual void RecordError(OpId op, uint64_t start_ns, uint64_t end_ns) = 0;
  // Under a rate or schedule: latency from the intended start as well as the
  // service time (coordinated omission). intended_ns <= start_ns.
  virtual void RecordPaced(OpId op, uint64_t intended_ns, uint64_t start_ns, uint64_t end_ns,
                           uint64_t bytes) = 0;
};

// Times one call and records it; rethrows after recording an error.
// Usage: Timed(rec, kMsync, len, [&] { CheckSys(msync(p, len, MS_SYNC), "msync", path); });
template <typename F>
void Timed(Recorder& rec, OpId op, uint64_t bytes, F&& call) {
  const uint64_t start = NowNs();
  try {
    call();
  } catch (...) {
    rec.RecordError(op, start, NowNs());
    throw;
  }
  rec.Record(op, start, NowNs(), bytes);
}

}  // namespace iomimic
