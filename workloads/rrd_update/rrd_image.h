// The bytes of an rrdtool file: a freshly created one, and the few header
// fields an update reads and changes.
//
// FreshImage() fills the header as `rrdtool create` does (src/rrd_create.c
// of rrdtool 1.x): cookie "RRD", version "0003", the float cookie, GAUGE
// data sources with a heartbeat of two steps and unknown (NaN) min/max,
// archives with xff 0.5, last_up one step before the first pass, "U" as
// the last reading, and every data value unknown (NaN). rrdtool picks each
// archive's starting row at random (rrd_select_initial_row) so that the
// rows of many files do not all sit at the same offsets; InitialRow() does
// the same, reproducibly from --seed. Values are in the machine's byte
// order, as rrdtool writes them.
//
// Header-only (the tests read produced files with it). Pure functions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "rrd_layout.h"

namespace iomimic::rrd_update {

inline uint64_t LoadU64(const char* buf, uint64_t at) {
  uint64_t v;
  std::memcpy(&v, buf + at, sizeof v);
  return v;
}
inline void StoreU64(char* buf, uint64_t at, uint64_t v) { std::memcpy(buf + at, &v, sizeof v); }
inline double LoadDouble(const char* buf, uint64_t at) {
  double v;
  std::memcpy(&v, buf + at, sizeof v);
  return v;
}
inline void StoreDouble(char* buf, uint64_t at, double v) { std::memcpy(buf + at, &v, sizeof v); }

// True when buf (at least kStatHeadBytes) starts like an rrdtool file of
// this machine's layout.
inline bool HasRrdCookie(const char* buf) {
  return std::memcmp(buf, "RRD\0", 4) == 0 && LoadDouble(buf, kStatFloatCookieAt) == kFloatCookie;
}

// Where archive i's cur_row lives in the file (and in a header buffer).
inline uint64_t CurRowOffset(const Layout& l, size_t archive) {
  return l.rra_ptr_offset() + archive * kRraPtrBytes;
}

// The starting row of `archive` in file `file`: random-looking, the same for
// the same seed (splitmix64 of the three).
inline uint64_t InitialRow(uint64_t seed, uint64_t file, uint64_t archive, uint64_t rows) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + file * 0xBF58476D1CE4E5B9ull + archive + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z % rows;
}

// A whole file as `rrdtool create --start (first_pass - step) --step step`
// writes it, with every cur_row 0 (SetInitialRows() sets them per file).
// With `bytes` (at least header_bytes()), only the file's first `bytes`:
// the rest is unknown values (NaN) all the way, which a writer streams
// (a file of gigabytes is never held in memory).
inline std::vector<char> FreshImage(const Layout& l, uint64_t step, uint64_t last_up,
                                    uint64_t bytes = UINT64_MAX) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<char> img(std::min(bytes, l.file_bytes()), 0);
  if (img.size() < l.header_bytes() || img.size() < kStatHeadBytes) return img;  // no archives
  char* b = img.data();
  std::memcpy(b, "RRD\0", 4);
  std::memcpy(b + 4, "0003\0", 5);
  StoreDouble(b, kStatFloatCookieAt, kFloatCookie);
  StoreU64(b, kStatDsCntAt, l.data_sources());
  StoreU64(b, kStatRraCntAt, l.archive_count());
  StoreU64(b, kStatPdpStepAt, step);
  for (uint64_t d = 0; d < l.data_sources(); ++d) {
    const uint64_t at = l.ds_def_offset() + d * kDsDefBytes;
    const std::string name = "ds" + std::to_string(d);
    std::memcpy(b + at, name.data(), std::min<size_t>(name.size(), 19));
    std::memcpy(b + at + kDsTypeAt, "GAUGE", 5);
    StoreU64(b, at + kDsParAt, 2 * step);           // DS_mrhb_cnt: heartbeat
    StoreDouble(b, at + kDsParAt + 8, nan);         // DS_min_val: unknown
    StoreDouble(b, at + kDsParAt + 16, nan);        // DS_max_val: unknown
  }
  for (size_t i = 0; i < l.archive_count(); ++i) {
    const uint64_t at = l.rra_def_offset() + i * kRraDefBytes;
    const Archive& a = l.archive(i);
    std::memcpy(b + at, a.cf.data(), std::min<size_t>(a.cf.size(), 19));
    StoreU64(b, at + kRraRowCntAt, a.rows);
    StoreU64(b, at + kRraPdpCntAt, a.pdp_cnt);
    StoreDouble(b, at + kRraParAt, 0.5);            // RRA_cdp_xff_val
  }
  StoreU64(b, l.live_head_offset(), last_up);
  for (uint64_t d = 0; d < l.data_sources(); ++d) {
    const uint64_t at = l.pdp_prep_offset() + d * kPdpPrepBytes;
    b[at] = 'U';                                      // last_ds: unknown
    StoreU64(b, at + kPdpScratchAt, last_up % step);  // PDP_unkn_sec_cnt
    StoreDouble(b, at + kPdpScratchAt + 8, nan);      // PDP_val
  }
  for (size_t i = 0; i < l.archive_count(); ++i) {
    for (uint64_t d = 0; d < l.data_sources(); ++d) {
      const uint64_t at = l.cdp_prep_offset() + (i * l.data_sources() + d) * kCdpPrepBytes;
      StoreDouble(b, at, nan);  // CDP_val
      // CDP_unkn_pdp_cnt: the PDPs of the current row so far, all unknown.
      StoreU64(b, at + 8, (last_up / step) % l.archive(i).pdp_cnt);
    }
  }
  for (uint64_t at = l.archive_offset(0); at + kValueBytes <= img.size(); at += kValueBytes) {
    StoreDouble(b, at, nan);
  }
  return img;
}

// Sets each archive's cur_row in a fresh image for file `file`.
inline void SetInitialRows(const Layout& l, uint64_t seed, uint64_t file, char* image) {
  for (size_t i = 0; i < l.archive_count(); ++i) {
    StoreU64(image, CurRowOffset(l, i), InitialRow(seed, file, i, l.archive(i).rows));
  }
}

}  // namespace iomimic::rrd_update
