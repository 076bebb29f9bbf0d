// What a run ran on: the machine, and the filesystem, mount and block
// device behind its target. Filled by probes/ (SystemInfo, DescribeTarget),
// rendered by report/. A field that could not be read is an empty optional
// (null in JSON), never a guess. Plain values: copy freely between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace iomimic::result {

// A setting read by name (vm.dirty_ratio, ...), absent when unreadable.
using NamedValue = std::pair<std::string, std::optional<uint64_t>>;

struct SystemInfo {
  std::optional<std::string> kernel, kernel_version, machine, hostname;
  std::optional<int64_t> cpus;
  std::optional<std::string> cpu_model;
  std::optional<uint64_t> memory_bytes;
  std::optional<int64_t> page_size;
  // Transparent huge pages: the active choice of each selector.
  std::optional<std::string> thp_enabled, thp_defrag, thp_shmem_enabled;
  // vm.dirty_*, swappiness, vfs_cache_pressure, in report order.
  std::vector<NamedValue> vm;
};

// XFS_IOC_FSGEOMETRY, what xfs_info shows.
struct XfsGeometry {
  uint64_t block_size = 0, ag_count = 0, ag_blocks = 0, ag_bytes = 0, data_blocks = 0,
           log_blocks = 0, sector_size = 0, inode_size = 0, dir_block_size = 0,
           stripe_unit_blocks = 0, stripe_width_blocks = 0, realtime_blocks = 0;
};

// `dumpe2fs -h` of an ext2/3/4 device: the fields that shape allocation.
struct Ext4Superblock {
  std::optional<std::vector<std::string>> features;
  // Numeric fields by their dumpe2fs name, lower case with underscores
  // (block_size, inode_size, blocks_per_group, ...), in the order found.
  std::vector<std::pair<std::string, uint64_t>> numbers;
  // Text fields (journal_size, default_mount_options, filesystem_flags).
  std::vector<std::pair<std::string, std::string>> texts;
  bool empty() const { return !features && numbers.empty() && texts.empty(); }
};

struct BtrfsInfo {
  std::string uuid;
  std::optional<uint64_t> sectorsize, nodesize;
};

struct FsInfo {
  bool statvfs_ok = false;  // false: every statvfs figure is unknown
  uint64_t block_size = 0, fragment_size = 0, total_bytes = 0, free_bytes = 0,
           available_bytes = 0, total_inodes = 0, free_inodes = 0, max_name_length = 0;
  // ext4 allocator tunables from /sys/fs/ext4/DEV (mb_stream_req, ...).
  std::vector<std::pair<std::string, uint64_t>> ext4_sysfs;
  std::optional<Ext4Superblock> ext4;
  std::optional<BtrfsInfo> btrfs;
  std::optional<XfsGeometry> xfs;
};

struct QueueSettings {
  std::optional<std::string> scheduler;
  std::optional<std::vector<std::string>> available_schedulers;
  std::optional<uint64_t> nr_requests, read_ahead_kb, max_sectors_kb;
  std::optional<bool> rotational;
  std::optional<uint64_t> logical_block_size, physical_block_size;
};

struct DeviceInfo {
  std::string name;  // the whole disk, as in /sys/block
  unsigned major = 0, minor = 0;
  std::optional<std::string> partition;     // the partition's node name when on one
  std::optional<std::string> backing_file;  // a loop device's file
  std::optional<uint64_t> size_bytes;
  QueueSettings queue;
};

struct TargetInfo {
  std::string path;
  std::optional<std::string> fs_type, mount_point, mount_source, mount_options;
  std::optional<FsInfo> fs;
  std::optional<DeviceInfo> device;
};

}  // namespace iomimic::result
