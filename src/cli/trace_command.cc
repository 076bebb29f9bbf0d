// iomimic trace summarize APP.strace [--format text|json] [--under DIR]
// [--top N]: what an application's strace shows (src/trace/summary.h).
// A trace that cannot be read is bad input: exit 2 with the file and line.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cli/cli.h"
#include "iomimic/status.h"
#include "trace/event.h"
#include "trace/summary.h"
#include "trace/trace_file.h"

namespace iomimic::cli {
namespace {

constexpr const char* kTraceUsage =
    "usage: iomimic trace summarize APP.strace [--format text|json] [--under DIR] [--top N]\n"
    "  What an application's strace shows: threads, I/O syscalls per thread, read and\n"
    "  write sizes, sequential share per file, flushes and their period, files touched,\n"
    "  ENOENT probes, mmapped files, time in and between syscalls, and what a replay\n"
    "  would leave out. Record with (docs/replay.md):\n"
    "    strace -f -tt -T -yy -s 0 -o APP.strace CMD   (or -p PID)\n"
    "  --format text|json  (default text)\n"
    "  --under DIR         count only I/O on paths under DIR (an strace of a replay)\n"
    "  --top N             files listed in the text (default 20; json lists all)\n";

struct TraceArgs {
  std::string file, format = "text", under;
  size_t top = 20;
  bool help = false;
};

// --name=value or --name value.
bool Value(const std::vector<std::string>& args, size_t* i, const std::string& name,
           std::string* out) {
  const std::string& a = args[*i];
  if (a.rfind("--" + name + "=", 0) == 0) {
    *out = a.substr(name.size() + 3);
    return true;
  }
  if (a != "--" + name) return false;
  if (*i + 1 == args.size()) throw UsageError(fmt::format("option '{}' needs a value", name));
  *out = args[++*i];
  return true;
}

TraceArgs ParseTraceArgs(const std::vector<std::string>& args) {
  TraceArgs t;
  if (args.empty() || args[0] != "summarize") {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      t.help = true;
      return t;
    }
    throw UsageError(fmt::format("trace: expected 'summarize'\n{}", kTraceUsage));
  }
  for (size_t i = 1; i < args.size(); ++i) {
    std::string v;
    if (args[i] == "--help" || args[i] == "-h") {
      t.help = true;
    } else if (Value(args, &i, "format", &t.format)) {
      if (t.format != "text" && t.format != "json") {
        throw UsageError(fmt::format("option 'format': '{}' is not text or json", t.format));
      }
    } else if (Value(args, &i, "under", &t.under)) {
    } else if (Value(args, &i, "top", &v)) {
      try {
        t.top = std::stoul(v);
      } catch (const std::exception&) {
        throw UsageError(fmt::format("option 'top': '{}' is not a number", v));
      }
    } else if (args[i].rfind("--", 0) == 0 || !t.file.empty()) {
      throw UsageError(fmt::format("unknown argument '{}' for trace summarize\n{}", args[i],
                                   kTraceUsage));
    } else {
      t.file = args[i];
    }
  }
  if (!t.help && t.file.empty()) {
    throw UsageError(fmt::format("trace summarize: no trace file given\n{}", kTraceUsage));
  }
  return t;
}

}  // namespace

int TraceCommand(const std::vector<std::string>& args) {
  const TraceArgs t = ParseTraceArgs(args);
  if (t.help) {
    std::fputs(kTraceUsage, stdout);
    return 0;
  }
  if (const std::string why = trace::CheckTraceFile(t.file); !why.empty()) {
    throw UsageError(fmt::format("trace file '{}': {}", t.file, why));
  }
  nlohmann::json s;
  try {
    s = trace::Summarize(t.file, {.under = t.under, .top_files = t.top});
  } catch (const trace::TraceError& e) {
    throw UsageError(fmt::format("bad trace: {}", e.what()));
  }
  const std::string out = t.format == "json" ? s.dump(2) + "\n" : trace::SummaryText(s, t.top);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace iomimic::cli
