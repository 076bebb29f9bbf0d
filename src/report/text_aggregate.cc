// --repeat and --sweep tables: a performance engineer reads the median and
// the spread of several runs, not one run's figure, on a noisy machine.

#include <fmt/format.h>

#include "report/text_run.h"
#include "iomimic/units.h"

namespace iomimic::report {
namespace {

bool IsNs(const std::string& k) { return k.size() > 3 && k.compare(k.size() - 3, 3, "_ns") == 0; }

std::string Show(const std::string& figure, double x) {
  return IsNs(figure) ? FormatLatency(static_cast<uint64_t>(x)) : fmt::format("{:.4g}", x);
}

}  // namespace

std::string RenderRepeatsText(const result::RepeatsSummary& repeats) {
  std::string out = fmt::format("\nover {} runs: median [min - max] (spread)\n", repeats.count());
  for (const result::Aggregate* a : repeats.ByName()) {
    const std::string& k = a->figure;
    out += fmt::format("  {:<34} {:>10} [{} - {}] ({:.1f}%)\n", k, Show(k, a->median),
                       Show(k, a->min), Show(k, a->max), a->spread_pct);
  }
  return out;
}

std::string RenderSweepText(const result::SweepSummary& sweep) {
  std::string out = fmt::format(
      "\nsweep of {}: median of each value's runs (spread = (max - min) / median)\n", sweep.name);
  constexpr int kWidth = 20;
  out += fmt::format("  {:<34}", "");
  for (const auto& p : sweep.points) out += fmt::format(" {:>{}}", p.value, kWidth);
  out += fmt::format("\n  {:<34}", "status (runs)");
  for (const auto& p : sweep.points) {
    out += fmt::format(" {:>{}}", fmt::format("{} ({})", p.status, p.repeats.count()), kWidth);
  }
  out += "\n";
  for (const std::string& k : sweep.FigureNames()) {
    out += fmt::format("  {:<34}", k);
    for (const auto& p : sweep.points) {
      std::string cell = "-";
      if (const result::Aggregate* a = p.repeats.Find(k)) {
        cell = fmt::format("{} ({:.0f}%)", Show(k, a->median), a->spread_pct);
      }
      out += fmt::format(" {:>{}}", cell, kWidth);
    }
    out += "\n";
  }
  return out;
}

}  // namespace iomimic::report
