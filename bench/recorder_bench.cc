// The recorder's cost per op: what iomimic adds to every system call it
// times. Budget: two clock reads plus a histogram insert in 25 ns, a small
// fraction of the cheapest syscall a module wraps (~100 ns for a cached
// pread). BM_ClockGettime is the baseline the TSC clock has to beat.
#include <benchmark/benchmark.h>
#include <time.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "iomimic/recorder.h"
#include "stats/histogram.h"
#include "stats/thread_recorder.h"

namespace iomimic::stats {
namespace {

// Latencies spread like real ones (median 20 us, long tail) so the counter
// touched changes from op to op, as it does in a run.
std::vector<uint64_t> SampleLatencies() {
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> dist(std::log(20'000.0), 1.0);
  std::vector<uint64_t> v(4096);
  for (uint64_t& x : v) x = static_cast<uint64_t>(dist(rng));
  return v;
}

void BM_NowNs(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(NowNs());
  state.SetLabel(ClockSource());
}
BENCHMARK(BM_NowNs);

void BM_ClockGettime(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockGettime);

void BM_HistogramRecord(benchmark::State& state) {
  const std::vector<uint64_t> values = SampleLatencies();
  Histogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.Record(values[i++ & 4095]);
    benchmark::DoNotOptimize(h);
  }
  benchmark::DoNotOptimize(h.count());
}
BENCHMARK(BM_HistogramRecord);

// What a module pays per op outside the syscall: two clock reads and a
// virtual Record(). The pointer is laundered so the call is not devirtualised.
void BM_RecordOneOp(benchmark::State& state) {
  ThreadRecorder thread_recorder(4);
  Recorder* rec = &thread_recorder;
  benchmark::DoNotOptimize(rec);
  for (auto _ : state) {
    const uint64_t start = NowNs();
    const uint64_t end = NowNs();
    rec->Record(1, start, end, 4096);
  }
  benchmark::DoNotOptimize(thread_recorder.ops()[1].count);
}
BENCHMARK(BM_RecordOneOp);

void BM_TimedHelper(benchmark::State& state) {
  ThreadRecorder thread_recorder(4);
  Recorder* rec = &thread_recorder;
  benchmark::DoNotOptimize(rec);
  for (auto _ : state) Timed(*rec, 2, 4096, [] {});
  benchmark::DoNotOptimize(thread_recorder.ops()[2].count);
}
BENCHMARK(BM_TimedHelper);

}  // namespace
}  // namespace iomimic::stats

BENCHMARK_MAIN();
