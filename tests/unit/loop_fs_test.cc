// The test-support library itself: LoopFs leaves no mount, loop device or
// file behind, whatever happened; RunCommand/SpawnedProcess capture what a
// child does without deadlocking.
#include "support/loop_fs.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "platform/mountinfo.h"
#include "platform/sysfs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using namespace std::chrono_literals;

bool IsMounted(const std::string& mount_point) {
  for (const platform::MountEntry& m : platform::ReadMountInfo()) {
    if (m.mount_point == mount_point) return true;
  }
  return false;
}

// `losetup -a` lists every bound device with its backing file.
bool LoopListMentions(const std::string& text) {
  const RunResult r = RunCommand({"losetup", "-a"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out.find(text) != std::string::npos;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Whether /dev/loopN is still bound to `image`.
bool BoundTo(const std::string& device_name, const std::string& image) {
  return platform::ReadFileTrimmed("/sys/block/" + device_name + "/loop/backing_file")
             .value_or("")
             .find(image) == 0;
}

struct Remains {
  std::string mount_point, image, dir, device_name;
};

Remains Record(const LoopFs& fs) {
  return {fs.mount_point(), fs.image(), fs.dir(), fs.device_name()};
}

void ExpectNothingLeft(const Remains& r) {
  EXPECT_FALSE(IsMounted(r.mount_point)) << r.mount_point;
  EXPECT_FALSE(LoopListMentions(r.image)) << r.image;
  EXPECT_FALSE(BoundTo(r.device_name, r.image)) << r.device_name;
  EXPECT_FALSE(Exists(r.image));
  EXPECT_FALSE(Exists(r.dir));
}

// Points $TMPDIR at a fresh directory for the scope, so that a test can see
// exactly what LoopFs left there.
class ScopedTmpDir {
 public:
  ScopedTmpDir() {
    char tmpl[] = "/var/tmp/iomimic-loopfs-test-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = tmpl;
    const char* old = std::getenv("TMPDIR");
    had_old_ = old != nullptr;
    if (had_old_) old_ = old;
    ::setenv("TMPDIR", path_.c_str(), 1);
  }
  ~ScopedTmpDir() {
    if (had_old_) {
      ::setenv("TMPDIR", old_.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  bool Empty() const { return RunCommand({"ls", "-A", path_}).out.empty(); }

 private:
  std::string path_, old_;
  bool had_old_ = false;
};

// --- LoopFs -------------------------------------------------------------------------

class LoopFsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { IOMIMIC_REQUIRE_LOOP_FS(GetParam()); }
};

TEST_P(LoopFsTest, CreateMountsAndDestroyLeavesNothingBehind) {
  auto fs = LoopFs::Create(GetParam());
  const Remains r = Record(*fs);
  EXPECT_EQ(fs->fs_type(), GetParam());
  EXPECT_EQ(fs->device(), "/dev/" + fs->device_name());
  EXPECT_EQ(fs->device_name().rfind("loop", 0), 0u);
  const std::vector<platform::MountEntry> mounts = platform::ReadMountInfo();
  const platform::MountEntry* m = platform::FindMountFor(mounts, fs->mount_point());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->mount_point, fs->mount_point());
  EXPECT_EQ(m->fs_type, GetParam());
  EXPECT_TRUE(LoopListMentions(fs->image()));
  EXPECT_TRUE(BoundTo(fs->device_name(), fs->image()));

  // Something to flush on the way out.
  const int fd = ::open((fs->mount_point() + "/f").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "x", 1), 1);
  ::close(fd);

  fs.reset();
  ExpectNothingLeft(r);
}

INSTANTIATE_TEST_SUITE_P(LoopFs, LoopFsTest, ::testing::Values("ext4", "xfs", "btrfs"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(LoopFsLifecycleTest, BusyMountIsDetachedLazilyAndReleasedOnLastClose) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4");
  const Remains r = Record(*fs);
  // An open file keeps the filesystem busy: umount fails with EBUSY.
  const int fd = ::open((fs->mount_point() + "/busy").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  fs.reset();
  EXPECT_FALSE(IsMounted(r.mount_point));
  ::close(fd);
  // The last close releases the filesystem, then the autoclear loop device.
  for (int i = 0; i < 100 && BoundTo(r.device_name, r.image); ++i) {
    std::this_thread::sleep_for(20ms);
  }
  ExpectNothingLeft(r);
}

TEST(LoopFsLifecycleTest, MkfsAndMountOptionsAreApplied) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 64 << 20, "-b 1024 -L iomimic", "noatime");
  struct statvfs sv {};
  ASSERT_EQ(::statvfs(fs->mount_point().c_str(), &sv), 0);
  EXPECT_EQ(sv.f_bsize, 1024u);
  const std::vector<platform::MountEntry> mounts = platform::ReadMountInfo();
  const platform::MountEntry* m = platform::FindMountFor(mounts, fs->mount_point());
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->options.find("noatime"), std::string::npos) << m->options;
}

TEST(LoopFsLifecycleTest, Ext4GetsFourKiBBlocksByDefault) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 64 << 20);
  struct statvfs sv {};
  ASSERT_EQ(::statvfs(fs->mount_point().c_str(), &sv), 0);
  EXPECT_EQ(sv.f_bsize, 4096u);
}

