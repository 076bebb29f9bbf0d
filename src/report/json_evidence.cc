// JSON of the evidence: device, vmstat, cpu, layout, cache, tunings and
// series rows (report-schema.md).
#include "report/json_fields.h"

namespace iomimic::report {

using nlohmann::json;

json ToJson(const result::DeviceDelta& d) {
  json j = {{"device", d.device},
            {"reads", d.reads},
            {"writes", d.writes},
            {"read_bytes", d.read_bytes},
            {"write_bytes", d.write_bytes},
            {"avg_read_kib", d.avg_read_kib},
            {"avg_write_kib", d.avg_write_kib},
            {"read_merges", d.read_merges},
            {"write_merges", d.write_merges},
            {"merges", d.merges},
            {"flushes", d.flushes},
            {"discards", d.discards},
            {"discard_bytes", d.discard_bytes},
            {"read_ticks_ms", d.read_ticks_ms},
            {"write_ticks_ms", d.write_ticks_ms},
            {"io_ticks_ms", d.io_ticks_ms},
            {"in_flight_end", d.in_flight_end},
            {"device_bytes_per_app_byte",
             {{"read", OrNull(d.bytes_per_app_byte_read)},
              {"write", OrNull(d.bytes_per_app_byte_write)}}}};
  if (d.roles) j["roles"] = *d.roles;
  return j;
}

json ToJson(const result::VmStatDelta& v) {
  json j = {{"scope", "system-wide"}};
  for (const auto& [name, value] : v.counters) j[name] = OrNull(value);
  for (const auto& [name, value] : v.gauges) j[name] = value;
  return j;
}

json ToJson(const result::CpuDelta& c) {
  json j = {{"scope", "system-wide"},
            {"user_pct", OrNull(c.user_pct)},
            {"system_pct", OrNull(c.system_pct)},
            {"iowait_pct", OrNull(c.iowait_pct)},
            {"idle_pct", OrNull(c.idle_pct)},
            {"other_pct", OrNull(c.other_pct)},
            {"procs_blocked_end", OrNull(c.procs_blocked_end)},
            {"process",
             {{"user_s", c.process.user_s},
              {"sys_s", c.process.sys_s},
              {"minor_faults", c.process.minor_faults},
              {"major_faults", c.process.major_faults},
              {"children_user_s", c.process.children_user_s},
              {"children_sys_s", c.process.children_sys_s}}}};
  if (c.gauges) {
    j["gauge_samples"] = c.gauges->samples;
    if (c.gauges->samples > 0) {
      j["procs_blocked_mean"] = c.gauges->procs_blocked_mean;
      j["procs_blocked_max"] = c.gauges->procs_blocked_max;
      j["procs_running_mean"] = c.gauges->procs_running_mean;
    }
  }
  return j;
}

json ToJson(const result::ProcessDelta& p) {
  json io = nullptr;
  if (p.io) {
    io = {{"rchar", p.io->rchar},
          {"wchar", p.io->wchar},
          {"syscr", p.io->syscr},
          {"syscw", p.io->syscw},
          {"read_bytes", p.io->read_bytes},
          {"write_bytes", p.io->write_bytes},
          {"cancelled_write_bytes", p.io->cancelled_write_bytes}};
  }
  return {{"scope", "process"},
          {"user_s", p.user_s},
          {"sys_s", p.sys_s},
          {"minor_faults", p.minor_faults},
          {"major_faults", p.major_faults},
          {"voluntary_switches", p.voluntary_switches},
          {"involuntary_switches", p.involuntary_switches},
          {"max_rss_kib", p.max_rss_kib},
          {"io", std::move(io)}};
}

json ToJson(const result::WritebackReport& w) {
  json devices = json::array();
  for (const result::DeviceDelta& d : w.devices) devices.push_back(ToJson(d));
  return {{"mode", w.mode},
          {"seconds", w.seconds},
          {"device", w.device ? ToJson(*w.device) : json(nullptr)},
          {"devices", std::move(devices)}};
}

json ToJson(const result::Layout& l) {
  json files = json::array();
  for (const result::FileLayoutEntry& f : l.files) {
    files.push_back({{"path", f.path},
                     {"size_bytes", OrNull(f.size_bytes)},
                     {"extents", OrNull(f.extents)},
                     {"contiguous_runs", OrNull(f.contiguous_runs)},
                     {"min_extent_bytes", OrNull(f.min_extent_bytes)},
                     {"max_extent_bytes", OrNull(f.max_extent_bytes)},
                     {"unwritten_extents", OrNull(f.unwritten_extents)},
                     {"error", OrNull(f.error)}});
  }
  const result::LayoutSummary& s = l.summary;
  return {{"files", std::move(files)},
          {"files_listed", l.files.size()},
          {"files_omitted", l.files_omitted},
          {"summary",
           {{"files", s.files},
            {"errors", s.errors},
            {"extents_total", OrNull(s.extents_total)},
            {"extents_mean", OrNull(s.extents_mean)},
            {"extents_max", OrNull(s.extents_max)},
            {"min_extent_bytes", OrNull(s.min_extent_bytes)},
            {"contiguous_runs_total", OrNull(s.contiguous_runs_total)}}}};
}

json ToJson(const result::CacheReport& c) {
  return {{"mode", c.mode},
          {"files", c.files},
          {"cached_bytes_before", c.cached_bytes_before},
          {"cached_bytes_after", c.cached_bytes_after}};
}

json ToJson(const result::TuningOutcome& t) {
  json j = {{"name", t.name},
            {"path", t.path},
            {"before", t.before},
            {"applied", t.applied},
            {"restored", t.restored},
            {"value", OrNull(t.value)}};
  if (t.reason) {
    j["reason"] = *t.reason;
    j["found"] = t.found.value_or("");
  }
  if (t.error) {
    j["error"] = *t.error;
    j["errno"] = t.err;
  }
  return j;
}

json ToJson(const result::SeriesRow& row, const std::string& work_unit) {
  json ops = json::object();
  for (const result::SeriesOp& o : row.ops) {
    ops[o.name] = {{"count", o.count},   {"errors", o.errors}, {"bytes", o.bytes},
                   {"p50_ns", o.p50_ns}, {"p90_ns", o.p90_ns}, {"p99_ns", o.p99_ns},
                   {"max_ns", o.max_ns}, {"mean_ns", o.mean_ns}};
  }
  json j = {{"t_s", row.t_s},
            {"interval_s", row.interval_s},
            {"work_units", row.work_units},
            {work_unit + "_per_s", row.units_per_s},
            {"ops", std::move(ops)},
            {"cpu", ToJson(row.cpu)}};
  if (row.device) j["device"] = *row.device ? ToJson(**row.device) : json(nullptr);
  return j;
}

}  // namespace iomimic::report
