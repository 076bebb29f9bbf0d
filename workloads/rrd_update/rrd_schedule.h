// Which archives get a new row on a pass: rrdtool's consolidation rule.
//
// rrdtool aligns primary data points (PDPs) on multiples of the step since
// the epoch, and an archive of pdp_cnt steps per row on multiples of
// pdp_cnt x step ("rra_st" in rrd_format.h). An update at time `now` whose
// previous update was at `last` completes one row in an archive for every
// such multiple crossed in (last, now]. Pass p of a run updates every file
// at start_time + p x step, so with the default 300 s step and the Cacti
// archives every pass writes the 1-step rows, a pass on a half-hour
// boundary also the 6-step rows, on a 2-hour boundary the 24-step rows,
// and at midnight UTC the 288-step rows too.
//
// Header-only (the tests check it without linking the module). Pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "rrd_layout.h"

namespace iomimic::rrd_update {

// Rows an archive of pdp_cnt steps gets from an update at `now` after one
// at `last` (0 <= last <= now, times in seconds since the epoch).
inline uint64_t RowsDue(uint64_t pdp_cnt, uint64_t step, uint64_t last, uint64_t now) {
  const uint64_t span = pdp_cnt * step;
  return now / span - last / span;
}

// The time of pass `pass` (0-based): one step after the previous one,
// whatever the wall-clock period between passes.
inline uint64_t PassTime(uint64_t start_time, uint64_t step, uint64_t pass) {
  return start_time + pass * step;
}

// The archives (indexes into layout.archives()) that get a row on `pass`.
// Each gets exactly one, since passes are one step apart.
inline std::vector<uint32_t> DueArchives(const Layout& layout, uint64_t start_time,
                                         uint64_t step, uint64_t pass) {
  const uint64_t now = PassTime(start_time, step, pass);
  std::vector<uint32_t> due;
  for (size_t i = 0; i < layout.archive_count(); ++i) {
    if (RowsDue(layout.archive(i).pdp_cnt, step, now - step, now) > 0) {
      due.push_back(static_cast<uint32_t>(i));
    }
  }
  return due;
}

}  // namespace iomimic::rrd_update
