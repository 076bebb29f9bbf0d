// Passes: the threads' meeting point between passes, and each pass's
// figures for the report.
//
// All threads finish pass p before pass p + 1 starts (a monitoring
// server's poller waits for its whole pass too). The last thread to arrive
// at the gate runs the work between passes alone — end pass p's clock and
// device sample, evict the cache, wait for the period, start pass p + 1's
// clock — while the others wait, so that work is never part of a pass's
// time.
//
// Thread-safety: PassGate is shared by all workers. PassLog is written
// only by the thread running the gate's `between` (serialised by the
// gate) and read by the main thread after the workers joined.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "iomimic/workload.h"
#include "rrd_access.h"

namespace iomimic::rrd_update {

class PassGate {
 public:
  explicit PassGate(int threads) : threads_(threads) {}

  // Waits for every thread. The last to arrive runs `between` (without the
  // lock) and releases the others. Returns false when the gate was
  // aborted, or `between` returned false; then the caller stops. If
  // `between` throws, the gate is aborted and the exception goes on.
  bool Arrive(const std::function<bool()>& between);

  // Releases every waiter for good (a thread stops early or failed).
  void Abort();
  bool aborted() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  const int threads_;
  int waiting_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
};

// One completed pass.
struct PassRecord {
  uint64_t index = 0;
  uint64_t time = 0;  // the data time of the pass (unix seconds)
  uint32_t due_archives = 0;
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t updates = 0;
  UpdateTally tally;
  DeviceSample before, after;
  // The untimed work after this pass (cache=cold: fdatasync + DONTNEED of
  // every file, which writes back what the pass dirtied; cache=drop: sync
  // + drop_caches). evicted is false when nothing was done.
  bool evicted = false;
  uint64_t evict_ns = 0;
  DeviceSample evict_before, evict_after;
};

class PassLog {
 public:
  void Add(PassRecord r) { passes_.push_back(std::move(r)); }
  PassRecord* last() { return passes_.empty() ? nullptr : &passes_.back(); }
  size_t size() const { return passes_.size(); }

  // {"passes": [...], "summary": {...}}: see README.md, "module_report".
  nlohmann::json ToJson() const;

 private:
  std::vector<PassRecord> passes_;
};

// "2023-11-14T22:15:00Z"
std::string UtcText(uint64_t unix_seconds);

// The process's resident set now (VmRSS of /proc/self/status) and its
// peak so far (VmHWM), in KiB; 0 when they cannot be read.
struct RssKib {
  uint64_t now = 0;
  uint64_t peak = 0;
};
RssKib ReadRssKib();

}  // namespace iomimic::rrd_update
