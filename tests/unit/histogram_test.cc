// Histogram accuracy against exact percentiles of known data sets.
#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace iomimic::stats {
namespace {

constexpr double kPercentiles[] = {50, 90, 99, 99.9, 100};

// The smallest value v of the data such that at least p% of it is <= v,
// counted in integers so no floating point decides the rank.
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double p) {
  const uint64_t n = sorted.size();
  const uint64_t p_tenths = static_cast<uint64_t>(std::llround(p * 10));  // 99.9 -> 999
  uint64_t rank = (p_tenths * n + 999) / 1000;                           // ceil
  rank = std::max<uint64_t>(rank, 1);
  return sorted[rank - 1];
}

void ExpectAccurate(const std::vector<uint64_t>& data) {
  Histogram h;
  for (uint64_t v : data) h.Record(v);
  ASSERT_EQ(h.count(), data.size());
  std::vector<uint64_t> sorted = data;
  std::sort(sorted.begin(), sorted.end());
  for (double p : kPercentiles) {
    const uint64_t exact = ExactPercentile(sorted, p);
    const uint64_t got = h.ValueAtPercentile(p);
    const double diff = std::abs(static_cast<double>(got) - static_cast<double>(exact));
    EXPECT_LE(diff, static_cast<double>(exact) / 1000 + 1)
        << "p" << p << ": exact " << exact << ", histogram " << got;
  }
  EXPECT_EQ(h.min(), sorted.front());
  EXPECT_EQ(h.max(), sorted.back());
  const long double sum = std::accumulate(data.begin(), data.end(), 0.0L);
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(sum / data.size()));
}

TEST(HistogramTest, UniformOneToAMillion) {
  std::vector<uint64_t> data(1'000'000);
  std::iota(data.begin(), data.end(), 1);
  std::shuffle(data.begin(), data.end(), std::mt19937_64(7));
  ExpectAccurate(data);
}

TEST(HistogramTest, LogNormalLatencies) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(std::log(50'000.0), 1.5);  // median 50 us
  std::vector<uint64_t> data(200'000);
  for (uint64_t& v : data) v = static_cast<uint64_t>(dist(rng)) + 1;
  ExpectAccurate(data);
}

TEST(HistogramTest, OneNanosecondToOneHour) {
  constexpr double kHourNs = 3600e9;
  std::mt19937_64 rng(1234);
  std::uniform_real_distribution<double> exponent(0, std::log10(kHourNs));
  std::vector<uint64_t> data(300'000);
  for (uint64_t& v : data) v = static_cast<uint64_t>(std::pow(10.0, exponent(rng)));
  data.push_back(1);
  data.push_back(static_cast<uint64_t>(kHourNs));
  ExpectAccurate(data);
}

TEST(HistogramTest, SmallValuesAreExact) {
  Histogram h;
  for (uint64_t v = 0; v < 2048; ++v) h.Record(v);
  for (uint64_t v = 1; v < 2048; ++v) {
    // v+1 of 2048 values are <= v.
    const double p = 100.0 * static_cast<double>(v + 1) / 2048;
    EXPECT_EQ(h.ValueAtPercentile(p), v) << "p" << p;
  }
}

TEST(HistogramTest, PercentileZeroIsMinAndHundredIsMax) {
  Histogram h;
  h.Record(123'456);
  h.Record(5);
  h.Record(9'999'999);
  EXPECT_EQ(h.ValueAtPercentile(0), 5u);
  EXPECT_EQ(h.ValueAtPercentile(100), 9'999'999u);
  // The top bucket's highest equivalent is clamped to the exact max.
  EXPECT_EQ(h.ValueAtPercentile(99.9), 9'999'999u);
  EXPECT_EQ(h.min(), 5u);
  EXPECT_EQ(h.max(), 9'999'999u);
}

TEST(HistogramTest, OverflowIsCountedAndNotFatal) {
  Histogram h;
  h.Record(Histogram::kHighestNs);
  h.Record(Histogram::kHighestNs + 1);
  h.Record(UINT64_MAX);
  h.Record(10);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.overflow(), 2u);
  EXPECT_EQ(h.max(), UINT64_MAX);  // raw, exact
  EXPECT_EQ(h.ValueAtPercentile(25), 10u);
  EXPECT_GE(h.ValueAtPercentile(50), Histogram::kHighestNs);
}

TEST(HistogramTest, AddEqualsRecordingAllIntoOne) {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<uint64_t> dist(1, 50'000'000);
  Histogram a, b, all;
  for (int i = 0; i < 50'000; ++i) {
    const uint64_t v = dist(rng);
    (i % 3 == 0 ? a : b).Record(v);
    all.Record(v);
  }
  a.Add(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  for (double p : {0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    EXPECT_EQ(a.ValueAtPercentile(p), all.ValueAtPercentile(p)) << "p" << p;
  }
}

TEST(HistogramTest, AddIntoEmpty) {
  Histogram empty, h;
  h.Record(700);
  h.Record(300);
  empty.Add(h);
  EXPECT_EQ(empty.count(), 2u);
  EXPECT_EQ(empty.min(), 300u);
  EXPECT_EQ(empty.max(), 700u);
  EXPECT_DOUBLE_EQ(empty.mean(), 500.0);
}

TEST(HistogramTest, ResetForgetsEverything) {
  Histogram h;
  h.Record(1'000'000);
  h.Record(Histogram::kHighestNs * 2);
  h.Reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.overflow(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.ValueAtPercentile(50), 0u);
  h.Record(42);
  EXPECT_EQ(h.min(), 42u);
  EXPECT_EQ(h.max(), 42u);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 42u);
  EXPECT_DOUBLE_EQ(h.mean(), 42.0);
}

TEST(HistogramTest, EmptyReturnsZero) {
  const Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  for (double p : kPercentiles) EXPECT_EQ(h.ValueAtPercentile(p), 0u);
  EXPECT_EQ(h.ValueAtPercentile(0), 0u);
}

}  // namespace
}  // namespace iomimic::stats

namespace iomimic::stats {
namespace {

// Interval figures come from cumulative snapshots: (A+B) - A must be B.
TEST(HistogramSubtract, DifferenceOfSnapshotsIsTheInterval) {
  Histogram cumulative, interval_only;
  for (uint64_t v = 1; v <= 5000; ++v) cumulative.Record(v * 1000);
  const Histogram snapshot = cumulative;
  for (uint64_t v = 1; v <= 3000; ++v) {
    cumulative.Record(v * 7);
    interval_only.Record(v * 7);
  }
  cumulative.Subtract(snapshot);
  EXPECT_EQ(cumulative.count(), interval_only.count());
  EXPECT_DOUBLE_EQ(cumulative.mean(), interval_only.mean());
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    EXPECT_EQ(cumulative.ValueAtPercentile(p), interval_only.ValueAtPercentile(p)) << p;
  }
  // Extremes are bucket bounds: within 0.1 %.
  EXPECT_NEAR(static_cast<double>(cumulative.min()), 7.0, 1.0);
  EXPECT_NEAR(static_cast<double>(cumulative.max()), 21000.0, 21.0);
  cumulative.Subtract(interval_only);
  EXPECT_EQ(cumulative.count(), 0u);
  EXPECT_EQ(cumulative.ValueAtPercentile(99), 0u);
}

}  // namespace
}  // namespace iomimic::stats
