// ReadProcessCounters and ProcessDelta: iomimic's own CPU, faults, context
// switches (getrusage) and I/O (/proc/self/io), to set beside the
// system-wide figures of /proc/stat and /proc/vmstat.
#include <sys/resource.h>

#include "platform/sysfs.h"
#include "probes/probes.h"

namespace iomimic::probes {
namespace {

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

uint64_t Sub(uint64_t after, uint64_t before) { return after >= before ? after - before : 0; }

// "rchar: 123\nwchar: ...": the thread group's totals, all threads summed.
std::optional<result::ProcessIo> ReadProcIo() {
  const std::optional<std::string> text = platform::ReadFile("/proc/self/io");
  if (!text) return std::nullopt;
  const std::vector<std::string> w = platform::SplitWords(*text);
  result::ProcessIo io;
  int found = 0;
  for (size_t i = 0; i + 1 < w.size(); i += 2) {
    const std::optional<uint64_t> v = platform::ParseUint(w[i + 1]);
    if (!v) continue;
    const std::pair<const char*, uint64_t*> fields[] = {
        {"rchar:", &io.rchar},           {"wchar:", &io.wchar},
        {"syscr:", &io.syscr},           {"syscw:", &io.syscw},
        {"read_bytes:", &io.read_bytes}, {"write_bytes:", &io.write_bytes},
        {"cancelled_write_bytes:", &io.cancelled_write_bytes}};
    for (const auto& [name, field] : fields) {
      if (w[i] == name) {
        *field = *v;
        ++found;
      }
    }
  }
  if (found == 0) return std::nullopt;
  return io;
}

}  // namespace

ProcessCounters ReadProcessCounters() {
  ProcessCounters c;
  rusage ru {};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) {
    c.valid = true;
    c.user_s = Seconds(ru.ru_utime);
    c.sys_s = Seconds(ru.ru_stime);
    c.minflt = static_cast<uint64_t>(ru.ru_minflt);
    c.majflt = static_cast<uint64_t>(ru.ru_majflt);
    c.nvcsw = static_cast<uint64_t>(ru.ru_nvcsw);
    c.nivcsw = static_cast<uint64_t>(ru.ru_nivcsw);
    c.maxrss_kib = static_cast<uint64_t>(ru.ru_maxrss);
  }
  c.io = ReadProcIo();
  return c;
}

result::ProcessDelta ProcessDelta(const ProcessCounters& before, const ProcessCounters& after) {
  result::ProcessDelta d;
  d.user_s = after.user_s - before.user_s;
  d.sys_s = after.sys_s - before.sys_s;
  d.minor_faults = Sub(after.minflt, before.minflt);
  d.major_faults = Sub(after.majflt, before.majflt);
  d.voluntary_switches = Sub(after.nvcsw, before.nvcsw);
  d.involuntary_switches = Sub(after.nivcsw, before.nivcsw);
  d.max_rss_kib = after.maxrss_kib;
  if (before.io && after.io) {
    const result::ProcessIo& b = *before.io;
    const result::ProcessIo& a = *after.io;
    d.io = result::ProcessIo{Sub(a.rchar, b.rchar),           Sub(a.wchar, b.wchar),
                             Sub(a.syscr, b.syscr),           Sub(a.syscw, b.syscw),
                             Sub(a.read_bytes, b.read_bytes), Sub(a.write_bytes, b.write_bytes),
                             Sub(a.cancelled_write_bytes, b.cancelled_write_bytes)};
  }
  return d;
}

}  // namespace iomimic::probes
