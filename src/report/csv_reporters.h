// The CSV reporters, and the series CSV on its own (reporters.h).
#pragma once

#include <memory>
#include <string>

#include "report/reporters.h"

namespace iomimic::report {

std::unique_ptr<Reporter> MakeCsvReporter();
std::unique_ptr<Reporter> MakeSeriesCsvReporter();
// The --interval rows ("" without a series).
std::string RenderSeriesCsv(const result::RunResult& run);

}  // namespace iomimic::report
