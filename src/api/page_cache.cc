// The page-cache control modules may use (include/iomimic/page_cache.h).
#include "iomimic/page_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "iomimic/status.h"

namespace iomimic {

void EvictFromPageCache(const std::string& path) {
  const int fd = CheckSys(::open(path.c_str(), O_RDONLY | O_CLOEXEC), "open", path);
  if (::fdatasync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    throw SysError("fdatasync", path, err);
  }
  // posix_fadvise returns the error instead of setting errno.
  const int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  if (rc != 0) throw SysError("posix_fadvise", path, rc);
}

void DropAllCaches() {
  ::sync();
  const char* path = "/proc/sys/vm/drop_caches";
  const int fd = CheckSys(::open(path, O_WRONLY | O_CLOEXEC), "open", path);
  const ssize_t n = ::write(fd, "3\n", 2);
  const int err = errno;
  ::close(fd);
  if (n != 2) throw SysError("write", path, err);
}

}  // namespace iomimic
