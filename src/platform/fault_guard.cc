// SIGBUS on a MAP_SHARED store: see include/iomimic/fault_guard.h.
//
// The handler is installed once, process-wide. A thread inside
// CallCatchingSigbus has a jump buffer; the handler jumps back to it. A
// SIGBUS anywhere else is a real bug: restore the default action and
// re-raise so the process dies with the usual core.
#include "iomimic/fault_guard.h"

#include <csetjmp>
#include <csignal>
#include <mutex>

namespace iomimic::internal {
namespace {

thread_local sigjmp_buf* tls_jump = nullptr;

void OnSigbus(int sig, siginfo_t*, void*) {
  if (tls_jump != nullptr) siglongjmp(*tls_jump, 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

void InstallOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = OnSigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, nullptr);
  });
}

}  // namespace

bool CallCatchingSigbus(void (*fn)(void*), void* arg) {
  InstallOnce();
  sigjmp_buf jump;
  sigjmp_buf* volatile previous = tls_jump;
  if (sigsetjmp(jump, 1) != 0) {
    tls_jump = previous;
    return false;
  }
  tls_jump = &jump;
  fn(arg);
  tls_jump = previous;
  return true;
}

}  // namespace iomimic::internal
