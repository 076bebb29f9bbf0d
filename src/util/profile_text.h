// Reading a profile (an INI file) as text, before any parser sees it.
//
// Only a regular file is read: a FIFO or a device would block or never end
// (it is opened with O_NONBLOCK, so even a FIFO nobody writes to is
// refused at once). A UTF-8 byte order mark, as Windows editors write it,
// is dropped. A NUL byte, a control character other than tab and CR, or
// bytes that are not UTF-8 are refused with the file's name and the line:
// a binary file given by mistake is named as such, not parsed into
// misleading option errors. Thread-safe.
#pragma once

#include <string>

namespace iomimic {

// Profiles are small; a larger file is a mistake, not a profile.
inline constexpr size_t kMaxProfileBytes = 1 << 20;

// The profile's text. Throws UsageError naming the file (and the line).
std::string ReadProfileText(const std::string& path);

}  // namespace iomimic
