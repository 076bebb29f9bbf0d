// `iomimic run`: run the plan's workload (--repeat times, for each value of
// a --sweep) and render the reports. Options were all validated by ParseRunArgs before anything is
// written.
#include <unistd.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/output_checks.h"
#include "cli/run_options.h"
#include "cli/sweep_plan.h"
#include "engine/engine.h"
#include "engine/signal_watcher.h"
#include "engine/tunings.h"
#include "iomimic/status.h"
#include "report/reporters.h"
#include "util/stderr_line.h"

namespace iomimic::cli {
namespace {

// Returns false (after saying why on stderr) when a file cannot be written.
bool WriteOrSay(const std::string& path, const std::string& content, const char* what) {
  try {
    report::WriteFileAtomically(path, content);
    return true;
  } catch (const SysError& e) {
    PrintErr("iomimic: error: cannot write the {}: {}\n", what, e.what());
    return false;
  }
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The plan's --repeat runs, stopping at the first that does not complete.
std::vector<engine::RunResult> RunRepeats(const RunPlan& plan, engine::StopSource* stop,
                                          const std::string& command_line) {
  const CliConfig& cli = plan.cli;
  engine::Engine engine(plan.engine, stop);
  std::vector<engine::RunResult> results;
  for (int64_t i = 0; i < cli.repeat; ++i) {
    if (i > 0) {
      if (stop->signal() != 0) break;  // arrived between two runs
      stop->ResetForNextRun();
    }
    std::unique_ptr<Workload> workload = MakeWorkload(plan);
    results.push_back(engine.Run(plan.module_name, *workload));
    engine::RunResult& result = results.back();
    result.command_line = command_line;
    result.config = plan.config;
    if (result.status != "complete") break;
    if (cli.repeat > 1 && !cli.quiet) {
      PrintErr("iomimic: repeat {}/{}: {}\n", i + 1, cli.repeat,
                 report::OneLine(result));
    }
  }
  return results;
}

// Every point of a sweep is checked (target, room, tunings) before the
// first one runs: a refusal at point 3 must not come after points 1 and 2
// have written files.
void CheckSweep(const SweepPlan& sweep, engine::StopSource* stop) {
  std::map<std::string, std::string> kept;  // each tuned value the kernel keeps, once
  for (const SweepPoint& point : sweep.points) {
    std::unique_ptr<Workload> workload = MakeWorkload(point.plan);
    try {
      const auto checked =
          engine::Engine(point.plan.engine, stop).Check(point.plan.module_name, *workload);
      if (engine::IsTunable(sweep.name)) {
        engine::TrySweepPoint(checked.tunings, checked.target, sweep.name, &kept);
      }
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--sweep {}={}: {}", sweep.name, point.value, e.what()));
    }
  }
}

}  // namespace

int RunCommand(const std::vector<std::string>& args, const std::string& command_line) {
  ParsedRun parsed = ParseRun(args);
  const RunPlan& plan = parsed.plan;
  if (plan.help) {
    fmt::print("{}", RunHelpText());
    return 0;
  }
  const CliConfig& cli = plan.cli;
  SweepPlan& sweep = parsed.sweep;
  if (sweep.points.empty()) sweep.points.push_back({"", plan});
  for (SweepPoint& point : sweep.points) {
    point.plan.engine.quiet = cli.quiet;
    point.plan.engine.progress = !cli.quiet && ::isatty(STDERR_FILENO);
  }

  engine::StopSource stop;
  engine::SignalWatcher signals(&stop);
  if (!sweep.name.empty()) CheckSweep(sweep, &stop);
  if (!cli.quiet) {
    PrintErr("iomimic: running {}{} under {}{}{}\n", plan.module_name,
               plan.default_run ? " (the built-in default workload)" : "",
               Printable(plan.engine.target),
               cli.repeat > 1 ? fmt::format(", {} times", cli.repeat) : "",
               sweep.name.empty() ? ""
                                  : fmt::format(" for each of {} values of {}",
                                                sweep.points.size(), sweep.name));
  }
  std::vector<report::SweepResults> points;
  for (size_t i = 0; i < sweep.points.size(); ++i) {
    if (i > 0) {
      if (stop.signal() != 0 || points.back().runs.back().status != "complete") break;
      stop.ResetForNextRun();
    }
    const SweepPoint& point = sweep.points[i];
    if (!sweep.name.empty() && !cli.quiet) {
      PrintErr("iomimic: sweep {}={} ({}/{})\n", sweep.name, point.value, i + 1,
                 sweep.points.size());
    }
    points.push_back({point.value, RunRepeats(point.plan, &stop, command_line)});
  }
  for (size_t i = points.size(); i < sweep.points.size(); ++i) {
    points.push_back({sweep.points[i].value, {}});  // not run: the sweep stopped
  }

  const report::SweepResults* last_point = &points.front();
  for (const auto& p : points) {
    if (!p.runs.empty()) last_point = &p;
  }
  const std::vector<engine::RunResult>* last_runs = &last_point->runs;
  const engine::RunResult& last = last_runs->back();
  if (last.error && !cli.quiet) {
    PrintErr("iomimic: run failed in {}: {} {}: {}\n", last.error->phase,
               last.error->op, Printable(last.error->path), last.error->message);
  }
  nlohmann::json json = report::ToJson(last);
  if (cli.repeat > 1) json["repeats"] = report::SummarizeRepeats(*last_runs);
  if (!sweep.name.empty()) json["sweep"] = report::SummarizeSweep(sweep.name, points);
  const bool complete = std::all_of(points.begin(), points.end(), [](const auto& p) {
    return !p.runs.empty() && p.runs.back().status == "complete";
  });

  const auto csv = [&] {
    return json.contains("sweep") ? report::RenderSweepCsv(json["sweep"]) : report::RenderCsv(last);
  };
  bool written = true;
  if (!cli.output.empty()) {
    written &= WriteOrSay(cli.output, EndsWith(cli.output, ".csv") ? csv() : json.dump(2) + "\n",
                          "report");
  }
  if (!cli.series_output.empty()) {
    written &= WriteOrSay(cli.series_output, report::RenderSeriesCsv(last), "series");
  }
  if (cli.format == "text") {
    // The full report is one run's; say which, so it is not read as the
    // sweep's result (the table at the end compares every point).
    if (!sweep.name.empty()) {
      fmt::print("sweep of {}: the full report of the last run ({}={}) comes first; the table "
                 "at the end compares every value\n\n",
                 sweep.name, sweep.name, last_point->value);
    }
    fmt::print("{}", report::RenderText(last));
    if (json.contains("repeats")) fmt::print("{}", report::RenderRepeatsText(json["repeats"]));
    if (json.contains("sweep")) fmt::print("{}", report::RenderSweepText(json["sweep"]));
  } else if (cli.format == "json") {
    fmt::print("{}\n", json.dump(2));
  } else if (cli.format == "csv") {
    fmt::print("{}", csv());
  }
  const bool printed = FinishStdout();  // text and CSV are buffered: a loss shows here
  return written && printed && complete ? 0 : 1;
}

}  // namespace iomimic::cli
