// Stores into a MAP_SHARED mapping can fail with SIGBUS (a page in a hole
// of a full filesystem, a truncated file, an I/O error on page-in). A real
// database would die; a reproduction must report it as an error of the run.
//
// CatchSigbus(fn) runs fn; if it takes a SIGBUS on this thread, fn is
// abandoned (siglongjmp) and SysError(op, path, EFAULT) is thrown. fn must
// not own resources that need destructors to run (plain memory stores).
// Thread-safe: the jump buffer is thread-local.
#pragma once

#include <string>
#include <type_traits>

#include "iomimic/status.h"

namespace iomimic {

namespace internal {
// Returns false if fn was interrupted by SIGBUS.
bool CallCatchingSigbus(void (*fn)(void*), void* arg);
}  // namespace internal

template <typename F>
void CatchSigbus(const char* op, const std::string& path, F&& fn) {
  using Fn = std::remove_reference_t<F>;
  auto trampoline = [](void* p) { (*static_cast<Fn*>(p))(); };
  if (!internal::CallCatchingSigbus(trampoline, &fn)) {
    throw SysError(std::string(op) + " (SIGBUS)", path, EFAULT);
  }
}

}  // namespace iomimic
