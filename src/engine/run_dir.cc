#include "engine/run_dir.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/run_marker.h"
#include "iomimic/status.h"
#include "util/atomic_file.h"
#include "util/stderr_line.h"
#include "iomimic/units.h"

namespace iomimic::engine {

std::string PseudoFilesystemOf(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return "";
  // The kernel's own views and controls: files there are not data, and a
  // write there changes the system (or fails after the whole run).
  static constexpr struct {
    unsigned long magic;
    const char* name;
  } kPseudo[] = {
      {PROC_SUPER_MAGIC, "proc"},     {SYSFS_MAGIC, "sysfs"},
      {CGROUP_SUPER_MAGIC, "cgroup"}, {CGROUP2_SUPER_MAGIC, "cgroup2"},
      {DEBUGFS_MAGIC, "debugfs"},     {TRACEFS_MAGIC, "tracefs"},
      {SECURITYFS_MAGIC, "securityfs"}, {DEVPTS_SUPER_MAGIC, "devpts"},
      {BPF_FS_MAGIC, "bpf"},          {PSTOREFS_MAGIC, "pstore"},
      {EFIVARFS_MAGIC, "efivarfs"},   {SELINUX_MAGIC, "selinuxfs"},
      {BINFMTFS_MAGIC, "binfmt_misc"}, {0x65735543, "fusectl"},
      {0x19800202, "mqueue"},         {0x62656570, "configfs"},
  };
  for (const auto& p : kPseudo) {
    if (static_cast<unsigned long>(fs.f_type) == p.magic) return p.name;
  }
  return "";
}

std::string CheckTarget(const std::string& target, uint64_t footprint, uint64_t min_free) {
  const std::string shown = Printable(target);  // a newline in a path forges no message line
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    throw UsageError(fmt::format("target '{}' cannot be used: {}", shown, std::strerror(errno)));
  }
  if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)) {
    throw UsageError(fmt::format(
        "target '{}' is a device; iomimic never writes to a device, give a directory on a "
        "mounted filesystem",
        shown));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format("target '{}' is not a directory", shown));
  }
  char resolved[PATH_MAX];
  if (::realpath(target.c_str(), resolved) == nullptr) {
    throw UsageError(fmt::format("target '{}' cannot be resolved: {}", shown,
                                 std::strerror(errno)));
  }
  const std::string canonical = resolved;
  if (const std::string pseudo = PseudoFilesystemOf(canonical); !pseudo.empty()) {
    throw UsageError(fmt::format("target '{}' is on {}, a pseudo filesystem of the kernel, not a "
                                 "filesystem to test: give a directory on a disk",
                                 shown, pseudo));
  }
  if (canonical == "/") {
    throw UsageError("target '/' refused: give a directory below the root (e.g. a scratch "
                     "directory on the filesystem under test)");
  }
  struct statvfs vfs {};
  if (::statvfs(canonical.c_str(), &vfs) != 0) {
    throw UsageError(fmt::format("target '{}': statvfs failed: {}", shown, std::strerror(errno)));
  }
  if (vfs.f_flag & ST_RDONLY) {
    throw UsageError(fmt::format("target '{}' is on a read-only filesystem", shown));
  }
  if (::access(canonical.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("target '{}' is not writable: {}", shown, std::strerror(errno)));
  }
  const uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  // Without a sum that could wrap around (a footprint near 2^64).
  if (footprint > avail || min_free > avail - footprint) {
    throw UsageError(fmt::format(
        "target '{}' has {} free; the run needs up to {} plus the safety margin {} "
        "(--min_free)",
        shown, FormatSize(avail), FormatSize(footprint), FormatSize(min_free)));
  }
  return canonical;
}

std::string CheckReadable(const std::string& path) {
  const std::string shown = Printable(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw UsageError(fmt::format("'{}' cannot be used: {}", shown, std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) throw UsageError(fmt::format("'{}' is not a directory", shown));
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    throw UsageError(fmt::format("'{}' cannot be resolved: {}", shown, std::strerror(errno)));
  }
  return resolved;
}

std::string CreateRunDir(const std::string& target, const std::string& module) {
  std::string templ = fmt::format("{}/iomimic-{}-XXXXXX", target, module);
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) throw SysError("mkdtemp", templ, errno);
  // Durable before anything is put in it: after a crash the directory and
  // its marker (fsynced with it, run_marker.h) are both there for `clean`.
  FsyncParentDir(buf.data());
  return std::string(buf.data());
}

namespace {

// The mount a path is on (statx STATX_MNT_ID): unlike st_dev it tells a
// bind mount of the same filesystem from the directory it is mounted on.
std::optional<uint64_t> MountIdOf(const char* path) {
  struct statx stx {};
  if (::statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) != 0 ||
      (stx.stx_mask & STATX_MNT_ID) == 0) {
    return std::nullopt;
  }
  return stx.stx_mnt_id;
}

// nftw has no user pointer: the pre-pass's state, one walk at a time.
thread_local uint64_t walk_mount_id = 0;
thread_local std::string* walk_foreign = nullptr;

int FindForeignMount(const char* path, const struct stat*, int, struct FTW*) {
  const std::optional<uint64_t> id = MountIdOf(path);
  if (id && *id == walk_mount_id) return FTW_CONTINUE;
  *walk_foreign = path;
  return FTW_STOP;
}

// The run directory's marker and the directory itself are removed last,
// after the walk: until everything else is gone, `clean` must still see
// whose the directory is.

int RemoveOne(const char* path, const struct stat*, int type, struct FTW* ftw) {
  if (ftw->level == 0) return 0;
  if (ftw->level == 1 && std::strcmp(path + ftw->base, kRunMarkerName) == 0) return 0;
  const int rc = (type == FTW_DP) ? ::rmdir(path) : ::unlink(path);
  return rc == 0 ? 0 : errno;
}

}  // namespace

void RemoveRunDir(const std::string& run_dir) {
  // First, nothing mounted anywhere inside (a bind mount of the same
  // filesystem included, which FTW_MOUNT's st_dev check cannot see): the
  // removal would empty what is mounted there.
  if (const std::optional<uint64_t> root_id = MountIdOf(run_dir.c_str())) {
    std::string foreign;
    walk_mount_id = *root_id;
    walk_foreign = &foreign;
    const int rc = ::nftw(run_dir.c_str(), FindForeignMount, 32,
                          FTW_PHYS | FTW_ACTIONRETVAL);
    walk_foreign = nullptr;
    if (rc < 0) throw SysError("nftw", run_dir, errno);
    if (!foreign.empty()) throw SysError("remove (a filesystem is mounted inside)", foreign, EBUSY);
  }
  // FTW_PHYS: never follow a symlink out of the run directory.
  // FTW_MOUNT: never descend into another filesystem mounted inside it.
  const int rc = ::nftw(run_dir.c_str(), RemoveOne, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
  if (rc > 0) throw SysError("remove", run_dir, rc);
  if (rc < 0) throw SysError("nftw", run_dir, errno);
  const std::string marker = run_dir + "/" + kRunMarkerName;
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT) throw SysError("unlink", marker, errno);
  if (::rmdir(run_dir.c_str()) != 0) throw SysError("rmdir", run_dir, errno);
}

}  // namespace iomimic::engine
