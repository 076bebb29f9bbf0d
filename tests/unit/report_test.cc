// report/: each reporter over a typed result built by hand, so every
// figure is known: the JSON names and values, the text lines, the CSV rows,
// the aggregates of --repeat and --sweep.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/json_fields.h"
#include "report/reporters.h"
#include "result/aggregate.h"

namespace iomimic::report {
namespace {

using nlohmann::json;
using result::RunResult;
using result::RunStatus;

stats::OpSummary Op(const std::string& name, uint64_t count, uint64_t bytes, uint64_t p50) {
  stats::OpSummary op;
  op.name = name;
  op.count = count;
  op.bytes = bytes;
  op.latency = {1000, p50, 2 * p50, 3 * p50, 4 * p50, 5 * p50, static_cast<double>(p50)};
  return op;
}

RunResult Sample() {
  RunResult r;
  r.module = "mmap_msync";
  r.work_unit = "cycles";
  r.status = RunStatus::kComplete;
  r.duration_s = 2.0;
  r.work_units = 10;
  r.app_write_bytes = 40ull << 20;
  r.ops = {Op("fill", 10, 40ull << 20, 1'000'000), Op("msync", 10, 40ull << 20, 2'000'000)};
  result::DeviceDelta d;
  d.device = "loop7";
  d.writes = 80;
  d.write_bytes = 80ull << 20;
  d.avg_write_kib = 1024;
  d.bytes_per_app_byte_write = 2.0;
  d.roles = std::vector<std::string>{"target"};
  r.device = d;
  r.devices = {d};
  r.config.Set("run", "threads", "2");
  r.config.Set("mmap_msync", "region_size", "4MiB");
  r.target.path = "/mnt/x";
  r.target.fs_type = "ext4";
  return r;
}

TEST(JsonReporter, NamesEveryFigureAsTheSchemaDoes) {
  const json j = ToJson(Sample());
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(j["error"], nullptr);
  EXPECT_EQ(j["throughput"]["cycles_per_s"], 5.0);
  EXPECT_EQ(j["throughput"]["ops_per_s"], 10.0);
  EXPECT_EQ(j["throughput"]["write_bytes_per_s"], static_cast<double>(20ull << 20));
  EXPECT_EQ(j["ops"]["msync"]["latency_ns"]["p99"], 6'000'000u);
  EXPECT_FALSE(j["ops"]["msync"].contains("intended_latency_ns"));
  EXPECT_EQ(j["device"]["device_bytes_per_app_byte"]["write"], 2.0);
  EXPECT_EQ(j["device"]["device_bytes_per_app_byte"]["read"], nullptr);
  EXPECT_EQ(j["device"]["roles"], json({"target"}));
  EXPECT_EQ(j["config"]["run"]["threads"], "2");
  EXPECT_EQ(j["config"]["mmap_msync"]["region_size"], "4MiB");
  EXPECT_FALSE(j["config"].contains("profile"));
  EXPECT_EQ(j["system"]["target"]["fs_type"], "ext4");
  EXPECT_EQ(j["system"]["target"]["device"], nullptr);
  EXPECT_EQ(j["layout"], nullptr);
  EXPECT_EQ(j["series"], nullptr);
}

TEST(JsonReporter, FailedRunCarriesItsError) {
  RunResult r = Sample();
  r.status = RunStatus::kFailed;
  r.error = result::RunError{"measure", "msync", "data.db", 5, "Input/output error", 3};
  const json j = json::parse(Render("json", {&r, {}, {}, ""}));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["error"]["errno"], 5);
  EXPECT_EQ(j["error"]["ops_before"], 3);
  EXPECT_FALSE(j.contains("repeats"));
}

TEST(JsonReporter, SeriesRowNamesItsRateAfterTheUnit) {
  result::SeriesRow row;
  row.units_per_s = 7;
  row.ops = {{"msync", 3, 0, 0, 1, 2, 3, 4, 1.5}};
  row.device = std::optional<result::DeviceDelta>();  // a counter went backwards
  const json j = ToJson(row, "cycles");
  EXPECT_EQ(j["cycles_per_s"], 7.0);
  EXPECT_EQ(j["ops"]["msync"]["p99_ns"], 3u);
  EXPECT_TRUE(j.contains("device"));
  EXPECT_EQ(j["device"], nullptr);
  EXPECT_FALSE(j["cpu"].contains("gauge_samples"));
}

TEST(TextReporter, ShowsStatusOpsAndEvidence) {
  const RunResult r = Sample();
  const std::string text = Render("text", {&r, {}, {}, ""});
  EXPECT_NE(text.find("iomimic mmap_msync: complete\n"), std::string::npos) << text;
  EXPECT_NE(text.find("measured 2.00 s: 10 cycles (5.0/s)"), std::string::npos) << text;
  EXPECT_NE(text.find("msync"), std::string::npos);
  EXPECT_NE(text.find("device loop7: 0 reads"), std::string::npos) << text;
  EXPECT_NE(text.find("device bytes per app byte: read -, write 2.00"), std::string::npos);
  EXPECT_NE(text.find("device: none"), std::string::npos);
}

TEST(CsvReporter, OneRowPerOp) {
  const RunResult r = Sample();
  const std::string csv = Render("csv", {&r, {}, {}, ""});
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "module,status,duration_s,op,count,errors,bytes,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,"
            "p999_ns,max_ns");
  EXPECT_NE(csv.find("\nmmap_msync,complete,2.000000,msync,10,0,41943040,1000,2000000.0,"),
            std::string::npos)
      << csv;
}

