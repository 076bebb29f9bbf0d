#include "iomimic/io.h"

#include <unistd.h>

#include <cerrno>

#include "iomimic/status.h"

namespace iomimic {
namespace {

// `call(done)` writes from byte `done` on; returns its ssize_t.
template <typename Call>
void Loop(size_t len, const std::string& path, Call call) {
  size_t done = 0;
  while (done < len) {
    const ssize_t w = call(done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw SysError("write", path, errno);
    if (w == 0) throw SysError("write", path, ENOSPC);
    done += static_cast<size_t>(w);
  }
}

}  // namespace

void WriteAll(int fd, const void* data, size_t len, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  Loop(len, path, [&](size_t done) { return ::write(fd, p + done, len - done); });
}

void PwriteAll(int fd, const void* data, size_t len, off_t offset, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  Loop(len, path, [&](size_t done) {
    return ::pwrite(fd, p + done, len - done, offset + static_cast<off_t>(done));
  });
}

}  // namespace iomimic
