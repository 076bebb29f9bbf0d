#include "trace/trace_file.h"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>

namespace iomimic::trace {

std::string CheckTraceFile(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  struct statfs fs{};
  if (::statfs(path.c_str(), &fs) != 0) return std::strerror(errno);
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC: case SYSFS_MAGIC: case DEBUGFS_MAGIC: case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC: case CGROUP_SUPER_MAGIC: case CGROUP2_SUPER_MAGIC:
    case BPF_FS_MAGIC:
      return "on a pseudo filesystem (/proc, /sys, ...), not a trace";
    default:
      return {};
  }
}

}  // namespace iomimic::trace
