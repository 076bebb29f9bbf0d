// The human view: what ran where, the op table, then the evidence that
// explains it (device requests, layout, page cache, CPU).
#include <fmt/format.h>

#include "report/reporters.h"
#include "util/stderr_line.h"
#include "util/units.h"

namespace iomimic::report {
namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key, const char* fallback = "unknown") {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return fallback;
  if (j[key].is_string()) return j[key].get<std::string>();
  return j[key].dump();
}

double Num(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return 0;
  return j[key].get<double>();
}

std::string Where(const engine::RunResult& r) {
  const json& t = r.target;
  std::string s = fmt::format("{} on {} ({})", Printable(Str(t, "path")), Str(t, "fs_type"),
                              Str(t, "mount_options", ""));
  const json& dev = t.is_object() && t.contains("device") ? t["device"] : json();
  if (dev.is_object()) {
    s += fmt::format("\n  device {}", Str(dev, "name"));
    if (dev.contains("backing_file") && dev["backing_file"].is_string()) {
      s += fmt::format(" (loop over {})", dev["backing_file"].get<std::string>());
    }
    const json& q = dev.contains("queue") ? dev["queue"] : json();
    s += fmt::format(": scheduler {}, nr_requests {}, read_ahead_kb {}, max_sectors_kb {}, "
                     "rotational {}",
                     Str(q, "scheduler"), Str(q, "nr_requests"), Str(q, "read_ahead_kb"),
                     Str(q, "max_sectors_kb"), Str(q, "rotational"));
  } else {
    s += "\n  device: none (no block device behind this filesystem)";
  }
  return s;
}

void OpTable(const engine::RunResult& r, std::string* out) {
  *out += fmt::format("{:<12} {:>10} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "op",
                      "count", "errors", "bytes", "mean", "p50", "p90", "p99", "p99.9", "max");
  for (const auto& op : r.ops) {
    const auto& l = op.latency;
    *out += fmt::format("{:<12} {:>10} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
                        op.name, op.count, op.errors, op.bytes ? FormatBytesHuman(op.bytes) : "-",
                        FormatLatency(static_cast<uint64_t>(l.mean)), FormatLatency(l.p50),
                        FormatLatency(l.p90), FormatLatency(l.p99), FormatLatency(l.p999),
                        FormatLatency(l.max));
  }
}

void Evidence(const engine::RunResult& r, std::string* out) {
  const json& d = r.device;
  if (d.is_object()) {
    const json ratio = d.value("device_bytes_per_app_byte", json::object());
    auto ratio_text = [&](const char* k) {
      return ratio.contains(k) && ratio[k].is_number() ? fmt::format("{:.2f}", ratio[k].get<double>())
                                                       : std::string("-");
    };
    *out += fmt::format(
        "device {}: {:.0f} reads ({}, avg {:.1f} KiB), {:.0f} writes ({}, avg {:.1f} KiB), "
        "{:.0f} flushes\n  device bytes per app byte: read {}, write {}\n",
        Str(d, "device"), Num(d, "reads"), FormatBytesHuman(static_cast<uint64_t>(Num(d, "read_bytes"))),
        Num(d, "avg_read_kib"), Num(d, "writes"),
        FormatBytesHuman(static_cast<uint64_t>(Num(d, "write_bytes"))), Num(d, "avg_write_kib"),
        Num(d, "flushes"), ratio_text("read"), ratio_text("write"));
  }
  const json& l = r.layout;
  if (l.is_object() && l.contains("summary")) {
    const json& s = l["summary"];
    *out += fmt::format("layout: {:.0f} files, {:.0f} extents (mean {:.1f}, max {:.0f}, smallest {})\n",
                        Num(s, "files"), Num(s, "extents_total"), Num(s, "extents_mean"),
                        Num(s, "extents_max"),
                        FormatBytesHuman(static_cast<uint64_t>(Num(s, "min_extent_bytes"))));
  }
  const json& v = r.vmstat;
  if (v.is_object()) {
    *out += fmt::format("page cache: {:.0f} page faults ({:.0f} major), pgpgin {}, pgpgout {}, "
                        "file THP mapped {:.0f}\n",
                        Num(v, "pgfault"), Num(v, "pgmajfault"),
                        FormatBytesHuman(static_cast<uint64_t>(Num(v, "pgpgin") * 1024)),
                        FormatBytesHuman(static_cast<uint64_t>(Num(v, "pgpgout") * 1024)),
                        Num(v, "thp_file_mapped"));
  }
  const json& c = r.cpu;
  if (c.is_object()) {
    *out += fmt::format(
        "cpu: user {:.1f}%, system {:.1f}%, iowait {:.1f}%, idle {:.1f}%; tasks blocked on I/O "
        "{:.1f} on average (max {:.0f}), runnable {:.1f}\n",
        Num(c, "user_pct"), Num(c, "system_pct"), Num(c, "iowait_pct"), Num(c, "idle_pct"),
        Num(c, "procs_blocked_mean"), Num(c, "procs_blocked_max"), Num(c, "procs_running_mean"));
  }
}

