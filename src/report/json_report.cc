#include "report/reporters.h"

namespace iomimic::report {
namespace {

nlohmann::json Latency(const stats::LatencySummary& l) {
  return {{"min", l.min}, {"mean", l.mean}, {"p50", l.p50}, {"p90", l.p90},
          {"p99", l.p99}, {"p999", l.p999}, {"max", l.max}};
}

double PerSecond(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0.0; }

}  // namespace

nlohmann::json ToJson(const engine::RunResult& r) {
  nlohmann::json j;
  j["schema_version"] = kSchemaVersion;
  j["tool"] = {{"name", "iomimic"}, {"version", IOMIMIC_VERSION}};
  j["command_line"] = r.command_line;
  j["module"] = r.module;
  j["started_at"] = r.started_at;
  j["status"] = r.status;
  auto error_json = [](const std::optional<engine::RunError>& e) -> nlohmann::json {
    if (!e) return nullptr;
    return {{"phase", e->phase}, {"op", e->op},           {"path", e->path},
            {"errno", e->err},   {"message", e->message}, {"ops_before", e->ops_before}};
  };
  j["error"] = error_json(r.error);
  j["cleanup_error"] = error_json(r.cleanup_error);
  j["restore_error"] = error_json(r.restore_error);
  j["tunings"] = r.tunings;
  j["signal"] = r.signal == 0 ? nlohmann::json(nullptr) : nlohmann::json(r.signal);
  j["interrupted_in"] =
      r.interrupted_in.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.interrupted_in);
  j["run_dir"] = r.run_dir;
  j["run_dir_kept"] = r.run_dir_kept;
  j["config"] = r.config;

  j["system"] = r.system;
  j["system"]["target"] = r.target;

  j["duration_s"] = r.duration_s;
  j["work_unit"] = r.work_unit;
  j["work_units"] = r.work_units;
  uint64_t op_count = 0;
  for (const auto& op : r.ops) op_count += op.count;
  j["throughput"] = {
      {"ops_per_s", PerSecond(static_cast<double>(op_count), r.duration_s)},
      {"bytes_per_s",
       PerSecond(static_cast<double>(r.app_read_bytes + r.app_write_bytes), r.duration_s)},
      {"read_bytes_per_s", PerSecond(static_cast<double>(r.app_read_bytes), r.duration_s)},
      {"write_bytes_per_s", PerSecond(static_cast<double>(r.app_write_bytes), r.duration_s)},
      {r.work_unit + "_per_s", PerSecond(static_cast<double>(r.work_units), r.duration_s)},
  };
  j["app_bytes"] = {{"read", r.app_read_bytes}, {"write", r.app_write_bytes}};

  nlohmann::json ops = nlohmann::json::object();
  for (const auto& op : r.ops) {
    nlohmann::json o = {{"count", op.count},
                        {"errors", op.errors},
                        {"bytes", op.bytes},
                        {"latency_ns", Latency(op.latency)}};
    if (op.paced) o["intended_latency_ns"] = Latency(op.intended);
    ops[op.name] = std::move(o);
  }
  j["ops"] = std::move(ops);
  j["device"] = r.device;
  j["devices"] = r.devices;
  j["cache"] = r.cache;
  j["series"] = r.series;
  j["extra_run_dirs"] = r.extra_run_dirs;
  j["layout"] = r.layout;
  j["vmstat"] = r.vmstat;
  j["cpu"] = r.cpu;
  if (!r.disk_model.is_null()) j["disk_model"] = r.disk_model;
  j["module_report"] = r.module_report;
  j["overhead"] = {{"clock_source", r.clock_source}, {"clock_read_ns", r.clock_read_ns}};
  return j;
}

}  // namespace iomimic::report
