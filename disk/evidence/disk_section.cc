#include "evidence/disk_section.h"

#include <climits>
#include <cstdlib>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace iomimic::disk {
namespace {

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// The block device name ("loop3") of the filesystem holding `path`: the
// source of the longest mount point containing it (/proc/self/mountinfo).
// Not st_dev: on btrfs that is an anonymous device, not the disk.
std::string DeviceOf(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return "";
  const std::string real = buf;
  std::ifstream in("/proc/self/mountinfo");
  std::string line, best_mount, best_source;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, devno, root, mount_point;
    f >> id >> parent >> devno >> root >> mount_point;
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string fstype, source;
    tail >> fstype >> source;
    const bool contains = real == mount_point || mount_point == "/" ||
                          real.rfind(mount_point + "/", 0) == 0;
    if (contains && mount_point.size() >= best_mount.size()) {
      best_mount = mount_point;
      best_source = source;
    }
  }
  return best_source.rfind("/dev/", 0) == 0 ? best_source.substr(5) : "";
}

}  // namespace

std::optional<nlohmann::json> ReadDiskStats(const std::string& path) {
  const std::string name = DeviceOf(path);
  if (name.rfind("loop", 0) != 0) return std::nullopt;
  const std::string backing = ReadLine("/sys/block/" + name + "/loop/backing_file");
  const std::string suffix = "/disk.img";
  if (backing.size() <= suffix.size() ||
      backing.compare(backing.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return std::nullopt;
  }
  std::ifstream in(backing.substr(0, backing.size() - suffix.size()) + "/stats");
  std::ostringstream s;
  s << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(s.str(), nullptr, false);
  if (!j.is_object() || !j.contains("counters")) return std::nullopt;
  j["device"] = name;
  return j;
}

nlohmann::json DiskModelSection(const std::optional<nlohmann::json>& before,
                                const std::optional<nlohmann::json>& after) {
  if (!before || !after) return nullptr;
  const nlohmann::json& b = (*before)["counters"];
  const nlohmann::json& a = (*after)["counters"];
  nlohmann::json delta = nlohmann::json::object();
  for (const auto& [key, value] : a.items()) {
    if (value.is_object()) {
      for (const auto& [k, v] : value.items()) {
        delta[key][k] = v.get<uint64_t>() - b[key].value(k, uint64_t{0});
      }
    } else if (key == "in_flight" || key == "max_in_flight") {
      delta[key] = value;  // gauges, not counters
    } else {
      delta[key] = value.get<uint64_t>() - b.value(key, uint64_t{0});
    }
  }
  const double elapsed = delta["elapsed_ns"].get<double>();
  const uint64_t requests = delta["reads"].get<uint64_t>() + delta["writes"].get<uint64_t>() +
                            delta["flushes"].get<uint64_t>();
  nlohmann::json derived = {
      {"requests", requests},
      {"utilization", elapsed > 0 ? delta["busy_ns"].get<double>() / elapsed : 0.0},
      {"mean_queue_depth", elapsed > 0 ? delta["queue_depth_area_ns"].get<double>() / elapsed : 0.0},
      {"mean_service_ms", requests > 0 ? delta["service_ns"].get<double>() / 1e6 / requests : 0.0},
      {"mean_seek_distance_bytes",
       delta["seeks"].get<uint64_t>() > 0
           ? delta["seek_bytes"].get<double>() / delta["seeks"].get<double>()
           : 0.0}};
  return {{"model", (*after)["model_name"]},
          {"parameters", (*after)["model"]},
          {"size", (*after)["size"]},
          {"device", (*after)["device"]},
          {"counters", delta},
          {"derived", derived}};
}

}  // namespace iomimic::disk
