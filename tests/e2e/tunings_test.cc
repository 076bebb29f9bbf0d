// --tune changes system settings for a run and puts them back: after a
// complete run, after a failed one, after SIGINT/SIGTERM/SIGHUP and after a second
// signal that ends the process at once. The settings are read from sysfs
// and procfs by the test itself, before, during and after the run. (A loop
// device keeps its queue settings when detached and reused: a run that did
// not restore them would also change later tests' devices.)
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
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

class Tunings : public ::testing::Test {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS("ext4");
    report_ = "/tmp/iomimic-tunings-" + std::to_string(::getpid()) + ".json";
    state_ = std::make_unique<ScopedStateDir>();
  }
  void TearDown() override { ::unlink(report_.c_str()); }

  void MakeFs(uint64_t bytes) {
    fs_ = LoopFs::Create("ext4", bytes);
    queue_ = "/sys/block/" + fs_->device_name() + "/queue/";
  }

  // The loop device's queue settings the tests change, as the kernel has them now.
  std::map<std::string, std::string> Queue() const {
    return {{"scheduler", Active(ReadTrimmed(queue_ + "scheduler"))},
            {"nr_requests", ReadTrimmed(queue_ + "nr_requests")},
            {"read_ahead_kb", ReadTrimmed(queue_ + "read_ahead_kb")}};
  }

  std::vector<std::string> Args(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"run", "mmap_msync", "--target=" + fs_->mount_point(),
                                     "--output=" + report_, "--format=none"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // Changed values the defaults of a fresh loop device never have.
  static constexpr const char* kTune =
      "--tune=queue.scheduler=mq-deadline,queue.nr_requests=32,queue.read_ahead_kb=4092";

  void ExpectTunedDuringRun(const json& j) {
    const json& q = j["system"]["target"]["device"]["queue"];
    EXPECT_EQ(q["scheduler"], "mq-deadline") << q.dump();
    EXPECT_EQ(q["nr_requests"], 32) << q.dump();
    EXPECT_EQ(q["read_ahead_kb"], 4092) << q.dump();
    ASSERT_TRUE(j["tunings"].is_array());
    EXPECT_GE(j["tunings"].size(), 3u);
    for (const json& t : j["tunings"]) EXPECT_TRUE(t["restored"].get<bool>()) << t.dump();
  }

  // A run that lasts until a signal, once it is measuring with the tunings in force.
  void StartTunedRun(SpawnedProcess* p) {
    p->Start(Args({"--threads=2", "--duration=10m", "--mmap_msync.region_size=1MiB", kTune}));
    ASSERT_TRUE(p->WaitForStderr("iomimic: measure", seconds(60))) << p->StderrSoFar();
    ASSERT_EQ(Queue().at("scheduler"), "mq-deadline") << "not tuned while running";
    ASSERT_EQ(Queue().at("read_ahead_kb"), "4092");
  }

  std::unique_ptr<LoopFs> fs_;
  std::string queue_;
  std::string report_;
  std::unique_ptr<ScopedStateDir> state_;
};

TEST_F(Tunings, RestoredAfterACompleteRun) {
  MakeFs(256ull << 20);
  const auto before = Queue();
  ASSERT_NE(before.at("scheduler"), "mq-deadline");
  const RunResult r =
      RunIomimic(Args({"--threads=1", "--duration=0", "--ops=4", "--mmap_msync.region_size=1MiB",
                       kTune}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tune queue.read_ahead_kb: " + before.at("read_ahead_kb") + " -> 4092"),
            std::string::npos)
      << "every change is printed: " << r.err;
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "complete");
  ExpectTunedDuringRun(j);
  EXPECT_EQ(Queue(), before);
}

TEST_F(Tunings, RestoredAfterAFailedRun) {
  MakeFs(64ull << 20);  // the 128 MiB region cannot fit: SIGBUS, a failed run
  const auto before = Queue();
  const RunResult r =
      RunIomimic(Args({"--threads=1", "--duration=0", "--ops=2", "--mmap_msync.region_size=128MiB",
                       "--space_check=false", kTune}));
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "failed");
  ExpectTunedDuringRun(j);
  EXPECT_EQ(Queue(), before);
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
}

class TuningsSignal : public Tunings, public ::testing::WithParamInterface<int> {};

TEST_P(TuningsSignal, RestoredAfterTheSignal) {
  MakeFs(256ull << 20);
  const auto before = Queue();
  SpawnedProcess p;
  StartTunedRun(&p);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(p.Signal(GetParam()));
  const RunResult r = p.Wait(seconds(60));
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "interrupted");
  ExpectTunedDuringRun(j);
  EXPECT_EQ(Queue(), before);
}

INSTANTIATE_TEST_SUITE_P(Signals, TuningsSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const auto& param_info) { return std::string(sigabbrev_np(param_info.param)); });

