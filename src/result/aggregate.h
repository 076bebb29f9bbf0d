// --repeat and --sweep as typed aggregates: the headline figures of each
// run, and over the complete runs their median, min, max and spread
// (google/benchmark's statistics.cc computes repetition aggregates the
// same way: as data, before any reporter sees them).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "result/run_result.h"

namespace iomimic::result {

// A figure by its report name: "<unit>_per_s", "bytes_per_s",
// "ops.<op>.p50_ns", "device.avg_write_kib", "cpu.iowait_pct", ...
using Figure = std::pair<std::string, double>;

// The figures compared across runs, in report order.
std::vector<Figure> HeadlineFigures(const RunResult& run);

struct Aggregate {
  std::string figure;
  double median = 0, min = 0, max = 0;
  double spread_pct = 0;  // (max - min) / median * 100; 0 when median is 0
  uint64_t runs = 0;
};

struct RepeatRun {
  RunStatus status = RunStatus::kFailed;
  double duration_s = 0;
  uint64_t work_units = 0;
  std::vector<Figure> figures;
};

struct RepeatsSummary {
  std::vector<RepeatRun> runs;
  std::vector<Aggregate> summary;  // over the complete runs, first-seen order
  uint64_t count() const { return runs.size(); }
  const Aggregate* Find(const std::string& figure) const;
  // The aggregates in figure-name order: the order the repeat and sweep
  // tables and the sweep CSV have always listed them in.
  std::vector<const Aggregate*> ByName() const;
};
RepeatsSummary SummarizeRepeats(const std::vector<RunResult>& runs);

struct SweepPointSummary {
  std::string value;
  std::string status;  // the last run's status, or "not run"
  RepeatsSummary repeats;
};
struct SweepSummary {
  std::string name;
  std::vector<SweepPointSummary> points;
  // Every point's figures, each point's in name order, first-seen across
  // the points: the rows of the sweep table.
  std::vector<std::string> FigureNames() const;
};
struct SweepPointRuns {
  std::string value;
  std::vector<RunResult> runs;  // empty: not run, the sweep stopped before it
};
SweepSummary SummarizeSweep(const std::string& name, const std::vector<SweepPointRuns>& points);

double Median(std::vector<double> values);

}  // namespace iomimic::result
