// Whole writes for modules: a short write or EINTR is continued, a failure
// is a SysError("write", path, errno) like every other call, and a write
// that makes no progress on a regular file is ENOSPC (the kernel returns 0
// only when it cannot take more). Thread-safe (no shared state).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace iomimic {

// write() until all `len` bytes are written at the file offset.
void WriteAll(int fd, const void* data, size_t len, const std::string& path);

// pwrite() until all `len` bytes are written from `offset` on.
void PwriteAll(int fd, const void* data, size_t len, off_t offset, const std::string& path);

}  // namespace iomimic
