// Filesystem geometry beyond statvfs, for DescribeTarget. Best effort.
#pragma once

#include <string>

#include <optional>

#include "result/system.h"

namespace iomimic::probes {

// XFS_IOC_FSGEOMETRY on the mount point; nullopt when not XFS or it fails.
std::optional<result::XfsGeometry> ReadXfsGeometry(const std::string& mount_point);
// `dumpe2fs -h` of the device (read only); nullopt when it gives nothing.
std::optional<result::Ext4Superblock> ReadExt4Superblock(const std::string& device_node);

}  // namespace iomimic::probes
