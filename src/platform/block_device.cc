#include "platform/block_device.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "platform/sysfs.h"

namespace iomimic::platform {
namespace {

std::string Basename(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

}  // namespace

std::optional<BlockDevice> ResolveBlockDevice(unsigned major, unsigned minor) {
  const std::string link =
      "/sys/dev/block/" + std::to_string(major) + ":" + std::to_string(minor);
  // The link target looks like ../../devices/.../block/sda/sda1.
  const std::optional<std::string> target = ReadLink(link);
  if (!target) return std::nullopt;
  BlockDevice dev;
  dev.major = major;
  dev.minor = minor;
  dev.node = Basename(*target);
  dev.disk = dev.node;
  if (ReadFile(link + "/partition")) {
    dev.is_partition = true;
    dev.disk = Basename(Dirname(*target));
  }
  if (dev.node.empty() || dev.disk.empty()) return std::nullopt;
  return dev;
}

std::optional<dev_t> BlockDeviceNumber(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) {
    return std::nullopt;
  }
  return st.st_rdev;
}

std::optional<BlockDevice> BlockDeviceOfMount(const MountEntry& mount) {
  if (!mount.source.empty() && mount.source.front() == '/') {
    if (std::optional<dev_t> rdev = BlockDeviceNumber(mount.source)) {
      if (std::optional<BlockDevice> dev = ResolveBlockDevice(::major(*rdev), ::minor(*rdev))) {
        return dev;
      }
    }
  }
  // Major 0 is the kernel's unnamed-device range (tmpfs, proc, overlay, NFS).
  if (mount.major == 0) return std::nullopt;
  return ResolveBlockDevice(mount.major, mount.minor);
}

std::string SysBlockDir(const std::string& disk) { return "/sys/block/" + disk; }

std::optional<std::string> LoopBackingFile(const std::string& disk) {
  std::optional<std::string> file = ReadFileTrimmed(SysBlockDir(disk) + "/loop/backing_file");
  if (!file || file->empty()) return std::nullopt;
  return file;
}

}  // namespace iomimic::platform
