// iomimic clean: what a run ended by kill -9 left behind (its run directory,
// the settings its --tune changed) is removed and put back; a live run, a
// directory without iomimic's marker, a setting changed since, and a
// planted marker naming another file are left alone. Real SIGKILLs of real
// runs on a loop-mounted ext4; the settings are read from sysfs by the test.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"
#include "support/state_dir.h"
#include "support/sys_setting.h"

namespace iomimic::test {
namespace {

using std::chrono::seconds;

class Clean : public ::testing::Test {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS("ext4");
    fs_ = LoopFs::Create("ext4", 256ull << 20);
    queue_ = "/sys/block/" + fs_->device_name() + "/queue/";
    before_ = Queue();
  }

  // A loop device keeps its queue settings when it is reused: whatever a
  // failed test left changed is put back here.
  void TearDown() override {
    if (!fs_) return;
    for (const char* leaf : {"scheduler", "nr_requests", "read_ahead_kb"}) {
      if (Queue().at(leaf) != before_.at(leaf)) std::ofstream(queue_ + leaf) << before_.at(leaf);
    }
  }

  std::map<std::string, std::string> Queue() const {
    return {{"scheduler", Active(ReadTrimmed(queue_ + "scheduler"))},
            {"nr_requests", ReadTrimmed(queue_ + "nr_requests")},
            {"read_ahead_kb", ReadTrimmed(queue_ + "read_ahead_kb")}};
  }

  // A run with a tuning, killed with SIGKILL once it measures: it can
  // neither restore nor remove anything.
  void KillTunedRun() {
    SpawnedProcess p;
    p.Start({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--duration=10m",
             "--format=none", "--tune=queue.scheduler=bfq,queue.read_ahead_kb=4092"});
    ASSERT_TRUE(p.WaitForStderr("iomimic: measure", seconds(60))) << p.StderrSoFar();
    ASSERT_TRUE(p.Signal(SIGKILL));
    p.Wait(seconds(30));
    ASSERT_EQ(Queue().at("scheduler"), "bfq");
    ASSERT_EQ(Queue().at("read_ahead_kb"), "4092");
    ASSERT_EQ(CountEntries(fs_->mount_point()), 1) << "the run directory is left";
  }

  RunResult CleanTarget(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"clean", "--target=" + fs_->mount_point()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunIomimic(args);
  }

  ScopedStateDir state_;  // before fs_: its journals name fs_'s device
  std::unique_ptr<LoopFs> fs_;
  std::string queue_;
  std::map<std::string, std::string> before_;
};

TEST_F(Clean, AKilledRunIsRemovedAndItsSettingsPutBack) {
  KillTunedRun();
  const RunResult dry = CleanTarget({"--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would restore queue.read_ahead_kb to " + before_.at("read_ahead_kb")),
            std::string::npos)
      << dry.out;
  EXPECT_EQ(Queue().at("read_ahead_kb"), "4092") << "a dry run changes nothing";
  EXPECT_EQ(CountEntries(fs_->mount_point()), 1);

  const RunResult r = CleanTarget();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 removed, 0 left"), std::string::npos) << r.out;
  // nr_requests too: the scheduler switch had reset it.
  EXPECT_EQ(Queue(), before_);
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
}

TEST_F(Clean, ARunStillGoingIsLeftAlone) {
  SpawnedProcess p;
  p.Start({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--duration=10m",
           "--format=none"});
  ASSERT_TRUE(p.WaitForStderr("iomimic: measure", seconds(60))) << p.StderrSoFar();
  const RunResult r = CleanTarget();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("is still going, left"), std::string::npos) << r.out;
  EXPECT_EQ(CountEntries(fs_->mount_point()), 1);
  ASSERT_TRUE(p.Signal(SIGINT));
  EXPECT_EQ(p.Wait(seconds(60)).exit_code, 1);
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0) << "the run removed its own directory";
}

