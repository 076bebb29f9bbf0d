// Where everything lives in an rrdtool database file: the arithmetic of the
// real format, so the module's files have the sizes and row offsets of the
// files a monitoring server keeps.
//
// The numbers are rrdtool's own (src/rrd_format.h of oetiker/rrdtool-1.x,
// format version "0003", what `rrdtool create` writes by default) on an
// LP64 machine (x86_64, aarch64): unsigned long, time_t and double are 8
// bytes, and the compiler pads as noted below. A file is its header, then
// each archive's rows in order, a row being one 8-byte double per data
// source:
//
//   stat_head    128                       cookie, version, float cookie, ds_cnt, rra_cnt, pdp_step
//   ds_def       120 x data sources        name, type, heartbeat, min, max
//   rra_def      120 x archives            consolidation function, row_cnt, pdp_cnt, xff
//   live_head     16                       last_up, last_up_usec
//   pdp_prep     112 x data sources        last reading (ASCII), PDP scratch
//   cdp_prep      80 x data sources x archives   CDP scratch
//   rra_ptr        8 x archives            cur_row of each archive
//   data           8 x data sources x rows, archive after archive
//
// Header-only so that the tests (which do not link the module) check the
// same arithmetic. Thread-safe: a Layout is immutable once built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iomimic::rrd_update {

// Sizes of rrd_format.h's structs on LP64, with the padding the compiler adds.
// cookie[4] version[5] (pad 7), double float_cookie, 3 x unsigned long, unival par[10]
inline constexpr uint64_t kStatHeadBytes = 128;
inline constexpr uint64_t kDsDefBytes = 120;     // ds_nam[20] dst[20] unival par[10]
inline constexpr uint64_t kRraDefBytes = 120;    // cf_nam[20] (pad 4) row_cnt pdp_cnt par[10]
inline constexpr uint64_t kLiveHeadBytes = 16;   // time_t last_up, long last_up_usec
inline constexpr uint64_t kPdpPrepBytes = 112;   // last_ds[30] (pad 2) unival scratch[10]
inline constexpr uint64_t kCdpPrepBytes = 80;    // unival scratch[10]
inline constexpr uint64_t kRraPtrBytes = 8;      // unsigned long cur_row
inline constexpr uint64_t kValueBytes = 8;       // rrd_value_t (double)

// Field offsets inside the structs (same source).
inline constexpr uint64_t kStatFloatCookieAt = 16;
inline constexpr uint64_t kStatDsCntAt = 24;
inline constexpr uint64_t kStatRraCntAt = 32;
inline constexpr uint64_t kStatPdpStepAt = 40;
inline constexpr uint64_t kDsTypeAt = 20;
inline constexpr uint64_t kDsParAt = 40;
inline constexpr uint64_t kRraRowCntAt = 24;
inline constexpr uint64_t kRraPdpCntAt = 32;
inline constexpr uint64_t kRraParAt = 40;
inline constexpr uint64_t kPdpScratchAt = 32;
inline constexpr double kFloatCookie = 8.642135E130;

// One round-robin archive: rows of consolidated data points, each made of
// pdp_cnt primary data points (steps) by the consolidation function cf.
struct Archive {
  std::string cf;        // AVERAGE, MIN, MAX or LAST
  uint64_t pdp_cnt = 1;  // steps per row
  uint64_t rows = 1;     // rows kept (the archive wraps around)
};

// The classic Cacti/MRTG set: 5-minute rows for 2 days (600), 30-minute for
// 2 weeks (700), 2-hour for 2 months (775), daily for 2 years (797), kept
// for each of AVERAGE, MIN, MAX and LAST.
inline constexpr const char* kCactiArchives =
    "AVERAGE:1:600,AVERAGE:6:700,AVERAGE:24:775,AVERAGE:288:797,"
    "MIN:1:600,MIN:6:700,MIN:24:775,MIN:288:797,"
    "MAX:1:600,MAX:6:700,MAX:24:775,MAX:288:797,"
    "LAST:1:600,LAST:6:700,LAST:24:775,LAST:288:797";

// Limits that keep a header and a file within reason.
inline constexpr uint64_t kMaxArchives = 256;
inline constexpr uint64_t kMaxRows = 100'000'000;

namespace internal {

inline std::vector<std::string> Split(const std::string& text, const std::string& seps) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : text) {
    if (seps.find(c) != std::string::npos) {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

// A positive decimal integer no larger than max; false otherwise.
inline bool ParseCount(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 12) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v == 0 || v > max) return false;
  *out = v;
  return true;
}

}  // namespace internal

