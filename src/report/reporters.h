// Reporters render an immutable RunResult. JSON is canonical (the schema in
// docs/report-schema.md, versioned by kSchemaVersion); the text table and
// the CSV are views of the same result. No reporter changes the result.
// Thread-safe (pure functions).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/run_result.h"

namespace iomimic::report {

constexpr int kSchemaVersion = 1;

nlohmann::json ToJson(const engine::RunResult& result);
std::string RenderText(const engine::RunResult& result);
// One row per op; the header names every column with its unit.
std::string RenderCsv(const engine::RunResult& result);

// The --interval time series, one line per interval ("" without one).
std::string RenderSeriesCsv(const engine::RunResult& result);

// "complete, 20.01 s, 2213 cycles (110.6/s), 441 MiB/s" for progress lines.
std::string OneLine(const engine::RunResult& result);

// --repeat: per run headline figures, and their median, min, max and
// spread ((max - min) / median, in percent) over the runs.
nlohmann::json SummarizeRepeats(const std::vector<engine::RunResult>& results);
std::string RenderRepeatsText(const nlohmann::json& repeats);

// --sweep: each value's runs, summarised as --repeat does; rendered as a
// figures x values table, or CSV (one row per value and figure).
struct SweepResults {
  std::string value;
  std::vector<engine::RunResult> runs;
};
nlohmann::json SummarizeSweep(const std::string& name, const std::vector<SweepResults>& points);
std::string RenderSweepText(const nlohmann::json& sweep);
std::string RenderSweepCsv(const nlohmann::json& sweep);

// Writes content to path through a temporary file in the same directory,
// fsync and rename: a crash never leaves half a report. Throws SysError.
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace iomimic::report
