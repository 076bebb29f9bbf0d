#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "engine/signal_watcher.h"
#include "iomimic/status.h"
#include "report/reporters.h"

namespace iomimic::report {

void WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  // A second signal while this runs removes the temporary (and exits).
  engine::SetPendingTempFile(tmp.c_str());
  struct Clear {
    ~Clear() { engine::SetPendingTempFile(nullptr); }
  } clear;
  const int fd = CheckSys(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644),
                          "open", tmp);
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw SysError("write", tmp, err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw SysError("fsync", tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw SysError("rename", path, err);
  }
}

}  // namespace iomimic::report
