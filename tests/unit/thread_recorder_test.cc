// ThreadRecorder counters, merging over threads, pacing, and the clock.
#include "stats/thread_recorder.h"

#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace iomimic::stats {
namespace {

constexpr OpId kRead = 0;
constexpr OpId kWrite = 1;
constexpr OpId kFsync = 2;
const std::vector<std::string> kNames = {"read", "write", "fsync"};

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

TEST(ThreadRecorderTest, CountsBytesAndErrorsPerOp) {
  ThreadRecorder rec(kNames.size());
  Recorder& r = rec;  // as a module sees it
  r.Record(kRead, 1000, 1500, 4096);
  r.Record(kRead, 2000, 2700, 4096);
  r.Record(kWrite, 3000, 3100, 512);
  r.RecordError(kWrite, 4000, 9000);
  r.RecordError(kFsync, 5000, 5001);

  const auto& ops = rec.ops();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[kRead].count, 2u);
  EXPECT_EQ(ops[kRead].bytes, 8192u);
  EXPECT_EQ(ops[kRead].errors, 0u);
  EXPECT_EQ(ops[kRead].latency.min(), 500u);
  EXPECT_EQ(ops[kRead].latency.max(), 700u);
  EXPECT_EQ(ops[kWrite].count, 1u);
  EXPECT_EQ(ops[kWrite].bytes, 512u);
  EXPECT_EQ(ops[kWrite].errors, 1u);
  // Errors are not successes: the failed write's 5000 ns is not in latency.
  EXPECT_EQ(ops[kWrite].latency.count(), 1u);
  EXPECT_EQ(ops[kWrite].latency.max(), 100u);
  EXPECT_EQ(ops[kFsync].count, 0u);
  EXPECT_EQ(ops[kFsync].errors, 1u);
  EXPECT_EQ(ops[kFsync].latency.count(), 0u);
  EXPECT_EQ(ops[kRead].intended, nullptr);
}

TEST(ThreadRecorderTest, EndBeforeStartRecordsZeroNotAHugeValue) {
  ThreadRecorder rec(1);
  rec.Record(0, 5000, 4990, 1);
  rec.RecordPaced(0, 6000, 5000, 4000, 1);
  EXPECT_EQ(rec.ops()[0].latency.max(), 0u);
  EXPECT_EQ(rec.ops()[0].latency.overflow(), 0u);
  ASSERT_NE(rec.ops()[0].intended, nullptr);
  EXPECT_EQ(rec.ops()[0].intended->max(), 0u);
}

