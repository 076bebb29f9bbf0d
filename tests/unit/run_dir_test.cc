// Removing a run directory removes it and nothing else: never through a
// symbolic link, never inside a filesystem mounted within it, including a
// bind mount of the same filesystem (which shares its st_dev).
#include "engine/run_dir.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "iomimic/status.h"

namespace iomimic::engine {
namespace {

namespace fs = std::filesystem;

class RemoveRunDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/iomimic-rundir-test-XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    base_ = templ;
    run_ = base_ + "/run";
    victim_ = base_ + "/victim";
    fs::create_directories(run_ + "/a/b");
    fs::create_directories(victim_);
    std::ofstream(run_ + "/a/b/f") << "x";
    std::ofstream(victim_ + "/precious") << "keep me";
  }
  void TearDown() override {
    if (!mounted_.empty()) ::umount2(mounted_.c_str(), MNT_DETACH);
    fs::remove_all(base_);
  }
  std::string base_, run_, victim_, mounted_;
};

TEST_F(RemoveRunDirTest, RemovesTheTreeButNotWhatASymlinkPointsTo) {
  fs::create_directory_symlink(victim_, run_ + "/a/link");
  RemoveRunDir(run_);
  EXPECT_FALSE(fs::exists(run_));
  EXPECT_TRUE(fs::exists(victim_ + "/precious"));
}

TEST_F(RemoveRunDirTest, RefusesToEmptyABindMountOfTheSameFilesystem) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to bind mount";
  fs::create_directories(run_ + "/a/mnt");
  ASSERT_EQ(::mount(victim_.c_str(), (run_ + "/a/mnt").c_str(), nullptr, MS_BIND, nullptr), 0);
  mounted_ = run_ + "/a/mnt";
  try {
    RemoveRunDir(run_);
    FAIL() << "removed a tree with a mount inside";
  } catch (const SysError& e) {
    EXPECT_NE(std::string(e.what()).find(run_ + "/a/mnt"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(victim_ + "/precious")) << "the bind-mounted directory was emptied";
  EXPECT_TRUE(fs::exists(run_ + "/a/b/f")) << "nothing is removed once a mount is found";
}

}  // namespace
}  // namespace iomimic::engine
