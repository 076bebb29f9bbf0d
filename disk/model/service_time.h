// The service-time maths of the models: pure functions, no clock, no state
// beyond what the caller passes in (the daemon's scheduler keeps the state).
//
// Hard disk (kind = hdd), for a request at `offset` of `len` bytes on a
// disk whose whole stroke spans `span` bytes (the emulated size: a 4 GiB
// emulated disk behaves as a whole disk, inner to outer zone):
//   sequential (offset == head):        transfer only
//   short forward gap (< track_size):   gap / rate (the platter turns past it) + transfer
//   short backward read (<= 2 track_size): 0 (from the drive's track buffer,
//                                       which holds the last two tracks: the
//                                       rotation over it was paid as a gap)
//   otherwise:                          seek(distance) + rotation + transfer
//   seek(x) = t2t + a*sqrt(x) + b*x for x = distance/span in (0, 1],
//     a and b chosen so that seek(1) = full_stroke and the mean over two
//     uniformly random positions (E[sqrt x] = 8/15, E[x] = 1/3 for the
//     triangular distance) = average_seek: the three datasheet figures hold.
//   rotation = u * 60/rpm, u uniform in [0, 1) (the caller's random draw)
//   rate(offset) = outer - (outer - inner) * offset/span (zoned recording)
// Flat (kind = flat): transfer = len / transfer_mb_s (0 = instant).
// Every request also pays `latency` (command overhead, a SAN round trip).
//
// Token bucket (GCRA, virtual scheduling): `tat` is the time at which the
// bucket would be full again; a request costing `cost` tokens at `rate`
// per second starts at max(now, tat - depth) and moves tat by cost/rate.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace iomimic::disk {

struct SeekCurve {
  double t2t_ns = 0, a_ns = 0, b_ns = 0;
  // seek(x) grows with x on (0, 1]: a/2 + b >= 0 (derivative at x = 1) and a >= 0.
  bool monotonic() const { return a_ns >= 0 && a_ns / 2 + b_ns >= -1e-9; }
  // Seek time for a distance that is `fraction` of the stroke; 0 for 0.
  double At(double fraction) const;
};

SeekCurve SeekCurveFor(const Model& m);

// Transfer rate (bytes per second) at `offset` of a disk of `span` bytes.
double ZoneRate(const Model& m, uint64_t offset, uint64_t span);

// One request as the disk sees it.
struct Request {
  uint64_t offset = 0;
  uint64_t len = 0;
  bool write = false;  // the track buffer serves reads only
};

// The mechanical part of one hdd request (no `latency`): head is where the
// furthest the head has read on its track (HddHeadAfter), u the rotational
// draw in [0, 1). Sets *seek_bytes to the distance the arm moved (0 when
// no seek).
double HddServiceNs(const Model& m, uint64_t span, uint64_t head, const Request& r, double u,
                    uint64_t* seek_bytes);

// Where the head is after `r`: its end, except that a request served from
// the track buffer (just behind the head) leaves the head where it was.
uint64_t HddHeadAfter(const Model& m, uint64_t head, const Request& r);

// Drive read-ahead: after a read the drive keeps reading on into its buffer
// while the host is away, up to `read_ahead` bytes. A read that continues
// the previous one (offset == head) takes what is buffered: its transfer
// is shortened by the time that part took. So the host's turnaround (here:
// the FUSE round trip) does not lower a sequential stream's rate, as on a
// real drive, as long as it is shorter than the transfer on average.
struct ReadAhead {
  double credit_ns = 0;      // transfer time already done while idle
  uint64_t buffered = 0;     // bytes left buffered ahead after the request
};
ReadAhead ReadAheadFor(const Model& m, uint64_t span, const Request& r, uint64_t buffered,
                       double idle_ns);

// Service of one request of either kind, `latency` included.
double ServiceNs(const Model& m, uint64_t span, uint64_t head, const Request& r, double u,
                 uint64_t* seek_bytes);

// Destaging cached writes on a flush: one elevator sweep upward from the
// head over the extents sorted by offset (then the rest from the start),
// each with half a rotation on a seek. Sets *head to where it ends.
double DestageNs(const Model& m, uint64_t span, uint64_t* head, std::vector<Request> dirty);

struct TokenBucket {
  double tat_ns = 0;
};
// Start time of a request costing `cost` tokens arriving at `now_ns`;
// updates the bucket. rate <= 0 means no limit (start = now).
double BucketStart(TokenBucket* b, double now_ns, double cost, double rate_per_s, double depth_ns);

// Tokens a request costs in the IOPS bucket: ceil(len / iops_io_size), at least 1.
double IopsCost(const Model& m, uint64_t len);

}  // namespace iomimic::disk
