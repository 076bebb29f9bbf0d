// The engine's run control and evidence, through the binary's JSON:
// --interval series, --repeat, --cache, --rate, bursts, CPU shares.
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;

class RunControl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount loop filesystems";
    fs_ = LoopFs::Create("ext4", 256ull << 20);
  }

  // Runs mmap_msync (1 MiB regions) with extra args; returns the report.
  json Run(std::vector<std::string> extra, int expect_exit = 0) {
    const std::string report = "/tmp/iomimic-rc-" + std::to_string(::getpid()) + ".json";
    std::vector<std::string> args = {"run", "mmap_msync", "--target=" + fs_->mount_point(),
                                     "--mmap_msync.region_size=1MiB", "--format=none",
                                     "--output=" + report};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunIomimic(args);
    EXPECT_EQ(r.exit_code, expect_exit) << r.err;
    std::ifstream in(report);
    json j = json::parse(in);
    ::unlink(report.c_str());
    return j;
  }

  std::unique_ptr<LoopFs> fs_;
};

TEST_F(RunControl, IntervalSeriesAddsUpToTheWholeRun) {
  const std::string csv = "/tmp/iomimic-rc-series-" + std::to_string(::getpid()) + ".csv";
  json j = Run({"--threads=2", "--duration=1500ms", "--interval=250ms", "--series_output=" + csv});
  ASSERT_TRUE(j["series"].is_array());
  ASSERT_GE(j["series"].size(), 2u);
  uint64_t units = 0, msyncs = 0;
  double last_t = 0;
  for (const json& row : j["series"]) {
    units += row["work_units"].get<uint64_t>();
    msyncs += row["ops"]["msync"]["count"].get<uint64_t>();
    EXPECT_GT(row["t_s"].get<double>(), last_t);
    last_t = row["t_s"].get<double>();
    EXPECT_TRUE(row["cpu"].contains("iowait_pct"));
    EXPECT_TRUE(row["device"].contains("write_bytes"));
    if (row["ops"]["msync"]["count"].get<uint64_t>() > 0) {
      EXPECT_LE(row["ops"]["msync"]["p50_ns"].get<uint64_t>(),
                row["ops"]["msync"]["p99_ns"].get<uint64_t>());
    }
  }
  EXPECT_EQ(units, j["work_units"].get<uint64_t>());
  EXPECT_EQ(msyncs, j["ops"]["msync"]["count"].get<uint64_t>());
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_NE(header.find("msync_p99_ns"), std::string::npos) << header;
  size_t rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, j["series"].size());
  ::unlink(csv.c_str());
}

TEST_F(RunControl, RepeatReportsEachRunAndTheSpread) {
  json j = Run({"--threads=1", "--duration=0", "--ops=20", "--repeat=3"});
  ASSERT_TRUE(j.contains("repeats"));
  EXPECT_EQ(j["repeats"]["count"], 3);
  ASSERT_EQ(j["repeats"]["runs"].size(), 3u);
  for (const json& run : j["repeats"]["runs"]) {
    EXPECT_EQ(run["status"], "complete");
    EXPECT_EQ(run["work_units"], 20);
  }
  const json& s = j["repeats"]["summary"]["ops.msync.p99_ns"];
  EXPECT_EQ(s["runs"], 3);
  EXPECT_LE(s["min"].get<double>(), s["median"].get<double>());
  EXPECT_LE(s["median"].get<double>(), s["max"].get<double>());
}

