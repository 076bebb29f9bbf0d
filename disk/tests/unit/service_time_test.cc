// The service-time maths of disk/model/service_time.h.
#include "model/service_time.h"

#include <gtest/gtest.h>

#include <random>

#include "iomimic/status.h"

#include "model/model.h"

namespace iomimic::disk {
namespace {

constexpr uint64_t kSpan = 4ull << 30;

Model Hdd7200() { return LoadModel("hdd-7200"); }

TEST(SeekCurve, MeetsTheThreeDatasheetFigures) {
  const Model m = Hdd7200();
  const SeekCurve c = SeekCurveFor(m);
  EXPECT_EQ(c.At(0), 0);
  EXPECT_NEAR(c.At(1e-9), 1e6, 2e3);   // track to track: 1 ms
  EXPECT_NEAR(c.At(1.0), 15e6, 1);     // full stroke: 15 ms
  // Mean over two uniform random positions is the average seek (8.5 ms).
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) sum += c.At(std::abs(u(rng) - u(rng)));
  EXPECT_NEAR(sum / n, 8.5e6, 0.05e6);
}

TEST(SeekCurve, GrowsWithDistance) {
  const SeekCurve c = SeekCurveFor(Hdd7200());
  double prev = 0;
  for (int i = 1; i <= 100; ++i) {
    const double t = c.At(i / 100.0);
    EXPECT_GT(t, prev);
    prev = t;
  }
}

TEST(Validate, RefusesASeekCurveThatWouldShrink) {
  // An average close to full stroke needs b < -a/2: not a seek curve.
  EXPECT_THROW(LoadModel("hdd-7200", {{"average_seek", "14.5ms"}}), UsageError);
  EXPECT_THROW(LoadModel("hdd-7200", {{"average_seek", "20ms"}}), UsageError);
  EXPECT_NO_THROW(LoadModel("hdd-7200", {{"average_seek", "7ms"}}));
}

TEST(Hdd, SequentialPaysOnlyTransferAtTheZoneRate) {
  const Model m = Hdd7200();
  uint64_t seek = 99;
  const double outer = HddServiceNs(m, kSpan, 0, {0, 1 << 20}, 0.9, &seek);
  EXPECT_EQ(seek, 0u);
  EXPECT_NEAR(outer, (1 << 20) / 150e6 * 1e9, 1);
  const double inner = HddServiceNs(m, kSpan, kSpan - (1 << 20), {kSpan - (1 << 20), 1 << 20}, 0.9, &seek);
  EXPECT_NEAR(inner, (1 << 20) / 70.02e6 * 1e9, 0.01e6);
  EXPECT_GT(inner, 2 * outer);
}

TEST(Hdd, ShortForwardGapCostsRotationOverTheGap) {
  const Model m = Hdd7200();
  uint64_t seek = 99;
  const double t = HddServiceNs(m, kSpan, 0, {64 << 10, 4096}, 0.9, &seek);
  EXPECT_EQ(seek, 0u);
  EXPECT_NEAR(t, ((64 << 10) + 4096) / 150e6 * 1e9, 10);  // zone rate at 64 KiB
}

TEST(Hdd, PiecesOfAStreamOutOfOrderCostOnlyTheirTransfer) {
  // 0-128K, then 256K-384K (gap: the platter turns past 128K-256K, which
  // the drive reads into its track buffer), then 128K-256K from the buffer.
  const Model m = Hdd7200();
  uint64_t seek = 0, head = 0;
  double t = 0;
  for (const Request r : {Request{0, 128 << 10}, Request{256 << 10, 128 << 10},
                          Request{128 << 10, 128 << 10}, Request{384 << 10, 128 << 10}}) {
    t += HddServiceNs(m, kSpan, head, r, 0.9, &seek);
    EXPECT_EQ(seek, 0u);
    head = HddHeadAfter(m, head, r);
  }
  EXPECT_EQ(head, 512u << 10);
  // The gap is paid once, as rotation; the buffer hit costs nothing more.
  EXPECT_NEAR(t, (512 << 10) / 150e6 * 1e9, 0.01e6);
}

TEST(Hdd, RewritingWhatWasJustWrittenWaitsForTheDisk) {
  // The same 1 MiB written twice: the second write is no track-buffer hit.
  const Model m = Hdd7200();
  uint64_t seek = 0;
  const Request again{0, 1 << 20, true};
  const double t = HddServiceNs(m, kSpan, 1 << 20, again, 0.5, &seek);
  EXPECT_EQ(seek, 1u << 20);
  EXPECT_GT(t, (1 << 20) / 150e6 * 1e9 + 4e6);  // transfer + half a rotation at least
  EXPECT_EQ(HddHeadAfter(m, 1 << 20, again), 1u << 20);
  std::vector<Request> dirty = {again};
  uint64_t head = 1 << 20;
  EXPECT_GT(DestageNs(m, kSpan, &head, dirty), 4e6);
}

TEST(Hdd, ReadAheadBanksIdleTimeUpToTheBuffer) {
  const Model m = Hdd7200();  // read_ahead = 4 MiB
  const Request r{0, 1 << 20};
  const double transfer = (1 << 20) / 150e6 * 1e9;  // 6.99 ms
  EXPECT_EQ(ReadAheadFor(m, kSpan, r, 0, 0).credit_ns, 0);
  // 1 ms idle: 150 KB read ahead, 1 ms less to wait.
  EXPECT_NEAR(ReadAheadFor(m, kSpan, r, 0, 1e6).credit_ns, 1e6, 10);
  // A long pause fills the buffer (4 MiB): this request is free, 3 MiB remain.
  const ReadAhead long_pause = ReadAheadFor(m, kSpan, r, 0, 1e9);
  EXPECT_NEAR(long_pause.credit_ns, transfer, 10);
  EXPECT_EQ(long_pause.buffered, 3u << 20);
  // Without idle time what was buffered is used up, then nothing.
  EXPECT_NEAR(ReadAheadFor(m, kSpan, r, 512 << 10, 0).credit_ns, transfer / 2, 10);
  EXPECT_EQ(ReadAheadFor(LoadModel("hdd-7200", {{"read_ahead", "0"}}), kSpan, r, 0, 1e9).credit_ns, 0);
  EXPECT_EQ(ReadAheadFor(LoadModel("san-2ms"), kSpan, r, 0, 1e9).credit_ns, 0);
}

TEST(Hdd, RandomRequestPaysSeekAndRotation) {
  const Model m = Hdd7200();
  uint64_t seek = 0;
  const double t = HddServiceNs(m, kSpan, 0, {kSpan / 2, 4096}, 0.5, &seek);
  EXPECT_EQ(seek, kSpan / 2);
  const double rotation = 0.5 * 60e9 / 7200;  // 4.17 ms
  EXPECT_NEAR(t, SeekCurveFor(m).At(0.5) + rotation + 4096 / ZoneRate(m, kSpan / 2, kSpan) * 1e9, 1);
  // Backwards beyond the track buffer is a seek.
  HddServiceNs(m, kSpan, 8 << 20, {0, 4096}, 0.5, &seek);
  EXPECT_EQ(seek, 8u << 20);
}

TEST(Hdd, RandomFourKibReadsGiveDatasheetIops) {
  // Uniform random 4 KiB reads over the whole span: seek ~8.5 ms + half a
  // rotation 4.17 ms + 0.1 ms overhead = ~12.8 ms: ~78 IOPS.
  const Model m = Hdd7200();
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> off(0, kSpan / 4096 - 1);
  std::uniform_real_distribution<double> u(0, 1);
  uint64_t head = 0, seek = 0;
  double total = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const Request r{off(rng) * 4096, 4096};
    total += ServiceNs(m, kSpan, head, r, u(rng), &seek);
    head = r.offset + r.len;
  }
  const double iops = n / (total / 1e9);
  EXPECT_GT(iops, 70);
  EXPECT_LT(iops, 90);
}

