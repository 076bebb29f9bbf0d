// iomimic run ... --disk MODEL: a scratch emulated disk around one run, its
// counters in the report's disk_model section, nothing left afterwards.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <gtest/gtest.h>

#include "disk_fixture.h"

namespace iomimic::test {
namespace {

class RunDisk : public DiskTest {
 protected:
  std::string Report() const { return root_ + "/report.json"; }
  std::vector<std::string> Args(const std::string& model, const std::string& fs) const {
    return {"run", "mmap_msync", "--disk", model, "--disk_fs", fs, "--disk_size", "1G",
            "--disk_backing_dir", backing_, "--duration", "1s", "--mmap_msync.region_size=1MiB",
            "--output", Report(), "--format", "none"};
  }
};

class RunDiskFs : public RunDisk, public ::testing::WithParamInterface<const char*> {};

TEST_P(RunDiskFs, ReportHasTheModelAndTheMeasuredCounters) {
  const std::string fs = GetParam();
  IOMIMIC_REQUIRE_LOOP_FS(fs);
  const RunResult r = RunIomimic(Args("hdd-7200", fs));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(Slurp(Report()));
  EXPECT_EQ(j["system"]["target"]["fs_type"], fs) << j["system"]["target"].dump();
  ASSERT_TRUE(j.contains("disk_model")) << j.dump().substr(0, 2000);
  const auto& d = j["disk_model"];
  EXPECT_EQ(d["model"], "hdd-7200");
  EXPECT_EQ(d["parameters"]["rpm"], 7200);
  // Every msync reaches the disk as writes and a flush, in the measured phase.
  const uint64_t msyncs = j["ops"]["msync"]["count"];
  EXPECT_GT(msyncs, 0u);
  EXPECT_GE(d["counters"]["flushes"].get<uint64_t>(), msyncs);
  EXPECT_GE(d["counters"]["write_bytes"].get<uint64_t>(), msyncs << 20);
  EXPECT_GT(d["derived"]["utilization"].get<double>(), 0.1);
  ExpectNothingLeft();
}

INSTANTIATE_TEST_SUITE_P(Fs, RunDiskFs, ::testing::Values("ext4", "xfs", "btrfs"));

TEST_F(RunDisk, ARunNotOnAnEmulatedDiskHasNoSection) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  const RunResult r = RunIomimic({"run", "mmap_msync", "--target", root_, "--duration", "1s",
                                  "--mmap_msync.region_size=1MiB", "--output", Report(),
                                  "--format", "none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(Slurp(Report())).contains("disk_model"));
}

TEST_F(RunDisk, BadInputLeavesNothing) {
  std::vector<std::string> args = Args("hdd-9999", "xfs");
  RunResult r = RunIomimic(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'hdd-9999'"), std::string::npos) << r.err;
  args = Args("fast", "xfs");
  args.push_back("--target=/tmp");
  r = RunIomimic(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'target'"), std::string::npos) << r.err;
  // A bad run option is found after the disk is up: it goes again.
  args = Args("fast", "ext4");
  args.push_back("--threads=zero");
  r = RunIomimic(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("threads"), std::string::npos) << r.err;
  ExpectNothingLeft();
  EXPECT_NE(::access(Report().c_str(), F_OK), 0);
}

TEST_F(RunDisk, KilledRunIsCleanedUp) {
  IOMIMIC_REQUIRE_LOOP_FS("xfs");
  std::vector<std::string> args = Args("hdd-7200", "xfs");
  *std::find(args.begin(), args.end(), "1s") = "60s";  // --duration
  SpawnedProcess p;
  p.Start(args);
  ASSERT_TRUE(p.WaitForStderr("measure", std::chrono::seconds(30))) << p.StderrSoFar();
  p.Signal(SIGKILL);
  p.Wait();
  const RunResult list = RunIomimic({"disk", "list"});
  EXPECT_NE(list.out.find("its run is gone"), std::string::npos) << list.out;
  const RunResult clean = RunIomimic({"clean", "--target", backing_});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  ExpectNothingLeft();
}

}  // namespace
}  // namespace iomimic::test
