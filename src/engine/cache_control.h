// Page-cache state at the start of the measured phase, for any module.
//
//   keep: leave it as Prepare() left it.
//   cold: for each of the module's files, fdatasync (dirty pages cannot be
//         dropped) then posix_fadvise(DONTNEED). No root needed; touches
//         only the run's own files.
//   drop: sync, then echo 3 > /proc/sys/vm/drop_caches: root only, and only
//         when asked; it changes nothing that needs restoring but empties
//         the whole machine's caches, so it is printed.
// Returns what was done, with the files' residency before and after
// measured by mincore().
#pragma once

#include <string>
#include <vector>

#include "result/evidence.h"

namespace iomimic::engine {

result::CacheReport ApplyCacheMode(const std::string& mode,
                                   const std::vector<std::string>& files, bool quiet);

}  // namespace iomimic::engine
