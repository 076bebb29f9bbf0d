#include "util/stderr_line.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace iomimic {

void PrintErr(std::string_view text) noexcept {
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
