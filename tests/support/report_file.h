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

}  // namespace iomimic::test
