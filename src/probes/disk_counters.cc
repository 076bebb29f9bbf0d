// ReadDiskCounters and DiskDelta: /sys/block/NAME/stat before and after.
//
// The stat file (Documentation/block/stat.rst) has 11 fields up to 4.18,
// 15 with the discard counters (4.19), 17 with the flush counters (5.5).
// Missing trailing fields stay 0, so on an old kernel flushes read 0.
#include <optional>

#include "platform/block_device.h"
#include "platform/sysfs.h"
#include "probes/probes.h"

namespace iomimic::probes {
namespace {

// Sectors in this file are always 512 bytes, whatever the device's
// logical block size.
constexpr uint64_t kSectorBytes = 512;

// after - before, or nullopt when the counter went backwards: the device
// was removed and re-created between the two reads, the delta means nothing.
std::optional<uint64_t> Delta(uint64_t before, uint64_t after) {
  if (after < before) return std::nullopt;
  return after - before;
}

std::optional<double> Ratio(uint64_t device_bytes, uint64_t app_bytes) {
  if (app_bytes == 0) return std::nullopt;
  return static_cast<double>(device_bytes) / static_cast<double>(app_bytes);
}

double AvgKib(uint64_t bytes, uint64_t requests) {
  return requests == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(requests) / 1024;
}

}  // namespace

DiskCounters ReadDiskCounters(const std::string& device_name) {
  DiskCounters c;
  if (device_name.empty() || device_name.find('/') != std::string::npos) return c;
  const std::optional<std::string> text =
      platform::ReadFile(platform::SysBlockDir(device_name) + "/stat");
  if (!text) return c;
  std::vector<uint64_t> f;
  for (const std::string& word : platform::SplitWords(*text)) {
    std::optional<uint64_t> v = platform::ParseUint(word);
    if (!v) return c;
    f.push_back(*v);
  }
  if (f.size() < 11) return c;
  f.resize(17, 0);
  c.reads = f[0];
  c.read_merges = f[1];
  c.read_sectors = f[2];
  c.read_ticks_ms = f[3];
  c.writes = f[4];
  c.write_merges = f[5];
  c.write_sectors = f[6];
  c.write_ticks_ms = f[7];
  c.in_flight = f[8];
  c.io_ticks_ms = f[9];
  c.time_in_queue_ms = f[10];
  c.discards = f[11];
  c.discard_merges = f[12];
  c.discard_sectors = f[13];
  c.discard_ticks_ms = f[14];
  c.flushes = f[15];
  c.flush_ticks_ms = f[16];
  c.valid = true;
  return c;
}

std::optional<result::DeviceDelta> DiskDelta(const std::string& device_name,
                                             const DiskCounters& before, const DiskCounters& after,
                                             uint64_t app_read_bytes, uint64_t app_write_bytes) {
  if (!before.valid || !after.valid) return std::nullopt;
  const auto reads = Delta(before.reads, after.reads);
  const auto writes = Delta(before.writes, after.writes);
  const auto read_sectors = Delta(before.read_sectors, after.read_sectors);
  const auto write_sectors = Delta(before.write_sectors, after.write_sectors);
  const auto read_merges = Delta(before.read_merges, after.read_merges);
  const auto write_merges = Delta(before.write_merges, after.write_merges);
  const auto flushes = Delta(before.flushes, after.flushes);
  const auto discards = Delta(before.discards, after.discards);
  const auto discard_sectors = Delta(before.discard_sectors, after.discard_sectors);
  const auto io_ticks = Delta(before.io_ticks_ms, after.io_ticks_ms);
  const auto read_ticks = Delta(before.read_ticks_ms, after.read_ticks_ms);
  const auto write_ticks = Delta(before.write_ticks_ms, after.write_ticks_ms);
  if (!reads || !writes || !read_sectors || !write_sectors || !read_merges || !write_merges ||
      !flushes || !discards || !discard_sectors || !io_ticks || !read_ticks || !write_ticks) {
    return std::nullopt;
  }
  const uint64_t read_bytes = *read_sectors * kSectorBytes;
  const uint64_t write_bytes = *write_sectors * kSectorBytes;
  result::DeviceDelta d;
  d.device = device_name;
  d.reads = *reads;
  d.writes = *writes;
  d.read_bytes = read_bytes;
  d.write_bytes = write_bytes;
  d.avg_read_kib = AvgKib(read_bytes, *reads);
  d.avg_write_kib = AvgKib(write_bytes, *writes);
  d.read_merges = *read_merges;
  d.write_merges = *write_merges;
  d.merges = *read_merges + *write_merges;
  d.flushes = *flushes;
  d.discards = *discards;
  d.discard_bytes = *discard_sectors * kSectorBytes;
  d.read_ticks_ms = *read_ticks;
  d.write_ticks_ms = *write_ticks;
  d.io_ticks_ms = *io_ticks;
  d.in_flight_end = after.in_flight;
  d.bytes_per_app_byte_read = Ratio(read_bytes, app_read_bytes);
  d.bytes_per_app_byte_write = Ratio(write_bytes, app_write_bytes);
  return d;
}

}  // namespace iomimic::probes
