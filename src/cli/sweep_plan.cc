#include "cli/sweep_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/tunings.h"
#include "iomimic/status.h"

namespace iomimic::cli {
namespace {

// Enough for any curve a person reads; more is a typo in a script.
constexpr size_t kMaxSweepValues = 64;

std::string SweepError(const std::string& text, const std::string& why) {
  return fmt::format("invalid value '{}' for option 'sweep': {}", text, why);
}

std::vector<std::string> SplitValues(const std::string& text, const std::string& list) {
  std::vector<std::string> values;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string v = list.substr(start, comma == std::string::npos ? comma : comma - start);
    if (v.empty()) throw UsageError(SweepError(text, "an empty value"));
    if (std::find(values.begin(), values.end(), v) != values.end()) {
      throw UsageError(SweepError(text, fmt::format("the value '{}' is given twice", v)));
    }
    values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (values.size() > kMaxSweepValues) {
    throw UsageError(SweepError(text, fmt::format("more than {} values", kMaxSweepValues)));
  }
  return values;
}

// The options of the report itself vary nothing in the run.
bool IsReportOption(const std::string& name) {
  for (const char* n : {"output", "format", "quiet", "repeat", "series_output", "sweep"}) {
    if (name == n) return true;
  }
  return false;
}

}  // namespace

SweepPlan PlanSweep(const std::vector<std::string>& args, const RunPlan& base) {
  SweepPlan sweep;
  const std::string& text = base.cli.sweep;
  if (text.empty()) return sweep;
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw UsageError(SweepError(text, "write NAME=VALUE1,VALUE2,..."));
  }
  sweep.name = text.substr(0, eq);
  if (IsReportOption(sweep.name)) {
    throw UsageError(SweepError(text, fmt::format("'{}' shapes the report, not the run",
                                                  sweep.name)));
  }
  for (const std::string& value : SplitValues(text, text.substr(eq + 1))) {
    SweepPoint point{value, base};
    const std::string setting = sweep.name + "=" + value;
    try {
      if (engine::IsTunable(sweep.name)) {
        std::string& tune = point.plan.engine.tune;
        tune = tune.empty() ? setting : tune + "," + setting;
        std::vector<engine::TuningRequest> parsed;
        if (std::string why = engine::ParseTunings(tune, &parsed); !why.empty()) {
          throw UsageError(why);
        }
        point.plan.config.Set("run", "tune", tune);
      } else {
        // Parsed as if typed last on the command line: it wins over the
        // profile, and the same option given beside --sweep is refused.
        std::vector<std::string> point_args = args;
        point_args.push_back("--" + setting);
        point.plan = ParseRunArgs(point_args);
      }
    } catch (const UsageError& e) {
      throw UsageError(SweepError(text, fmt::format("{}: {}", setting, e.what())));
    }
    sweep.points.push_back(std::move(point));
  }
  return sweep;
}

ParsedRun ParseRun(const std::vector<std::string>& args) {
  ParsedRun parsed{ParseRunArgs(args), {}};
  if (!parsed.plan.help) parsed.sweep = PlanSweep(args, parsed.plan);
  return parsed;
}

}  // namespace iomimic::cli
