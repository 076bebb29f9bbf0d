// CSV views: one row per op, one row per sweep value and figure, and the
// --interval series. Fields a user typed (a path, a size) are quoted per
// RFC 4180.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/csv_reporters.h"

namespace iomimic::report {
namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// A number as the JSON report writes it, so both agree to the digit.
template <typename T>
std::string Num(T v) {
  return nlohmann::json(v).dump();
}
template <typename T>
std::string Num(const std::optional<T>& v) {
  return v ? Num(*v) : "";
}

std::string RunCsv(const result::RunResult& r) {
  std::string out =
      "module,status,duration_s,op,count,errors,bytes,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,"
      "p999_ns,max_ns\n";
  for (const auto& op : r.ops) {
    const auto& l = op.latency;
    out += fmt::format("{},{},{:.6f},{},{},{},{},{},{:.1f},{},{},{},{},{}\n", r.module,
                       result::StatusName(r.status), r.duration_s, op.name, op.count, op.errors,
                       op.bytes, l.min, l.mean, l.p50, l.p90, l.p99, l.p999, l.max);
  }
  return out;
}

std::string SweepCsv(const result::SweepSummary& sweep) {
  std::string out = "setting,value,status,figure,median,min,max,spread_pct,runs\n";
  for (const auto& p : sweep.points) {
    for (const result::Aggregate* a : p.repeats.ByName()) {
      out += fmt::format("{},{},{},{},{},{},{},{:.2f},{}\n", CsvField(sweep.name),
                         CsvField(p.value), p.status, a->figure, a->median, a->min, a->max,
                         a->spread_pct, a->runs);
    }
  }
  return out;
}

std::string SeriesRowCsv(const result::SeriesRow& row, const std::vector<std::string>& ops) {
  std::string out =
      fmt::format("{},{},{},{}", Num(row.t_s), Num(row.interval_s), Num(row.work_units),
                  Num(row.units_per_s));
  for (const std::string& name : ops) {
    const auto it = std::find_if(row.ops.begin(), row.ops.end(),
                                 [&](const result::SeriesOp& o) { return o.name == name; });
    if (it == row.ops.end()) {
      out += ",,,,,";
      continue;
    }
    out += fmt::format(",{},{},{},{},{}", it->count, it->bytes, it->p50_ns, it->p99_ns,
                       it->max_ns);
  }
  const result::DeviceDelta* dev = row.device && *row.device ? &**row.device : nullptr;
  const result::CpuDelta& cpu = row.cpu;
  const auto dev_num = [dev](uint64_t result::DeviceDelta::*field) {
    return dev ? Num(dev->*field) : std::string();
  };
  out += fmt::format(",{},{},{},{},{},{},{},{}\n", dev_num(&result::DeviceDelta::reads),
                     dev_num(&result::DeviceDelta::writes),
                     dev_num(&result::DeviceDelta::read_bytes),
                     dev_num(&result::DeviceDelta::write_bytes), Num(cpu.user_pct),
                     Num(cpu.system_pct), Num(cpu.iowait_pct), Num(cpu.idle_pct));
  return out;
}

}  // namespace

std::string RenderSeriesCsv(const result::RunResult& r) {
  if (!r.series || r.series->empty()) return {};
  // Ops in name order, as the series CSV has always had them.
  std::vector<std::string> ops;
  for (const result::SeriesOp& o : r.series->front().ops) ops.push_back(o.name);
  std::sort(ops.begin(), ops.end());
  std::string out = "t_s,interval_s,work_units," + r.work_unit + "_per_s";
  for (const auto& op : ops) {
    out += fmt::format(",{0}_count,{0}_bytes,{0}_p50_ns,{0}_p99_ns,{0}_max_ns", op);
  }
  out += ",dev_reads,dev_writes,dev_read_bytes,dev_write_bytes,cpu_user_pct,cpu_system_pct,"
         "cpu_iowait_pct,cpu_idle_pct\n";
  for (const result::SeriesRow& row : *r.series) out += SeriesRowCsv(row, ops);
  return out;
}

namespace {

class CsvReporter final : public Reporter {
 public:
  void ReportRun(const result::RunResult& run) override { doc_ = RunCsv(run); }
  void ReportSweep(const result::SweepSummary& sweep) override { doc_ = SweepCsv(sweep); }
  std::string Finalize() override { return doc_; }

 private:
  std::string doc_;
};

class SeriesCsvReporter final : public Reporter {
 public:
  void ReportRun(const result::RunResult& run) override { doc_ = RenderSeriesCsv(run); }
  std::string Finalize() override { return doc_; }

 private:
  std::string doc_;
};

}  // namespace

std::unique_ptr<Reporter> MakeCsvReporter() { return std::make_unique<CsvReporter>(); }
std::unique_ptr<Reporter> MakeSeriesCsvReporter() {
  return std::make_unique<SeriesCsvReporter>();
}

}  // namespace iomimic::report
