// mmap_msync end to end: the built binary on freshly made loop-mounted
// ext4, xfs and btrfs, checked through its JSON report.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;


json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::string ReportPath(const std::string& tag) {
  return "/tmp/iomimic-e2e-" + tag + "-" + std::to_string(::getpid()) + ".json";
}

class MmapMsyncOnFs : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount loop filesystems";
    fs_ = LoopFs::Create(GetParam(), 320ull << 20);
  }
  std::unique_ptr<LoopFs> fs_;
};

TEST_P(MmapMsyncOnFs, ReportsOpsDeviceAndLayoutAndCleansUp) {
  const std::string report = ReportPath(GetParam());
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--threads=4",
                       "--duration=0", "--ops=32", "--mmap_msync.region_size=1MiB",
                       "--output=" + report, "--format=none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = ReadJson(report);
  ::unlink(report.c_str());

  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["status"], "complete");
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["work_units"], 32);
  for (const char* op : {"mmap", "fill", "msync", "munmap", "cycle"}) {
    ASSERT_TRUE(j["ops"].contains(op)) << op;
    EXPECT_EQ(j["ops"][op]["count"], 32) << op;
    EXPECT_EQ(j["ops"][op]["errors"], 0) << op;
    const json& l = j["ops"][op]["latency_ns"];
    EXPECT_LE(l["min"].get<uint64_t>(), l["p50"].get<uint64_t>()) << op;
    EXPECT_LE(l["p50"].get<uint64_t>(), l["p99"].get<uint64_t>()) << op;
    EXPECT_LE(l["p99"].get<uint64_t>(), l["max"].get<uint64_t>()) << op;
  }
  EXPECT_EQ(j["ops"]["fill"]["bytes"], 32u << 20);
  EXPECT_EQ(j["config"]["mmap_msync"]["region_size"], "1MiB");
  EXPECT_EQ(j["config"]["run"]["threads"], "4");

  const json& target = j["system"]["target"];
  EXPECT_EQ(target["fs_type"], GetParam());
  ASSERT_TRUE(target["device"].is_object());
  EXPECT_EQ(target["device"]["name"], fs_->device_name());
  EXPECT_TRUE(target["device"]["backing_file"].is_string());
  EXPECT_TRUE(target["device"]["queue"]["read_ahead_kb"].is_number());

  // MS_SYNC wrote every filled byte to the device before returning.
  const json& dev = j["device"];
  ASSERT_TRUE(dev.is_object());
  EXPECT_EQ(dev["device"], fs_->device_name());
  EXPECT_GE(dev["write_bytes"].get<uint64_t>(), 4u << 20)
      << "at least the last region of each thread must have reached the device";
  EXPECT_GT(dev["device_bytes_per_app_byte"]["write"].get<double>(), 0.0);

  const json& layout = j["layout"];
  ASSERT_EQ(layout["summary"]["files"], 1);
  EXPECT_GE(layout["summary"]["extents_total"].get<uint64_t>(), 1u);
  EXPECT_EQ(layout["files"][0]["path"], "data.db");
  EXPECT_TRUE(j["vmstat"].contains("pgfault"));
  EXPECT_EQ(j["module_report"]["file_bytes"], 4u << 20);

  EXPECT_EQ(CountEntries(fs_->mount_point()), 0) << "the run directory must be gone";
}

TEST_P(MmapMsyncOnFs, PreallocWriteLeavesNoHoles) {
  const std::string report = ReportPath(GetParam() + "-write");
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--threads=2",
                       "--duration=0", "--ops=4", "--mmap_msync.region_size=2MiB",
                       "--mmap_msync.prealloc=write", "--mmap_msync.regions_per_thread=3",
                       "--output=" + report, "--format=none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = ReadJson(report);
  ::unlink(report.c_str());
  EXPECT_EQ(j["module_report"]["file_bytes"], 12u << 20);
  EXPECT_GE(j["module_report"]["allocated_bytes"].get<uint64_t>(), 12u << 20);
  EXPECT_EQ(j["layout"]["files"][0]["size_bytes"], 12u << 20);
}

