#include "engine/stop_source.h"

namespace iomimic::engine {

void StopSource::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_relaxed);
  }
  cv_.notify_all();
}

void StopSource::RequestStopBySignal(int sig) {
  int expected = 0;
  signal_.compare_exchange_strong(expected, sig, std::memory_order_acq_rel);
  RequestStop();
}

void StopSource::ResetForNextRun() {
  std::lock_guard<std::mutex> lock(mu_);
  if (signal_.load(std::memory_order_acquire) == 0) stop_.store(false, std::memory_order_relaxed);
}

void StopSource::Notify() {
  { std::lock_guard<std::mutex> lock(mu_); }
  cv_.notify_all();
}

}  // namespace iomimic::engine
