// Resolution of a device number to its block device in sysfs.
//
// /sys/dev/block/MAJOR:MINOR links to the device's sysfs node; a partition
// node ("sda1") has a `partition` attribute and lives inside its disk's
// directory ("sda"). Queue settings and I/O counters exist only on the
// whole disk, so the probes want the disk. Best-effort: nullopt when sysfs
// does not know the number (an anonymous device such as tmpfs's 0:N).
// Thread-safe: no shared state.
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>

#include "platform/mountinfo.h"

namespace iomimic::platform {

struct BlockDevice {
  unsigned major = 0;
  unsigned minor = 0;
  std::string node;       // sysfs name of major:minor itself: "sda1", "loop0", "dm-0"
  std::string disk;       // the whole disk: "sda" for "sda1", else == node
  bool is_partition = false;
};

std::optional<BlockDevice> ResolveBlockDevice(unsigned major, unsigned minor);

// The block device a mount sits on. The mount's source is preferred when
// it is a block special file: btrfs (and any filesystem that can span
// devices) reports an anonymous 0:N in mountinfo and st_dev, so only the
// source leads to the disk. Otherwise mountinfo's major:minor, which is
// right for ext4 and xfs even when the source is "/dev/root" or missing.
std::optional<BlockDevice> BlockDeviceOfMount(const MountEntry& mount);

// The block device number of `path` when it names a block special file
// (stat() and S_ISBLK), else nullopt.
std::optional<dev_t> BlockDeviceNumber(const std::string& path);

// "/sys/block/NAME" for a whole-disk sysfs name.
std::string SysBlockDir(const std::string& disk);

// The backing file of a loop device ("loop0"), nullopt when `disk` is not a
// bound loop device. The kernel appends " (deleted)" when the image was
// unlinked; that is kept, it is what happened.
std::optional<std::string> LoopBackingFile(const std::string& disk);

}  // namespace iomimic::platform
