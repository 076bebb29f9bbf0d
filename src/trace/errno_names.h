// errno names as strace prints them ("ENOENT") to numbers and back.
#pragma once

#include <string>
#include <string_view>

namespace iomimic::trace {

// 0 for a name the C library does not know (strace's kernel-internal
// ERESTARTSYS and friends among them).
int ErrnoFromName(std::string_view name);
std::string ErrnoName(int err);

}  // namespace iomimic::trace
