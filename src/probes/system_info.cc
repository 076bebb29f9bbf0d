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

std::optional<std::string> Selector(const std::string& path) {
  const std::optional<std::string> text = platform::ReadFileTrimmed(path);
  if (!text) return std::nullopt;
  return platform::ActiveChoice(*text);
}

std::optional<uint64_t> MemTotalBytes() {
  // "MemTotal:       24684092 kB"
  const std::optional<std::string> value = ProcField("/proc/meminfo", "MemTotal");
  if (!value) return std::nullopt;
  const std::vector<std::string> words = platform::SplitWords(*value);
  if (words.size() != 2 || words[1] != "kB") return std::nullopt;
  const std::optional<uint64_t> kib = platform::ParseUint(words[0]);
  if (!kib) return std::nullopt;
  return *kib * 1024;
}

std::optional<std::string> CpuModel() {
  // x86 says "model name"; other architectures name it differently or not at all.
  for (const char* key : {"model name", "Model", "cpu model", "cpu"}) {
    if (std::optional<std::string> v = ProcField("/proc/cpuinfo", key)) {
      if (!v->empty()) return *v;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> SysconfOrNull(int name) {
  const long v = ::sysconf(name);
  if (v <= 0) return std::nullopt;
  return v;
}

}  // namespace

result::SystemInfo SystemInfo() {
  result::SystemInfo out;
  utsname u {};
  if (::uname(&u) == 0) {
    out.kernel = u.release;
    out.kernel_version = u.version;
    out.machine = u.machine;
    out.hostname = u.nodename;
  }
  out.cpus = SysconfOrNull(_SC_NPROCESSORS_ONLN);
  out.cpu_model = CpuModel();
  out.memory_bytes = MemTotalBytes();
  out.page_size = SysconfOrNull(_SC_PAGESIZE);
  out.thp_enabled = Selector("/sys/kernel/mm/transparent_hugepage/enabled");
  out.thp_defrag = Selector("/sys/kernel/mm/transparent_hugepage/defrag");
  out.thp_shmem_enabled = Selector("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
  // Writeback thresholds: the *_bytes form wins when non-zero, the other
  // then reads 0; both are reported as the kernel shows them.
  for (const char* name : {"dirty_ratio", "dirty_background_ratio", "dirty_bytes",
                           "dirty_background_bytes", "dirty_expire_centisecs",
                           "dirty_writeback_centisecs", "swappiness", "vfs_cache_pressure"}) {
    out.vm.emplace_back(name, platform::ReadUint(std::string("/proc/sys/vm/") + name));
  }
  return out;
}

}  // namespace iomimic::probes
