// The FS_IOC_FIEMAP ioctl: where a file's bytes lie on its device.
//
// Thin wrapper: failures throw SysError("ioctl FS_IOC_FIEMAP", path, errno)
// (tmpfs and other filesystems without FIEMAP give EOPNOTSUPP); the caller
// decides whether that is fatal. Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iomimic::platform {

struct Extent {
  uint64_t logical = 0;   // byte offset in the file
  uint64_t physical = 0;  // byte offset on the device
  uint64_t length = 0;    // bytes
  uint32_t flags = 0;     // FIEMAP_EXTENT_* from <linux/fiemap.h>
};

// All extents of the open file `fd`, in logical order. FIEMAP_FLAG_SYNC
// makes the kernel write back dirty pages first, so delayed allocation
// shows the layout the data will really have rather than holes.
// `path` is only used in the error.
std::vector<Extent> ReadExtents(int fd, const std::string& path);

// Opens `path` read-only, reads its extents, closes it.
std::vector<Extent> ReadExtents(const std::string& path);

}  // namespace iomimic::platform
