#include <fmt/format.h>

#include "report/reporters.h"

namespace iomimic::report {

std::string RenderCsv(const engine::RunResult& r) {
  std::string out =
      "module,status,duration_s,op,count,errors,bytes,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,"
      "p999_ns,max_ns\n";
  for (const auto& op : r.ops) {
    const auto& l = op.latency;
    out += fmt::format("{},{},{:.6f},{},{},{},{},{},{:.1f},{},{},{},{},{}\n", r.module, r.status,
                       r.duration_s, op.name, op.count, op.errors, op.bytes, l.min, l.mean, l.p50,
                       l.p90, l.p99, l.p999, l.max);
  }
  return out;
}

}  // namespace iomimic::report
