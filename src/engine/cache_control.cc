#include "engine/cache_control.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "iomimic/page_cache.h"
#include "iomimic/status.h"
#include "probes/probes.h"
#include "util/stderr_line.h"

namespace iomimic {
namespace {

uint64_t CachedTotal(const std::vector<std::string>& files) {
  uint64_t total = 0;
  for (const auto& f : files) total += probes::CachedBytes(f).value_or(0);
  return total;
}

}  // namespace

namespace engine {

result::CacheReport ApplyCacheMode(const std::string& mode,
                                   const std::vector<std::string>& files, bool quiet) {
  result::CacheReport out;
  out.mode = mode;
  out.files = files.size();
  out.cached_bytes_before = CachedTotal(files);
  if (mode == "cold") {
    for (const auto& f : files) EvictFromPageCache(f);
  } else if (mode == "drop") {
    if (!quiet) PrintErr("iomimic: sync; echo 3 > /proc/sys/vm/drop_caches\n");
    DropAllCaches();
  }
  out.cached_bytes_after = CachedTotal(files);
  return out;
}

}  // namespace engine
}  // namespace iomimic
