#include "engine/run_dir.h"

#include <ftw.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "iomimic/status.h"
#include "util/units.h"

namespace iomimic::engine {

std::string CheckTarget(const std::string& target, uint64_t footprint, uint64_t min_free) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    throw UsageError(fmt::format("target '{}' cannot be used: {}", target, std::strerror(errno)));
  }
  if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)) {
    throw UsageError(fmt::format(
        "target '{}' is a device; iomimic never writes to a device, give a directory on a "
        "mounted filesystem",
        target));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format("target '{}' is not a directory", target));
  }
  char resolved[PATH_MAX];
  if (::realpath(target.c_str(), resolved) == nullptr) {
    throw UsageError(fmt::format("target '{}' cannot be resolved: {}", target,
                                 std::strerror(errno)));
  }
  const std::string canonical = resolved;
  if (canonical == "/") {
    throw UsageError("target '/' refused: give a directory below the root (e.g. a scratch "
                     "directory on the filesystem under test)");
  }
  struct statvfs vfs {};
  if (::statvfs(canonical.c_str(), &vfs) != 0) {
    throw UsageError(fmt::format("target '{}': statvfs failed: {}", target, std::strerror(errno)));
  }
  if (vfs.f_flag & ST_RDONLY) {
    throw UsageError(fmt::format("target '{}' is on a read-only filesystem", target));
  }
  if (::access(canonical.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("target '{}' is not writable: {}", target, std::strerror(errno)));
  }
  const uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (footprint + min_free > avail) {
    throw UsageError(fmt::format(
        "target '{}' has {} free; the run needs up to {} plus the safety margin {} "
        "(--min_free)",
        target, FormatSize(avail), FormatSize(footprint), FormatSize(min_free)));
  }
  return canonical;
}

std::string CheckReadable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw UsageError(fmt::format("'{}' cannot be used: {}", path, std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) throw UsageError(fmt::format("'{}' is not a directory", path));
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    throw UsageError(fmt::format("'{}' cannot be resolved: {}", path, std::strerror(errno)));
  }
  return resolved;
}

std::string CreateRunDir(const std::string& target, const std::string& module) {
  std::string templ = fmt::format("{}/iomimic-{}-XXXXXX", target, module);
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) throw SysError("mkdtemp", templ, errno);
  return std::string(buf.data());
}

namespace {
int RemoveOne(const char* path, const struct stat*, int type, struct FTW*) {
  const int rc = (type == FTW_DP) ? ::rmdir(path) : ::unlink(path);
  return rc == 0 ? 0 : errno;
}
}  // namespace

void RemoveRunDir(const std::string& run_dir) {
  // FTW_PHYS: never follow a symlink out of the run directory.
  // FTW_MOUNT: never descend into another filesystem mounted inside it.
  const int rc = ::nftw(run_dir.c_str(), RemoveOne, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
  if (rc > 0) throw SysError("remove", run_dir, rc);
  if (rc < 0) throw SysError("nftw", run_dir, errno);
}

}  // namespace iomimic::engine