// A second signal ends the process at once, without a report: the settings
// are still put back first.
TEST_F(Tunings, RestoredAfterASecondSignal) {
  MakeFs(256ull << 20);
  const auto before = Queue();
  SpawnedProcess p;
  StartTunedRun(&p);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(p.Signal(SIGINT));
  p.Signal(SIGTERM);
  const RunResult r = p.Wait(seconds(30));
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(Queue(), before) << r.err;
}

// vm.dirty_bytes and vm.dirty_ratio exclude each other: setting the bytes
// zeroes the ratio, and the ratio (the one in force before) is what is
// written back. Global settings: the run is kept short.
TEST_F(Tunings, DirtyBytesIsRestoredByWritingBackTheRatio) {
  MakeFs(256ull << 20);
  const std::string vm = "/proc/sys/vm/";
  const std::string ratio = ReadTrimmed(vm + "dirty_ratio");
  const std::string bytes = ReadTrimmed(vm + "dirty_bytes");
  const std::string bg_ratio = ReadTrimmed(vm + "dirty_background_ratio");
  const std::string bg_bytes = ReadTrimmed(vm + "dirty_background_bytes");
  if (ratio == "0" || bg_ratio == "0") GTEST_SKIP() << "this machine sets vm.dirty_*bytes";
  const RunResult r = RunIomimic(Args(
      {"--threads=1", "--duration=0", "--ops=2", "--mmap_msync.region_size=1MiB",
       "--tune=vm.dirty_bytes=123456789,vm.dirty_background_bytes=23456789"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["tunings"].size(), 2u) << j["tunings"].dump();
  EXPECT_EQ(j["tunings"][0]["value"], "123456789");
  EXPECT_EQ(j["tunings"][0]["before"], bytes);
  EXPECT_EQ(ReadTrimmed(vm + "dirty_ratio"), ratio);
  EXPECT_EQ(ReadTrimmed(vm + "dirty_bytes"), bytes);
  EXPECT_EQ(ReadTrimmed(vm + "dirty_background_ratio"), bg_ratio);
  EXPECT_EQ(ReadTrimmed(vm + "dirty_background_bytes"), bg_bytes);
}

// Refusals: exit 2, a message naming the option and the value, nothing
// written in the target and no setting left changed, also when the kernel
// refuses a value after an earlier one of the list was applied.
TEST_F(Tunings, RefusedValuesChangeNothing) {
  MakeFs(256ull << 20);
  const auto before = Queue();
  struct Case {
    std::string tune, message;
  };
  for (const Case& c : std::vector<Case>{
           {"queue.scheduler=bfq,queue.nr_requests=100000",
            "the kernel refused queue.nr_requests=100000"},
           {"queue.scheduler=cfq", "invalid value 'cfq' for option 'tune'"},
           {"queue.read_ahead_kb=lots", "'lots' is not a valid value for queue.read_ahead_kb"},
           {"queue.write_cache=0", "unknown setting 'queue.write_cache'"}}) {
    SCOPED_TRACE(c.tune);
    const RunResult r = RunIomimic(Args({"--duration=1s", "--tune=" + c.tune}));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(Queue(), before);
    EXPECT_EQ(CountEntries(fs_->mount_point()), 0);
    EXPECT_EQ(::access(report_.c_str(), F_OK), -1) << "no report for a refused run";
  }
}

// The only writes outside the run directory and the report are the
// settings asked for (and nr_requests, restored after the scheduler).
TEST_F(Tunings, WritesOnlyTheSettingsAskedFor) {
  IOMIMIC_REQUIRE_STRACE();
  MakeFs(256ull << 20);
  // strace names the files by their canonical path (/sys/devices/...).
  char* real = ::realpath(queue_.c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  const std::string queue = std::string(real) + "/";
  std::free(real);
  const WriteAudit audit = AuditWrites(
      Args({"--threads=1", "--duration=0", "--ops=2", "--mmap_msync.region_size=1MiB", kTune}),
      {fs_->mount_point() + "/iomimic-mmap_msync-*", report_,
       TempNameGlob(report_), state_->path(), state_->path() + "/*",
       queue + "scheduler", queue + "nr_requests", queue + "read_ahead_kb"});
  ASSERT_EQ(audit.run.exit_code, 0) << audit.run.err;
  EXPECT_TRUE(audit.violations.empty()) << Describe(audit.violations);
  int sysfs_writes = 0;
  for (const TracedWrite& w : audit.writes) sysfs_writes += w.path.rfind(queue, 0) == 0;
  EXPECT_GE(sysfs_writes, 6) << "each of three settings set and restored: "
                             << Describe(audit.writes);
}

TEST(TuningsTarget, QueueSettingsNeedABlockDevice) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  const RunResult r = RunIomimic({"run", "mmap_msync", "--target=/dev/shm", "--format=none",
                                  "--tune=queue.read_ahead_kb=64"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is not on a block device"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iomimic::test
