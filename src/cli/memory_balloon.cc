#include "cli/memory_balloon.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "iomimic/status.h"
#include "util/stderr_line.h"
#include "iomimic/units.h"

namespace iomimic::cli {
namespace {

// A /proc/meminfo field in bytes, 0 when absent.
uint64_t MemInfo(const std::string& field) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) != 0) continue;
    std::istringstream s(line.substr(field.size() + 1));
    uint64_t kib = 0;
    s >> kib;
    return kib << 10;
  }
  return 0;
}

}  // namespace

MemoryBalloon::MemoryBalloon(const std::string& size_text, const std::string& option) {
  std::string err;
  const auto size = ParseSize(size_text, &err);
  if (!size || *size == 0) {
    throw UsageError(fmt::format("invalid value '{}' for option '{}': {}", size_text, option,
                                 size ? "must be > 0" : err));
  }
  const uint64_t available = MemInfo("MemAvailable"), total = MemInfo("MemTotal");
  const uint64_t safe = std::max<uint64_t>(512ull << 20, total / 20);
  if (available < *size + safe) {
    throw UsageError(fmt::format(
        "invalid value '{}' for option '{}': {} available, it would leave less than the safe "
        "minimum {} (at most {} here)",
        size_text, option, FormatBytesHuman(available), FormatBytesHuman(safe),
        FormatBytesHuman(available > safe ? available - safe : 0)));
  }
  // MAP_POPULATE faults every page in now; mlock keeps them from reclaim.
  base_ = ::mmap(nullptr, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                 -1, 0);
  if (base_ == MAP_FAILED) {
    base_ = nullptr;
    throw SysError("mmap", option, errno);
  }
  if (::mlock(base_, *size) != 0) {
    const int e = errno;
    ::munmap(base_, *size);
    base_ = nullptr;
    throw UsageError(fmt::format("invalid value '{}' for option '{}': mlock failed: {} (needs "
                                 "root or a large enough RLIMIT_MEMLOCK)",
                                 size_text, option, std::strerror(e)));
  }
  bytes_ = *size;
  PrintErr("iomimic: memory balloon: {} locked, {} left available\n", FormatBytesHuman(bytes_),
           FormatBytesHuman(MemInfo("MemAvailable")));
}

MemoryBalloon::~MemoryBalloon() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
}

}  // namespace iomimic::cli
