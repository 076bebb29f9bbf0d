#include "daemon/scheduler.h"

#include <algorithm>

namespace iomimic::disk {
namespace {

// Seek distance histogram bounds (upper, exclusive), then "larger".
constexpr uint64_t kSeekBounds[] = {1ull << 20, 16ull << 20, 256ull << 20, 4ull << 30};
constexpr const char* kSeekNames[] = {"lt_1MiB", "lt_16MiB", "lt_256MiB", "lt_4GiB", "ge_4GiB"};

}  // namespace

Scheduler::Scheduler(const Model& model, uint64_t span, uint64_t seed)
    : model_(model), span_(span), rng_(seed), slot_free_ns_(model.parallel, 0), seek_hist_(5, 0) {}

double Scheduler::Service(Op op, uint64_t offset, uint64_t len, double start_ns) {
  const bool hdd = model_.kind == ModelKind::kHdd;
  const double latency = static_cast<double>(model_.latency_ns);
  if (op == Op::kFlush) {
    if (!hdd || dirty_.empty()) return latency;
    ++destages_;
    destaged_bytes_ += dirty_bytes_;
    const double t = DestageNs(model_, span_, &head_, std::move(dirty_));
    dirty_.clear();
    dirty_bytes_ = 0;
    return latency + t;
  }
  if (op == Op::kWrite && hdd && model_.write_cache) {
    // Into the volatile cache; a full cache is destaged first (this write
    // waits for it, as a drive's would once its buffer is full).
    double t = latency;
    if (dirty_bytes_ + len > model_.write_cache_size) t = Service(Op::kFlush, 0, 0, start_ns);
    dirty_.push_back({offset, len, true});
    dirty_bytes_ += len;
    ++cached_writes_;
    return t;
  }
  uint64_t seek = 0;
  const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
  const Request request{offset, len, op == Op::kWrite};
  double t = ServiceNs(model_, span_, head_, request, u, &seek);
  if (op == Op::kRead && last_was_read_ && offset == head_) {
    const ReadAhead ra = ReadAheadFor(model_, span_, {offset, len}, ahead_bytes_,
                                      start_ns - last_done_ns_);
    t -= ra.credit_ns;
    ahead_bytes_ = ra.buffered;
    read_ahead_ns_ += ra.credit_ns;
  } else {
    ahead_bytes_ = 0;
  }
  last_was_read_ = op == Op::kRead;
  head_ = HddHeadAfter(model_, head_, request);
  if (seek > 0) {
    ++seeks_;
    seek_bytes_ += seek;
    size_t b = 0;
    while (b < 4 && seek >= kSeekBounds[b]) ++b;
    ++seek_hist_[b];
  }
  return t;
}

void Scheduler::AdvanceGauges(uint64_t now_ns) {
  if (now_ns > last_change_ns_) {
    const uint64_t dt = now_ns - last_change_ns_;
    depth_area_ += static_cast<double>(in_flight_) * static_cast<double>(dt);
    if (in_flight_ > 0) busy_ns_ += dt;
    last_change_ns_ = now_ns;
  }
}

uint64_t Scheduler::Admit(Op op, uint64_t offset, uint64_t len, uint64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  if (start_ns_ == 0) start_ns_ = last_change_ns_ = now_ns;
  AdvanceGauges(now_ns);
  ++in_flight_;
  max_in_flight_ = std::max(max_in_flight_, in_flight_);
  const auto slot = std::min_element(slot_free_ns_.begin(), slot_free_ns_.end());
  double start = std::max(static_cast<double>(now_ns), *slot);
  if (op != Op::kFlush) {
    const double iops_at = BucketStart(&iops_bucket_, start, IopsCost(model_, len), model_.iops_limit,
                                       static_cast<double>(model_.bucket_depth_ns));
    const double bw_at = BucketStart(&bw_bucket_, start, static_cast<double>(len),
                                     model_.bandwidth_limit_mb_s * 1e6,
                                     static_cast<double>(model_.bucket_depth_ns));
    start = std::max({start, iops_at, bw_at});
  }
  const double service = Service(op, offset, len, start);
  const double done = start + service;
  *slot = done;
  last_done_ns_ = done;
  service_ns_ += service;
  wait_ns_ += start - static_cast<double>(now_ns);
  switch (op) {
    case Op::kRead: ++reads_, read_bytes_ += len; break;
    case Op::kWrite: ++writes_, write_bytes_ += len; break;
    case Op::kFlush: ++flushes_; break;
  }
  return static_cast<uint64_t>(done);
}

void Scheduler::Done(uint64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceGauges(now_ns);
  --in_flight_;
}

void Scheduler::CountError() {
  std::lock_guard<std::mutex> lock(mu_);
  ++errors_;
}

nlohmann::json Scheduler::Stats(uint64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceGauges(now_ns);
  nlohmann::json hist = nlohmann::json::object();
  for (size_t i = 0; i < seek_hist_.size(); ++i) hist[kSeekNames[i]] = seek_hist_[i];
  return {{"reads", reads_},
          {"writes", writes_},
          {"flushes", flushes_},
          {"errors", errors_},
          {"read_bytes", read_bytes_},
          {"write_bytes", write_bytes_},
          {"seeks", seeks_},
          {"seek_bytes", seek_bytes_},
          {"seek_distance", hist},
          {"cached_writes", cached_writes_},
          {"destages", destages_},
          {"destaged_bytes", destaged_bytes_},
          {"service_ns", static_cast<uint64_t>(service_ns_)},
          {"read_ahead_saved_ns", static_cast<uint64_t>(read_ahead_ns_)},
          {"queue_wait_ns", static_cast<uint64_t>(wait_ns_)},
          {"busy_ns", busy_ns_},
          {"queue_depth_area_ns", static_cast<uint64_t>(depth_area_)},
          {"in_flight", in_flight_},
          {"max_in_flight", max_in_flight_},
          {"elapsed_ns", start_ns_ == 0 ? 0 : now_ns - start_ns_}};
}

}  // namespace iomimic::disk