void ModuleLines(const json& m, const std::string& prefix, std::string* out) {
  for (const auto& [key, value] : m.items()) {
    if (value.is_object()) {
      ModuleLines(value, prefix + key + ".", out);
    } else if (!value.is_array()) {
      *out += fmt::format("  {}{} = {}\n", prefix, key, value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
}

}  // namespace

std::string RenderText(const engine::RunResult& r) {
  std::string out = fmt::format("iomimic {}: {}", r.module, r.status);
  if (r.error) {
    out += fmt::format(" ({} in {}: {} {}: {}, after {} {})", r.error->phase, r.error->op,
                       Printable(r.error->path),
                       r.error->err ? fmt::format("errno {}", r.error->err) : "",
                       r.error->message, r.error->ops_before, r.work_unit);
  } else if (r.signal != 0) {
    out += fmt::format(" (signal {} in {})", r.signal, r.interrupted_in);
  }
  out += "\n";
  out += fmt::format("target: {}\n", Where(r));
  const double s = r.duration_s;
  out += fmt::format("measured {:.2f} s: {} {} ({:.1f}/s), app read {} ({}/s), app write {} ({}/s)\n\n",
                     s, r.work_units, r.work_unit, s > 0 ? r.work_units / s : 0.0,
                     FormatBytesHuman(r.app_read_bytes),
                     FormatBytesHuman(s > 0 ? static_cast<uint64_t>(r.app_read_bytes / s) : 0),
                     FormatBytesHuman(r.app_write_bytes),
                     FormatBytesHuman(s > 0 ? static_cast<uint64_t>(r.app_write_bytes / s) : 0));
  OpTable(r, &out);
  out += "\n";
  Evidence(r, &out);
  if (r.module_report.is_object() && !r.module_report.empty()) {
    out += fmt::format("{}:\n", r.module);
    ModuleLines(r.module_report, "", &out);
  }
  for (const nlohmann::json& t : r.tunings) {
    if (t["value"].is_null()) continue;  // restored only because a linked setting changed
    out += fmt::format("tuned {} = {} for the run (was {}): {}\n", t["name"].get<std::string>(),
                       t["value"].get<std::string>(), t["before"].get<std::string>(),
                       t["restored"].get<bool>() ? "restored" : "NOT RESTORED");
  }
  if (r.cleanup_error) {
    out += fmt::format("run directory {} NOT removed: {} {}: {}\n", Printable(r.run_dir),
                       r.cleanup_error->op, Printable(r.cleanup_error->path),
                       r.cleanup_error->message);
  } else if (!r.run_dir.empty()) {
    out += fmt::format("run directory {} {}\n", Printable(r.run_dir),
                       r.run_dir_kept ? "kept" : "removed");
  }
  return out;
}

}  // namespace iomimic::report
