#include "engine/interval_series.h"

#include <fmt/format.h>

#include "iomimic/units.h"

namespace iomimic::engine {
namespace {


// The op that stands for a whole unit of work ("cycle" for "cycles"), else
// the last one the module declared.
size_t ProgressOp(const std::vector<std::string>& names, const std::string& unit) {
  const std::string singular =
      !unit.empty() && unit.back() == 's' ? unit.substr(0, unit.size() - 1) : unit;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == singular) return i;
  }
  return names.empty() ? 0 : names.size() - 1;
}

std::vector<stats::OpStats> MergeSlots(std::vector<IntervalSlot>* slots, size_t ops,
                                       uint64_t* units) {
  std::vector<stats::OpStats> merged(ops);
  *units = 0;
  for (IntervalSlot& slot : *slots) {
    std::lock_guard<std::mutex> lock(slot.mu);
    for (size_t i = 0; i < slot.ops.size() && i < ops; ++i) merged[i].Add(slot.ops[i]);
    *units += slot.units;
  }
  return merged;
}

}  // namespace

IntervalSeries::IntervalSeries(std::vector<std::string> op_names, std::string work_unit,
                               std::vector<IntervalSlot>* slots, std::string device,
                               uint64_t start_ns)
    : op_names_(std::move(op_names)),
      work_unit_(std::move(work_unit)),
      progress_op_(ProgressOp(op_names_, work_unit_)),
      slots_(slots),
      device_(std::move(device)),
      start_ns_(start_ns),
      last_ns_(start_ns),
      previous_(op_names_.size()) {
  if (!device_.empty()) previous_disk_ = probes::ReadDiskCounters(device_);
  previous_cpu_ = probes::ReadCpuTimes();
}

const result::SeriesRow& IntervalSeries::Close(uint64_t now_ns) {
  uint64_t units = 0;
  std::vector<stats::OpStats> merged = MergeSlots(slots_, op_names_.size(), &units);
  const double dt = static_cast<double>(now_ns - last_ns_) / 1e9;
  result::SeriesRow row;
  row.t_s = static_cast<double>(now_ns - start_ns_) / 1e9;
  row.interval_s = dt;
  row.work_units = units - previous_units_;
  row.units_per_s = dt > 0 ? static_cast<double>(units - previous_units_) / dt : 0.0;
  for (size_t i = 0; i < op_names_.size(); ++i) {
    stats::OpStats interval;
    interval.CopyFrom(merged[i]);
    interval.Subtract(previous_[i]);
    const stats::LatencySummary l = stats::Summarize(interval.latency);
    row.ops.push_back({op_names_[i], interval.count, interval.errors, interval.bytes, l.p50, l.p90,
                       l.p99, l.max, l.mean});
  }
  if (!device_.empty()) {
    const probes::DiskCounters disk = probes::ReadDiskCounters(device_);
    row.device = probes::DiskDelta(device_, previous_disk_, disk, 0, 0);
    previous_disk_ = disk;
  }
  const probes::CpuTimes cpu = probes::ReadCpuTimes();
  row.cpu = probes::CpuDelta(previous_cpu_, cpu);
  previous_cpu_ = cpu;

  previous_ = std::move(merged);
  previous_units_ = units;
  last_ns_ = now_ns;
  rows_.push_back(std::move(row));
  return rows_.back();
}

std::string IntervalSeries::ProgressLine(uint64_t now_ns) const {
  const double elapsed = static_cast<double>(now_ns - start_ns_) / 1e9;
  std::string p99 = "-";
  if (progress_op_ < previous_.size() && previous_[progress_op_].latency.count() > 0) {
    p99 = FormatLatency(previous_[progress_op_].latency.ValueAtPercentile(99));
  }
  return fmt::format("{:7.1f}s  {} {}  {:.1f}/s  {} p99 {}", elapsed, previous_units_, work_unit_,
                     elapsed > 0 ? static_cast<double>(previous_units_) / elapsed : 0.0,
                     op_names_.empty() ? "" : op_names_[progress_op_], p99);
}

}  // namespace iomimic::engine
