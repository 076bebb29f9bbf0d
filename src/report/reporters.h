// Reporters render the typed result of a run (result/run_result.h) and the
// aggregates of --repeat and --sweep (result/aggregate.h). One interface, in
// the spirit of google/benchmark's BenchmarkReporter: a reporter is told the
// context, the run whose full report is shown, the repeats and the sweep,
// and Finalize() returns its whole document. JSON is canonical (the schema
// in docs/report-schema.md, versioned by kSchemaVersion); text, CSV and the
// series CSV are views of the same result. No reporter changes the result,
// and none reads a JSON key: each reads typed fields.
//
// Thread-safety: a reporter is used by one thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "result/aggregate.h"
#include "result/run_result.h"

namespace iomimic::report {

constexpr int kSchemaVersion = 1;

// What one `iomimic run` produced.
struct ReportSet {
  const result::RunResult* run = nullptr;  // the run whose full report is shown (the last)
  std::optional<result::RepeatsSummary> repeats;  // with --repeat N > 1
  std::optional<result::SweepSummary> sweep;      // with --sweep
  std::string sweep_last_value;  // the value of the sweep point `run` belongs to
};

class Reporter {
 public:
  struct Context {
    std::string sweep_name;        // "" without a sweep
    std::string sweep_last_value;  // the sweep point whose run is reported
  };
  virtual ~Reporter() = default;
  // Called once, first.
  virtual void ReportContext(const Context& context) { (void)context; }
  // The full report of one run.
  virtual void ReportRun(const result::RunResult& run) = 0;
  virtual void ReportRepeats(const result::RepeatsSummary& repeats) { (void)repeats; }
  virtual void ReportSweep(const result::SweepSummary& sweep) { (void)sweep; }
  // The whole document; called once, last.
  virtual std::string Finalize() = 0;
};

// The reporters by the name of their format: "text", "json", "csv" (one
// row per op; with a sweep, one row per value and figure) and "series_csv"
// (the --interval rows). nullptr for an unknown name.
std::unique_ptr<Reporter> MakeReporter(const std::string& format);

// Tells `reporter` every part of `set` in order and returns its document.
std::string Render(Reporter& reporter, const ReportSet& set);
// The same through a new reporter of `format`.
std::string Render(const std::string& format, const ReportSet& set);

// "complete, 20.01 s, 2213 cycles (110.6/s), 441 MiB/s" for progress lines.
std::string OneLine(const result::RunResult& result);

// Writes content to path through a temporary file in the same directory,
// fsync and rename: a crash never leaves half a report. Throws SysError.
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace iomimic::report
