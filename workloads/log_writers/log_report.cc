#include "log_report.h"

namespace iomimic::log_writers {
namespace {

double Per(uint64_t n, uint64_t d) {
  return d == 0 ? 0.0 : static_cast<double>(n) / static_cast<double>(d);
}

}  // namespace

nlohmann::json LogsReport(const std::vector<const LogFile*>& logs, const ReportFacts& facts) {
  LogCounters sum;
  uint64_t files = 0;
  nlohmann::json listed = nlohmann::json::array();
  for (const LogFile* log : logs) {
    const LogCounters c = log->counters();
    sum.records += c.records;
    sum.bytes += c.bytes;
    sum.write_calls += c.write_calls;
    sum.lseeks += c.lseeks;
    sum.flushes += c.flushes;
    sum.flushed_bytes += c.flushed_bytes;
    sum.rotations += c.rotations;
    files += log->files();
    if (listed.size() < kMaxListedLogs) {
      listed.push_back({{"name", log->name()},
                        {"records", c.records},
                        {"bytes", c.bytes},
                        {"writes", c.write_calls},
                        {"flushes", c.flushes},
                        {"rotations", c.rotations},
                        {"files", log->files()}});
    }
  }
  nlohmann::json per_record = {{"writes", Per(sum.write_calls, sum.records)},
                               {"lseeks", Per(sum.lseeks, sum.records)},
                               {"clock_reads", Per(facts.clock_reads, sum.records)}};
  if (facts.buffered) per_record["buffer_copies"] = facts.writes_per_record;
  return {{"records", sum.records},
          {"record_size", facts.record_size},
          {"bytes", sum.bytes},
          {"writes", sum.write_calls},
          {"lseeks", sum.lseeks},
          {"clock_reads", facts.clock_reads},
          {"per_record", per_record},
          {"flush",
           {{"policy", facts.flush},
            {"flushes", sum.flushes},
            {"bytes_per_flush", Per(sum.flushed_bytes, sum.flushes)},
            {"records_per_flush", Per(sum.records, sum.flushes)}}},
          {"prealloc", facts.prealloc},
          {"rotate_size", facts.rotate_size},
          {"rotations", sum.rotations},
          {"logs", logs.size()},
          {"files_created", files},
          {"logs_listed", listed.size()},
          {"per_log", listed}};
}

}  // namespace iomimic::log_writers
