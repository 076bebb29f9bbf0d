// JSON of --repeat and --sweep (report-schema.md, `repeats` and `sweep`).
#include "report/json_fields.h"

namespace iomimic::report {

using nlohmann::json;

json ToJson(const result::RepeatsSummary& repeats) {
  json runs = json::array();
  for (const result::RepeatRun& r : repeats.runs) {
    json figures = json::object();
    for (const auto& [name, value] : r.figures) figures[name] = value;
    runs.push_back({{"status", result::StatusName(r.status)},
                    {"duration_s", r.duration_s},
                    {"work_units", r.work_units},
                    {"figures", std::move(figures)}});
  }
  json summary = json::object();
  for (const result::Aggregate& a : repeats.summary) {
    summary[a.figure] = {{"median", a.median},
                         {"min", a.min},
                         {"max", a.max},
                         {"spread_pct", a.spread_pct},
                         {"runs", a.runs}};
  }
  return {{"count", repeats.count()}, {"runs", std::move(runs)}, {"summary", std::move(summary)}};
}

json ToJson(const result::SweepSummary& sweep) {
  json points = json::array();
  for (const result::SweepPointSummary& p : sweep.points) {
    points.push_back({{"value", p.value}, {"status", p.status}, {"repeats", ToJson(p.repeats)}});
  }
  return {{"name", sweep.name}, {"points", std::move(points)}};
}

}  // namespace iomimic::report