TEST(LoopFsLifecycleTest, FailedMkfsThrowsWithTheCommandAndCleansUp) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  ScopedTmpDir tmp;
  try {
    LoopFs::Create("ext4", 64 << 20, "--no-such-option");
    FAIL() << "Create did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("mkfs.ext4"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(tmp.Empty());
  EXPECT_FALSE(LoopListMentions(tmp.path()));
}

TEST(LoopFsLifecycleTest, UnknownFilesystemTypeThrows) {
  EXPECT_THROW(LoopFs::Create("vfat"), std::runtime_error);
}

TEST(LoopFsLifecycleTest, PartitionedImageMountsItsFirstPartition) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::CreatePartitioned("ext4", 64 << 20);
  const Remains r = Record(*fs);
  EXPECT_EQ(fs->partition(), fs->device() + "p1");
  const std::vector<platform::MountEntry> mounts = platform::ReadMountInfo();
  const platform::MountEntry* m = platform::FindMountFor(mounts, fs->mount_point());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->source, fs->partition());
  fs.reset();
  ExpectNothingLeft(r);
  EXPECT_FALSE(Exists("/sys/block/" + r.device_name + "/" + r.device_name + "p1"));
}

// --- RunCommand and SpawnedProcess ------------------------------------------------------

TEST(LoopFsSupportTest, RunCommandCapturesBothStreamsAndTheExitCode) {
  const RunResult r = RunCommand({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.term_signal, 0);
}

TEST(LoopFsSupportTest, LargeOutputOnBothStreamsDoesNotDeadlock) {
  // Far more than a pipe buffer (64 KiB) on each stream, written alternately.
  const RunResult r = RunCommand(
      {"sh", "-c", "i=0; while [ $i -lt 20 ]; do head -c 100000 /dev/zero; "
                   "head -c 100000 /dev/zero >&2; i=$((i+1)); done"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.size(), 2000000u);
  EXPECT_EQ(r.err.size(), 2000000u);
}

TEST(LoopFsSupportTest, StdinIsFedAndAChildThatIgnoresItDoesNotKillTheTest) {
  EXPECT_EQ(RunCommand({"cat"}, "hello\n").out, "hello\n");
  const std::string big(1 << 20, 'x');
  EXPECT_EQ(RunCommand({"true"}, big).exit_code, 0);  // SIGPIPE would end this process
  EXPECT_EQ(RunCommand({"cat"}).out, "");              // stdin is /dev/null
}

TEST(LoopFsSupportTest, MissingProgramThrows) {
  EXPECT_THROW(RunCommand({"/nonexistent/program"}), std::runtime_error);
}

TEST(LoopFsSupportTest, SpawnedProcessCanBeSignalledAfterItStarted) {
  SpawnedProcess p;
  p.StartCommand({"sh", "-c", "echo ready; exec sleep 30"});
  ASSERT_TRUE(p.pid().has_value());
  ASSERT_TRUE(p.WaitForStdout("ready", 10s)) << p.StdoutSoFar();
  // sh execs sleep after the echo; give it the moment to do so.
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(p.Signal(SIGTERM));
  const RunResult r = p.Wait();
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
  EXPECT_EQ(r.out, "ready\n");
  EXPECT_FALSE(p.pid().has_value());
  EXPECT_FALSE(p.Signal(SIGTERM));
}

TEST(LoopFsSupportTest, ChildStartsWithSignalsUnblockedEvenWhenTheTestBlocksThem) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &block, &old), 0);
  SpawnedProcess p;
  p.StartCommand({"sleep", "30"});
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  std::this_thread::sleep_for(50ms);
  p.Signal(SIGINT);
  const RunResult r = p.Wait(10s);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGINT);
}

TEST(LoopFsSupportTest, WaitWithTimeoutKillsAHungChild) {
  SpawnedProcess p;
  p.StartCommand({"sleep", "30"});
  const RunResult r = p.Wait(100ms);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
}

}  // namespace
}  // namespace iomimic::test
