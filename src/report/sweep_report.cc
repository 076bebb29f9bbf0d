// --sweep: one column per value, one row per headline figure (the medians
// of each value's runs), so the curve is read across a line.
#include <set>

#include <fmt/format.h>

#include "report/reporters.h"
#include "util/units.h"

namespace iomimic::report {
namespace {

using nlohmann::json;

// A user's value (a path, a size) as one CSV field (RFC 4180 quoting).
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

bool IsNs(const std::string& k) { return k.size() > 3 && k.compare(k.size() - 3, 3, "_ns") == 0; }

// Figures in the order of the first point that has each.
std::vector<std::string> FigureNames(const json& sweep) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const json& p : sweep["points"]) {
    for (const auto& [k, v] : p["repeats"]["summary"].items()) {
      if (seen.insert(k).second) names.push_back(k);
    }
  }
  return names;
}

}  // namespace

json SummarizeSweep(const std::string& name, const std::vector<SweepResults>& points) {
  json out = {{"name", name}, {"points", json::array()}};
  for (const SweepResults& p : points) {
    const std::string status = p.runs.empty() ? "not run" : p.runs.back().status;
    out["points"].push_back(
        {{"value", p.value}, {"status", status}, {"repeats", SummarizeRepeats(p.runs)}});
  }
  return out;
}

std::string RenderSweepText(const json& sweep) {
  const json& points = sweep["points"];
  std::string out = fmt::format(
      "\nsweep of {}: median of each value's runs (spread = (max - min) / median)\n",
      sweep["name"].get<std::string>());
  constexpr int kWidth = 20;
  out += fmt::format("  {:<34}", "");
  for (const json& p : points) out += fmt::format(" {:>{}}", p["value"].get<std::string>(), kWidth);
  out += fmt::format("\n  {:<34}", "status (runs)");
  for (const json& p : points) {
    out += fmt::format(" {:>{}}", fmt::format("{} ({})", p["status"].get<std::string>(),
                                              p["repeats"]["count"].get<size_t>()),
                       kWidth);
  }
  out += "\n";
  for (const std::string& k : FigureNames(sweep)) {
    out += fmt::format("  {:<34}", k);
    for (const json& p : points) {
      const json& s = p["repeats"]["summary"];
      std::string cell = "-";
      if (s.contains(k)) {
        const double median = s[k]["median"].get<double>();
        cell = fmt::format("{} ({:.0f}%)",
                           IsNs(k) ? FormatLatency(static_cast<uint64_t>(median))
                                   : fmt::format("{:.4g}", median),
                           s[k]["spread_pct"].get<double>());
      }
      out += fmt::format(" {:>{}}", cell, kWidth);
    }
    out += "\n";
  }
  return out;
}

std::string RenderSweepCsv(const json& sweep) {
  std::string out = "setting,value,status,figure,median,min,max,spread_pct,runs\n";
  const std::string name = sweep["name"];
  for (const json& p : sweep["points"]) {
    for (const auto& [k, v] : p["repeats"]["summary"].items()) {
      out += fmt::format("{},{},{},{},{},{},{},{:.2f},{}\n", CsvField(name),
                         CsvField(p["value"].get<std::string>()), p["status"].get<std::string>(), k,
                         v["median"].get<double>(), v["min"].get<double>(),
                         v["max"].get<double>(), v["spread_pct"].get<double>(),
                         v["runs"].get<size_t>());
    }
  }
  return out;
}

}  // namespace iomimic::report
