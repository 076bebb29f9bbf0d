// What the end-to-end tests of the emulated disk share: a private state
// root (IOMIMIC_DISK_STATE, so concurrent tests and users' disks are never
// touched), a private backing directory and mount point, and checks that
// nothing of a disk is left.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class DiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CanMountLoop()) GTEST_SKIP() << LoopUnavailableReason();
    if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no /dev/fuse";
    char tmpl[] = "/var/tmp/iomimic-disktest.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    state_ = root_ + "/state";
    backing_ = root_ + "/backing";
    mount_ = root_ + "/mnt";
    ::mkdir(backing_.c_str(), 0755);
    ::setenv("IOMIMIC_DISK_STATE", state_.c_str(), 1);
  }
  void TearDown() override {
    if (root_.empty()) return;
    // Whatever a failed test left: the tool's own clean-up, then the dirs.
    RunIomimic({"clean", "--target", root_});
    for (const auto& d : Records()) RunIomimic({"disk", "down", "--force", d["mount"]});
    RunCommand({"rm", "-rf", "--one-file-system", root_});
    ::unsetenv("IOMIMIC_DISK_STATE");
  }

  std::vector<nlohmann::json> Records() const {
    std::vector<nlohmann::json> out;
    const RunResult r = RunCommand({"sh", "-c", "cat " + state_ + "/disk-*/state.json 2>/dev/null"});
    std::istringstream in(r.out);
    // Records are pretty-printed objects one after another.
    std::string all = r.out;
    size_t pos = 0;
    while ((pos = all.find('{', pos)) != std::string::npos) {
      size_t end = all.find("\n}", pos);
      if (end == std::string::npos) break;
      out.push_back(nlohmann::json::parse(all.substr(pos, end + 2 - pos)));
      pos = end + 2;
    }
    return out;
  }

  RunResult Up(const std::string& model, const std::string& fs, const std::string& size,
               std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"disk",  "up",     "--model", model, "--fs", fs, "--size",
                                     size,    "--mount", mount_,   "--backing-dir", backing_};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunIomimic(args);
  }

  // Nothing of any disk remains: no record, no backing file, no loop device
  // over a served file of ours, no daemon with our state root, no mount.
  void ExpectNothingLeft() const {
    EXPECT_TRUE(Records().empty());
    EXPECT_EQ(CountEntries(backing_), 0) << "backing files left";
    EXPECT_EQ(RunCommand({"sh", "-c", "losetup -l -n | grep -c " + state_}).out, "0\n");
    EXPECT_EQ(RunCommand({"sh", "-c", "grep -c " + root_ + " /proc/self/mountinfo"}).out, "0\n");
    EXPECT_EQ(RunCommand({"pgrep", "-f", "iomimic-diskd .*" + state_}).out, "") << "daemon left";
  }

  std::string root_, state_, backing_, mount_;
};

}  // namespace iomimic::test
