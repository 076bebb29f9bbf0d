// CpuBurner: spends a given amount of CPU time, the same on every machine.
//
// A compiler's work is CPU work, not wall time: at make -j4 on two CPUs each
// compile takes twice as long on the clock but the same CPU time. So the
// burn is a fixed number of iterations of a dependent integer loop, and
// Calibrate() measures at start how many iterations one microsecond of
// thread CPU time holds (CLOCK_THREAD_CPUTIME_ID, best of several rounds,
// so a busy machine does not make the burn shorter). Burn() is then pure
// computation: under contention it stretches, as a compiler would.
// Thread-safe after Calibrate(): Burn() only reads.
#pragma once

#include <cstdint>

namespace iomimic::build_tree {

class CpuBurner {
 public:
  // Measures iterations per microsecond of CPU time; takes ~50 ms.
  void Calibrate();
  // Spins for about `ns` of CPU time (0: returns at once).
  void Burn(uint64_t ns) const;
  double iterations_per_us() const { return iters_per_ns_ * 1000.0; }

 private:
  double iters_per_ns_ = 0;
};

}  // namespace iomimic::build_tree
