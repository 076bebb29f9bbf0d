// Why and when a run stops, shared by the workers, the main thread and the
// signal watcher.
//
// Thread-safe. Workers read stop_requested() on every unit of work (one
// relaxed atomic load); the main thread sleeps in WaitFor() until a
// deadline or a stop, whichever comes first.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

namespace iomimic::engine {

class StopSource {
 public:
  bool stop_requested() const { return stop_.load(std::memory_order_relaxed); }
  // 0 when no signal arrived, else the first signal number.
  int signal() const { return signal_.load(std::memory_order_acquire); }
  // The phase the run was in when the first signal arrived ("" when none):
  // a signal in measure leaves partial figures, one in cleanup full ones.
  std::string signal_phase() const;

  // The engine says which phase it enters (a string literal: only the
  // pointer is kept).
  void EnterPhase(const char* phase) { phase_.store(phase, std::memory_order_release); }

  void RequestStop();
  // Clears a stop that ended one run (time or op limit) before the next
  // repeat. Does nothing once a signal arrived: that stop is for good.
  void ResetForNextRun();
  void RequestStopBySignal(int sig);
  // Also wakes the waiter without stopping (a worker finished its work).
  void Notify();

  // Returns when stopped, when done() is true, or at the deadline.
  template <typename Pred>
  void WaitUntil(std::chrono::steady_clock::time_point deadline, Pred done) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, deadline, [&] { return stop_requested() || done(); });
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> signal_{0};
  std::atomic<const char*> phase_{"start"};  // before a run begins
  std::atomic<const char*> signal_phase_{""};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace iomimic::engine
