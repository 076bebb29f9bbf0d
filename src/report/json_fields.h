// The JSON form of each part of the typed result: the field names and
// units of docs/report-schema.md (schema_version 1). Used by the JSON
// reporter; an unknown figure (an empty optional) is null.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "result/aggregate.h"
#include "result/run_result.h"

namespace iomimic::report {

// An unknown figure is null in the report.
template <typename T>
nlohmann::json OrNull(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json ToJson(const result::SystemInfo& system);
nlohmann::json ToJson(const result::TargetInfo& target);
nlohmann::json ToJson(const result::DeviceDelta& device);
nlohmann::json ToJson(const result::VmStatDelta& vmstat);
nlohmann::json ToJson(const result::CpuDelta& cpu);
nlohmann::json ToJson(const result::ProcessDelta& process);
nlohmann::json ToJson(const result::WritebackReport& writeback);
nlohmann::json ToJson(const result::Layout& layout);
nlohmann::json ToJson(const result::CacheReport& cache);
nlohmann::json ToJson(const result::TuningOutcome& tuning);
// A series row names its rate after the run's unit: "<work_unit>_per_s".
nlohmann::json ToJson(const result::SeriesRow& row, const std::string& work_unit);
nlohmann::json ToJson(const result::ResolvedConfig& config);
nlohmann::json ToJson(const result::RepeatsSummary& repeats);
nlohmann::json ToJson(const result::SweepSummary& sweep);
// The whole report of one run (without repeats and sweep).
nlohmann::json ToJson(const result::RunResult& run);

}  // namespace iomimic::report
