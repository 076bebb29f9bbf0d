#include "cpu_burner.h"

#include <time.h>

#include <algorithm>
#include <atomic>

namespace iomimic::build_tree {
namespace {

// A dependent chain of multiply-adds (an LCG) that the compiler can neither
// vectorise nor remove: the asm barrier makes each step's value observable.
uint64_t Spin(uint64_t iterations, uint64_t x) {
  for (uint64_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x;
}

std::atomic<uint64_t> g_sink{0};

uint64_t ThreadCpuNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

void CpuBurner::Calibrate() {
  // Grow the probe until it lasts >= 5 ms of CPU, then keep the best of 8
  // rounds: the fastest round is the one least disturbed.
  uint64_t n = 1 << 16;
  for (;;) {
    const uint64_t t0 = ThreadCpuNs();
    g_sink.fetch_add(Spin(n, t0), std::memory_order_relaxed);
    if (ThreadCpuNs() - t0 >= 5'000'000 || n >= (1ull << 40)) break;
    n *= 2;
  }
  double best = 0;
  for (int round = 0; round < 8; ++round) {
    const uint64_t t0 = ThreadCpuNs();
    g_sink.fetch_add(Spin(n, t0), std::memory_order_relaxed);
    const uint64_t dt = std::max<uint64_t>(ThreadCpuNs() - t0, 1);
    best = std::max(best, static_cast<double>(n) / static_cast<double>(dt));
  }
  iters_per_ns_ = best;
}

void CpuBurner::Burn(uint64_t ns) const {
  if (ns == 0) return;
  const auto n = static_cast<uint64_t>(static_cast<double>(ns) * iters_per_ns_);
  g_sink.fetch_add(Spin(n, ns), std::memory_order_relaxed);
}

}  // namespace iomimic::build_tree
