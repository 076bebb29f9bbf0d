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

void StopSource::Notify() {
  { std::lock_guard<std::mutex> lock(mu_); }
  cv_.notify_all();
}

}  // namespace iomimic::engine
