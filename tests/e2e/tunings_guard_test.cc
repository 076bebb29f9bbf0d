// What keeps one run's --tune from hurting another, or lying:
// - a run that wants a setting another live run has changed is refused
//   (exit 2, naming that run's pid), also across two targets for a
//   system-wide setting;
// - a value changed by someone else during the run is left as they set it
//   (restored: false, reason "changed by someone else");
// - a value the kernel clamps is refused (exit 2, naming what it kept),
//   and a sweep refuses such points, and two points that give one value,
//   before any point runs;
// - the journal is linked before the first write to /sys, and the run
//   directory's marker is removed after everything else in it (strace).
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/report_file.h"
#include "support/run_binary.h"
#include "support/state_dir.h"
#include "support/sys_setting.h"
#include "support/write_audit.h"

namespace iomimic::test {
namespace {

using nlohmann::json;
using std::chrono::seconds;

class TuningsGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS("ext4");
    fs_ = LoopFs::Create("ext4", 64ull << 20);
    queue_ = "/sys/block/" + fs_->device_name() + "/queue/";
    for (const char* leaf : kLeaves) before_[leaf] = ReadTrimmed(queue_ + leaf);
    report_ = ReportPathFor("guard");
  }
  void TearDown() override {
    ::unlink(report_.c_str());
    if (!fs_) return;
    for (const char* leaf : kLeaves) {
      if (ReadTrimmed(queue_ + leaf) != before_[leaf]) std::ofstream(queue_ + leaf) << before_[leaf];
    }
  }

