// `iomimic trace summarize`: what a support engineer reads first about an
// application's strace. One streaming pass (memory O(threads + files)).
// The JSON is the source; the text is rendered from it. Fields are
// documented in docs/replay.md.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace iomimic::trace {

struct SummaryOptions {
  // Only syscalls on paths under this directory count as I/O (others are
  // "outside"): to summarise an strace of a replay, whose own files are in
  // its run directory. "" = everything.
  std::string under;
  size_t top_files = 20;  // files listed in the text (the JSON has all)
};

// Throws TraceError (file:line) for a trace it cannot read.
nlohmann::json Summarize(const std::string& path, const SummaryOptions& options);
std::string SummaryText(const nlohmann::json& summary, size_t top_files);

}  // namespace iomimic::trace
