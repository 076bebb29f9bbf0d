// The run marker survives what a crash does to a filesystem: it is
// fsynced with its directory when written. The filesystem is shut down
// (the ext4/xfs "going down" ioctl, without flushing the journal: what a
// power cut leaves) while a run measures, the run is killed, the
// filesystem is mounted again from its loop device: the marker is there,
// whole, and `iomimic clean` removes the directory. (Without the fsync the
// marker was found empty, and clean left the directory as unknown.)
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"
#include "support/sys_setting.h"

namespace iomimic::test {
namespace {

using std::chrono::seconds;

TEST(MarkerDurability, TheMarkerSurvivesAFilesystemShutdown) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  if (!FindProgram("xfs_io")) GTEST_SKIP() << "xfs_io (xfsprogs) not found";
  auto fs = LoopFs::Create("ext4", 64ull << 20);
  SpawnedProcess run;
  run.Start({"run", "mmap_msync", "--target=" + fs->mount_point(), "--duration=10m",
             "--min_free=1MiB", "--mmap_msync.region_size=1MiB", "--format=none"});
  ASSERT_TRUE(run.WaitForStderr("iomimic: measure", seconds(60))) << run.StderrSoFar();
  const RunResult down = RunCommand({"xfs_io", "-x", "-c", "shutdown", fs->mount_point()});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  ASSERT_TRUE(run.Signal(SIGKILL));
  run.Wait(seconds(30));
  ASSERT_EQ(RunCommand({"umount", fs->mount_point()}).exit_code, 0);
  const RunResult up = RunCommand({"mount", "-t", "ext4", fs->device(), fs->mount_point()});
  ASSERT_EQ(up.exit_code, 0) << up.err;

  ASSERT_EQ(CountEntries(fs->mount_point()), 1) << "the run directory itself";
  const RunResult find =
      RunCommand({"find", fs->mount_point(), "-maxdepth", "2", "-name", ".iomimic-run"});
  const std::string marker = find.out.substr(0, find.out.find('\n'));
  ASSERT_FALSE(marker.empty()) << "no marker after the shutdown";
  const nlohmann::json j = nlohmann::json::parse(ReadTrimmed(marker), nullptr, false);
  EXPECT_TRUE(j.is_object() && j.contains("pid")) << "the marker: '" << ReadTrimmed(marker) << "'";

  const RunResult clean = RunIomimic({"clean", "--target=" + fs->mount_point()});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find("1 removed, 0 left"), std::string::npos) << clean.out;
  EXPECT_EQ(CountEntries(fs->mount_point()), 0);
}

}  // namespace
}  // namespace iomimic::test