TEST(ThreadRecorderTest, PacedLatencyIsKeptApart) {
  ThreadRecorder rec(kNames.size());
  // Intended at 0, started late at 9000 (the previous op overran), took 1000.
  rec.RecordPaced(kWrite, 0, 9000, 10'000, 100);
  rec.RecordPaced(kWrite, 10'000, 10'000, 10'200, 100);
  rec.Record(kRead, 0, 300, 10);

  const OpStats& w = rec.ops()[kWrite];
  EXPECT_EQ(w.count, 2u);
  EXPECT_EQ(w.bytes, 200u);
  EXPECT_EQ(w.latency.min(), 200u);
  EXPECT_EQ(w.latency.max(), 1000u);
  ASSERT_NE(w.intended, nullptr);
  EXPECT_EQ(w.intended->count(), 2u);
  EXPECT_EQ(w.intended->min(), 200u);
  EXPECT_EQ(w.intended->max(), 10'000u);
  EXPECT_EQ(rec.ops()[kRead].intended, nullptr);

  const std::vector<OpSummary> s = MergeThreads({&rec}, kNames);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(s[kWrite].paced);
  EXPECT_FALSE(s[kRead].paced);
  EXPECT_EQ(s[kWrite].latency.max, 1000u);
  EXPECT_EQ(s[kWrite].intended.max, 10'000u);
}

TEST(ThreadRecorderTest, ResetForgetsEverything) {
  ThreadRecorder rec(2);
  rec.Record(0, 0, 10, 1);
  rec.RecordError(1, 0, 10);
  rec.RecordPaced(1, 0, 5, 10, 1);
  rec.Reset();
  for (const OpStats& s : rec.ops()) {
    EXPECT_EQ(s.count, 0u);
    EXPECT_EQ(s.errors, 0u);
    EXPECT_EQ(s.bytes, 0u);
    EXPECT_EQ(s.latency.count(), 0u);
    if (s.intended) {
      EXPECT_EQ(s.intended->count(), 0u);
    }
  }
}

TEST(ThreadRecorderTest, MergeThreadsSumsAndKeepsPercentiles) {
  constexpr int kThreads = 4;
  constexpr int kOpsPerThread = 25'000;
  std::vector<std::unique_ptr<ThreadRecorder>> recs;
  for (int t = 0; t < kThreads; ++t) {
    recs.push_back(std::make_unique<ThreadRecorder>(kNames.size()));
  }
  Histogram all;  // everything in one histogram: what the merge must equal
  std::vector<uint64_t> reads;
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<uint64_t> latency(100, 10'000'000);
  uint64_t write_bytes = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kOpsPerThread; ++i) {
      const uint64_t start = 1'000'000'000ull * t + 20'000'000ull * i;
      const uint64_t lat = latency(rng);
      recs[t]->Record(kRead, start, start + lat, 4096);
      all.Record(lat);
      reads.push_back(lat);
      if (i % 10 == 0) {
        recs[t]->Record(kWrite, start, start + 1, t + 1);
        write_bytes += t + 1;
      }
      if (i % 100 == t) recs[t]->RecordError(kFsync, start, start + 7);
    }
  }
  std::vector<const ThreadRecorder*> ptrs;
  for (const auto& r : recs) ptrs.push_back(r.get());
  const std::vector<OpSummary> s = MergeThreads(ptrs, kNames);

  ASSERT_EQ(s.size(), kNames.size());
  EXPECT_EQ(s[kRead].name, "read");
  EXPECT_EQ(s[kRead].count, uint64_t{kThreads} * kOpsPerThread);
  EXPECT_EQ(s[kRead].bytes, uint64_t{kThreads} * kOpsPerThread * 4096);
  EXPECT_EQ(s[kRead].errors, 0u);
  EXPECT_EQ(s[kWrite].count, uint64_t{kThreads} * kOpsPerThread / 10);
  EXPECT_EQ(s[kWrite].bytes, write_bytes);
  EXPECT_EQ(s[kFsync].count, 0u);
  EXPECT_EQ(s[kFsync].errors, uint64_t{kThreads} * kOpsPerThread / 100);
  EXPECT_FALSE(s[kRead].paced);

  const LatencySummary want = Summarize(all);
  const LatencySummary& got = s[kRead].latency;
  EXPECT_EQ(got.min, *std::min_element(reads.begin(), reads.end()));
  EXPECT_EQ(got.max, *std::max_element(reads.begin(), reads.end()));
  EXPECT_EQ(got.p50, want.p50);
  EXPECT_EQ(got.p90, want.p90);
  EXPECT_EQ(got.p99, want.p99);
  EXPECT_EQ(got.p999, want.p999);
  EXPECT_DOUBLE_EQ(got.mean, want.mean);
  // And against the exact data, to 3 significant digits.
  std::sort(reads.begin(), reads.end());
  const uint64_t exact_p99 = reads[reads.size() * 99 / 100 - 1];
  EXPECT_NEAR(static_cast<double>(got.p99), static_cast<double>(exact_p99), exact_p99 / 1000.0 + 1);
}

TEST(ThreadRecorderTest, MergeOfNoThreadsIsEmpty) {
  const std::vector<OpSummary> s = MergeThreads({}, kNames);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[kFsync].name, "fsync");
  EXPECT_EQ(s[kFsync].count, 0u);
  EXPECT_EQ(s[kFsync].latency.p99, 0u);
}

TEST(ThreadRecorderTest, TimedRecordsSuccessAndError) {
  ThreadRecorder rec(2);
  Timed(rec, 0, 64, [] {});
  EXPECT_THROW(Timed(rec, 1, 64, [] { throw std::runtime_error("EIO"); }), std::runtime_error);
  EXPECT_EQ(rec.ops()[0].count, 1u);
  EXPECT_EQ(rec.ops()[0].bytes, 64u);
  EXPECT_EQ(rec.ops()[1].count, 0u);
  EXPECT_EQ(rec.ops()[1].errors, 1u);
  EXPECT_EQ(rec.ops()[1].bytes, 0u);
}

TEST(ThreadRecorderClockTest, NowNsIsMonotonic) {
  uint64_t prev = NowNs();
  uint64_t backwards = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    const uint64_t now = NowNs();
    if (now < prev) ++backwards;
    prev = now;
  }
  EXPECT_EQ(backwards, 0u) << "clock source " << ClockSource();
}

// A check of the TSC calibration (rate and offset), not a timing target.
TEST(ThreadRecorderClockTest, NowNsAgreesWithClockMonotonic) {
  const uint64_t mono_start = MonotonicNs();
  const uint64_t now_start = NowNs();
  // Roughly CLOCK_MONOTONIC itself, not another epoch.
  EXPECT_NEAR(static_cast<double>(now_start), static_cast<double>(mono_start), 1e6);
  uint64_t mono_end = mono_start;
  while (mono_end - mono_start < 50'000'000) mono_end = MonotonicNs();  // busy, not sleep
  const uint64_t now_end = NowNs();
  const double mono = static_cast<double>(mono_end - mono_start);
  const double now = static_cast<double>(now_end - now_start);
  EXPECT_NEAR(now, mono, mono / 100) << "clock source " << ClockSource();
}

TEST(ThreadRecorderClockTest, SourceAndCostAreReported) {
  const std::string source = ClockSource();
  EXPECT_TRUE(source == "tsc" || source == "clock_gettime") << source;
  const double cost = ClockReadCostNs();
  EXPECT_GT(cost, 0.0);
  EXPECT_LT(cost, 100'000.0);  // sanity only: the bench measures it properly
}

}  // namespace
}  // namespace iomimic::stats
