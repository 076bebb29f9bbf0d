// The time series of a run (--interval) and the live progress line.
//
// Main thread only. At each tick the workers hand their cumulative stats to
// their IntervalSlot (see Worker::Deposit); the series merges the slots and
// subtracts the previous merge, so each interval's percentiles come from
// that interval's own histogram, never from averages of averages. A worker
// busy in one long op hands over at its next unit: its ops land in the
// interval in which they completed and were seen.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/worker.h"
#include "probes/probes.h"
#include "result/evidence.h"
#include "stats/thread_recorder.h"

namespace iomimic::engine {

class IntervalSeries {
 public:
  IntervalSeries(std::vector<std::string> op_names, std::string work_unit,
                 std::vector<IntervalSlot>* slots, std::string device, uint64_t start_ns);

  // Closes the interval ending now; returns its row (also kept in rows()).
  const result::SeriesRow& Close(uint64_t now_ns);
  const std::vector<result::SeriesRow>& rows() const { return rows_; }
  // "  12.0s  1234 cycles  102.8/s  cycle p99 12.3ms" from the stats so far.
  std::string ProgressLine(uint64_t now_ns) const;

 private:
  std::vector<std::string> op_names_;
  std::string work_unit_;
  size_t progress_op_;  // the op whose p99 the progress line shows
  std::vector<IntervalSlot>* slots_;
  std::string device_;
  uint64_t start_ns_, last_ns_;
  std::vector<stats::OpStats> previous_;  // cumulative at the last close
  uint64_t previous_units_ = 0;
  probes::DiskCounters previous_disk_;
  probes::CpuTimes previous_cpu_;
  std::vector<result::SeriesRow> rows_;
};

}  // namespace iomimic::engine
