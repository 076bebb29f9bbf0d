// ReadCpuTimes and CpuDelta: the machine's CPU time split (/proc/stat) and
// this process's own usage (getrusage) over a run.
#include <sys/resource.h>

#include <optional>

#include "platform/sysfs.h"
#include "probes/probes.h"

namespace iomimic::probes {
namespace {

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// Saturates at 0: iowait is known to step backwards on NO_HZ kernels.
uint64_t Sub(uint64_t after, uint64_t before) { return after >= before ? after - before : 0; }

}  // namespace

CpuTimes ReadCpuTimes() {
  CpuTimes t;
  const std::optional<std::string> text = platform::ReadFile("/proc/stat");
  if (text) {
    bool have_cpu = false;
    size_t pos = 0;
    while (pos < text->size()) {
      size_t end = text->find('\n', pos);
      if (end == std::string::npos) end = text->size();
      const std::vector<std::string> w =
          platform::SplitWords(std::string_view(*text).substr(pos, end - pos));
      pos = end + 1;
      if (w.empty()) continue;
      // "cpu  user nice system idle iowait irq softirq steal guest guest_nice";
      // guest time is already included in user, so it is not added again.
      if (w[0] == "cpu" && w.size() >= 9) {
        uint64_t v[8];
        bool ok = true;
        for (int i = 0; i < 8 && ok; ++i) {
          const std::optional<uint64_t> n = platform::ParseUint(w[i + 1]);
          ok = n.has_value();
          v[i] = n.value_or(0);
        }
        if (ok) {
          t.user = v[0], t.nice = v[1], t.system = v[2], t.idle = v[3];
          t.iowait = v[4], t.irq = v[5], t.softirq = v[6], t.steal = v[7];
          have_cpu = true;
        }
      } else if (w[0] == "procs_blocked" && w.size() >= 2) {
        t.procs_blocked = platform::ParseUint(w[1]).value_or(0);
      } else if (w[0] == "procs_running" && w.size() >= 2) {
        t.procs_running = platform::ParseUint(w[1]).value_or(0);
      }
    }
    t.valid = have_cpu;
  }
  rusage ru {};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) {
    t.process_user_s = Seconds(ru.ru_utime);
    t.process_sys_s = Seconds(ru.ru_stime);
    t.process_minflt = static_cast<uint64_t>(ru.ru_minflt);
    t.process_majflt = static_cast<uint64_t>(ru.ru_majflt);
  }
  rusage children {};
  if (::getrusage(RUSAGE_CHILDREN, &children) == 0) {
    t.children_user_s = Seconds(children.ru_utime);
    t.children_sys_s = Seconds(children.ru_stime);
  }
  return t;
}

// Shares of the total jiffies that passed on all CPUs together. user_pct
// counts niced user time too; other_pct is irq + softirq + steal, so the
// five add up to 100. With no jiffies elapsed every share is null.
result::CpuDelta CpuDelta(const CpuTimes& before, const CpuTimes& after) {
  result::CpuDelta out;
  const uint64_t user = Sub(after.user, before.user) + Sub(after.nice, before.nice);
  const uint64_t system = Sub(after.system, before.system);
  const uint64_t iowait = Sub(after.iowait, before.iowait);
  const uint64_t idle = Sub(after.idle, before.idle);
  const uint64_t other = Sub(after.irq, before.irq) + Sub(after.softirq, before.softirq) +
                         Sub(after.steal, before.steal);
  // The sum of the parts, not the difference of the sums, so that a
  // counter stepping back cannot make the shares exceed 100 together.
  const uint64_t total = user + system + iowait + idle + other;
  if (before.valid && after.valid && total != 0) {
    const auto pct = [total](uint64_t part) {
      return 100.0 * static_cast<double>(part) / static_cast<double>(total);
    };
    out.user_pct = pct(user);
    out.system_pct = pct(system);
    out.iowait_pct = pct(iowait);
    out.idle_pct = pct(idle);
    out.other_pct = pct(other);
  }
  if (after.valid) out.procs_blocked_end = after.procs_blocked;
  out.process.user_s = after.process_user_s - before.process_user_s;
  out.process.sys_s = after.process_sys_s - before.process_sys_s;
  out.process.minor_faults = Sub(after.process_minflt, before.process_minflt);
  out.process.major_faults = Sub(after.process_majflt, before.process_majflt);
  out.process.children_user_s = after.children_user_s - before.children_user_s;
  out.process.children_sys_s = after.children_sys_s - before.children_sys_s;
  return out;
}

}  // namespace iomimic::probes
