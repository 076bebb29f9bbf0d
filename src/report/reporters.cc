#include "report/reporters.h"

#include <fmt/format.h>

#include "report/csv_reporters.h"
#include "report/text_run.h"
#include "iomimic/units.h"

namespace iomimic::report {

std::unique_ptr<Reporter> MakeJsonReporter();  // json_report.cc

namespace {

class TextReporter final : public Reporter {
 public:
  void ReportContext(const Context& c) override {
    // The full report is one run's; say which, so it is not read as the
    // sweep's result (the table at the end compares every point).
    if (c.sweep_name.empty()) return;
    out_ += fmt::format(
        "sweep of {}: the full report of the last run ({}={}) comes first; the table "
        "at the end compares every value\n\n",
        c.sweep_name, c.sweep_name, c.sweep_last_value);
  }
  void ReportRun(const result::RunResult& run) override { out_ += RenderRunText(run); }
  void ReportRepeats(const result::RepeatsSummary& repeats) override {
    out_ += RenderRepeatsText(repeats);
  }
  void ReportSweep(const result::SweepSummary& sweep) override { out_ += RenderSweepText(sweep); }
  std::string Finalize() override { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace

std::unique_ptr<Reporter> MakeReporter(const std::string& format) {
  if (format == "text") return std::make_unique<TextReporter>();
  if (format == "json") return MakeJsonReporter();
  if (format == "csv") return MakeCsvReporter();
  if (format == "series_csv") return MakeSeriesCsvReporter();
  return nullptr;
}

std::string Render(Reporter& reporter, const ReportSet& set) {
  reporter.ReportContext({set.sweep ? set.sweep->name : "", set.sweep_last_value});
  reporter.ReportRun(*set.run);
  if (set.repeats) reporter.ReportRepeats(*set.repeats);
  if (set.sweep) reporter.ReportSweep(*set.sweep);
  return reporter.Finalize();
}

std::string Render(const std::string& format, const ReportSet& set) {
  std::unique_ptr<Reporter> reporter = MakeReporter(format);
  return reporter ? Render(*reporter, set) : std::string();
}

std::string OneLine(const result::RunResult& r) {
  return fmt::format(
      "{}, {:.2f} s, {} {} ({:.1f}/s), {}/s", result::StatusName(r.status), r.duration_s,
      r.work_units, r.work_unit, r.PerSecond(static_cast<double>(r.work_units)),
      FormatBytesHuman(static_cast<uint64_t>(
          r.PerSecond(static_cast<double>(r.app_read_bytes + r.app_write_bytes)))));
}

}  // namespace iomimic::report
