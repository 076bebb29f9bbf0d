// The human view of one run: what ran where, the op table, then the
// evidence that explains it (device requests, layout, page cache, CPU).
#include "report/text_run.h"

#include <fmt/format.h>

#include "util/stderr_line.h"
#include "iomimic/units.h"

namespace iomimic::report {
namespace {

using nlohmann::json;

template <typename T>
std::string Or(const std::optional<T>& v, const char* fallback = "unknown") {
  if (!v) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    return *v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return *v ? "true" : "false";
  } else {
    return fmt::format("{}", *v);
  }
}

std::string Where(const result::RunResult& r) {
  const result::TargetInfo& t = r.target;
  std::string s =
      fmt::format("{} on {} ({})", Printable(t.path), Or(t.fs_type), Or(t.mount_options, ""));
  if (!t.device) return s + "\n  device: none (no block device behind this filesystem)";
  const result::DeviceInfo& dev = *t.device;
  s += fmt::format("\n  device {}", dev.name);
  if (dev.backing_file) s += fmt::format(" (loop over {})", *dev.backing_file);
  const result::QueueSettings& q = dev.queue;
  s += fmt::format(": scheduler {}, nr_requests {}, read_ahead_kb {}, max_sectors_kb {}, "
                   "rotational {}",
                   Or(q.scheduler), Or(q.nr_requests), Or(q.read_ahead_kb), Or(q.max_sectors_kb),
                   Or(q.rotational));
  return s;
}

void OpTable(const result::RunResult& r, std::string* out) {
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

std::string RatioText(const std::optional<double>& ratio) {
  return ratio ? fmt::format("{:.2f}", *ratio) : std::string("-");
}

uint64_t Counter(const result::VmStatDelta& v, const char* name) {
  for (const auto& [k, value] : v.counters) {
    if (k == name) return value.value_or(0);
  }
  return 0;
}

void Evidence(const result::RunResult& r, std::string* out) {
  if (const auto& d = r.device) {
    *out += fmt::format(
        "device {}: {} reads ({}, avg {:.1f} KiB), {} writes ({}, avg {:.1f} KiB), "
        "{} flushes\n  device bytes per app byte: read {}, write {}\n",
        d->device, d->reads, FormatBytesHuman(d->read_bytes), d->avg_read_kib, d->writes,
        FormatBytesHuman(d->write_bytes), d->avg_write_kib, d->flushes,
        RatioText(d->bytes_per_app_byte_read), RatioText(d->bytes_per_app_byte_write));
  }
  if (const auto& l = r.layout) {
    const result::LayoutSummary& s = l->summary;
    *out += fmt::format("layout: {} files, {} extents (mean {:.1f}, max {}, smallest {})\n",
                        s.files, s.extents_total.value_or(0), s.extents_mean.value_or(0),
                        s.extents_max.value_or(0), FormatBytesHuman(s.min_extent_bytes.value_or(0)));
  }
  if (const auto& v = r.vmstat) {
    *out += fmt::format("page cache (system-wide): {} page faults ({} major), pgpgin {}, pgpgout {}, "
                        "file THP mapped {}\n",
                        Counter(*v, "pgfault"), Counter(*v, "pgmajfault"),
                        FormatBytesHuman(Counter(*v, "pgpgin") * 1024),
                        FormatBytesHuman(Counter(*v, "pgpgout") * 1024),
                        Counter(*v, "thp_file_mapped"));
  }
  if (const auto& c = r.cpu) {
    const result::GaugeSummary g = c->gauges.value_or(result::GaugeSummary{});
    *out += fmt::format(
        "cpu (system-wide): user {:.1f}%, system {:.1f}%, iowait {:.1f}%, idle {:.1f}%; tasks "
        "blocked on I/O "
        "{:.1f} on average (max {}), runnable {:.1f}\n",
        c->user_pct.value_or(0), c->system_pct.value_or(0), c->iowait_pct.value_or(0),
        c->idle_pct.value_or(0), g.procs_blocked_mean, g.procs_blocked_max,
        g.procs_running_mean);
  }
}

// iomimic's own share beside the system-wide lines, and what the write-back
// after the workers cost.
void ProcessAndWriteback(const result::RunResult& r, std::string* out) {
  if (const auto& p = r.process) {
    *out += fmt::format("process (iomimic): user {:.2f} s, system {:.2f} s, {} page faults ({} major)",
                        p->user_s, p->sys_s, p->minor_faults, p->major_faults);
    if (p->io) {
      *out += fmt::format(", storage read {}, written {}, {} read and {} write calls",
                          FormatBytesHuman(p->io->read_bytes), FormatBytesHuman(p->io->write_bytes),
                          p->io->syscr, p->io->syscw);
    }
    *out += "\n";
  }
  if (const auto& w = r.writeback; w && w->mode != "none") {
    *out += fmt::format("write-back ({}): syncfs of the written filesystems took {:.3f} s", w->mode,
                        w->seconds);
    if (w->device) {
      *out += fmt::format("; device {} with it: {} writes ({}, avg {:.1f} KiB), write {} per app byte",
                          w->device->device, w->device->writes,
                          FormatBytesHuman(w->device->write_bytes), w->device->avg_write_kib,
                          RatioText(w->device->bytes_per_app_byte_write));
    }
    *out += "\n";
  }
}

void ModuleLines(const json& m, const std::string& prefix, std::string* out) {
  for (const auto& [key, value] : m.items()) {
    if (value.is_object()) {
      ModuleLines(value, prefix + key + ".", out);
    } else if (!value.is_array()) {
      *out += fmt::format("  {}{} = {}\n", prefix, key,
                          value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
}

std::string Header(const result::RunResult& r) {
  std::string out = fmt::format("iomimic {}: {}", r.module, result::StatusName(r.status));
  if (r.error) {
    out += fmt::format(" ({} in {}: {} {}: {}, after {} {})", r.error->phase, r.error->op,
                       Printable(r.error->path),
                       r.error->err ? fmt::format("errno {}", r.error->err) : "",
                       r.error->message, r.error->ops_before, r.work_unit);
  } else if (r.signal != 0) {
    out += fmt::format(" (signal {} in {})", r.signal, r.interrupted_in);
  }
  out += "\n";
  if (r.stop_reason == "min_free") {
    out += "stopped early: the free space of a written filesystem would have fallen below "
           "--min_free; the figures up to then are valid\n";
  }
  out += fmt::format("target: {}\n", Where(r));
  const double s = r.duration_s;
  out += fmt::format(
      "measured {:.2f} s: {} {} ({:.1f}/s), app read {} ({}/s), app write {} ({}/s)\n\n", s,
      r.work_units, r.work_unit, r.PerSecond(static_cast<double>(r.work_units)),
      FormatBytesHuman(r.app_read_bytes),
      FormatBytesHuman(static_cast<uint64_t>(r.PerSecond(static_cast<double>(r.app_read_bytes)))),
      FormatBytesHuman(r.app_write_bytes),
      FormatBytesHuman(
          static_cast<uint64_t>(r.PerSecond(static_cast<double>(r.app_write_bytes)))));
  return out;
}

void Footer(const result::RunResult& r, std::string* out) {
  for (const result::TuningOutcome& t : r.tunings) {
    if (!t.value) continue;  // restored only because a linked setting changed
    *out += fmt::format("tuned {} = {} for the run (was {}): {}\n", t.name, *t.value, t.before,
                        t.restored ? "restored"
                        : t.reason ? fmt::format("left at {}: {}", t.found.value_or("?"), *t.reason)
                                   : "NOT RESTORED");
  }
  if (r.cleanup_error) {
    *out += fmt::format("run directory {} NOT removed: {} {}: {}\n", Printable(r.run_dir),
                        r.cleanup_error->op, Printable(r.cleanup_error->path),
                        r.cleanup_error->message);
  } else if (!r.run_dir.empty()) {
    *out += fmt::format("run directory {} {}\n", Printable(r.run_dir),
                        r.run_dir_kept ? "kept" : "removed");
  }
}

}  // namespace

std::string RenderRunText(const result::RunResult& r) {
  std::string out = Header(r);
  OpTable(r, &out);
  out += "\n";
  Evidence(r, &out);
  ProcessAndWriteback(r, &out);
  if (r.module_report.is_object() && !r.module_report.empty()) {
    out += fmt::format("{}:\n", r.module);
    ModuleLines(r.module_report, "", &out);
  }
  Footer(r, &out);
  return out;
}

}  // namespace iomimic::report
