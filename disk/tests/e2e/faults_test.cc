// The emulated disk under faults: its daemon killed, its `up` killed
// half-way, its backing filesystem full. Each must end in an error the
// user sees (EIO, ENOSPC), never a hang, and `iomimic clean` (or
// `disk down`) must take everything apart.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include <gtest/gtest.h>

#include "disk_fixture.h"

namespace iomimic::test {
namespace {

using std::chrono::seconds;

class DiskFaults : public DiskTest {
 protected:
  pid_t DaemonPid() const {
    const RunResult r = RunCommand({"pgrep", "-f", "iomimic-diskd --id .* --model " + state_});
    return r.out.empty() ? 0 : std::stoi(r.out);
  }
};

TEST_F(DiskFaults, KilledDaemonGivesEioARunFailsAndCleanRecovers) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  ASSERT_EQ(Up("fast", "ext4", "1G").exit_code, 0);
  ASSERT_EQ(RunCommand({"dd", "if=/dev/zero", "of=" + mount_ + "/before", "bs=1M", "count=4",
                        "conv=fsync"}).exit_code, 0);
  const pid_t daemon = DaemonPid();
  ASSERT_GT(daemon, 0);
  ASSERT_EQ(::kill(daemon, SIGKILL), 0);
  ASSERT_TRUE(PollUntil([&] { return DaemonPid() == 0; }, std::chrono::milliseconds(5000)));
  // The disk is gone under the filesystem: a synced write fails with EIO.
  const RunResult dd = RunCommand({"dd", "if=/dev/zero", "of=" + mount_ + "/after", "bs=1M",
                                   "count=4", "oflag=direct"});
  EXPECT_NE(dd.exit_code, 0);
  EXPECT_NE(dd.err.find("Input/output error"), std::string::npos) << dd.err;
  // A run on it fails cleanly: exit 1 and an error, no hang.
  const RunResult run = RunIomimic({"run", "mmap_msync", "--target", mount_, "--duration", "2s",
                                    "--format", "none"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_FALSE(run.timed_out);
  EXPECT_NE(run.err.find("Input/output error"), std::string::npos) << run.err;
  const RunResult list = RunIomimic({"disk", "list"});
  EXPECT_NE(list.out.find("daemon gone"), std::string::npos) << list.out;
  const RunResult clean = RunIomimic({"clean", "--target", backing_});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find("taken down"), std::string::npos) << clean.out;
  ExpectNothingLeft();
}

TEST_F(DiskFaults, UpKilledHalfWayIsCleanedUp) {
  IOMIMIC_REQUIRE_LOOP_FS("xfs");
  SpawnedProcess up;
  // A slow disk: mkfs.xfs takes seconds on it, time to kill `up` mid-way.
  up.Start({"disk", "up", "--model", "hdd-2006", "--fs", "xfs", "--size", "2G", "--mount", mount_,
            "--backing-dir", backing_, "--set", "write_cache=off"});
  ASSERT_TRUE(PollUntil([&] { return DaemonPid() != 0; }, std::chrono::milliseconds(10000)));
  up.Signal(SIGKILL);
  up.Wait();
  const auto records = Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["phase"], "starting");
  const RunResult list = RunIomimic({"disk", "list"});
  EXPECT_NE(list.out.find("its 'up' was killed"), std::string::npos) << list.out;
  const RunResult clean = RunIomimic({"clean", "--target", backing_});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_EQ(DaemonPid(), 0);
  ExpectNothingLeft();
}

TEST_F(DiskFaults, FullBackingFilesystemGivesAnErrorNotAHang) {
  IOMIMIC_REQUIRE_LOOP_FS("xfs");
  // The backing filesystem: 96 MiB of tmpfs under a 320 MiB disk.
  ASSERT_EQ(RunCommand({"mount", "-t", "tmpfs", "-o", "size=96M", "tmpfs", backing_}).exit_code, 0);
  const RunResult up = Up("fast", "xfs", "320M");
  ASSERT_EQ(up.exit_code, 0) << up.err;
  const auto start = std::chrono::steady_clock::now();
  const RunResult dd = RunCommand({"dd", "if=/dev/zero", "of=" + mount_ + "/big", "bs=1M",
                                   "count=200", "conv=fsync"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(60));
  EXPECT_NE(dd.exit_code, 0);
  EXPECT_TRUE(dd.err.find("No space left") != std::string::npos ||
              dd.err.find("Input/output error") != std::string::npos) << dd.err;
  std::printf("dd on a full backing filesystem: %s\n", dd.err.c_str());
  const nlohmann::json stats = nlohmann::json::parse(
      Slurp(state_ + "/" + Records()[0]["id"].get<std::string>() + "/fuse/stats"));
  EXPECT_GT(stats["counters"]["errors"].get<uint64_t>(), 0u);
  EXPECT_EQ(RunIomimic({"disk", "down", "--force", mount_}).exit_code, 0);
  RunCommand({"umount", backing_});
  ExpectNothingLeft();
}

}  // namespace
}  // namespace iomimic::test
