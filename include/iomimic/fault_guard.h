// Stores into a MAP_SHARED mapping can fail with SIGBUS (a page in a hole
// of a full filesystem, a truncated file, an I/O error on page-in). A real
// database would die; a reproduction must report it as an error of the run.
//
// CatchSigbus(fn) runs fn; if it takes a SIGBUS on this thread, fn is
// abandoned (siglongjmp) and SysError(op, path, errno) is thrown. fn must
// not own resources that need destructors to run (plain memory stores).
// Thread-safe: the jump buffer is thread-local.
//
// The kernel's siginfo says where, not why. The errno is found afterwards
// from the faulting page of the mapped file (/proc/self/maps): EIO when
// reading that page fails with EIO (a failed page-in), ENOSPC (or EDQUOT)
// when allocating the mapping from that page on with fallocate(KEEP_SIZE)
// fails so (a store into a hole of a full filesystem; the file is the
// module's own, in the run directory, removed afterwards), else EFAULT
// (beyond the end of a truncated file, or a cause that did not last).
#pragma once

#include <string>
#include <type_traits>

#include "iomimic/status.h"

namespace iomimic {

namespace internal {
// Returns false if fn was interrupted by SIGBUS.
bool CallCatchingSigbus(void (*fn)(void*), void* arg);
// The errno that explains the last SIGBUS caught on this thread.
int LastSigbusErrno();
}  // namespace internal

template <typename F>
void CatchSigbus(const char* op, const std::string& path, F&& fn) {
  using Fn = std::remove_reference_t<F>;
  auto trampoline = [](void* p) { (*static_cast<Fn*>(p))(); };
  if (!internal::CallCatchingSigbus(trampoline, &fn)) {
    throw SysError(std::string(op) + " (SIGBUS)", path, internal::LastSigbusErrno());
  }
}

}  // namespace iomimic
