#include "stats/histogram.h"

#include <algorithm>
#include <cmath>

namespace iomimic::stats {

// Tricky maths: the bucket layout (HdrHistogram's, with unit 1 ns).
//
// Bucket 0 holds 0..2047 in 2048 sub-buckets of width 1: exact. Bucket k >= 1
// holds [1024 << k, 2048 << k) in 1024 sub-buckets of width 2^k (its lower
// half would repeat bucket k-1, so it is not stored). For v >= 2048 the
// bucket is k = bit_length(v) - 11, and v >> k lands in [1024, 2048); OR-ing
// 2047 into v before the bit scan makes v < 2048 fall into bucket 0 without a
// branch. Laying the buckets end to end gives
//
//   index(v) = k * 1024 + (v >> k),   k = 53 - clz(v | 2047)
//
// which is contiguous: bucket 0 fills 0..2047, bucket k fills
// (k+1)*1024 .. (k+2)*1024-1. kHighestNs = 2^43 is bucket 33, index 34,816.
//
// Error bound: a value v in bucket k >= 1 is >= 1024 * 2^k and shares its
// counter with values up to 2^k - 1 above it, so reporting the highest
// equivalent value overstates v by less than v / 1024 (< 0.1%: 3 significant
// digits). Below 2048 the error is 0.
namespace {

constexpr int kSubBucketHalfMagnitude = 10;  // 1024 sub-buckets per half
constexpr uint64_t kSubBucketMask = 2047;

inline size_t CountsIndex(uint64_t v) {
  const int bucket = 53 - __builtin_clzll(v | kSubBucketMask);
  return (static_cast<size_t>(bucket) << kSubBucketHalfMagnitude) + (v >> bucket);
}

// The largest value that CountsIndex() maps to index i.
uint64_t HighestEquivalent(size_t i) {
  if (i <= kSubBucketMask) return i;
  const int bucket = static_cast<int>(i >> kSubBucketHalfMagnitude) - 1;
  const uint64_t sub = i - (static_cast<size_t>(bucket) << kSubBucketHalfMagnitude);
  return ((sub + 1) << bucket) - 1;
}

uint64_t LowestEquivalent(size_t i) {
  if (i <= kSubBucketMask) return i;
  const int bucket = static_cast<int>(i >> kSubBucketHalfMagnitude) - 1;
  const uint64_t sub = i - (static_cast<size_t>(bucket) << kSubBucketHalfMagnitude);
  return sub << bucket;
}

constexpr size_t kCountsLen = 34817;  // CountsIndex(kHighestNs) + 1
static_assert((33u << kSubBucketHalfMagnitude) + (Histogram::kHighestNs >> 33) + 1 == kCountsLen);

}  // namespace

Histogram::Histogram() : counts_(kCountsLen, 0) {}

void Histogram::Record(uint64_t value_ns) {
  // Raw min/max/sum so they are exact even for overflowed values.
  min_ = std::min(min_, value_ns);
  max_ = std::max(max_, value_ns);
  sum_ += value_ns;
  ++total_;
  if (value_ns > kHighestNs) [[unlikely]] {
    ++overflow_;
    value_ns = kHighestNs;
  }
  ++counts_[CountsIndex(value_ns)];
}

void Histogram::Add(const Histogram& other) {
  if (other.total_ == 0) return;
  for (size_t i = 0; i < kCountsLen; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  overflow_ += other.overflow_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

void Histogram::Subtract(const Histogram& earlier) {
  if (earlier.total_ == 0) return;
  for (size_t i = 0; i < kCountsLen; ++i) counts_[i] -= earlier.counts_[i];
  total_ -= earlier.total_;
  overflow_ -= earlier.overflow_;
  sum_ -= earlier.sum_;
  if (total_ == 0) {
    min_ = UINT64_MAX;
    max_ = 0;
    return;
  }
  size_t lo = 0, hi = kCountsLen - 1;
  while (counts_[lo] == 0) ++lo;
  while (counts_[hi] == 0) --hi;
  min_ = std::max(min_, LowestEquivalent(lo));
  max_ = std::min(max_, HighestEquivalent(hi));
}

void Histogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = 0;
  overflow_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
}

uint64_t Histogram::min() const { return total_ == 0 ? 0 : min_; }
uint64_t Histogram::max() const { return max_; }
double Histogram::mean() const {
  return total_ == 0 ? 0.0 : static_cast<double>(static_cast<long double>(sum_) / total_);
}

uint64_t Histogram::ValueAtPercentile(double p) const {
  if (total_ == 0) return 0;
  if (!(p > 0)) return min_;  // also catches NaN
  if (p >= 100) return max_;
  // The rank is ceil(p% of total). p usually comes from a decimal literal
  // (99.9) that binary floating point cannot hold exactly: 99.9 / 100 * 1e6
  // lands a hair above 999000, and a plain ceil would step one rank too far.
  // Shaving a relative 1e-12 absorbs that noise and no real fraction.
  const long double exact = static_cast<long double>(p) / 100 * total_;
  uint64_t rank = static_cast<uint64_t>(std::ceil(exact - exact * 1e-12L));
  rank = std::clamp<uint64_t>(rank, 1, total_);
  uint64_t seen = 0;
  for (size_t i = CountsIndex(std::min(min_, kHighestNs)); i < kCountsLen; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(HighestEquivalent(i), max_);
  }
  return max_;  // unreachable while counts_ and total_ agree
}

}  // namespace iomimic::stats
