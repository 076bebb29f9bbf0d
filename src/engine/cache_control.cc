#include "engine/cache_control.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "iomimic/page_cache.h"
#include "iomimic/status.h"
#include "probes/probes.h"
#include "util/stderr_line.h"

namespace iomimic {
namespace {

uint64_t CachedTotal(const std::vector<std::string>& files) {
  uint64_t total = 0;
  for (const auto& f : files) total += probes::CachedBytes(f).value_or(0);
  return total;
}

}  // namespace

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

namespace engine {

result::CacheReport ApplyCacheMode(const std::string& mode,
                                   const std::vector<std::string>& files, bool quiet) {
  result::CacheReport out;
  out.mode = mode;
  out.files = files.size();
  out.cached_bytes_before = CachedTotal(files);
  if (mode == "cold") {
    for (const auto& f : files) EvictFromPageCache(f);
  } else if (mode == "drop") {
    if (!quiet) PrintErr("iomimic: sync; echo 3 > /proc/sys/vm/drop_caches\n");
    DropAllCaches();
  }
  out.cached_bytes_after = CachedTotal(files);
  return out;
}

}  // namespace engine
}  // namespace iomimic