TEST(Hdd, DestageSweepsUpwardFromTheHead) {
  const Model m = Hdd7200();
  uint64_t head = 1 << 30;
  const std::vector<Request> dirty = {{2u << 30, 4096}, {0, 4096}, {(1u << 30) + 4096, 4096}};
  const double t = DestageNs(m, kSpan, &head, dirty);
  EXPECT_EQ(head, 4096u);  // ended at the lowest extent, after wrapping
  // Three extents, the first a short forward gap: less than 3 full random ops.
  EXPECT_LT(t, 3 * 15e6);
  EXPECT_GT(t, 0);
}

TEST(Flat, LatencyPlusTransfer) {
  const Model m = LoadModel("san-2ms");
  uint64_t seek = 0;
  EXPECT_NEAR(ServiceNs(m, kSpan, 0, {123, 1 << 20}, 0.3, &seek), 2e6 + (1 << 20) / 400e6 * 1e9, 1);
  const Model fast = LoadModel("fast");
  EXPECT_EQ(ServiceNs(fast, kSpan, 0, {123, 1 << 20}, 0.3, &seek), 0);
}

TEST(TokenBucket, SpacesRequestsAtTheRate) {
  TokenBucket b;
  double last = 0;
  for (int i = 0; i < 3000; ++i) last = BucketStart(&b, 0, 1, 3000, 0);
  EXPECT_NEAR(last, 2999.0 / 3000 * 1e9, 1);
}

TEST(TokenBucket, DepthAllowsABurstThenTheRate) {
  TokenBucket b;
  // 10 ms of depth at 3000/s: the first 31 start at once.
  int immediate = 0;
  for (int i = 0; i < 100; ++i) immediate += BucketStart(&b, 0, 1, 3000, 10e6) == 0;
  EXPECT_EQ(immediate, 31);
  // An idle bucket refills: a request long after starts at once.
  EXPECT_EQ(BucketStart(&b, 10e9, 1, 3000, 10e6), 10e9);
}

TEST(TokenBucket, NoLimitStartsNow) {
  TokenBucket b;
  EXPECT_EQ(BucketStart(&b, 5, 1000, 0, 0), 5);
}

TEST(TokenBucket, LargeRequestsCountAsSeveralOperations) {
  const Model m = LoadModel("cloud-gp3");
  EXPECT_EQ(IopsCost(m, 4096), 1);
  EXPECT_EQ(IopsCost(m, 256 << 10), 1);
  EXPECT_EQ(IopsCost(m, 1 << 20), 4);
}

}  // namespace
}  // namespace iomimic::disk
