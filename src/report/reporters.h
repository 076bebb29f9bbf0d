// Reporters render an immutable RunResult. JSON is canonical (the schema in
// docs/report-schema.md, versioned by kSchemaVersion); the text table and
// the CSV are views of the same result. No reporter changes the result.
// Thread-safe (pure functions).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/run_result.h"

namespace iomimic::report {

constexpr int kSchemaVersion = 1;

nlohmann::json ToJson(const engine::RunResult& result);
std::string RenderText(const engine::RunResult& result);
// One row per op; the header names every column with its unit.
std::string RenderCsv(const engine::RunResult& result);

// Writes content to path through a temporary file in the same directory,
// fsync and rename: a crash never leaves half a report. Throws SysError.
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace iomimic::report
