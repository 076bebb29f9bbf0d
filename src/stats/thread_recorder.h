// The engine's implementation of iomimic::Recorder: per worker thread, per
// op, a latency Histogram and counters. Lock free because nothing is
// shared: only the owning thread writes, and the engine reads after join.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "iomimic/recorder.h"
#include "stats/histogram.h"

namespace iomimic::stats {

struct OpStats {
  uint64_t count = 0;   // successful ops
  uint64_t errors = 0;  // failed ops
  uint64_t bytes = 0;   // bytes of successful ops
  Histogram latency;    // service time of successful ops
  // Latency from the intended start; allocated on the first RecordPaced().
  std::unique_ptr<Histogram> intended;

  void Add(const OpStats& other);
  void Reset();
  // this = other (histograms copied; `intended` allocated as needed).
  void CopyFrom(const OpStats& other);
  // this -= earlier, an earlier copy of the same stats (interval figures).
  void Subtract(const OpStats& earlier);
};

class ThreadRecorder final : public Recorder {
 public:
  explicit ThreadRecorder(size_t op_count);

  void Record(OpId op, uint64_t start_ns, uint64_t end_ns, uint64_t bytes) override;
  void RecordError(OpId op, uint64_t start_ns, uint64_t end_ns) override;
  void RecordPaced(OpId op, uint64_t intended_ns, uint64_t start_ns, uint64_t end_ns,
                   uint64_t bytes) override;

  // Forget everything (end of warmup). Only the owning thread may call it.
  void Reset();
  // Copies the stats so far into *out (resized to the op count). Only the
  // owning thread may call it; *out is then the caller's to share.
  void SnapshotInto(std::vector<OpStats>* out) const;

  // Hands over pending latencies first, so like Record() it belongs to the
  // owning thread until that thread is joined.
  const std::vector<OpStats>& ops() const {
    Flush();
    return ops_;
  }

 private:
  // Successful latencies wait here and reach the histograms kBatch at a
  // time (see Record() for why); ops() flushes them first.
  struct Pending {
    OpId op;
    uint64_t ns;
  };
  static constexpr size_t kBatch = 64;

  void Flush() const;

  mutable std::vector<OpStats> ops_;
  mutable Pending pending_[kBatch] = {};
  mutable size_t pending_count_ = 0;
};

// What the report shows of one op, merged over threads.
struct LatencySummary {
  uint64_t min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  double mean = 0;
};
LatencySummary Summarize(const Histogram& h);

struct OpSummary {
  std::string name;
  uint64_t count = 0, errors = 0, bytes = 0;
  LatencySummary latency;
  bool paced = false;
  LatencySummary intended;  // valid when paced
};

// Merges the threads' stats op by op; names[i] is op i.
std::vector<OpSummary> MergeThreads(const std::vector<const ThreadRecorder*>& threads,
                                    const std::vector<std::string>& names);


}  // namespace iomimic::stats
