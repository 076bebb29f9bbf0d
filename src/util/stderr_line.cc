#include "util/stderr_line.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace iomimic {

namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

}  // namespace

std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (IsControl(c)) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

void PrintErr(std::string_view raw) noexcept {
  std::string escaped;
  std::string_view text = raw;
  if (std::any_of(raw.begin(), raw.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return IsControl(c) && c != '\n' && c != '\t' && c != '\r';
      })) {
    try {
      for (const char ch : raw) {
        const auto c = static_cast<unsigned char>(ch);
        escaped += IsControl(c) && c != '\n' && c != '\t' && c != '\r'
                       ? Printable(std::string_view(&ch, 1))
                       : std::string(1, ch);
      }
      text = escaped;
    } catch (...) {
      return;  // out of memory: the message is lost
    }
  }
  std::fflush(stderr);  // keep order with anything written through stdio
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // EPIPE, EBADF: the message is lost, the run goes on
    done += static_cast<size_t>(w);
  }
}

}  // namespace iomimic
