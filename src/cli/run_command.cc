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
std::vector<result::RunResult> RunRepeats(const RunPlan& plan, engine::StopSource* stop,
                                          const std::string& command_line) {
  const CliConfig& cli = plan.cli;
  engine::Engine engine(plan.engine, stop);
  std::vector<result::RunResult> results;
  for (int64_t i = 0; i < cli.repeat; ++i) {
    if (i > 0) {
      if (stop->signal() != 0) break;  // arrived between two runs
      stop->ResetForNextRun();
    }
    std::unique_ptr<Workload> workload = MakeWorkload(plan);
    results.push_back(engine.Run(plan.module_name, *workload));
    result::RunResult& result = results.back();
    result.command_line = command_line;
    result.config = plan.config;
    if (result.status != result::RunStatus::kComplete) break;
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

namespace {

// Every point of the sweep (one point without --sweep), run in order until
// one does not complete or a signal arrives; the points not run are kept,
// empty, so the report says so.
std::vector<result::SweepPointRuns> RunPoints(const SweepPlan& sweep, const CliConfig& cli,
                                              engine::StopSource* stop,
                                              const std::string& command_line) {
  std::vector<result::SweepPointRuns> points;
  for (size_t i = 0; i < sweep.points.size(); ++i) {
    if (i > 0) {
      if (stop->signal() != 0 || points.back().runs.back().status != result::RunStatus::kComplete) {
        break;
      }
      stop->ResetForNextRun();
    }
    const SweepPoint& point = sweep.points[i];
    if (!sweep.name.empty() && !cli.quiet) {
      PrintErr("iomimic: sweep {}={} ({}/{})\n", sweep.name, point.value, i + 1,
               sweep.points.size());
    }
    points.push_back({point.value, RunRepeats(point.plan, stop, command_line)});
  }
  for (size_t i = points.size(); i < sweep.points.size(); ++i) {
    points.push_back({sweep.points[i].value, {}});  // not run: the sweep stopped
  }
  return points;
}

void AnnounceRun(const RunPlan& plan, const SweepPlan& sweep) {
  if (plan.cli.quiet) return;
  PrintErr("iomimic: running {}{} under {}{}{}\n", plan.module_name,
           plan.default_run ? " (the built-in default workload)" : "",
           Printable(plan.engine.target),
           plan.cli.repeat > 1 ? fmt::format(", {} times", plan.cli.repeat) : "",
           sweep.name.empty() ? ""
                              : fmt::format(" for each of {} values of {}", sweep.points.size(),
                                            sweep.name));
}

// The report set of the last point that ran: its last run in full, its
// repeats, and the sweep over every point.
report::ReportSet Summarize(const std::vector<result::SweepPointRuns>& points,
                            const SweepPlan& sweep, const CliConfig& cli) {
  const result::SweepPointRuns* last_point = &points.front();
  for (const auto& p : points) {
    if (!p.runs.empty()) last_point = &p;
  }
  report::ReportSet set;
  set.run = &last_point->runs.back();
  if (cli.repeat > 1) set.repeats = result::SummarizeRepeats(last_point->runs);
  if (!sweep.name.empty()) {
    set.sweep = result::SummarizeSweep(sweep.name, points);
    set.sweep_last_value = last_point->value;
  }
  return set;
}

// Writes the files asked for and prints stdout's view. False when a file
// could not be written, or stdout lost the report (said on stderr).
bool Output(const report::ReportSet& set, const CliConfig& cli) {
  bool written = true;
  if (!cli.output.empty()) {
    const std::string format = EndsWith(cli.output, ".csv") ? "csv" : "json";
    written &= WriteOrSay(cli.output, report::Render(format, set), "report");
  }
  if (!cli.series_output.empty()) {
    written &= WriteOrSay(cli.series_output, report::Render("series_csv", set), "series");
  }
  if (cli.format != "none") fmt::print("{}", report::Render(cli.format, set));
  const bool printed = FinishStdout();  // text and CSV are buffered: a loss shows here
  return written && printed;
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
  AnnounceRun(plan, sweep);
  const std::vector<result::SweepPointRuns> points = RunPoints(sweep, cli, &stop, command_line);
  const report::ReportSet set = Summarize(points, sweep, cli);
  const result::RunResult& last = *set.run;
  if (last.error && !cli.quiet) {
    PrintErr("iomimic: run failed in {}: {} {}: {}\n", last.error->phase, last.error->op,
             Printable(last.error->path), last.error->message);
  }
  const bool complete = std::all_of(points.begin(), points.end(), [](const auto& p) {
    return !p.runs.empty() && p.runs.back().status == result::RunStatus::kComplete;
  });
  const bool written = Output(set, cli);
  return written && complete ? 0 : 1;
}

}  // namespace iomimic::cli
