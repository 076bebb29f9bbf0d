// kill -9 at any instant of a run with --tune, then `iomimic clean`: every
// setting is back, no run directory, journal, lock or temporary file is
// left, and a report is whole or absent. Every time.
//
// The instants are spread uniformly over a run's whole life (its wall time
// measured first on this machine): tunings applied, prepare, measure,
// report, cleanup, restore. They come from a seeded generator: the seed
// (IOMIMIC_KILL_SEED, default below) and the count (IOMIMIC_KILL_INSTANTS,
// default 200) are printed, so a failing instant can be replayed
// (IOMIMIC_KILL_WINDOW=0|1|2 keeps to one of the three windows below). Real
// processes, real SIGKILL, a real loop-mounted ext4 whose queue settings
// the test reads from sysfs.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/report_file.h"
#include "support/run_binary.h"
#include "support/scratch_dir.h"
#include "support/state_dir.h"
#include "support/sys_setting.h"

namespace iomimic::test {
namespace {

using std::chrono::seconds;

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// The phase a killed run had reached, from the last line it printed.
std::string PhaseOf(const std::string& err, bool exited) {
  if (exited) return "finished";
  const std::pair<const char*, const char*> marks[] = {
      {"iomimic: restored ", "restore"}, {"iomimic: cleanup:", "cleanup"},
      {"iomimic: measure", "measure"},   {"iomimic: prepare:", "prepare"},
      {"iomimic: tune ", "tune"},        {"iomimic: running", "start"}};
  for (const auto& [mark, phase] : marks) {
    if (err.find(mark) != std::string::npos) return phase;
  }
  return "exec";
}

int CountOf(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

using Clock = std::chrono::steady_clock;

int64_t UsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t).count();
}

// When a whole run reaches measure and cleanup, and when it ends.
struct RunTiming {
  int64_t to_measure_us = 0, to_cleanup_us = 0, whole_us = 0;
};

// What clean did over the sweep, from its output.
struct Figures {
  std::map<std::string, int> phases;  // where each killed run was
  int restored = 0, journals = 0, dirs_removed = 0, dirs_left = 0;
};

class KillSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS("ext4");
    fs_ = LoopFs::Create("ext4", 64ull << 20);
    queue_ = "/sys/block/" + fs_->device_name() + "/queue/";
    before_ = Settings();
    const std::string offered = ReadTrimmed(queue_ + "scheduler");
    const std::string scheduler = offered.find("bfq") != std::string::npos ? "bfq" : "mq-deadline";
    ASSERT_NE(before_.at("scheduler"), scheduler);
    report_ = out_.path() + "/r.json";
    args_ = {"run", "mmap_msync", "--target=" + fs_->mount_point(), "--threads=2",
             "--duration=0", "--ops=6", "--mmap_msync.region_size=1MiB", "--min_free=1MiB",
             "--format=none", "--output=" + report_,
             "--tune=queue.scheduler=" + scheduler + ",queue.nr_requests=32,queue.read_ahead_kb=4092"};
  }

  // Whatever a failed instant left (a loop device keeps its queue settings
  // when it is detached and reused by the next test): put back by hand.
  void TearDown() override {
    if (!fs_ || before_.empty()) return;
    for (const char* leaf : {"scheduler", "nr_requests", "read_ahead_kb"}) {
      if (Settings().at(leaf) != before_.at(leaf)) std::ofstream(queue_ + leaf) << before_.at(leaf);
    }
  }

  std::map<std::string, std::string> Settings() const {
    return {{"scheduler", Active(ReadTrimmed(queue_ + "scheduler"))},
            {"nr_requests", ReadTrimmed(queue_ + "nr_requests")},
            {"read_ahead_kb", ReadTrimmed(queue_ + "read_ahead_kb")}};
  }

  void MeasureOneRun(RunTiming* t) {
    const auto t0 = Clock::now();
    SpawnedProcess whole;
    whole.Start(args_);
    ASSERT_TRUE(whole.WaitForStderr("iomimic: measure", seconds(60))) << whole.StderrSoFar();
    t->to_measure_us = UsSince(t0);
    ASSERT_TRUE(whole.WaitForStderr("iomimic: cleanup:", seconds(60))) << whole.StderrSoFar();
    t->to_cleanup_us = UsSince(t0);
    const RunResult r = whole.Wait(seconds(60));
    t->whole_us = UsSince(t0);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(Settings(), before_);
    ::unlink(report_.c_str());
  }

  // `iomimic clean`, then everything as it was: the settings, no run
  // directory, an empty state directory, the report whole or absent.
  void CleanAndCheck(const RunResult& killed, Figures* f) {
    const RunResult c = RunIomimic({"clean", "--target=" + fs_->mount_point()});
    ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
    f->restored += CountOf(c.err, "iomimic: restored ");
    const size_t removed_at = c.out.find(" removed, ");
    if (removed_at != std::string::npos) {
      f->dirs_removed += std::atoi(c.out.c_str() + c.out.rfind(' ', removed_at - 1) + 1);
    }
    const size_t finished_at = c.out.find(" journals finished");
    f->journals += std::atoi(c.out.c_str() + c.out.rfind(' ', finished_at - 1) + 1);
    ASSERT_EQ(Settings(), before_) << killed.err << c.out << c.err;
    const int left = CountEntries(fs_->mount_point());
    f->dirs_left += left;
    ASSERT_EQ(left, 0) << c.out;
    ASSERT_TRUE(state_.Entries().empty()) << ::testing::PrintToString(state_.Entries()) << c.out;
    for (const std::string& name : out_.Names()) {
      ASSERT_EQ(name, "r.json") << "left in the output directory";
      ASSERT_TRUE(ReadReport(report_).is_object()) << "a half-written report";
    }
    ::unlink(report_.c_str());
  }

  ScopedStateDir state_;
  TempDir out_{"kill-sweep-out"};
  std::unique_ptr<LoopFs> fs_;
  std::string queue_, report_;
  std::map<std::string, std::string> before_;
  std::vector<std::string> args_;
};

