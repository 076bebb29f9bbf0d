#include <fmt/format.h>

#include "report/reporters.h"

namespace iomimic::report {

using nlohmann::json;

std::string RenderSeriesCsv(const engine::RunResult& result) {
  const json& series = result.series;
  if (!series.is_array() || series.empty()) return {};
  const json& first = series[0];
  std::string unit_rate;
  for (const auto& [k, v] : first.items()) {
    if (k.size() > 6 && k.compare(k.size() - 6, 6, "_per_s") == 0) unit_rate = k;
  }
  std::vector<std::string> ops;
  for (const auto& [k, v] : first["ops"].items()) ops.push_back(k);
  std::string out = "t_s,interval_s,work_units," + unit_rate;
  for (const auto& op : ops) {
    out += fmt::format(",{0}_count,{0}_bytes,{0}_p50_ns,{0}_p99_ns,{0}_max_ns", op);
  }
  out += ",dev_reads,dev_writes,dev_read_bytes,dev_write_bytes,cpu_user_pct,cpu_system_pct,"
         "cpu_iowait_pct,cpu_idle_pct\n";
  auto num = [](const json& j, const char* k) -> std::string {
    return j.is_object() && j.contains(k) && j[k].is_number() ? j[k].dump() : "";
  };
  for (const json& row : series) {
    out += fmt::format("{},{},{},{}", row["t_s"].dump(), row["interval_s"].dump(),
                       row["work_units"].dump(), row[unit_rate].dump());
    for (const auto& op : ops) {
      const json& o = row["ops"][op];
      out += fmt::format(",{},{},{},{},{}", o["count"].dump(), o["bytes"].dump(),
                         o["p50_ns"].dump(), o["p99_ns"].dump(), o["max_ns"].dump());
    }
    const json dev = row.value("device", json());
    const json cpu = row.value("cpu", json());
    out += fmt::format(",{},{},{},{},{},{},{},{}\n", num(dev, "reads"), num(dev, "writes"),
                       num(dev, "read_bytes"), num(dev, "write_bytes"), num(cpu, "user_pct"),
                       num(cpu, "system_pct"), num(cpu, "iowait_pct"), num(cpu, "idle_pct"));
  }
  return out;
}

}  // namespace iomimic::report
