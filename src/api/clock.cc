// NowNs(): the clock every recorded op reads twice, so it must be tiny.
//
// With an invariant TSC (cpuinfo flags constant_tsc and nonstop_tsc: the
// counter ticks at a fixed rate in every P- and C-state) a read is rdtsc plus
// a fixed-point multiply, about half the cost of clock_gettime's vDSO path.
// The rate is calibrated once, before main, against CLOCK_MONOTONIC and the
// result is offset so NowNs() reads as CLOCK_MONOTONIC nanoseconds (up to
// drift, which only matters across runs of many hours). Otherwise NowNs() is
// clock_gettime(CLOCK_MONOTONIC).
//
// Thread-safety: g_clock is written once during static initialisation and
// only read afterwards. A NowNs() called by another file's static
// initialiser before that runs sees the constant-initialised state and falls
// back to clock_gettime, which is still correct.
#include <time.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "iomimic/recorder.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define IOMIMIC_HAVE_RDTSC 1
#else
#define IOMIMIC_HAVE_RDTSC 0
#endif

namespace iomimic {
namespace {

// ns = offset + (tsc * mult) >> 64, with mult = ns per tick * 2^64.
// One 64x64->128 bit `mul` whose high half is the answer: no shift, no
// subtraction, and no overflow however long the machine has been up. It
// needs a TSC faster than 1 GHz (ns per tick < 1), true of every CPU with an
// invariant TSC; a slower one keeps clock_gettime. The offset is computed
// mod 2^64 so that NowNs() equals CLOCK_MONOTONIC at calibration.
constexpr uint64_t kCalibrationNs = 20'000'000;  // 20 ms: ~1e-6 rate error

struct TscClock {
  bool use_tsc = false;
  uint64_t offset = 0;
  uint64_t mult = 0;
};

inline uint64_t MulHi(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

constinit TscClock g_clock;

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

#if IOMIMIC_HAVE_RDTSC

bool CpuHasInvariantTsc() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    bool constant = false, nonstop = false;
    for (std::string w; words >> w;) {
      constant |= w == "constant_tsc";
      nonstop |= w == "nonstop_tsc";
    }
    return constant && nonstop;  // the first CPU speaks for all
  }
  return false;  // unreadable /proc: be safe
}

struct ClockPair {
  uint64_t tsc = 0;
  uint64_t ns = 0;
};

// Both clocks at one instant: the TSC is the midpoint of two reads around
// clock_gettime, and the tightest of a few tries is kept, so an interrupt
// between the reads cannot skew the calibration.
ClockPair ReadPair() {
  ClockPair best;
  uint64_t best_window = UINT64_MAX;
  for (int i = 0; i < 8; ++i) {
    const uint64_t t1 = __rdtsc();
    const uint64_t ns = MonotonicNs();
    const uint64_t t2 = __rdtsc();
    if (t2 - t1 < best_window) {
      best_window = t2 - t1;
      best = {t1 + (t2 - t1) / 2, ns};
    }
  }
  return best;
}

TscClock Calibrate() {
  TscClock c;
  if (!CpuHasInvariantTsc()) return c;
  const ClockPair a = ReadPair();
  while (MonotonicNs() - a.ns < kCalibrationNs) {
  }
  const ClockPair b = ReadPair();
  if (b.tsc <= a.tsc || b.ns <= a.ns) return c;  // a TSC that did not move
  // (b.ns - a.ns) is ~2^25 ns, so shifted by 64 it still fits in 128 bits.
  const unsigned __int128 mult =
      (static_cast<unsigned __int128>(b.ns - a.ns) << 64) / (b.tsc - a.tsc);
  if (mult == 0 || mult > UINT64_MAX) return c;  // TSC <= 1 GHz: keep clock_gettime
  c.mult = static_cast<uint64_t>(mult);
  c.offset = b.ns - MulHi(b.tsc, c.mult);
  c.use_tsc = true;
  return c;
}

#else

TscClock Calibrate() { return {}; }

#endif

// Runs before main in any program that links NowNs(), since both live here.
[[maybe_unused]] const bool g_calibrated = [] {
  g_clock = Calibrate();
  return true;
}();

}  // namespace

uint64_t NowNs() {
#if IOMIMIC_HAVE_RDTSC
  if (g_clock.use_tsc) [[likely]] return g_clock.offset + MulHi(__rdtsc(), g_clock.mult);
#endif
  return MonotonicNs();
}

const char* ClockSource() { return g_clock.use_tsc ? "tsc" : "clock_gettime"; }

double ClockReadCostNs() {
  constexpr int kCalls = 100'000;
  uint64_t sink = 0;
  const uint64_t begin = MonotonicNs();
  for (int i = 0; i < kCalls; ++i) sink += NowNs();
  const uint64_t end = MonotonicNs();
  // Use the sum so the loop cannot be dropped.
  asm volatile("" : : "r"(sink));
  return static_cast<double>(end - begin) / kCalls;
}

}  // namespace iomimic
