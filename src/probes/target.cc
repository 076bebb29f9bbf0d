// DescribeTarget and BlockDeviceOf: the filesystem, mount and block device
// behind a path, as found in /proc/self/mountinfo, statvfs and sysfs.
#include <dirent.h>
#include <sys/statvfs.h>

#include <optional>
#include <string>

#include "platform/block_device.h"
#include "platform/mountinfo.h"
#include "platform/path.h"
#include "platform/sysfs.h"
#include "probes/fs_geometry.h"
#include "probes/probes.h"

namespace iomimic::probes {
namespace {

// The btrfs filesystem whose device list holds `node`, found by scanning
// /sys/fs/btrfs/<uuid>/devices/<node>: sysfs names btrfs by UUID only.
std::optional<std::string> BtrfsSysDir(const std::string& node) {
  DIR* dir = ::opendir("/sys/fs/btrfs");
  if (dir == nullptr) return std::nullopt;
  std::optional<std::string> found;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == ".." || name == "features") continue;
    const std::string candidate = "/sys/fs/btrfs/" + name;
    if (platform::ReadLink(candidate + "/devices/" + node)) {
      found = candidate;
      break;
    }
  }
  ::closedir(dir);
  return found;
}

// Tunables of the filesystem itself that change allocation, from sysfs.
// Only what is cheap and unambiguous; absent attributes are left out.
void AddFsSysfs(const std::string& fs_type, const std::optional<platform::BlockDevice>& dev,
                result::FsInfo* fs) {
  if (!dev) return;
  if (fs_type == "ext4") {
    const std::string dir = "/sys/fs/ext4/" + dev->node + "/";
    // mballoc: files below mb_stream_req blocks share a per-CPU group
    // preallocation, larger ones get their own; both shape fragmentation.
    for (const char* name : {"mb_stream_req", "mb_group_prealloc", "inode_readahead_blks",
                             "delayed_allocation_blocks", "lifetime_write_kbytes"}) {
      if (std::optional<uint64_t> v = platform::ReadUint(dir + name)) {
        fs->ext4_sysfs.emplace_back(name, *v);
      }
    }
  } else if (fs_type == "btrfs") {
    const std::optional<std::string> dir = BtrfsSysDir(dev->node);
    if (!dir) return;
    result::BtrfsInfo btrfs;
    btrfs.uuid = dir->substr(dir->find_last_of('/') + 1);
    btrfs.sectorsize = platform::ReadUint(*dir + "/sectorsize");
    btrfs.nodesize = platform::ReadUint(*dir + "/nodesize");
    fs->btrfs = std::move(btrfs);
  }
}

result::FsInfo FsGeometry(const std::string& path, const platform::MountEntry& mount,
                          const std::optional<platform::BlockDevice>& dev) {
  result::FsInfo fs;
  struct statvfs sv {};
  // `path` may not exist yet (a target about to be created): its mount point does.
  if (::statvfs(path.c_str(), &sv) == 0 || ::statvfs(mount.mount_point.c_str(), &sv) == 0) {
    const uint64_t frsize = sv.f_frsize != 0 ? sv.f_frsize : sv.f_bsize;
    // f_bsize is the preferred I/O size; for ext4/xfs/btrfs it equals the
    // allocation block size, which f_frsize reports in the units of the counts.
    fs.statvfs_ok = true;
    fs.block_size = static_cast<uint64_t>(sv.f_bsize);
    fs.fragment_size = frsize;
    fs.total_bytes = static_cast<uint64_t>(sv.f_blocks) * frsize;
    fs.free_bytes = static_cast<uint64_t>(sv.f_bfree) * frsize;
    fs.available_bytes = static_cast<uint64_t>(sv.f_bavail) * frsize;
    fs.total_inodes = static_cast<uint64_t>(sv.f_files);
    fs.free_inodes = static_cast<uint64_t>(sv.f_ffree);
    fs.max_name_length = static_cast<uint64_t>(sv.f_namemax);
  }
  AddFsSysfs(mount.fs_type, dev, &fs);
  if (mount.fs_type == "xfs") fs.xfs = ReadXfsGeometry(mount.mount_point);
  if (mount.fs_type == "ext4" || mount.fs_type == "ext3" || mount.fs_type == "ext2") {
    fs.ext4 = ReadExt4Superblock(mount.source);
  }
  return fs;
}

