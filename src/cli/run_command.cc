// `iomimic run`: run the plan's workload (--repeat times) and render the
// reports. Options were all validated by ParseRunArgs before anything is
// written.
#include <unistd.h>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/run_options.h"
#include "engine/engine.h"
#include "engine/signal_watcher.h"
#include "iomimic/status.h"
#include "report/reporters.h"

namespace iomimic::cli {
namespace {

// Returns false (after saying why on stderr) when a file cannot be written.
bool WriteOrSay(const std::string& path, const std::string& content, const char* what) {
  try {
    report::WriteFileAtomically(path, content);
    return true;
  } catch (const SysError& e) {
    fmt::print(stderr, "iomimic: error: cannot write the {}: {}\n", what, e.what());
    return false;
  }
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int RunCommand(const std::vector<std::string>& args, const std::string& command_line) {
  RunPlan plan = ParseRunArgs(args);
  if (plan.help) {
    fmt::print("{}", RunHelpText());
    return 0;
  }
  const CliConfig& cli = plan.cli;
  plan.engine.quiet = cli.quiet;
  plan.engine.progress = !cli.quiet && ::isatty(STDERR_FILENO);

  engine::StopSource stop;
  engine::SignalWatcher signals(&stop);
  engine::Engine engine(plan.engine, &stop);
  if (!cli.quiet) {
    fmt::print(stderr, "iomimic: running {}{} under {}{}\n", plan.module_name,
               plan.default_run ? " (the built-in default workload)" : "", plan.engine.target,
               cli.repeat > 1 ? fmt::format(", {} times", cli.repeat) : "");
  }
  std::vector<engine::RunResult> results;
  for (int64_t i = 0; i < cli.repeat; ++i) {
    if (i > 0) {
      if (stop.signal() != 0) break;
      stop.ResetForNextRun();
    }
    std::unique_ptr<Workload> workload = MakeWorkload(plan);
    results.push_back(engine.Run(plan.module_name, *workload));
    engine::RunResult& result = results.back();
    result.command_line = command_line;
    result.config = plan.config;
    if (result.status != "complete") break;
    if (cli.repeat > 1 && !cli.quiet) {
      fmt::print(stderr, "iomimic: repeat {}/{}: {}\n", i + 1, cli.repeat,
                 report::OneLine(result));
    }
  }
  const engine::RunResult& last = results.back();
  if (last.error && !cli.quiet) {
    fmt::print(stderr, "iomimic: run failed in {}: {} {}: {}\n", last.error->phase,
               last.error->op, last.error->path, last.error->message);
  }
  nlohmann::json json = report::ToJson(last);
  if (cli.repeat > 1) json["repeats"] = report::SummarizeRepeats(results);

  bool written = true;
  if (!cli.output.empty()) {
    written &= WriteOrSay(cli.output,
                          EndsWith(cli.output, ".csv") ? report::RenderCsv(last)
                                                       : json.dump(2) + "\n",
                          "report");
  }
  if (!cli.series_output.empty()) {
    written &= WriteOrSay(cli.series_output, report::RenderSeriesCsv(last), "series");
  }
  if (cli.format == "text") {
    fmt::print("{}", report::RenderText(last));
    if (json.contains("repeats")) fmt::print("{}", report::RenderRepeatsText(json["repeats"]));
  } else if (cli.format == "json") {
    fmt::print("{}\n", json.dump(2));
  } else if (cli.format == "csv") {
    fmt::print("{}", report::RenderCsv(last));
  }
  std::fflush(stdout);
  return written && last.status == "complete" ? 0 : 1;
}

}  // namespace iomimic::cli