TEST_F(RunControl, CacheColdEvictsTheModulesFiles) {
  json j = Run({"--threads=2", "--duration=0", "--ops=4", "--mmap_msync.prealloc=write",
                "--cache=cold"});
  EXPECT_EQ(j["cache"]["mode"], "cold");
  EXPECT_EQ(j["cache"]["files"], 1);
  EXPECT_GT(j["cache"]["cached_bytes_before"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["cache"]["cached_bytes_after"].get<uint64_t>(), 0u);
  json keep = Run({"--threads=2", "--duration=0", "--ops=4", "--mmap_msync.prealloc=write"});
  EXPECT_EQ(keep["cache"]["mode"], "keep");
  EXPECT_EQ(keep["cache"]["cached_bytes_after"], keep["cache"]["cached_bytes_before"]);
}

TEST_F(RunControl, RateBoundsTheUnitsAndReportsIntendedLatency) {
  // 2 threads x 40/s x 1 s: at most 80 units plus the one each thread starts at 0.
  json j = Run({"--threads=2", "--duration=1s", "--rate=40"});
  EXPECT_LE(j["work_units"].get<uint64_t>(), 82u);
  // A 1 MiB cycle takes milliseconds: pacing, not the work, bounds the
  // count; half the schedule is a floor no working pacer misses.
  EXPECT_GE(j["work_units"].get<uint64_t>(), 40u);
  ASSERT_TRUE(j["ops"]["cycle"].contains("intended_latency_ns"));
  EXPECT_GE(j["ops"]["cycle"]["intended_latency_ns"]["max"].get<uint64_t>(),
            j["ops"]["cycle"]["latency_ns"]["min"].get<uint64_t>());
  EXPECT_EQ(j["config"]["run"]["rate"], "40");
}

TEST_F(RunControl, BurstsIdleBetweenBursts) {
  // 200 ms on, 800 ms off at 100/s for 2 s: two bursts of ~20 units, not 200.
  json j = Run({"--threads=1", "--duration=2s", "--rate=100", "--burst_on=200ms",
                "--burst_off=800ms"});
  EXPECT_LE(j["work_units"].get<uint64_t>(), 60u);
  EXPECT_GT(j["work_units"].get<uint64_t>(), 0u);
}

TEST_F(RunControl, CpuAndSystemEvidenceIsPresent) {
  json j = Run({"--threads=1", "--duration=0", "--ops=5"});
  const json& cpu = j["cpu"];
  const double total = cpu["user_pct"].get<double>() + cpu["system_pct"].get<double>() +
                       cpu["iowait_pct"].get<double>() + cpu["idle_pct"].get<double>() +
                       cpu["other_pct"].get<double>();
  EXPECT_NEAR(total, 100.0, 0.5);
  json longer = Run({"--threads=2", "--duration=500ms"});
  EXPECT_GE(longer["cpu"]["gauge_samples"].get<uint64_t>(), 3u);
  // The sampler reads /proc/stat while running: it counts itself.
  EXPECT_GE(longer["cpu"]["procs_running_mean"].get<double>(), 1.0);
  EXPECT_GE(longer["cpu"]["procs_blocked_max"].get<double>(),
            longer["cpu"]["procs_blocked_mean"].get<double>());
  EXPECT_GT(cpu["process"]["sys_s"].get<double>() + cpu["process"]["user_s"].get<double>(), 0.0);
  EXPECT_TRUE(j["system"]["cpus"].is_number());
  EXPECT_TRUE(j["system"]["thp"].contains("enabled"));
  EXPECT_TRUE(j["system"]["vm"].contains("dirty_ratio"));
  ASSERT_EQ(j["devices"].size(), 1u);
  EXPECT_EQ(j["devices"][0]["roles"][0], "target");
  EXPECT_EQ(j["devices"][0]["device"], fs_->device_name());
}

TEST_F(RunControl, BadRunControlValuesExit2) {
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--interval=10ms"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("interval"), std::string::npos) << r.err;
  r = RunIomimic({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--burst_on=1s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("burst_off"), std::string::npos) << r.err;
  r = RunIomimic({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--rate=fast"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'fast'"), std::string::npos) << r.err;
  r = RunIomimic({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--repeat=0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("repeat"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iomimic::test

namespace iomimic::test {
namespace {

// The live line appears only on a terminal: under `script` (a pty) it is
// there, with the unit and a p99; piped (as in every other test) it is not.
TEST(Progress, LiveLineOnATerminalOnly) {
  const auto script = FindProgram("script");
  if (!script) GTEST_SKIP() << "no script(1) to provide a terminal";
  const std::string cmd = IomimicBinary() +
                          " run mmap_msync --threads=1 --duration=2500ms --format=none "
                          "--mmap_msync.region_size=1MiB";
  auto tty = RunCommand({*script, "-qec", cmd, "/dev/null"});
  EXPECT_EQ(tty.exit_code, 0) << tty.err;
  EXPECT_NE(tty.out.find('\r'), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("cycle p99"), std::string::npos) << tty.out;
  auto piped = RunIomimic({"run", "mmap_msync", "--threads=1", "--duration=1500ms",
                           "--format=none", "--mmap_msync.region_size=1MiB"});
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_EQ(piped.err.find("cycle p99"), std::string::npos) << piped.err;
}

}  // namespace
}  // namespace iomimic::test
