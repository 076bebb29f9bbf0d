// A report written by the iomimic binary (--output FILE), read back.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace iomimic::test {

// The JSON document in `path`; null when the file is missing, and a
// discarded value (is_discarded()) when it is not valid JSON: a
// half-written report.
nlohmann::json ReadReport(const std::string& path);

// A report path under /tmp unique to this test process and `tag`.
std::string ReportPathFor(const std::string& tag);

// The names a report at `path` may pass through (util/atomic_file.h):
// DIR/.NAME.tmp-*, for the write audits.
std::string TempNameGlob(const std::string& path);

}  // namespace iomimic::test
