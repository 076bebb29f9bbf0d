// SIGINT and SIGTERM stop a run cleanly.
//
// Construct it on the main thread before any other thread starts: it blocks
// both signals for the whole process (threads inherit the mask) and a
// dedicated thread takes them with sigwait(), so no work happens in a
// signal handler. The first signal asks the run to stop (report written,
// files removed, exit 1); a second one ends the process at once with exit
// 1 (reports are renamed into place, so none is ever half-written).
#pragma once

#include <functional>
#include <thread>

#include "engine/stop_source.h"

namespace iomimic::engine {

// Work a second signal must still do before the process ends: putting back
// the system settings the run changed. The hook runs on the watcher's
// thread, possibly while the main thread uses the same object, so it must
// be thread-safe (Tunings::Restore is). ClearExitHook() waits for a hook
// that is running; afterwards the hook is never called.
void SetExitHook(std::function<void()> hook);
void ClearExitHook();

class SignalWatcher {
 public:
  explicit SignalWatcher(StopSource* stop);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  void Loop();
  StopSource* stop_;
  std::thread thread_;
};

}  // namespace iomimic::engine
