// --sweep NAME=V1,V2,...: the same workload once per value of one setting,
// each point a complete run plan (with its --repeat runs), all of them
// parsed and validated before the first run starts.
//
// NAME is a --tune setting (queue.read_ahead_kb: added to the run's --tune
// for that point), an engine option (threads, target: a filesystem
// comparison) or a module option (log_writers.flush). A point's value goes
// through the same parsing as the command line, so every bad value is
// refused up front with the option's own message (exit 2). Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "cli/run_options.h"

namespace iomimic::cli {

struct SweepPoint {
  std::string value;
  RunPlan plan;
};

struct SweepPlan {
  std::string name;  // "" when the run is not a sweep
  std::vector<SweepPoint> points;
};

// `args` are the run's arguments as given (ParseRunArgs's input), `base`
// what they parse to. Throws UsageError naming 'sweep' and the bad part.
SweepPlan PlanSweep(const std::vector<std::string>& args, const RunPlan& base);

// Everything `iomimic run` parses before it runs: ParseRunArgs, then the
// sweep (none for --help). What RunCommand and the fuzz targets call.
struct ParsedRun {
  RunPlan plan;
  SweepPlan sweep;
};
ParsedRun ParseRun(const std::vector<std::string>& args);

}  // namespace iomimic::cli