  std::vector<std::string> Args(const std::string& target, std::vector<std::string> extra) const {
    std::vector<std::string> a = {"run", "mmap_msync", "--target=" + target,
                                  "--mmap_msync.region_size=1MiB", "--min_free=1MiB",
                                  "--format=none"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }

  static constexpr const char* kLeaves[] = {"read_ahead_kb", "max_sectors_kb", "rotational",
                                            "nomerges", "add_random"};
  ScopedStateDir state_;
  std::unique_ptr<LoopFs> fs_;
  std::string queue_;
  std::map<std::string, std::string> before_;
  std::string report_;
};

TEST_F(TuningsGuard, ASecondRunOnTheSameSettingIsRefused) {
  const std::string vm = "/proc/sys/vm/dirty_expire_centisecs";
  const std::string vm_before = ReadTrimmed(vm);
  const std::string vm_value = vm_before == "2999" ? "3001" : "2999";
  SpawnedProcess first;
  first.Start(Args(fs_->mount_point(),
                   {"--duration=10m", "--output=" + report_,
                    "--tune=queue.read_ahead_kb=16,vm.dirty_expire_centisecs=" + vm_value}));
  ASSERT_TRUE(first.WaitForStderr("iomimic: measure", seconds(60))) << first.StderrSoFar();
  const std::string pid = std::to_string(*first.pid());

  const RunResult same = RunIomimic(Args(fs_->mount_point(), {"--duration=1s",
                                                              "--tune=queue.read_ahead_kb=64"}));
  EXPECT_EQ(same.exit_code, 2) << same.err;
  EXPECT_NE(same.err.find("another iomimic run (pid " + pid + ")"), std::string::npos) << same.err;
  EXPECT_NE(same.err.find("queue.read_ahead_kb (/sys/block/"), std::string::npos) << same.err;
  EXPECT_EQ(ReadTrimmed(queue_ + "read_ahead_kb"), "16") << "the refused run changed nothing";

  // A system-wide setting, from a run on another filesystem.
  auto other = LoopFs::Create("ext4", 64ull << 20);
  const RunResult global = RunIomimic(Args(other->mount_point(),
                                           {"--duration=1s", "--tune=vm.dirty_expire_centisecs=" +
                                                                 vm_before}));
  EXPECT_EQ(global.exit_code, 2) << global.err;
  EXPECT_NE(global.err.find("pid " + pid), std::string::npos) << global.err;
  EXPECT_EQ(ReadTrimmed(vm), vm_value);
  EXPECT_EQ(CountEntries(other->mount_point()), 0);

  ASSERT_TRUE(first.Signal(SIGINT));
  EXPECT_EQ(first.Wait(seconds(60)).exit_code, 1);
  EXPECT_EQ(ReadTrimmed(queue_ + "read_ahead_kb"), before_["read_ahead_kb"]);
  EXPECT_EQ(ReadTrimmed(vm), vm_before);
  for (const json& t : ReadReport(report_)["tunings"]) EXPECT_TRUE(t["restored"].get<bool>());
  EXPECT_TRUE(state_.Entries().empty()) << ::testing::PrintToString(state_.Entries());
  // Free again: the next run may take the setting.
  EXPECT_EQ(RunIomimic(Args(fs_->mount_point(), {"--duration=0", "--ops=2",
                                                 "--tune=queue.read_ahead_kb=64"}))
                .exit_code,
            0);
}

TEST_F(TuningsGuard, AValueChangedDuringTheRunIsLeftAsItWasSet) {
  SpawnedProcess run;
  run.Start(Args(fs_->mount_point(),
                 {"--duration=10m", "--output=" + report_, "--tune=queue.read_ahead_kb=16"}));
  ASSERT_TRUE(run.WaitForStderr("iomimic: measure", seconds(60))) << run.StderrSoFar();
  std::ofstream(queue_ + "read_ahead_kb") << "1024\n";
  ASSERT_TRUE(run.Signal(SIGINT));
  const RunResult r = run.Wait(seconds(60));
  EXPECT_NE(r.err.find("queue.read_ahead_kb left at '1024': changed by someone else"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ReadTrimmed(queue_ + "read_ahead_kb"), "1024");
  const json t = ReadReport(report_)["tunings"][0];
  EXPECT_EQ(t["restored"], false) << t.dump();
  EXPECT_EQ(t["reason"], "changed by someone else") << t.dump();
  EXPECT_EQ(t["found"], "1024") << t.dump();
  EXPECT_TRUE(state_.Entries().empty()) << "nothing more to restore: the journal is removed";
}

TEST_F(TuningsGuard, AValueTheKernelClampsIsRefused) {
  // Accepted by the write, replaced by the kernel: max_sectors_kb above
  // the hardware limit, and 0/1 flags given another number.
  for (const auto& [tune, leaf] :
       std::vector<std::pair<std::string, std::string>>{{"queue.max_sectors_kb=999999999",
                                                         "max_sectors_kb"},
                                                        {"queue.rotational=2", "rotational"},
                                                        {"queue.nomerges=7", "nomerges"},
                                                        {"queue.add_random=5", "add_random"}}) {
    SCOPED_TRACE(tune);
    const RunResult r = RunIomimic(Args(fs_->mount_point(), {"--duration=0", "--ops=2",
                                                             "--output=" + report_,
                                                             "--tune=" + tune}));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(r.err.find("the kernel kept " + tune.substr(0, tune.find('=')) + "=") !=
                    std::string::npos ||
                r.err.find("the kernel refused") != std::string::npos)
        << r.err;
    EXPECT_EQ(ReadTrimmed(queue_ + leaf), before_[leaf]);
    EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
    EXPECT_EQ(::access(report_.c_str(), F_OK), -1);
  }
  const RunResult r = RunIomimic(Args(fs_->mount_point(), {"--duration=0", "--ops=2",
                                                           "--tune=queue.max_sectors_kb=999999999"}));
  EXPECT_NE(r.err.find("the kernel kept queue.max_sectors_kb=" + before_["max_sectors_kb"]),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(state_.Entries().empty());
}

TEST_F(TuningsGuard, ASweepRefusesPointsTheKernelMapsToOneValue) {
  const std::string hw = ReadTrimmed(queue_ + "max_hw_sectors_kb");
  const std::string above = std::to_string(std::stoull(hw) * 2);
  for (const auto& [sweep, message] : std::vector<std::pair<std::string, std::string>>{
           {"queue.max_sectors_kb=64," + above, "the kernel kept queue.max_sectors_kb="},
           {"queue.read_ahead_kb=64,064", "two points would run at one value"}}) {
    SCOPED_TRACE(sweep);
    const RunResult r = RunIomimic(Args(fs_->mount_point(), {"--duration=0", "--ops=2",
                                                             "--output=" + report_,
                                                             "--sweep=" + sweep}));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("iomimic: measure"), std::string::npos) << "no point ran: " << r.err;
    EXPECT_EQ(::access(report_.c_str(), F_OK), -1);
    for (const char* leaf : kLeaves) EXPECT_EQ(ReadTrimmed(queue_ + leaf), before_[leaf]);
  }
}

// The order that makes a kill -9 at any instant recoverable, as the
// kernel saw the calls.
TEST_F(TuningsGuard, JournalFirstAndMarkerLast) {
  IOMIMIC_REQUIRE_STRACE();
  char* real = ::realpath(queue_.c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  const std::string queue = std::string(real) + "/";
  std::free(real);
  const WriteAudit audit =
      AuditWrites(Args(fs_->mount_point(), {"--duration=0", "--ops=2",
                                            "--tune=queue.read_ahead_kb=4092"}),
                  {"*"});
  ASSERT_EQ(audit.run.exit_code, 0) << audit.run.err;
  int journal_linked = -1, first_sys_write = -1, journal_removed = -1, last_sys_write = -1;
  int marker_removed = -1, last_other_removed = -1, run_dir_removed = -1;
  const std::string journal_prefix = state_.path() + "/journal-";
  for (int i = 0; i < static_cast<int>(audit.writes.size()); ++i) {
    const TracedWrite& w = audit.writes[i];
    if (w.path.rfind(journal_prefix, 0) == 0) {
      if (w.call == "linkat") journal_linked = i;
      if (w.call == "unlink") journal_removed = i;
    }
    if (w.path.rfind(queue, 0) == 0 && w.call == "write") {
      if (first_sys_write < 0) first_sys_write = i;
      last_sys_write = i;
    }
    const std::string run_dir_prefix = fs_->mount_point() + "/iomimic-mmap_msync-";
    if (w.path.rfind(run_dir_prefix, 0) == 0) {
      const bool marker = w.path.size() > 13 &&
                          w.path.compare(w.path.size() - 13, 13, "/.iomimic-run") == 0;
      if (w.call == "unlink" && marker) marker_removed = i;
      if (w.call == "unlink" && !marker) last_other_removed = i;
      if (w.call == "rmdir" && w.path.find('/', run_dir_prefix.size()) == std::string::npos) {
        run_dir_removed = i;
      }
    }
  }
  ASSERT_GE(journal_linked, 0) << Describe(audit.writes);
  ASSERT_GE(first_sys_write, 0) << Describe(audit.writes);
  EXPECT_LT(journal_linked, first_sys_write) << "the journal exists before the first change";
  EXPECT_GT(journal_removed, last_sys_write) << "and is removed after the last restore";
  ASSERT_GE(marker_removed, 0) << Describe(audit.writes);
  EXPECT_GT(marker_removed, last_other_removed) << "the marker goes after every other file";
  EXPECT_EQ(run_dir_removed, marker_removed + 1) << "then the directory itself";
}

}  // namespace
}  // namespace iomimic::test
