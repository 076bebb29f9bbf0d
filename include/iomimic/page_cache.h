// Page-cache control a module may use between passes (the engine's --cache
// does the same once, before the measured phase).
//
// EvictFromPageCache: fdatasync (dirty pages cannot be dropped) then
// posix_fadvise(DONTNEED) on one file. No root needed. Throws SysError.
// DropAllCaches: sync, then "3" into /proc/sys/vm/drop_caches. Root only;
// empties the whole machine's caches, so call it only when the user asked,
// and say so. Throws SysError. Both thread-safe.
#pragma once

#include <string>

namespace iomimic {

void EvictFromPageCache(const std::string& path);
void DropAllCaches();

}  // namespace iomimic