TEST(Aggregates, MedianMinMaxAndSpreadOverCompleteRunsOnly) {
  std::vector<RunResult> runs(4, Sample());
  runs[0].duration_s = 1.0;  // 10 cycles/s
  runs[1].duration_s = 2.0;  // 5
  runs[2].duration_s = 4.0;  // 2.5
  runs[3].status = RunStatus::kInterrupted;
  runs[3].duration_s = 100;  // not in the summary
  const result::RepeatsSummary s = result::SummarizeRepeats(runs);
  EXPECT_EQ(s.count(), 4u);
  const result::Aggregate* rate = s.Find("cycles_per_s");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->median, 5.0);
  EXPECT_EQ(rate->min, 2.5);
  EXPECT_EQ(rate->max, 10.0);
  EXPECT_DOUBLE_EQ(rate->spread_pct, 150.0);
  EXPECT_EQ(rate->runs, 3u);
  ASSERT_NE(s.Find("device.bytes_per_app_byte.write"), nullptr);
  EXPECT_EQ(s.Find("device.bytes_per_app_byte.read"), nullptr);  // unknown, not zero
}

TEST(Aggregates, SweepKeepsPointsThatDidNotRun) {
  const std::vector<result::SweepPointRuns> points = {{"1", {Sample()}}, {"2", {}}};
  const result::SweepSummary s = result::SummarizeSweep("threads", points);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].status, "complete");
  EXPECT_EQ(s.points[1].status, "not run");
  const RunResult last = Sample();
  const std::string csv = Render("csv", {&last, {}, s, "1"});
  EXPECT_NE(csv.find("threads,1,complete,cycles_per_s,5,5,5,0.00,1\n"), std::string::npos) << csv;
  const std::string text = Render("text", {&last, {}, s, "1"});
  EXPECT_EQ(text.rfind("sweep of threads: the full report of the last run (threads=1)", 0), 0u)
      << text;
  EXPECT_NE(text.find("not run (0)"), std::string::npos) << text;
}

TEST(Reporters, UnknownFormatHasNoReporter) { EXPECT_EQ(MakeReporter("xml"), nullptr); }

}  // namespace
}  // namespace iomimic::report
