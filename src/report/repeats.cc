// --repeat: a performance engineer reads the median and the spread of
// several runs, not one run's figure, on a shared noisy machine.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/reporters.h"
#include "util/units.h"

namespace iomimic::report {
namespace {

using nlohmann::json;

double PerSecond(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0.0; }

// The figures compared across repeats, flattened: "<unit>_per_s",
// "bytes_per_s", "ops.<op>.p50_ns" / p99_ns / mean_ns, and the device's
// average request sizes and amplification when known.
std::vector<std::pair<std::string, double>> Headline(const engine::RunResult& r) {
  std::vector<std::pair<std::string, double>> f;
  f.emplace_back("duration_s", r.duration_s);
  f.emplace_back(r.work_unit + "_per_s",
                 PerSecond(static_cast<double>(r.work_units), r.duration_s));
  f.emplace_back("bytes_per_s",
                 PerSecond(static_cast<double>(r.app_read_bytes + r.app_write_bytes), r.duration_s));
  for (const auto& op : r.ops) {
    if (op.count == 0) continue;
    f.emplace_back("ops." + op.name + ".p50_ns", static_cast<double>(op.latency.p50));
    f.emplace_back("ops." + op.name + ".p99_ns", static_cast<double>(op.latency.p99));
    f.emplace_back("ops." + op.name + ".mean_ns", op.latency.mean);
  }
  if (r.device.is_object()) {
    for (const char* k : {"avg_read_kib", "avg_write_kib"}) {
      if (r.device.contains(k) && r.device[k].is_number()) {
        f.emplace_back(std::string("device.") + k, r.device[k].get<double>());
      }
    }
    const json ratio = r.device.value("device_bytes_per_app_byte", json::object());
    for (const char* k : {"read", "write"}) {
      if (ratio.contains(k) && ratio[k].is_number()) {
        f.emplace_back(std::string("device.bytes_per_app_byte.") + k, ratio[k].get<double>());
      }
    }
  }
  if (r.cpu.is_object()) {
    for (const char* k : {"user_pct", "system_pct", "iowait_pct", "idle_pct",
                          "procs_blocked_mean"}) {
      if (r.cpu.contains(k) && r.cpu[k].is_number()) {
        f.emplace_back(std::string("cpu.") + k, r.cpu[k].get<double>());
      }
    }
  }
  if (r.layout.is_object() && r.layout.contains("summary")) {
    const json& s = r.layout["summary"];
    if (s.contains("extents_total") && s["extents_total"].is_number()) {
      f.emplace_back("layout.extents_total", s["extents_total"].get<double>());
    }
  }
  return f;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::string OneLine(const engine::RunResult& r) {
  return fmt::format("{}, {:.2f} s, {} {} ({:.1f}/s), {}/s", r.status, r.duration_s, r.work_units,
                     r.work_unit, PerSecond(static_cast<double>(r.work_units), r.duration_s),
                     FormatBytesHuman(static_cast<uint64_t>(PerSecond(
                         static_cast<double>(r.app_read_bytes + r.app_write_bytes), r.duration_s))));
}

json SummarizeRepeats(const std::vector<engine::RunResult>& results) {
  json runs = json::array();
  std::map<std::string, std::vector<double>> values;
  std::vector<std::string> order;
  for (const auto& r : results) {
    json run = {{"status", r.status}, {"duration_s", r.duration_s}, {"work_units", r.work_units}};
    json figures = json::object();
    for (const auto& [k, v] : Headline(r)) {
      figures[k] = v;
      if (r.status != "complete") continue;
      if (!values.count(k)) order.push_back(k);
      values[k].push_back(v);
    }
    run["figures"] = std::move(figures);
    runs.push_back(std::move(run));
  }
  json summary = json::object();
  for (const auto& k : order) {
    const auto& v = values[k];
    const double median = Median(v);
    const double lo = *std::min_element(v.begin(), v.end());
    const double hi = *std::max_element(v.begin(), v.end());
    summary[k] = {{"median", median},
                  {"min", lo},
                  {"max", hi},
                  {"spread_pct", median != 0 ? (hi - lo) / median * 100 : 0.0},
                  {"runs", v.size()}};
  }
  return {{"count", results.size()}, {"runs", std::move(runs)}, {"summary", std::move(summary)}};
}

std::string RenderRepeatsText(const json& repeats) {
  std::string out = fmt::format("\nover {} runs: median [min - max] (spread)\n",
                                repeats["count"].get<size_t>());
  for (const auto& [k, v] : repeats["summary"].items()) {
    const bool ns = k.size() > 3 && k.compare(k.size() - 3, 3, "_ns") == 0;
    auto show = [&](double x) {
      return ns ? FormatLatency(static_cast<uint64_t>(x)) : fmt::format("{:.4g}", x);
    };
    out += fmt::format("  {:<34} {:>10} [{} - {}] ({:.1f}%)\n", k, show(v["median"].get<double>()),
                       show(v["min"].get<double>()), show(v["max"].get<double>()),
                       v["spread_pct"].get<double>());
  }
  return out;
}

}  // namespace iomimic::report
