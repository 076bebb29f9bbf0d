// The canonical report: one JSON document (docs/report-schema.md).
#include "report/json_fields.h"
#include "report/reporters.h"

namespace iomimic::report {
namespace {

using nlohmann::json;

json Latency(const stats::LatencySummary& l) {
  return {{"min", l.min}, {"mean", l.mean}, {"p50", l.p50}, {"p90", l.p90},
          {"p99", l.p99}, {"p999", l.p999}, {"max", l.max}};
}

json ErrorJson(const std::optional<result::RunError>& e) {
  if (!e) return nullptr;
  return {{"phase", e->phase}, {"op", e->op},           {"path", e->path},
          {"errno", e->err},   {"message", e->message}, {"ops_before", e->ops_before}};
}

template <typename T>
json OptionalJson(const std::optional<T>& v) {
  return v ? ToJson(*v) : json(nullptr);
}

json OpsJson(const std::vector<stats::OpSummary>& ops) {
  json out = json::object();
  for (const auto& op : ops) {
    json o = {{"count", op.count},
              {"errors", op.errors},
              {"bytes", op.bytes},
              {"latency_ns", Latency(op.latency)}};
    if (op.paced) o["intended_latency_ns"] = Latency(op.intended);
    out[op.name] = std::move(o);
  }
  return out;
}

json Throughput(const result::RunResult& r) {
  return {
      {"ops_per_s", r.PerSecond(static_cast<double>(r.op_count()))},
      {"bytes_per_s", r.PerSecond(static_cast<double>(r.app_read_bytes + r.app_write_bytes))},
      {"read_bytes_per_s", r.PerSecond(static_cast<double>(r.app_read_bytes))},
      {"write_bytes_per_s", r.PerSecond(static_cast<double>(r.app_write_bytes))},
      {r.work_unit + "_per_s", r.PerSecond(static_cast<double>(r.work_units))},
  };
}

json Evidence(const result::RunResult& r, json j) {
  j["device"] = OptionalJson(r.device);
  j["devices"] = json::array();
  for (const result::DeviceDelta& d : r.devices) j["devices"].push_back(ToJson(d));
  j["cache"] = OptionalJson(r.cache);
  j["series"] = nullptr;
  if (r.series) {
    j["series"] = json::array();
    for (const result::SeriesRow& row : *r.series) {
      j["series"].push_back(ToJson(row, r.work_unit));
    }
  }
  j["layout"] = OptionalJson(r.layout);
  j["vmstat"] = OptionalJson(r.vmstat);
  j["cpu"] = OptionalJson(r.cpu);
  j["process"] = OptionalJson(r.process);
  j["writeback"] = OptionalJson(r.writeback);
  return j;
}

class JsonReporter final : public Reporter {
 public:
  void ReportRun(const result::RunResult& run) override { doc_ = ToJson(run); }
  void ReportRepeats(const result::RepeatsSummary& repeats) override {
    doc_["repeats"] = ToJson(repeats);
  }
  void ReportSweep(const result::SweepSummary& sweep) override { doc_["sweep"] = ToJson(sweep); }
  std::string Finalize() override { return doc_.dump(2) + "\n"; }

 private:
  json doc_;
};

}  // namespace

json ToJson(const result::ResolvedConfig& config) {
  if (config.sections.empty() && config.profile.empty()) return nullptr;
  json j = json::object();
  for (const auto& section : config.sections) {
    json options = json::object();
    for (const auto& [name, value] : section.options) options[name] = value;
    j[section.name] = std::move(options);
  }
  if (!config.profile.empty()) j["profile"] = config.profile;
  return j;
}

json ToJson(const result::RunResult& r) {
  json j;
  j["schema_version"] = kSchemaVersion;
  j["tool"] = {{"name", "iomimic"}, {"version", IOMIMIC_VERSION}};
  j["command_line"] = r.command_line;
  j["module"] = r.module;
  j["started_at"] = r.started_at;
  j["status"] = result::StatusName(r.status);
  j["error"] = ErrorJson(r.error);
  j["cleanup_error"] = ErrorJson(r.cleanup_error);
  j["restore_error"] = ErrorJson(r.restore_error);
  j["tunings"] = json::array();
  for (const result::TuningOutcome& t : r.tunings) j["tunings"].push_back(ToJson(t));
  j["signal"] = r.signal == 0 ? json(nullptr) : json(r.signal);
  j["interrupted_in"] = r.interrupted_in.empty() ? json(nullptr) : json(r.interrupted_in);
  j["run_dir"] = r.run_dir;
  j["run_dir_kept"] = r.run_dir_kept;
  j["config"] = ToJson(r.config);
  j["system"] = ToJson(r.system);
  j["system"]["target"] = ToJson(r.target);
  j["stop_reason"] = r.stop_reason.empty() ? json(nullptr) : json(r.stop_reason);
  j["duration_s"] = r.duration_s;
  j["work_unit"] = r.work_unit;
  j["work_units"] = r.work_units;
  j["throughput"] = Throughput(r);
  j["app_bytes"] = {{"read", r.app_read_bytes}, {"write", r.app_write_bytes}};
  j["ops"] = OpsJson(r.ops);
  j = Evidence(r, std::move(j));
  j["extra_run_dirs"] = r.extra_run_dirs;
  j["module_report"] = r.module_report;
  if (!r.disk_model.is_null()) j["disk_model"] = r.disk_model;
  j["overhead"] = {{"clock_source", r.clock_source}, {"clock_read_ns", r.clock_read_ns}};
  return j;
}

std::unique_ptr<Reporter> MakeJsonReporter() { return std::make_unique<JsonReporter>(); }

}  // namespace iomimic::report
