// Whether a path can be read as a trace: what `trace summarize` and the
// replay module both check before reading one (their error names it).
#pragma once

#include <string>

namespace iomimic::trace {

// "" when `path` is a regular file on a real filesystem; else why not (it
// is missing, not a regular file, or on /proc, /sys and the like, whose
// "regular files" can be endless: /proc/kcore).
std::string CheckTraceFile(const std::string& path);

}  // namespace iomimic::trace
