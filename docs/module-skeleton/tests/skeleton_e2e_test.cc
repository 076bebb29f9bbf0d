// skeleton end to end: the built binary on freshly made loop-mounted ext4,
// xfs and btrfs, checked through its JSON report. A copied module keeps the
// shape: one test of the complete report per filesystem, one of its own
// counters under --warmup, one of its cross-option check.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/loop_fs.h"
#include "support/report_file.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;

class SkeletonOnFs : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS(GetParam());
    fs_ = LoopFs::Create(GetParam(), 320ull << 20);
    report_ = ReportPathFor("skeleton-" + GetParam());
  }
  void TearDown() override { ::unlink(report_.c_str()); }

  RunResult Run(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "skeleton", "--target=" + fs_->mount_point(),
                                     "--output=" + report_, "--format=none"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunIomimic(args);
  }

  std::unique_ptr<LoopFs> fs_;
  std::string report_;
};

TEST_P(SkeletonOnFs, ReportsEveryOpTheDeviceAndTheLayoutAndCleansUp) {
  const RunResult r = Run({"--threads=2", "--duration=0", "--ops=64", "--skeleton.file_size=1MiB",
                           "--skeleton.block_size=64KiB", "--skeleton.sync=true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object()) << r.err;
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(j["work_units"], 64);
  for (const char* op : {"write", "fsync", "unit"}) {
    ASSERT_TRUE(j["ops"].contains(op)) << op;
    EXPECT_EQ(j["ops"][op]["count"], 64) << op;
    EXPECT_EQ(j["ops"][op]["errors"], 0) << op;
  }
  EXPECT_EQ(j["ops"]["write"]["bytes"], 64u * (64 << 10));
  EXPECT_EQ(j["config"]["skeleton"]["block_size"], "64KiB");
  // Every write was fsynced before the next: each 64 KiB block reached the
  // device (copy-on-write filesystems write more, never less).
  ASSERT_TRUE(j["device"].is_object());
  EXPECT_GE(j["device"]["write_bytes"].get<uint64_t>(), 64u * (64 << 10));
  ASSERT_EQ(j["layout"]["summary"]["files"], 1);
  EXPECT_EQ(j["layout"]["files"][0]["path"], "data");
  EXPECT_EQ(j["module_report"]["file_bytes"], 1u << 20);
  EXPECT_EQ(j["module_report"]["blocks_written"], 64);
  EXPECT_EQ(j["module_report"]["blocks_written_measured"], 64);
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0) << "the run directory must be gone";
}

// The module's own counter covers what the ops table covers: the units of
// the warmup are in neither.
TEST_P(SkeletonOnFs, WarmupIsLeftOutOfTheModuleReport) {
  const RunResult r =
      Run({"--warmup=200ms", "--duration=0", "--ops=10", "--skeleton.file_size=1MiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object()) << r.err;
  EXPECT_EQ(j["ops"]["write"]["count"], 10);
  EXPECT_EQ(j["module_report"]["blocks_written_measured"], 10);
  EXPECT_GT(j["module_report"]["blocks_written"].get<uint64_t>(), 10u) << "no warmup units";
}

INSTANTIATE_TEST_SUITE_P(Filesystems, SkeletonOnFs, ::testing::Values("ext4", "xfs", "btrfs"),
                         [](const auto& param_info) { return param_info.param; });

// Validate(): a block larger than the file is refused before anything is
// written, naming both options; exit 2.
TEST(Skeleton, BlockLargerThanTheFileIsABadInput) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 64ull << 20);
  const RunResult r = RunIomimic({"run", "skeleton", "--target=" + fs->mount_point(),
                                  "--skeleton.file_size=1MiB", "--skeleton.block_size=2MiB"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--skeleton.block_size"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--skeleton.file_size"), std::string::npos) << r.err;
  EXPECT_EQ(CountEntries(fs->mount_point()), 0) << "nothing may be written";
}

}  // namespace
}  // namespace iomimic::test