// The module's own counter covers what the ops table covers: the cycles
// of the warmup are in neither.
TEST_P(MmapMsyncOnFs, WarmupIsLeftOutOfTheModuleReport) {
  const std::string report = ReportPath(GetParam() + "-warmup");
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--threads=2",
                       "--warmup=300ms", "--duration=0", "--ops=6",
                       "--mmap_msync.region_size=1MiB", "--output=" + report, "--format=none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = ReadJson(report);
  ::unlink(report.c_str());
  EXPECT_EQ(j["ops"]["msync"]["bytes"], 6u << 20);
  EXPECT_EQ(j["module_report"]["bytes_msynced"], j["ops"]["msync"]["bytes"]);
}

INSTANTIATE_TEST_SUITE_P(Filesystems, MmapMsyncOnFs, ::testing::Values("ext4", "xfs", "btrfs"),
                         [](const auto& param_info) { return param_info.param; });

TEST(MmapMsync, FtruncateOnlyLeavesHolesWhereNothingWasWritten) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount loop filesystems";
  auto fs = LoopFs::Create("ext4", 128ull << 20);
  const std::string report = ReportPath("holes");
  // 2 threads x 4 regions of 1 MiB, but only 2 cycles: 6 regions stay holes.
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs->mount_point(), "--threads=2",
                       "--duration=0", "--ops=2", "--mmap_msync.region_size=1MiB",
                       "--mmap_msync.regions_per_thread=4", "--output=" + report,
                       "--format=none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = ReadJson(report);
  ::unlink(report.c_str());
  EXPECT_EQ(j["module_report"]["file_bytes"], 8u << 20);
  EXPECT_LE(j["module_report"]["allocated_bytes"].get<uint64_t>(), 3u << 20);
}

// A store into a hole that the filesystem cannot allocate raises SIGBUS: the
// run must fail cleanly, not crash.
TEST(MmapMsync, SigbusOnFullFilesystemIsAnErrorOfTheRun) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount loop filesystems";
  auto fs = LoopFs::Create("ext4", 64ull << 20);
  const std::string report = ReportPath("sigbus");
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs->mount_point(), "--threads=2",
                       "--duration=0", "--ops=8", "--mmap_msync.region_size=128MiB",
                       "--space_check=false", "--output=" + report, "--format=none"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = ReadJson(report);
  ::unlink(report.c_str());
  EXPECT_EQ(j["status"], "failed");
  ASSERT_TRUE(j["error"].is_object());
  EXPECT_EQ(j["error"]["op"], "fill (SIGBUS)");
  EXPECT_EQ(j["error"]["errno"], ENOSPC) << "the SIGBUS's cause, found after the fact";
  EXPECT_EQ(j["error"]["path"], "data.db");
  EXPECT_EQ(j["error"]["phase"], "measure");
  EXPECT_EQ(CountEntries(fs->mount_point()), 0) << "the run directory must be gone";
}

TEST(MmapMsync, SigintStopsCleanlyWithInterruptedReport) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount loop filesystems";
  auto fs = LoopFs::Create("xfs", 320ull << 20);
  const std::string report = ReportPath("sigint");
  SpawnedProcess p;
  p.Start({"run", "mmap_msync", "--target=" + fs->mount_point(), "--threads=2",
           "--duration=10m", "--mmap_msync.region_size=1MiB", "--output=" + report,
           "--format=none"});
  // Wait for the run directory to exist: the run is under way.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (CountEntries(fs->mount_point()) == 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  ASSERT_EQ(CountEntries(fs->mount_point()), 1);
  p.Signal(SIGINT);
  auto r = p.Wait();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = ReadJson(report);
  ::unlink(report.c_str());
  EXPECT_EQ(j["status"], "interrupted");
  EXPECT_EQ(j["signal"], SIGINT);
  EXPECT_EQ(CountEntries(fs->mount_point()), 0) << "the run directory must be gone";
}

}  // namespace
}  // namespace iomimic::test
