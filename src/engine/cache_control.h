// Page-cache state at the start of the measured phase, for any module.
//
//   keep: leave it as Prepare() left it.
//   cold: for each of the module's files, fdatasync (dirty pages cannot be
//         dropped) then posix_fadvise(DONTNEED). No root needed; touches
//         only the run's own files.
//   drop: sync, then echo 3 > /proc/sys/vm/drop_caches: root only, and only
//         when asked; it changes nothing that needs restoring but empties
//         the whole machine's caches, so it is printed.
// Returns the report's "cache" object: {mode, files, cached_bytes_before,
// cached_bytes_after} with residency measured by mincore().
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace iomimic::engine {

nlohmann::json ApplyCacheMode(const std::string& mode, const std::vector<std::string>& files,
                              bool quiet);

}  // namespace iomimic::engine
