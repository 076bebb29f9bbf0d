// JSON of the machine and the target (report-schema.md, `system`).
#include "report/json_fields.h"

namespace iomimic::report {
namespace {

using nlohmann::json;

json FsJson(const result::FsInfo& fs) {
  json j = json::object();
  if (fs.statvfs_ok) {
    j["block_size"] = fs.block_size;
    j["fragment_size"] = fs.fragment_size;
    j["total_bytes"] = fs.total_bytes;
    j["free_bytes"] = fs.free_bytes;
    j["available_bytes"] = fs.available_bytes;
    j["total_inodes"] = fs.total_inodes;
    j["free_inodes"] = fs.free_inodes;
    j["max_name_length"] = fs.max_name_length;
  } else {
    j["block_size"] = nullptr;
  }
  // The superblock's figures, when dumpe2fs gave them, replace the sysfs
  // tunables under "ext4" (as schema version 1 has always shown them).
  if (fs.ext4) {
    json e = json::object();
    if (fs.ext4->features) e["features"] = *fs.ext4->features;
    for (const auto& [k, v] : fs.ext4->numbers) e[k] = v;
    for (const auto& [k, v] : fs.ext4->texts) e[k] = v;
    j["ext4"] = std::move(e);
  } else if (!fs.ext4_sysfs.empty()) {
    for (const auto& [k, v] : fs.ext4_sysfs) j["ext4"][k] = v;
  }
  if (fs.btrfs) {
    j["btrfs"]["uuid"] = fs.btrfs->uuid;
    if (fs.btrfs->sectorsize) j["btrfs"]["sectorsize"] = *fs.btrfs->sectorsize;
    if (fs.btrfs->nodesize) j["btrfs"]["nodesize"] = *fs.btrfs->nodesize;
  }
  if (fs.xfs) {
    const result::XfsGeometry& g = *fs.xfs;
    j["xfs"] = {{"block_size", g.block_size},
                {"ag_count", g.ag_count},
                {"ag_blocks", g.ag_blocks},
                {"ag_bytes", g.ag_bytes},
                {"data_blocks", g.data_blocks},
                {"log_blocks", g.log_blocks},
                {"sector_size", g.sector_size},
                {"inode_size", g.inode_size},
                {"dir_block_size", g.dir_block_size},
                {"stripe_unit_blocks", g.stripe_unit_blocks},
                {"stripe_width_blocks", g.stripe_width_blocks},
                {"realtime_blocks", g.realtime_blocks}};
  }
  return j;
}

json DeviceJson(const result::DeviceInfo& d) {
  const result::QueueSettings& q = d.queue;
  json queue = {{"scheduler", OrNull(q.scheduler)},
                {"available_schedulers", OrNull(q.available_schedulers)},
                {"nr_requests", OrNull(q.nr_requests)},
                {"read_ahead_kb", OrNull(q.read_ahead_kb)},
                {"max_sectors_kb", OrNull(q.max_sectors_kb)},
                {"rotational", OrNull(q.rotational)},
                {"logical_block_size", OrNull(q.logical_block_size)},
                {"physical_block_size", OrNull(q.physical_block_size)}};
  return {{"name", d.name},
          {"major", d.major},
          {"minor", d.minor},
          {"partition", OrNull(d.partition)},
          {"backing_file", OrNull(d.backing_file)},
          {"size_bytes", OrNull(d.size_bytes)},
          {"queue", std::move(queue)}};
}

}  // namespace

json ToJson(const result::SystemInfo& s) {
  json vm = json::object();
  for (const auto& [name, value] : s.vm) vm[name] = OrNull(value);
  return {{"kernel", OrNull(s.kernel)},
          {"kernel_version", OrNull(s.kernel_version)},
          {"machine", OrNull(s.machine)},
          {"hostname", OrNull(s.hostname)},
          {"cpus", OrNull(s.cpus)},
          {"cpu_model", OrNull(s.cpu_model)},
          {"memory_bytes", OrNull(s.memory_bytes)},
          {"page_size", OrNull(s.page_size)},
          {"thp",
           {{"enabled", OrNull(s.thp_enabled)},
            {"defrag", OrNull(s.thp_defrag)},
            {"shmem_enabled", OrNull(s.thp_shmem_enabled)}}},
          {"vm", std::move(vm)}};
}

json ToJson(const result::TargetInfo& t) {
  return {{"path", t.path},
          {"fs_type", OrNull(t.fs_type)},
          {"mount_point", OrNull(t.mount_point)},
          {"mount_source", OrNull(t.mount_source)},
          {"mount_options", OrNull(t.mount_options)},
          {"fs", t.fs ? FsJson(*t.fs) : json(nullptr)},
          {"device", t.device ? DeviceJson(*t.device) : json(nullptr)}};
}

}  // namespace iomimic::report
