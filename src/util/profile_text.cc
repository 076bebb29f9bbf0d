#include "util/profile_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "iomimic/status.h"

namespace iomimic {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Length of the UTF-8 sequence starting at text[i], 0 when it is not one.
size_t Utf8Length(const std::string& text, size_t i) {
  const auto b = static_cast<unsigned char>(text[i]);
  size_t n = 0;
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) n = 2;
  else if (b >= 0xe0 && b <= 0xef) n = 3;
  else if (b >= 0xf0 && b <= 0xf4) n = 4;
  else return 0;
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
  }
  return n;
}

// "" when `text` is text a profile may hold, else why, with the line.
std::string CheckText(const std::string& text) {
  int line = 1;
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') ++line;
    if (b == 0) return fmt::format("line {}: a NUL byte (a binary file, not an INI profile)", line);
    if ((b < 0x20 && b != '\n' && b != '\t' && b != '\r') || b == 0x7f) {
      return fmt::format("line {}: control character 0x{:02x} (a binary file, not an INI profile)",
                         line, b);
    }
    const size_t n = Utf8Length(text, i);
    if (n == 0) {
      return fmt::format("line {}: byte 0x{:02x} is not UTF-8 text (a binary file, or another "
                         "encoding such as UTF-16: save the profile as UTF-8)",
                         line, b);
    }
    i += n;
  }
  return "";
}

}  // namespace

std::string ReadProfileText(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    throw UsageError(fmt::format("cannot read profile '{}': {}", path, std::strerror(errno)));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw UsageError(fmt::format("cannot read profile '{}': {}", path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw UsageError(fmt::format("profile '{}' is {}: a profile is a regular file", path,
                                 KindOf(st.st_mode)));
  }
  std::string text(kMaxProfileBytes + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw UsageError(fmt::format("cannot read profile '{}': {}", path, std::strerror(errno)));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  if (text.size() > kMaxProfileBytes) {
    throw UsageError(fmt::format("profile '{}' is larger than 1 MiB", path));
  }
  if (text.rfind("\xef\xbb\xbf", 0) == 0) text.erase(0, 3);  // a UTF-8 byte order mark
  if (const std::string why = CheckText(text); !why.empty()) {
    throw UsageError(fmt::format("profile '{}' {}", path, why));
  }
  return text;
}

}  // namespace iomimic
