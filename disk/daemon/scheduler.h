// The emulated disk's clock: when each request completes, and counters.
//
// Requests are planned in arrival order (FIFO, as a disk without command
// queueing serves them). A request takes the first of `parallel` slots to
// become free; the token buckets may delay its start; its service time
// comes from the model (service_time.h) and the head position left by the
// request planned before it. The caller does the data transfer and then
// sleeps until the planned completion (absolute CLOCK_MONOTONIC time), so
// the data transfer itself is hidden inside the modelled time whenever it
// is shorter.
// Thread-safety: every method may be called from any thread (one mutex;
// planning is O(1) except a destage, which is O(dirty extents log n)).
#pragma once

#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "model/service_time.h"

namespace iomimic::disk {

enum class Op { kRead, kWrite, kFlush };

class Scheduler {
 public:
  Scheduler(const Model& model, uint64_t span, uint64_t seed);

  // Plans a request arriving at `now_ns`; returns its completion time.
  // Must be followed by one Done() when the request leaves the daemon.
  uint64_t Admit(Op op, uint64_t offset, uint64_t len, uint64_t now_ns);
  void Done(uint64_t now_ns);
  void CountError();

  // Counters since start (see docs/emulated-disk.md, "Counters").
  nlohmann::json Stats(uint64_t now_ns);

 private:
  double Service(Op op, uint64_t offset, uint64_t len, double start_ns);
  void AdvanceGauges(uint64_t now_ns);

  const Model model_;
  const uint64_t span_;
  std::mutex mu_;
  std::mt19937_64 rng_;
  std::vector<double> slot_free_ns_;
  uint64_t head_ = 0;
  std::vector<Request> dirty_;
  uint64_t dirty_bytes_ = 0;
  TokenBucket iops_bucket_, bw_bucket_;
  bool last_was_read_ = false;  // for the drive's read-ahead
  double last_done_ns_ = 0;
  uint64_t ahead_bytes_ = 0;  // read ahead into the drive's buffer, not yet asked for

  uint64_t start_ns_ = 0;
  uint64_t reads_ = 0, writes_ = 0, flushes_ = 0, errors_ = 0;
  uint64_t read_bytes_ = 0, write_bytes_ = 0;
  uint64_t seeks_ = 0, seek_bytes_ = 0;
  std::vector<uint64_t> seek_hist_;  // by distance, kSeekBounds
  uint64_t cached_writes_ = 0, destages_ = 0, destaged_bytes_ = 0;
  double service_ns_ = 0, wait_ns_ = 0;  // modelled: in service, queued
  double read_ahead_ns_ = 0;             // transfer time the read-ahead saved
  uint32_t in_flight_ = 0, max_in_flight_ = 0;
  uint64_t last_change_ns_ = 0;
  double depth_area_ = 0;  // integral of in_flight over time (ns)
  uint64_t busy_ns_ = 0;   // time with at least one request in the daemon
};

}  // namespace iomimic::disk
