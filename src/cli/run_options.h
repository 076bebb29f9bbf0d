// `iomimic run`'s arguments resolved into a plan: every option parsed and
// validated through the OptionSet that owns it, nothing written yet.
//
// Precedence: command line over profile over defaults. Errors are
// UsageError naming the option and the value (exit 2). Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "iomimic/workload.h"
#include "result/run_result.h"

namespace iomimic::cli {

// Options of the command itself: where the report goes, repeats.
struct CliConfig {
  std::string output;           // JSON (or CSV when it ends in .csv), written atomically
  std::string format = "text";  // what goes to stdout
  bool quiet = false;
  int64_t repeat = 1;          // runs of the same workload, each with fresh files
  std::string series_output;  // the --interval series as CSV
  std::string sweep;          // NAME=V1,V2,...: --repeat runs per value (cli/sweep_plan.h)
};

struct RunPlan {
  bool help = false;  // --help: print RunHelpText() and stop
  std::string module_name;
  std::string profile;  // "" when none
  bool default_run = false;
  engine::EngineConfig engine;
  CliConfig cli;
  // The module's options as given, applied to each fresh instance.
  std::vector<std::pair<std::string, std::string>> module_values;
  // Every option as resolved, defaults included: the report's "config".
  result::ResolvedConfig config;
};

RunPlan ParseRunArgs(const std::vector<std::string>& args);

// A fresh module instance with the plan's module options applied.
std::unique_ptr<Workload> MakeWorkload(const RunPlan& plan);

std::string RunHelpText();

}  // namespace iomimic::cli
