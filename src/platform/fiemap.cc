#include "platform/fiemap.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "iomimic/status.h"

namespace iomimic::platform {
namespace {

// Extents fetched per ioctl: enough for most files in one call, and a
// buffer of 28 KiB.
constexpr uint32_t kBatch = 512;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

std::vector<Extent> ReadExtents(int fd, const std::string& path) {
  const size_t bytes = sizeof(struct fiemap) + kBatch * sizeof(struct fiemap_extent);
  // struct fiemap ends in a flexible array member: allocate it by hand.
  std::unique_ptr<struct fiemap, FreeDeleter> map(
      static_cast<struct fiemap*>(std::calloc(1, bytes)));
  if (!map) throw SysError("calloc", path, ENOMEM);

  std::vector<Extent> extents;
  uint64_t start = 0;
  uint32_t flags = FIEMAP_FLAG_SYNC;
  for (;;) {
    std::memset(map.get(), 0, bytes);
    map->fm_start = start;
    map->fm_length = FIEMAP_MAX_OFFSET - start;
    map->fm_flags = flags;
    map->fm_extent_count = kBatch;
    CheckSys(::ioctl(fd, FS_IOC_FIEMAP, map.get()), "ioctl FS_IOC_FIEMAP", path);
    // Syncing once is enough; later batches see the same, settled layout.
    flags = 0;
    const uint32_t n = map->fm_mapped_extents;
    if (n == 0) break;
    bool last = false;
    for (uint32_t i = 0; i < n; ++i) {
      const struct fiemap_extent& fe = map->fm_extents[i];
      extents.push_back({fe.fe_logical, fe.fe_physical, fe.fe_length, fe.fe_flags});
      last = last || (fe.fe_flags & FIEMAP_EXTENT_LAST) != 0;
    }
    if (last || n < kBatch) break;
    const struct fiemap_extent& tail = map->fm_extents[n - 1];
    start = tail.fe_logical + tail.fe_length;
    if (start <= tail.fe_logical) break;  // zero-length or wrapped: do not loop forever
  }
  return extents;
}

std::vector<Extent> ReadExtents(const std::string& path) {
  const int fd = CheckSys(::open(path.c_str(), O_RDONLY | O_CLOEXEC), "open", path);
  try {
    std::vector<Extent> extents = ReadExtents(fd, path);
    ::close(fd);
    return extents;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

}  // namespace iomimic::platform