// Parses an archive list: entries separated by commas or spaces, each
// CF:STEPS:ROWS ("AVERAGE:6:700") or rrdtool's own RRA:CF:XFF:STEPS:ROWS
// ("RRA:AVERAGE:0.5:6:700", pasted from a `rrdtool create` line; the xff
// is not used). Returns "" or what is wrong, naming the entry.
inline std::string ParseArchives(const std::string& text, std::vector<Archive>* out) {
  std::vector<Archive> archives;
  for (const std::string& entry : internal::Split(text, ", \t")) {
    std::vector<std::string> f = internal::Split(entry, ":");
    if (f.size() == 5 && f[0] == "RRA") f = {f[1], f[3], f[4]};
    if (f.size() != 3) {
      return "archive '" + entry + "' is not CF:STEPS:ROWS (or RRA:CF:XFF:STEPS:ROWS)";
    }
    Archive a;
    a.cf = f[0];
    if (a.cf != "AVERAGE" && a.cf != "MIN" && a.cf != "MAX" && a.cf != "LAST") {
      return "archive '" + entry + "': consolidation function must be AVERAGE, MIN, MAX or LAST";
    }
    if (!internal::ParseCount(f[1], 1'000'000, &a.pdp_cnt)) {
      return "archive '" + entry + "': steps per row must be an integer from 1 to 1000000";
    }
    if (!internal::ParseCount(f[2], kMaxRows, &a.rows)) {
      return "archive '" + entry + "': rows must be an integer from 1 to " +
             std::to_string(kMaxRows);
    }
    archives.push_back(a);
  }
  if (archives.empty()) return "no archive given";
  if (archives.size() > kMaxArchives) {
    return "at most " + std::to_string(kMaxArchives) + " archives, got " +
           std::to_string(archives.size());
  }
  *out = std::move(archives);
  return {};
}

class Layout {
 public:
  Layout() = default;
  Layout(uint64_t data_sources, std::vector<Archive> archives)
      : ds_(data_sources), archives_(std::move(archives)) {
    uint64_t at = header_bytes();
    for (const Archive& a : archives_) {
      archive_offsets_.push_back(at);
      at += a.rows * row_bytes();
    }
    file_bytes_ = at;
  }

  uint64_t data_sources() const { return ds_; }
  uint64_t archive_count() const { return archives_.size(); }
  const std::vector<Archive>& archives() const { return archives_; }
  const Archive& archive(size_t i) const { return archives_[i]; }

  // Header sections, in file order.
  uint64_t ds_def_offset() const { return kStatHeadBytes; }
  uint64_t rra_def_offset() const { return ds_def_offset() + ds_ * kDsDefBytes; }
  uint64_t live_head_offset() const { return rra_def_offset() + archive_count() * kRraDefBytes; }
  uint64_t pdp_prep_offset() const { return live_head_offset() + kLiveHeadBytes; }
  uint64_t pdp_prep_bytes() const { return ds_ * kPdpPrepBytes; }
  uint64_t cdp_prep_offset() const { return pdp_prep_offset() + pdp_prep_bytes(); }
  uint64_t cdp_prep_bytes() const { return ds_ * archive_count() * kCdpPrepBytes; }
  uint64_t rra_ptr_offset() const { return cdp_prep_offset() + cdp_prep_bytes(); }
  uint64_t rra_ptr_bytes() const { return archive_count() * kRraPtrBytes; }
  uint64_t header_bytes() const { return rra_ptr_offset() + rra_ptr_bytes(); }
  // The part an update writes back: live_head through rra_ptr, contiguous.
  uint64_t live_offset() const { return live_head_offset(); }
  uint64_t live_bytes() const { return header_bytes() - live_head_offset(); }

  // Data.
  uint64_t row_bytes() const { return ds_ * kValueBytes; }
  uint64_t archive_offset(size_t i) const { return archive_offsets_[i]; }
  uint64_t row_offset(size_t i, uint64_t row) const {
    return archive_offsets_[i] + row * row_bytes();
  }
  uint64_t file_bytes() const { return file_bytes_; }

 private:
  uint64_t ds_ = 1;
  std::vector<Archive> archives_;
  std::vector<uint64_t> archive_offsets_;
  uint64_t file_bytes_ = 0;
};

}  // namespace iomimic::rrd_update
