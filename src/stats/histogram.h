// A log-linear latency histogram in the manner of HdrHistogram.
//
// Values are integer nanoseconds. Buckets double in width; each is split in
// 2048 linear sub-buckets, so any recorded value is known to within 1/1024
// of itself (3 significant decimal digits) from 1 ns up to kHighestNs
// (~2.4 h). Memory is fixed at construction (34,817 counters, 272 KiB).
// Record() is O(1): a bit scan, a shift and an increment. Values above the
// range are counted in overflow() and recorded as kHighestNs: never fatal.
//
// Not thread-safe: one histogram per (thread, op), merged with Add() after
// the threads joined.
#pragma once

#include <cstdint>
#include <vector>

namespace iomimic::stats {

class Histogram {
 public:
  static constexpr uint64_t kHighestNs = uint64_t{1} << 43;

  Histogram();

  void Record(uint64_t value_ns);
  void Add(const Histogram& other);
  void Reset();
  // This histogram minus an earlier snapshot of the same stream: the values
  // recorded in between (interval figures). min and max become the bucket
  // bounds (within 0.1 %) since exact extremes of a difference are unknown.
  void Subtract(const Histogram& earlier);

  uint64_t count() const { return total_; }
  uint64_t overflow() const { return overflow_; }
  uint64_t min() const;  // 0 when empty
  uint64_t max() const;  // 0 when empty
  double mean() const;   // 0 when empty
  // Smallest recorded value v such that at least p% of values are <= v,
  // reported as the highest value equivalent to its bucket (as HdrHistogram),
  // clamped to max(). p in [0, 100]. 0 when empty.
  uint64_t ValueAtPercentile(double p) const;

 private:
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
  uint64_t overflow_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  // Exact integer sum, for an exact mean: 4x cheaper to add to than a long
  // double, whose conversion goes through memory.
  unsigned __int128 sum_ = 0;
};

}  // namespace iomimic::stats
