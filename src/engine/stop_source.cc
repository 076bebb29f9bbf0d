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
  // The phase first: whoever sees the signal sees where it landed.
  if (signal_.load(std::memory_order_acquire) == 0) {
    signal_phase_.store(phase_.load(std::memory_order_acquire), std::memory_order_release);
  }
  signal_.compare_exchange_strong(expected, sig, std::memory_order_acq_rel);
  RequestStop();
}

std::string StopSource::signal_phase() const {
  return signal() == 0 ? std::string() : std::string(signal_phase_.load(std::memory_order_acquire));
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