TEST_F(KillSweep, CleanRestoresEverythingAfterAKillAtAnyInstant) {
  // A third of the instants is spread over the whole run, a third over what
  // follows "measure", a third over what follows "cleanup" (the short
  // windows of cleanup, restore and the report's write would otherwise get
  // few).
  RunTiming t;
  MeasureOneRun(&t);
  if (HasFatalFailure()) return;
  const uint64_t seed = EnvOr("IOMIMIC_KILL_SEED", 20261123);
  const uint64_t instants = EnvOr("IOMIMIC_KILL_INSTANTS", 200);
  const int64_t span_us = t.whole_us * 11 / 10;
  struct Window {
    const char* after;  // a line to wait for first ("" for the start)
    int64_t length_us;
  };
  const Window windows[] = {{"", span_us},
                            {"iomimic: measure", span_us - t.to_measure_us},
                            {"iomimic: cleanup:", span_us - t.to_cleanup_us}};
  std::mt19937_64 rng(seed);
  Figures f;
  for (uint64_t i = 0; i < instants; ++i) {
    // IOMIMIC_KILL_WINDOW=0|1|2 keeps to one window (replaying a failure).
    const Window& w = windows[EnvOr("IOMIMIC_KILL_WINDOW", i % 3) % 3];
    const int64_t at_us = std::uniform_int_distribution<int64_t>(0, w.length_us)(rng);
    SCOPED_TRACE(::testing::Message() << "instant " << i << ": " << at_us << " us after '"
                                      << w.after << "' (IOMIMIC_KILL_SEED=" << seed << ")");
    SpawnedProcess p;
    p.Start(args_);
    if (*w.after != '\0') {
      ASSERT_TRUE(p.WaitForStderr(w.after, seconds(60))) << p.StderrSoFar();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(at_us));  // the kill instant itself
    const bool killed = p.Signal(SIGKILL);
    const RunResult r = p.Wait(seconds(60));
    ASSERT_FALSE(r.timed_out);
    ++f.phases[PhaseOf(r.err, !killed || r.term_signal == 0)];
    CleanAndCheck(r, &f);
    if (HasFatalFailure()) return;
  }
  std::string by_phase;
  for (const auto& [phase, n] : f.phases) by_phase += phase + "=" + std::to_string(n) + " ";
  std::cout << "kill -9 sweep: " << instants << " instants over a run of " << t.whole_us / 1000
            << " ms (measure at " << t.to_measure_us / 1000 << " ms, cleanup at "
            << t.to_cleanup_us / 1000 << " ms; seed " << seed << "); reached: " << by_phase
            << "; clean restored " << f.restored << " settings, finished " << f.journals
            << " journals, removed " << f.dirs_removed << " run directories; directories left: "
            << f.dirs_left << "\n";
  RecordProperty("instants", static_cast<int>(instants));
  RecordProperty("settings_restored_by_clean", f.restored);
  RecordProperty("run_dirs_removed_by_clean", f.dirs_removed);
  RecordProperty("dirs_left", f.dirs_left);
}

}  // namespace
}  // namespace iomimic::test
