// The module_report of log_writers: what the logs did, summed from their
// counters after the workers joined (main thread only).
//
// Counters cover the measured phase, like the ops (files created: the whole
// run); the README documents each field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "log_file.h"

namespace iomimic::log_writers {

struct ReportFacts {
  uint64_t record_size = 0;
  std::string flush;     // as the user wrote it
  std::string prealloc;  // as the user wrote it
  uint64_t rotate_size = 0;
  uint64_t writes_per_record = 0;  // copies into the buffer when buffered
  bool buffered = false;
  uint64_t clock_reads = 0;  // over all threads
};

// At most this many logs are listed one by one in "logs"; the totals
// cover all.
inline constexpr size_t kMaxListedLogs = 1000;

nlohmann::json LogsReport(const std::vector<const LogFile*>& logs, const ReportFacts& facts);

}  // namespace iomimic::log_writers
