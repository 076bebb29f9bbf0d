#include "model/service_time.h"

#include <algorithm>
#include <cmath>

namespace iomimic::disk {

double SeekCurve::At(double fraction) const {
  if (fraction <= 0) return 0;
  fraction = std::min(fraction, 1.0);
  return t2t_ns + a_ns * std::sqrt(fraction) + b_ns * fraction;
}

SeekCurve SeekCurveFor(const Model& m) {
  // a + b = full - t2t and (8/15) a + (1/3) b = avg - t2t, solved for a, b.
  const double t2t = static_cast<double>(m.track_to_track_ns);
  const double full = static_cast<double>(m.full_stroke_ns) - t2t;
  const double avg = static_cast<double>(m.average_seek_ns) - t2t;
  SeekCurve c;
  c.t2t_ns = t2t;
  c.a_ns = (avg - full / 3.0) / (8.0 / 15.0 - 1.0 / 3.0);
  c.b_ns = full - c.a_ns;
  return c;
}

double ZoneRate(const Model& m, uint64_t offset, uint64_t span) {
  const double x = span == 0 ? 0 : std::min(1.0, static_cast<double>(offset) / static_cast<double>(span));
  return (m.outer_mb_s - (m.outer_mb_s - m.inner_mb_s) * x) * 1e6;
}

double HddServiceNs(const Model& m, uint64_t span, uint64_t head, const Request& r, double u,
                    uint64_t* seek_bytes) {
  *seek_bytes = 0;
  const double rate = ZoneRate(m, r.offset, span);
  const double transfer = static_cast<double>(r.len) / rate * 1e9;
  if (r.offset == head) return transfer;
  if (r.offset > head && r.offset - head < m.track_size) {
    return static_cast<double>(r.offset - head) / rate * 1e9 + transfer;
  }
  // Just behind the head: the drive read it into its track buffer when the
  // platter turned past it (a piece of one stream arriving after the piece
  // that follows it, whose gap paid that rotation): no mechanical time.
  if (!r.write && r.offset < head && head - r.offset <= 2 * m.track_size) return 0;
  const uint64_t distance = r.offset > head ? r.offset - head : head - r.offset;
  *seek_bytes = distance;
  const double rotation_ns = u * 60e9 / m.rpm;
  return SeekCurveFor(m).At(static_cast<double>(distance) / static_cast<double>(span)) +
         rotation_ns + transfer;
}

uint64_t HddHeadAfter(const Model& m, uint64_t head, const Request& r) {
  const uint64_t end = r.offset + r.len;
  if (!r.write && r.offset < head && head - r.offset <= 2 * m.track_size) {
    return std::max(head, end);
  }
  return end;
}

ReadAhead ReadAheadFor(const Model& m, uint64_t span, const Request& r, uint64_t buffered,
                       double idle_ns) {
  ReadAhead ra;
  if (m.kind != ModelKind::kHdd || m.read_ahead == 0) return ra;
  const double rate = ZoneRate(m, r.offset, span);
  const double read_while_idle = std::max(0.0, idle_ns) * rate / 1e9;
  const uint64_t have = static_cast<uint64_t>(
      std::min(static_cast<double>(m.read_ahead), static_cast<double>(buffered) + read_while_idle));
  const uint64_t used = std::min(have, r.len);
  ra.credit_ns = static_cast<double>(used) / rate * 1e9;
  ra.buffered = have - used;
  return ra;
}

double ServiceNs(const Model& m, uint64_t span, uint64_t head, const Request& r, double u,
                 uint64_t* seek_bytes) {
  double t = static_cast<double>(m.latency_ns);
  if (m.kind == ModelKind::kHdd) return t + HddServiceNs(m, span, head, r, u, seek_bytes);
  *seek_bytes = 0;
  if (m.transfer_mb_s > 0) t += static_cast<double>(r.len) / (m.transfer_mb_s * 1e6) * 1e9;
  return t;
}

double DestageNs(const Model& m, uint64_t span, uint64_t* head, std::vector<Request> dirty) {
  std::sort(dirty.begin(), dirty.end(),
            [](const Request& a, const Request& b) { return a.offset < b.offset; });
  // Upward from the head first, then wrap to the lowest (C-SCAN).
  const auto split = std::lower_bound(dirty.begin(), dirty.end(), *head,
                                      [](const Request& a, uint64_t h) { return a.offset < h; });
  std::rotate(dirty.begin(), split, dirty.end());
  double t = 0;
  uint64_t seek = 0;
  for (const Request& r : dirty) {
    t += HddServiceNs(m, span, *head, r, 0.5, &seek);
    *head = HddHeadAfter(m, *head, r);
  }
  return t;
}

double BucketStart(TokenBucket* b, double now_ns, double cost, double rate_per_s, double depth_ns) {
  if (rate_per_s <= 0) return now_ns;
  const double start = std::max(now_ns, b->tat_ns - depth_ns);
  b->tat_ns = std::max(b->tat_ns, start) + cost / rate_per_s * 1e9;
  return start;
}

double IopsCost(const Model& m, uint64_t len) {
  if (m.iops_io_size == 0) return 1;
  return std::max<double>(1, std::ceil(static_cast<double>(len) / static_cast<double>(m.iops_io_size)));
}

}  // namespace iomimic::disk
