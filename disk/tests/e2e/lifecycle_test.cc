// iomimic disk up / list / down on real filesystems, and bad input.
#include <sys/stat.h>
#include <sys/statfs.h>

#include <fcntl.h>

#include <gtest/gtest.h>

#include "disk_fixture.h"

namespace iomimic::test {
namespace {

class DiskLifecycle : public DiskTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(DiskLifecycle, UpMakesAMountedFilesystemAndDownRemovesAll) {
  const std::string fs = GetParam();
  IOMIMIC_REQUIRE_LOOP_FS(fs);
  const RunResult up = Up("fast", fs, "320M");
  ASSERT_EQ(up.exit_code, 0) << up.err;
  // The filesystem is there, on a loop device with direct I/O whose backing
  // file is the daemon's served file.
  const std::string mounts = Slurp("/proc/self/mounts");
  EXPECT_NE(mounts.find(" " + mount_ + " " + fs + " "), std::string::npos) << mounts;
  const RunResult lo = RunCommand({"losetup", "-l", "-n", "-O", "BACK-FILE,DIO"});
  EXPECT_NE(lo.out.find(state_), std::string::npos) << lo.out;
  const auto records = Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["phase"], "up");
  const RunResult list = RunIomimic({"disk", "list"});
  EXPECT_NE(list.out.find(mount_), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(" up"), std::string::npos) << list.out;
  // Data written and synced goes through the daemon, whose counters say so.
  ASSERT_EQ(RunCommand({"dd", "if=/dev/zero", "of=" + mount_ + "/f", "bs=1M", "count=8",
                        "oflag=direct", "conv=fsync"}).exit_code, 0);
  const std::string stats_path = state_ + "/" + records[0]["id"].get<std::string>() + "/fuse/stats";
  const auto stats = nlohmann::json::parse(Slurp(stats_path));
  EXPECT_GE(stats["counters"]["write_bytes"].get<uint64_t>(), 8u << 20);
  EXPECT_GE(stats["counters"]["flushes"].get<uint64_t>(), 1u);
  const RunResult down = RunIomimic({"disk", "down", mount_});
  ASSERT_EQ(down.exit_code, 0) << down.err << down.out;
  ExpectNothingLeft();
}

INSTANTIATE_TEST_SUITE_P(Fs, DiskLifecycle, ::testing::Values("ext4", "xfs", "btrfs"));

using DiskBadInput = DiskTest;

TEST_F(DiskBadInput, UnknownModel) {
  const RunResult r = Up("hdd-9999", "ext4", "64M");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'hdd-9999'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hdd-7200"), std::string::npos) << r.err;
  ExpectNothingLeft();
}

TEST_F(DiskBadInput, BadParameterOverride) {
  const RunResult r = Up("hdd-7200", "ext4", "64M", {"--set", "rpm=fast"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'rpm'"), std::string::npos) << r.err;
  ExpectNothingLeft();
}

TEST_F(DiskBadInput, SizeTooSmallForTheFilesystem) {
  const RunResult r = Up("fast", "xfs", "100M");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'size'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("300MiB"), std::string::npos) << r.err;
  ExpectNothingLeft();
}

TEST_F(DiskBadInput, BadMkfsOptionsFailMkfsAndLeaveNothing) {
  const RunResult r = Up("fast", "ext4", "64M", {"--mkfs-opts", "-O no_such_feature"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("mkfs.ext4"), std::string::npos) << r.err;
  ExpectNothingLeft();
}

TEST_F(DiskBadInput, MountPointInUse) {
  ASSERT_EQ(::mkdir(mount_.c_str(), 0755), 0);
  ASSERT_EQ(RunCommand({"mount", "-t", "tmpfs", "-o", "size=1M", "tmpfs", mount_}).exit_code, 0);
  const RunResult r = Up("fast", "ext4", "64M");
  RunCommand({"umount", mount_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("in use"), std::string::npos) << r.err;
  ExpectNothingLeft();
}

TEST_F(DiskBadInput, MountPointNotEmpty) {
  ASSERT_EQ(::mkdir(mount_.c_str(), 0755), 0);
  ASSERT_EQ(RunCommand({"touch", mount_ + "/precious"}).exit_code, 0);
  const RunResult r = Up("fast", "ext4", "64M");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not empty"), std::string::npos) << r.err;
  struct stat st {};
  EXPECT_EQ(::stat((mount_ + "/precious").c_str(), &st), 0);
  ExpectNothingLeft();
}

TEST_F(DiskBadInput, NotRoot) {
  const RunResult r = RunCommand({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                  IomimicBinary(), "disk", "up", "--model", "fast", "--fs", "ext4",
                                  "--size", "64M", "--mount", mount_, "--backing-dir", backing_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("root"), std::string::npos) << r.err;
  ExpectNothingLeft();
}

TEST_F(DiskBadInput, DownOfWhatIsNotAnEmulatedDisk) {
  const RunResult r = RunIomimic({"disk", "down", root_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(root_), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iomimic::test
