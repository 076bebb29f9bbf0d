// How one record is cut into calls: pure arithmetic, header-only.
//
// A record of `bytes` bytes is written in `writes` pieces of near-equal size
// (the first bytes % writes pieces are one byte longer). The record's clock
// reads and lseeks are spread evenly between the pieces, as a logger that
// timestamps fields and checks its position while it formats: before piece
// j come ClocksBefore(j) clock reads, after it LseeksAfter(j) lseeks. Over
// the whole record the counts are exact: the sums are `clocks` and
// `lseeks`. Thread-safe (immutable).
#pragma once

#include <cstdint>

namespace iomimic::log_writers {

struct RecordPlan {
  uint64_t bytes = 1024;  // REQUIRES: bytes >= writes
  uint64_t writes = 1;    // REQUIRES: >= 1
  uint64_t lseeks = 0;
  uint64_t clocks = 0;

  uint64_t PieceBytes(uint64_t j) const { return bytes / writes + (j < bytes % writes ? 1 : 0); }
  uint64_t ClocksBefore(uint64_t j) const { return Share(clocks, j); }
  uint64_t LseeksAfter(uint64_t j) const { return Share(lseeks, j); }

 private:
  // The part of `total` that falls in slot j of `writes` slots:
  // floor((j+1)·total/writes) − floor(j·total/writes).
  uint64_t Share(uint64_t total, uint64_t j) const {
    return (j + 1) * total / writes - j * total / writes;
  }
};

}  // namespace iomimic::log_writers
