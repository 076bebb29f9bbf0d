// --sweep NAME=V1,V2,...: one run (or --repeat runs) per value, every point
// checked before the first runs, tunings restored after each point and
// after a signal, and a report that compares the points.
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/report_file.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;
using std::chrono::seconds;

std::string ReadAheadKb(const LoopFs& fs) {
  std::ifstream in("/sys/block/" + fs.device_name() + "/queue/read_ahead_kb");
  std::string v;
  in >> v;
  return v;
}

class Sweep : public ::testing::Test {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS("ext4");
    report_ = "/tmp/iomimic-sweep-" + std::to_string(::getpid()) + ".json";
    fs_ = LoopFs::Create("ext4", 256ull << 20);
  }
  void TearDown() override { ::unlink(report_.c_str()); }

  RunResult Run(const std::string& module, std::vector<std::string> extra) const {
    std::vector<std::string> args = {"run", module, "--target=" + fs_->mount_point(),
                                     "--output=" + report_, "--format=none"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunIomimic(args);
  }

  json Report() const { return ReadReport(report_); }

  std::unique_ptr<LoopFs> fs_;
  std::string report_;
};

TEST_F(Sweep, EachValueOfATuningRunsWithItAndIsRestored) {
  const std::string before = ReadAheadKb(*fs_);
  ASSERT_NE(before, "64");
  const RunResult r = Run("mmap_msync", {"--duration=0", "--ops=4", "--repeat=2",
                                         "--mmap_msync.region_size=1MiB",
                                         "--sweep=queue.read_ahead_kb=64,1024"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* v : {"64", "1024"}) {
    EXPECT_NE(r.err.find(fmt::format("tune queue.read_ahead_kb: {} -> {}", before, v)),
              std::string::npos)
        << r.err;
  }
  const json j = Report();
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["sweep"]["name"], "queue.read_ahead_kb");
  const json& points = j["sweep"]["points"];
  ASSERT_EQ(points.size(), 2u);
  for (const json& p : points) {
    EXPECT_EQ(p["status"], "complete");
    EXPECT_EQ(p["repeats"]["count"], 2);
    EXPECT_EQ(p["repeats"]["summary"]["cycles_per_s"]["runs"], 2) << p.dump();
  }
  EXPECT_EQ(points[1]["value"], "1024");
  // The rest of the report is the last run's: read ahead as it was then.
  EXPECT_EQ(j["system"]["target"]["device"]["queue"]["read_ahead_kb"], 1024);
  EXPECT_EQ(ReadAheadKb(*fs_), before);
}

// A module option changes what the module does at each point: the flush
// op only exists where a flush policy asks for it.
TEST_F(Sweep, AModuleOptionChangesTheWorkloadPerPoint) {
  const RunResult r = Run("log_writers", {"--duration=0", "--ops=64", "--threads=1",
                                          "--sweep=log_writers.flush=none,fdatasync:8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = Report();
  ASSERT_TRUE(j.is_object());
  const json& points = j["sweep"]["points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_FALSE(points[0]["repeats"]["summary"].contains("ops.fdatasync.p50_ns"))
      << points[0].dump();
  EXPECT_TRUE(points[1]["repeats"]["summary"].contains("ops.fdatasync.p50_ns"))
      << points[1].dump();
  EXPECT_EQ(j["config"]["log_writers"]["flush"], "fdatasync:8");
}

// target=A,B compares filesystems in one command.
TEST_F(Sweep, OverTargetsComparesFilesystems) {
  IOMIMIC_REQUIRE_LOOP_FS("xfs");
  auto xfs = LoopFs::Create("xfs");
  const RunResult r = RunIomimic(
      {"run", "mmap_msync", "--output=" + report_, "--format=text", "--duration=0", "--ops=4",
       "--mmap_msync.region_size=1MiB",
       "--sweep=target=" + fs_->mount_point() + "," + xfs->mount_point()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("sweep of target: median"), std::string::npos) << r.out;
  // The full report printed first is the last run's, and says so.
  EXPECT_EQ(r.out.find("sweep of target: the full report of the last run (target=" +
                       xfs->mount_point() + ")"),
            0u)
      << r.out;
  const json j = Report();
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["sweep"]["points"].size(), 2u);
  EXPECT_EQ(j["system"]["target"]["fs_type"], "xfs");
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
  EXPECT_EQ(CountEntries(xfs->mount_point()), 0);
}

// Every point is checked before the first one runs: nothing is written,
// exit 2, and the message names the sweep and the bad value.
TEST_F(Sweep, ABadPointIsRefusedBeforeAnyPointRuns) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--sweep=threads=1,0"}, "threads=0"},
           {{"--threads=2", "--sweep=threads=1,2"}, "threads"},
           {{"--sweep=queue.read_ahead_kb=64,lots"}, "'lots'"},
           {{"--sweep=queue.scheduler=none,cfq"}, "cfq"},
           {{"--sweep=output=a.json,b.json"}, "shapes the report"},
           {{"--sweep=threads=1,1"}, "given twice"},
           {{"--sweep=threads"}, "NAME=VALUE1,VALUE2"}}) {
    SCOPED_TRACE(c.args.back());
    std::vector<std::string> args = {"--duration=1s"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const RunResult r = Run("mmap_msync", args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("sweep"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
    EXPECT_EQ(::access(report_.c_str(), F_OK), -1);
  }
  // The second target is refused by the engine's own check, before the
  // first target is written to.
  const RunResult r = RunIomimic({"run", "mmap_msync", "--output=" + report_, "--format=none",
                                  "--sweep=target=" + fs_->mount_point() + ",/nonexistent/dir"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--sweep target=/nonexistent/dir: target '/nonexistent/dir'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
}

// A signal stops the sweep: the running point is interrupted, the rest
// are not run, the setting is back, exit 1.
TEST_F(Sweep, ASignalStopsTheSweepAndRestores) {
  const std::string before = ReadAheadKb(*fs_);
  SpawnedProcess p;
  p.Start({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--output=" + report_,
           "--format=none", "--duration=10m", "--threads=2", "--mmap_msync.region_size=1MiB",
           "--sweep=queue.read_ahead_kb=64,1024"});
  ASSERT_TRUE(p.WaitForStderr("iomimic: measure", seconds(60))) << p.StderrSoFar();
  ASSERT_EQ(ReadAheadKb(*fs_), "64");
  ASSERT_TRUE(p.Signal(SIGTERM));
  const RunResult r = p.Wait(seconds(60));
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = Report();
  ASSERT_TRUE(j.is_object());
  const json& points = j["sweep"]["points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0]["status"], "interrupted");
  EXPECT_EQ(points[1]["status"], "not run");
  EXPECT_EQ(ReadAheadKb(*fs_), before);
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
}

}  // namespace
}  // namespace iomimic::test
