// The human rendering of a trace summary (summary.h), from its JSON.
#include <fmt/format.h>

#include "trace/summary.h"

namespace iomimic::trace {
namespace {

using nlohmann::json;

std::string Bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", b) : fmt::format("{:.1f} {}", v, units[u]);
}

void Ops(std::string& out, const json& ops) {
  out += fmt::format("  {:<18} {:>10} {:>8} {:>12} {:>10}\n", "syscall", "count", "errors",
                     "bytes", "time_s");
  for (const auto& [name, o] : ops.items()) {
    out += fmt::format("  {:<18} {:>10} {:>8} {:>12} {:>10.6f}\n", name,
                       o["count"].get<uint64_t>(), o["errors"].get<uint64_t>(),
                       Bytes(o["bytes"].get<uint64_t>()), o["time_s"].get<double>());
  }
}

void Sizes(std::string& out, const char* what, const json& hist) {
  out += fmt::format("{} sizes:", what);
  if (hist.empty()) out += " none";
  for (const json& b : hist) {
    out += fmt::format("  <={}:{}", Bytes(b["max_bytes"].get<uint64_t>()), b["count"].get<uint64_t>());
  }
  out += '\n';
}

void Flush(std::string& out, const json& f) {
  out += fmt::format("flush calls (fsync, fdatasync, sync_file_range, syncfs, msync): {}",
                     f["count"].get<uint64_t>());
  if (f.contains("period_s")) {
    out += fmt::format(", period mean {:.6f} s (min {:.6f}, max {:.6f})",
                       f["period_s"]["mean"].get<double>(), f["period_s"]["min"].get<double>(),
                       f["period_s"]["max"].get<double>());
  }
  out += '\n';
}

void Files(std::string& out, const json& f, size_t top) {
  out += fmt::format(
      "files: {} touched, {} existed before ({}), {} created, {} deleted, {} mmapped, {} ENOENT "
      "probes; largest at once {}\n",
      f["touched"].get<uint64_t>(), f["existed_before"].get<uint64_t>(),
      Bytes(f["bytes_before"].get<uint64_t>()), f["created"].get<uint64_t>(),
      f["deleted"].get<uint64_t>(), f["mmapped"].get<uint64_t>(),
      f["enoent_probes"].get<uint64_t>(), Bytes(f["bytes_max"].get<uint64_t>()));
  out += fmt::format("  {:>10} {:>10} {:>10} {:>10} {:>6}  {}\n", "before", "max", "read", "written",
                     "seq%", "path (flags: c created, d deleted, m mmapped, e ENOENT probes)");
  size_t n = 0;
  for (const json& x : f["list"]) {
    if (n++ == top) {
      out += fmt::format("  ... {} more (--format json lists all)\n", f["list"].size() - top);
      break;
    }
    std::string flags;
    if (x["created"].get<bool>()) flags += 'c';
    if (x["deleted"].get<bool>()) flags += 'd';
    if (x["mmapped"].get<bool>()) flags += 'm';
    if (x["enoent"].get<uint64_t>() > 0) flags += fmt::format("e{}", x["enoent"].get<uint64_t>());
    const std::string seq = x.contains("sequential_share")
                                ? fmt::format("{:.0f}", 100 * x["sequential_share"].get<double>())
                                : "-";
    out += fmt::format("  {:>10} {:>10} {:>10} {:>10} {:>6}  {} {}\n",
                       Bytes(x["size_before"].get<uint64_t>()), Bytes(x["size_max"].get<uint64_t>()),
                       Bytes(x["read_bytes"].get<uint64_t>()), Bytes(x["write_bytes"].get<uint64_t>()),
                       seq, x["path"].get<std::string>(), flags);
  }
}

}  // namespace

std::string SummaryText(const json& s, size_t top_files) {
  std::string out;
  const json& t = s["trace"];
  out += fmt::format("trace {}: {} lines, {} syscalls, {} signals, {} exits, {} unfinished at end, "
                     "{:.3f} s traced (parsed in {:.2f} s)\n",
                     t["path"].get<std::string>(), t["lines"].get<uint64_t>(),
                     t["syscalls"].get<uint64_t>(), t["signals"].get<uint64_t>(),
                     t["exits"].get<uint64_t>(), t["unfinished_at_end"].get<uint64_t>(),
                     t["span_s"].get<double>(), t["parse_s"].get<double>());
  out += "\nI/O syscalls, all threads:\n";
  Ops(out, s["ops"]);
  Sizes(out, "read", s["sizes"]["read"]);
  Sizes(out, "write", s["sizes"]["write"]);
  Flush(out, s["flush"]);
  out += fmt::format("\nthreads: {}\n", s["threads"].size());
  for (const json& th : s["threads"]) {
    out += fmt::format("thread {} (pid {}): {} syscalls, {:.6f} s in syscalls, {:.6f} s between; ",
                       th["index"].get<uint64_t>(), th["pid"].get<int64_t>(),
                       th["syscalls"].get<uint64_t>(), th["in_syscalls_s"].get<double>(),
                       th["between_syscalls_s"].get<double>());
    Flush(out, th["flush"]);
    Ops(out, th["ops"]);
  }
  out += '\n';
  Files(out, s["files"], top_files);
  out += "\nnot replayed (syscall, reason, count):\n";
  for (const json& u : s["unreplayed"]) {
    out += fmt::format("  {:<18} {:<52} {}\n", u["syscall"].get<std::string>(),
                       u["reason"].get<std::string>(), u["count"].get<uint64_t>());
  }
  return out;
}

}  // namespace iomimic::trace
