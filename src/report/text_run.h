// Text views used by the text reporter (text_reporter.cc).
#pragma once

#include <string>

#include "result/aggregate.h"
#include "result/run_result.h"

namespace iomimic::report {

std::string RenderRunText(const result::RunResult& run);
std::string RenderRepeatsText(const result::RepeatsSummary& repeats);
std::string RenderSweepText(const result::SweepSummary& sweep);

}  // namespace iomimic::report
