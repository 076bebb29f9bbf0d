// Filesystem geometry beyond statvfs, for DescribeTarget. Best effort.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace iomimic::probes {

// fs["xfs"] = {block_size, ag_count, ag_blocks, ag_bytes, ...} (XFS_IOC_FSGEOMETRY).
void AddXfsGeometry(const std::string& mount_point, nlohmann::json* fs);
// fs["ext4"] = {features[], block_size, inode_size, ...} (dumpe2fs -h, read only).
void AddExt4Superblock(const std::string& device_node, nlohmann::json* fs);

}  // namespace iomimic::probes
