#include "result/aggregate.h"

#include <algorithm>
#include <map>
#include <set>

namespace iomimic::result {

std::vector<Figure> HeadlineFigures(const RunResult& r) {
  std::vector<Figure> f;
  f.emplace_back("duration_s", r.duration_s);
  f.emplace_back(r.work_unit + "_per_s", r.PerSecond(static_cast<double>(r.work_units)));
  f.emplace_back("bytes_per_s",
                 r.PerSecond(static_cast<double>(r.app_read_bytes + r.app_write_bytes)));
  for (const auto& op : r.ops) {
    if (op.count == 0) continue;
    f.emplace_back("ops." + op.name + ".p50_ns", static_cast<double>(op.latency.p50));
    f.emplace_back("ops." + op.name + ".p99_ns", static_cast<double>(op.latency.p99));
    f.emplace_back("ops." + op.name + ".mean_ns", op.latency.mean);
  }
  if (r.device) {
    f.emplace_back("device.avg_read_kib", r.device->avg_read_kib);
    f.emplace_back("device.avg_write_kib", r.device->avg_write_kib);
    if (r.device->bytes_per_app_byte_read) {
      f.emplace_back("device.bytes_per_app_byte.read", *r.device->bytes_per_app_byte_read);
    }
    if (r.device->bytes_per_app_byte_write) {
      f.emplace_back("device.bytes_per_app_byte.write", *r.device->bytes_per_app_byte_write);
    }
  }
  if (r.cpu) {
    const std::pair<const char*, const std::optional<double>*> shares[] = {
        {"cpu.user_pct", &r.cpu->user_pct},
        {"cpu.system_pct", &r.cpu->system_pct},
        {"cpu.iowait_pct", &r.cpu->iowait_pct},
        {"cpu.idle_pct", &r.cpu->idle_pct}};
    for (const auto& [name, value] : shares) {
      if (*value) f.emplace_back(name, **value);
    }
    if (r.cpu->gauges && r.cpu->gauges->samples > 0) {
      f.emplace_back("cpu.procs_blocked_mean", r.cpu->gauges->procs_blocked_mean);
    }
  }
  if (r.layout && r.layout->summary.extents_total) {
    f.emplace_back("layout.extents_total",
                   static_cast<double>(*r.layout->summary.extents_total));
  }
  return f;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const Aggregate* RepeatsSummary::Find(const std::string& figure) const {
  for (const Aggregate& a : summary) {
    if (a.figure == figure) return &a;
  }
  return nullptr;
}

std::vector<const Aggregate*> RepeatsSummary::ByName() const {
  std::vector<const Aggregate*> out;
  for (const Aggregate& a : summary) out.push_back(&a);
  std::sort(out.begin(), out.end(),
            [](const Aggregate* a, const Aggregate* b) { return a->figure < b->figure; });
  return out;
}

RepeatsSummary SummarizeRepeats(const std::vector<RunResult>& results) {
  RepeatsSummary out;
  std::map<std::string, std::vector<double>> values;
  std::vector<std::string> order;
  for (const RunResult& r : results) {
    RepeatRun run{r.status, r.duration_s, r.work_units, HeadlineFigures(r)};
    if (r.status == RunStatus::kComplete) {
      for (const auto& [name, value] : run.figures) {
        if (!values.count(name)) order.push_back(name);
        values[name].push_back(value);
      }
    }
    out.runs.push_back(std::move(run));
  }
  for (const std::string& name : order) {
    const std::vector<double>& v = values[name];
    Aggregate a;
    a.figure = name;
    a.median = Median(v);
    a.min = *std::min_element(v.begin(), v.end());
    a.max = *std::max_element(v.begin(), v.end());
    a.spread_pct = a.median != 0 ? (a.max - a.min) / a.median * 100 : 0.0;
    a.runs = v.size();
    out.summary.push_back(std::move(a));
  }
  return out;
}

SweepSummary SummarizeSweep(const std::string& name, const std::vector<SweepPointRuns>& points) {
  SweepSummary out{name, {}};
  for (const SweepPointRuns& p : points) {
    const std::string status = p.runs.empty() ? "not run" : StatusName(p.runs.back().status);
    out.points.push_back({p.value, status, SummarizeRepeats(p.runs)});
  }
  return out;
}

std::vector<std::string> SweepSummary::FigureNames() const {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const SweepPointSummary& p : points) {
    for (const Aggregate* a : p.repeats.ByName()) {
      if (seen.insert(a->figure).second) names.push_back(a->figure);
    }
  }
  return names;
}

}  // namespace iomimic::result