result::QueueSettings QueueSettings(const std::string& disk) {
  const std::string q = platform::SysBlockDir(disk) + "/queue/";
  result::QueueSettings queue;
  // Devices without an elevator (zram, some dm targets) have no scheduler file.
  if (const std::optional<std::string> sched = platform::ReadFileTrimmed(q + "scheduler")) {
    queue.scheduler = platform::ActiveChoice(*sched);
    queue.available_schedulers = platform::AllChoices(*sched);
  }
  queue.nr_requests = platform::ReadUint(q + "nr_requests");
  queue.read_ahead_kb = platform::ReadUint(q + "read_ahead_kb");
  queue.max_sectors_kb = platform::ReadUint(q + "max_sectors_kb");
  if (const std::optional<uint64_t> rotational = platform::ReadUint(q + "rotational")) {
    queue.rotational = *rotational != 0;
  }
  queue.logical_block_size = platform::ReadUint(q + "logical_block_size");
  queue.physical_block_size = platform::ReadUint(q + "physical_block_size");
  return queue;
}

result::DeviceInfo DeviceOf(const platform::BlockDevice& dev) {
  result::DeviceInfo d;
  const std::string sys = platform::SysBlockDir(dev.disk);
  d.name = dev.disk;
  // major:minor of the disk; for a partition the mount's own number is
  // that of the partition, reported by name below.
  unsigned major = dev.major, minor = dev.minor;
  if (dev.is_partition) {
    if (std::optional<std::string> num = platform::ReadFileTrimmed(sys + "/dev")) {
      const size_t colon = num->find(':');
      const auto ma = platform::ParseUint(std::string_view(*num).substr(0, colon));
      const auto mi = colon == std::string::npos
                          ? std::nullopt
                          : platform::ParseUint(std::string_view(*num).substr(colon + 1));
      if (ma && mi) {
        major = static_cast<unsigned>(*ma);
        minor = static_cast<unsigned>(*mi);
      }
    }
  }
  d.major = major;
  d.minor = minor;
  if (dev.is_partition) d.partition = dev.node;
  d.backing_file = platform::LoopBackingFile(dev.disk);
  // /sys/block/X/size counts 512-byte sectors whatever the logical block size.
  if (const std::optional<uint64_t> sectors = platform::ReadUint(sys + "/size")) {
    d.size_bytes = *sectors * 512;
  }
  d.queue = QueueSettings(dev.disk);
  return d;
}

}  // namespace

result::TargetInfo DescribeTarget(const std::string& path) {
  result::TargetInfo out;
  const std::optional<std::string> real = platform::ResolveExistingPrefix(path);
  out.path = real ? *real : path;
  if (!real) return out;

  const std::vector<platform::MountEntry> mounts = platform::ReadMountInfo();
  const platform::MountEntry* mount = platform::FindMountFor(mounts, *real);
  if (mount == nullptr) return out;
  const std::optional<platform::BlockDevice> dev = platform::BlockDeviceOfMount(*mount);

  out.fs_type = mount->fs_type;
  out.mount_point = mount->mount_point;
  out.mount_source = mount->source;
  out.mount_options = platform::MergeOptions(mount->options, mount->super_options);
  out.fs = FsGeometry(*real, *mount, dev);
  if (dev) out.device = DeviceOf(*dev);
  return out;
}

std::string BlockDeviceOf(const std::string& path) {
  const std::optional<std::string> real = platform::ResolveExistingPrefix(path);
  if (!real) return "";
  const std::vector<platform::MountEntry> mounts = platform::ReadMountInfo();
  const platform::MountEntry* mount = platform::FindMountFor(mounts, *real);
  if (mount == nullptr) return "";
  const std::optional<platform::BlockDevice> dev = platform::BlockDeviceOfMount(*mount);
  return dev ? dev->disk : "";
}

}  // namespace iomimic::probes
