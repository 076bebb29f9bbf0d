// SystemInfo: kernel, CPUs, memory and the VM tunables that govern
// writeback, read from uname, sysconf, /proc and /sys.
#include <sys/utsname.h>
#include <unistd.h>

#include <optional>
#include <string_view>

#include "platform/sysfs.h"
#include "probes/probes.h"

namespace iomimic::probes {
namespace {

using nlohmann::json;

// The value of the first "key : value" line of a /proc file such as
// cpuinfo or meminfo whose key is `key`.
std::optional<std::string> ProcField(const std::string& path, std::string_view key) {
  const std::optional<std::string> text = platform::ReadFile(path);
  if (!text) return std::nullopt;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    const std::string_view line = std::string_view(*text).substr(pos, end - pos);
    pos = end + 1;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    if (name != key) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
      value.remove_prefix(1);
    }
    return std::string(value);
  }
  return std::nullopt;
}

json Selector(const std::string& path) {
  const std::optional<std::string> text = platform::ReadFileTrimmed(path);
  if (!text) return nullptr;
  const std::optional<std::string> active = platform::ActiveChoice(*text);
  return active ? json(*active) : json(nullptr);
}

json MemTotalBytes() {
  // "MemTotal:       24684092 kB"
  const std::optional<std::string> value = ProcField("/proc/meminfo", "MemTotal");
  if (!value) return nullptr;
  const std::vector<std::string> words = platform::SplitWords(*value);
  if (words.size() != 2 || words[1] != "kB") return nullptr;
  const std::optional<uint64_t> kib = platform::ParseUint(words[0]);
  return kib ? json(*kib * 1024) : json(nullptr);
}

json CpuModel() {
  // x86 says "model name"; other architectures name it differently or not at all.
  for (const char* key : {"model name", "Model", "cpu model", "cpu"}) {
    if (std::optional<std::string> v = ProcField("/proc/cpuinfo", key)) {
      if (!v->empty()) return *v;
    }
  }
  return nullptr;
}

json SysconfOrNull(int name) {
  const long v = ::sysconf(name);
  return v > 0 ? json(v) : json(nullptr);
}

}  // namespace

json SystemInfo() {
  json out = json::object();
  utsname u {};
  if (::uname(&u) == 0) {
    out["kernel"] = u.release;
    out["kernel_version"] = u.version;
    out["machine"] = u.machine;
    out["hostname"] = u.nodename;
  } else {
    out["kernel"] = nullptr;
    out["kernel_version"] = nullptr;
    out["machine"] = nullptr;
    out["hostname"] = nullptr;
  }
  out["cpus"] = SysconfOrNull(_SC_NPROCESSORS_ONLN);
  out["cpu_model"] = CpuModel();
  out["memory_bytes"] = MemTotalBytes();
  out["page_size"] = SysconfOrNull(_SC_PAGESIZE);
  out["thp"] = {{"enabled", Selector("/sys/kernel/mm/transparent_hugepage/enabled")},
                {"defrag", Selector("/sys/kernel/mm/transparent_hugepage/defrag")},
                {"shmem_enabled", Selector("/sys/kernel/mm/transparent_hugepage/shmem_enabled")}};
  // Writeback thresholds: the *_bytes form wins when non-zero, the other
  // then reads 0; both are reported as the kernel shows them.
  json vm = json::object();
  for (const char* name : {"dirty_ratio", "dirty_background_ratio", "dirty_bytes",
                           "dirty_background_bytes", "dirty_expire_centisecs",
                           "dirty_writeback_centisecs", "swappiness", "vfs_cache_pressure"}) {
    const std::optional<uint64_t> v = platform::ReadUint(std::string("/proc/sys/vm/") + name);
    vm[name] = v ? json(*v) : json(nullptr);
  }
  out["vm"] = vm;
  return out;
}

}  // namespace iomimic::probes