TEST_F(Clean, ADirectoryKeptWithKeepIsLeft) {
  const RunResult run = RunIomimic({"run", "mmap_msync", "--target=" + fs_->mount_point(),
                                    "--duration=0", "--ops=2", "--keep", "--format=none"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const RunResult r = CleanTarget();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kept with --keep"), std::string::npos) << r.out;
  EXPECT_EQ(CountEntries(fs_->mount_point()), 1);
}

TEST_F(Clean, ADirectoryWithoutTheMarkerIsLeft) {
  const std::string dir = fs_->mount_point() + "/iomimic-mine-keep";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  std::ofstream(dir + "/notes.txt") << "a user's file that looks like a run directory\n";
  const RunResult r = CleanTarget();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not known to be iomimic's, left"), std::string::npos) << r.out;
  EXPECT_EQ(ReadTrimmed(dir + "/notes.txt"), "a user's file that looks like a run directory");
}

// Someone set read_ahead_kb after the run died: that value stays. The
// scheduler, still as the run left it, is put back.
TEST_F(Clean, ASettingChangedSinceIsLeftAsItIs) {
  KillTunedRun();
  std::ofstream(queue_ + "read_ahead_kb") << "1024\n";
  ASSERT_EQ(Queue().at("read_ahead_kb"), "1024");
  const RunResult r = CleanTarget();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("queue.read_ahead_kb reads '1024', not the '4092' the run wrote"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(Queue().at("read_ahead_kb"), "1024");
  EXPECT_EQ(Queue().at("scheduler"), before_.at("scheduler"));
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
  std::ofstream(queue_ + "read_ahead_kb") << before_.at("read_ahead_kb") << "\n";
}

// clean runs as root: a marker must not make it write a file of its
// choosing, even one named like a setting.
TEST_F(Clean, AMarkerNamingAnotherFileIsRefused) {
  const std::string dir = fs_->mount_point() + "/iomimic-mmap_msync-planted";
  const std::string victim = fs_->mount_point() + "/victim";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  std::ofstream(victim) << "untouched\n";
  const nlohmann::json marker = {
      {"pid", 999999999},
      {"boot_id", ReadTrimmed("/proc/sys/kernel/random/boot_id")},
      {"module", "mmap_msync"},
      {"started_at", "then"},
      {"tunings",
       {{{"name", "vm.dirty_ratio"}, {"path", victim}, {"selector", false},
         {"before", "owned"}, {"value", "untouched"}, {"partner_path", ""},
         {"partner_before", ""}}}}};
  std::ofstream(dir + "/.iomimic-run") << marker.dump();
  const RunResult r = CleanTarget();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("names a file iomimic does not tune"), std::string::npos) << r.out;
  EXPECT_EQ(ReadTrimmed(victim), "untouched");
  EXPECT_EQ(CountEntries(fs_->mount_point()), 2) << "the planted directory is left";
}


// The journal in the state directory is enough: with the run directory
// gone (removed by hand here, or never made: a kill between the first
// setting and mkdtemp), `iomimic clean` without --target restores.
TEST_F(Clean, AJournalIsRestoredWithoutARunDirectory) {
  KillTunedRun();
  ASSERT_EQ(std::system(("rm -rf '" + fs_->mount_point() + "'/iomimic-*").c_str()), 0);
  ASSERT_EQ(state_.Entries().size(), 4u) << "a journal and a lock per setting: "
                                         << ::testing::PrintToString(state_.Entries());
  const RunResult r = RunIomimic({"clean"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 journals finished, 0 left"), std::string::npos) << r.out;
  EXPECT_EQ(Queue(), before_);
  EXPECT_TRUE(state_.Entries().empty()) << ::testing::PrintToString(state_.Entries());
}

// A live run's journal is its own: clean leaves it and its settings.
TEST_F(Clean, ALiveRunsJournalIsLeft) {
  SpawnedProcess p;
  p.Start({"run", "mmap_msync", "--target=" + fs_->mount_point(), "--duration=10m",
           "--format=none", "--tune=queue.read_ahead_kb=4092"});
  ASSERT_TRUE(p.WaitForStderr("iomimic: measure", seconds(60))) << p.StderrSoFar();
  const RunResult r = RunIomimic({"clean"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("its run is still going, left"), std::string::npos) << r.out;
  EXPECT_EQ(Queue().at("read_ahead_kb"), "4092");
  ASSERT_TRUE(p.Signal(SIGINT));
  EXPECT_EQ(p.Wait(seconds(60)).exit_code, 1);
  EXPECT_EQ(Queue(), before_);
  EXPECT_TRUE(state_.Entries().empty());
}

TEST_F(Clean, SeveralTargets) {
  std::vector<std::string> targets;
  for (const char* sub : {"/a", "/b"}) {
    targets.push_back(fs_->mount_point() + sub);
    ASSERT_EQ(::mkdir(targets.back().c_str(), 0755), 0);
    SpawnedProcess p;
    p.Start({"run", "mmap_msync", "--target=" + targets.back(), "--duration=10m",
             "--format=none", "--min_free=1MiB"});
    ASSERT_TRUE(p.WaitForStderr("iomimic: measure", seconds(60))) << p.StderrSoFar();
    ASSERT_TRUE(p.Signal(SIGKILL));
    p.Wait(seconds(30));
    ASSERT_EQ(CountEntries(targets.back()), 1);
  }
  const RunResult r = RunIomimic({"clean", "--target", targets[0], "--target=" + targets[1]});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 removed, 0 left"), std::string::npos) << r.out;
  EXPECT_EQ(CountEntries(targets[0]), 0);
  EXPECT_EQ(CountEntries(targets[1]), 0);
}

// A run killed between mkdtemp and its marker leaves an empty directory
// named as iomimic names them: removed (rmdir cannot lose anything). One
// with a file in it, or not mode 0700, is not known to be iomimic's.
TEST_F(Clean, AnEmptyRunDirectoryWithoutAMarkerIsRemoved) {
  const std::string empty = fs_->mount_point() + "/iomimic-mmap_msync-Ab3dE9";
  const std::string other_mode = fs_->mount_point() + "/iomimic-mmap_msync-Zz9yY8";
  ASSERT_EQ(::mkdir(empty.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(other_mode.c_str(), 0755), 0);
  const RunResult r = CleanTarget();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("empty, without a marker"), std::string::npos) << r.out;
  EXPECT_EQ(::access(empty.c_str(), F_OK), -1);
  EXPECT_EQ(::access(other_mode.c_str(), F_OK), 0);
  EXPECT_NE(r.out.find("1 removed, 1 left"), std::string::npos) << r.out;
}

TEST_F(Clean, BadUsageExits2) {
  EXPECT_EQ(RunIomimic({"clean", "--target"}).exit_code, 2);
  EXPECT_EQ(RunIomimic({"clean", "--target="}).exit_code, 2);
  const RunResult missing = RunIomimic({"clean", "--target=/nonexistent/dir"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/dir"), std::string::npos) << missing.err;
  const RunResult unknown = CleanTarget({"--force"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("'--force'"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace iomimic::test
