#include "stats/thread_recorder.h"

#include <cassert>

namespace iomimic::stats {
namespace {

// Clocks read on different cores may disagree by a few ns; an op never takes
// negative time, and a wrapped difference would be an overflow of 2^64 ns.
inline uint64_t Elapsed(uint64_t from_ns, uint64_t to_ns) {
  return to_ns > from_ns ? to_ns - from_ns : 0;
}

}  // namespace

void OpStats::Add(const OpStats& other) {
  count += other.count;
  errors += other.errors;
  bytes += other.bytes;
  latency.Add(other.latency);
  if (other.intended) {
    if (!intended) intended = std::make_unique<Histogram>();
    intended->Add(*other.intended);
  }
}

void OpStats::Reset() {
  count = 0;
  errors = 0;
  bytes = 0;
  latency.Reset();
  // Kept allocated: a paced op stays paced after warmup, and the measured
  // phase should not pay for the allocation.
  if (intended) intended->Reset();
}

void OpStats::CopyFrom(const OpStats& other) {
  count = other.count;
  errors = other.errors;
  bytes = other.bytes;
  latency = other.latency;
  if (other.intended) {
    if (!intended) intended = std::make_unique<Histogram>();
    *intended = *other.intended;
  } else if (intended) {
    intended->Reset();
  }
}

void OpStats::Subtract(const OpStats& earlier) {
  count -= earlier.count;
  errors -= earlier.errors;
  bytes -= earlier.bytes;
  latency.Subtract(earlier.latency);
  if (intended && earlier.intended) intended->Subtract(*earlier.intended);
}

void ThreadRecorder::SnapshotInto(std::vector<OpStats>* out) const {
  Flush();
  out->resize(ops_.size());
  for (size_t i = 0; i < ops_.size(); ++i) (*out)[i].CopyFrom(ops_[i]);
}

ThreadRecorder::ThreadRecorder(size_t op_count) : ops_(op_count) {}

// Why latencies are batched: on the AMD EPYC we measure on, rdtsc does not
// start until every older store knows its address. Recording straight into
// the histogram makes the next op's NowNs() wait for the clock maths and the
// bucket index of this one (the counter's address depends on the latency):
// measured ~5 ns more per op, a fifth of the 25 ns budget. A store to the
// next pending slot has an address known in advance, and the batch of
// histogram inserts in Flush() pipelines.
void ThreadRecorder::Record(OpId op, uint64_t start_ns, uint64_t end_ns, uint64_t bytes) {
  assert(op < ops_.size());
  OpStats& s = ops_[op];
  ++s.count;
  s.bytes += bytes;
  pending_[pending_count_] = {op, Elapsed(start_ns, end_ns)};
  if (++pending_count_ == kBatch) [[unlikely]] Flush();
}

// A failure is only counted: OpStats has no histogram for failed calls, so
// their latency is discarded rather than mixed into the successes'.
void ThreadRecorder::RecordError(OpId op, uint64_t /*start_ns*/, uint64_t /*end_ns*/) {
  assert(op < ops_.size());
  ++ops_[op].errors;
}

void ThreadRecorder::RecordPaced(OpId op, uint64_t intended_ns, uint64_t start_ns, uint64_t end_ns,
                                 uint64_t bytes) {
  assert(op < ops_.size());
  OpStats& s = ops_[op];
  // Allocated once per op and thread, on the first paced op, so unpaced runs
  // do not carry a second 272 KiB histogram per op.
  if (!s.intended) [[unlikely]] s.intended = std::make_unique<Histogram>();
  s.intended->Record(Elapsed(intended_ns, end_ns));
  Record(op, start_ns, end_ns, bytes);
}

void ThreadRecorder::Reset() {
  pending_count_ = 0;
  for (OpStats& s : ops_) s.Reset();
}

void ThreadRecorder::Flush() const {
  for (size_t i = 0; i < pending_count_; ++i) ops_[pending_[i].op].latency.Record(pending_[i].ns);
  pending_count_ = 0;
}

LatencySummary Summarize(const Histogram& h) {
  LatencySummary s;
  s.min = h.min();
  s.p50 = h.ValueAtPercentile(50);
  s.p90 = h.ValueAtPercentile(90);
  s.p99 = h.ValueAtPercentile(99);
  s.p999 = h.ValueAtPercentile(99.9);
  s.max = h.max();
  s.mean = h.mean();
  return s;
}

std::vector<OpSummary> MergeThreads(const std::vector<const ThreadRecorder*>& threads,
                                    const std::vector<std::string>& names) {
  std::vector<OpSummary> out;
  out.reserve(names.size());
  OpStats merged;  // reused op by op: one histogram's worth of memory
  for (size_t op = 0; op < names.size(); ++op) {
    merged.Reset();
    bool paced = false;
    for (const ThreadRecorder* t : threads) {
      if (t == nullptr || op >= t->ops().size()) continue;
      const OpStats& s = t->ops()[op];
      paced |= s.intended != nullptr;
      merged.Add(s);
    }
    OpSummary& r = out.emplace_back();
    r.name = names[op];
    r.count = merged.count;
    r.errors = merged.errors;
    r.bytes = merged.bytes;
    r.latency = Summarize(merged.latency);
    r.paced = paced;
    if (paced) r.intended = Summarize(*merged.intended);
  }
  return out;
}

}  // namespace iomimic::stats
