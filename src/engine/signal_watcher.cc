#include "engine/signal_watcher.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "util/atomic_file.h"

namespace iomimic::engine {
namespace {

// Held by the watcher from the hook's start until _exit: ClearExitHook()
// cannot return while the hook still runs.
std::mutex exit_hook_mu;
std::function<void()> exit_hook;  // guarded by exit_hook_mu

// SIGUSR2 is ours: the destructor sends it to wake the watcher thread.
sigset_t WatchedSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);  // a closed terminal or ssh session: stop cleanly, like SIGTERM
  sigaddset(&set, SIGUSR2);
  return set;
}

}  // namespace

void SetExitHook(std::function<void()> hook) {
  std::lock_guard<std::mutex> lock(exit_hook_mu);
  exit_hook = std::move(hook);
}

void ClearExitHook() { SetExitHook(nullptr); }

SignalWatcher::SignalWatcher(StopSource* stop) : stop_(stop) {
  sigset_t set = WatchedSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this] { Loop(); });
}

SignalWatcher::~SignalWatcher() {
  pthread_kill(thread_.native_handle(), SIGUSR2);
  thread_.join();
}

void SignalWatcher::Loop() {
  sigset_t set = WatchedSignals();
  int count = 0;
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == SIGUSR2) return;
    if (++count == 1) {
      static const char kMsg[] = "iomimic: signal received, stopping the run and cleaning up\n";
      (void)!::write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
      stop_->RequestStopBySignal(sig);
    } else {
      static const char kMsg[] = "iomimic: second signal, exiting now\n";
      (void)!::write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
      // A report or marker renamed into place right now (util/atomic_file.h).
      if (const char* tmp = PendingTempFile()) ::unlink(tmp);
      exit_hook_mu.lock();  // never unlocked: the process ends here
      if (exit_hook) exit_hook();
      ::_exit(1);
    }
  }
}

}  // namespace iomimic::engine
