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

TEST(KillSweep, CleanRestoresEverythingAfterAKillAtAnyInstant) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  ScopedStateDir state;
  auto fs = LoopFs::Create("ext4", 64ull << 20);
  TempDir out("kill-sweep-out");
  const std::string queue = "/sys/block/" + fs->device_name() + "/queue/";
  const auto settings = [&] {
    return std::map<std::string, std::string>{
        {"scheduler", Active(ReadTrimmed(queue + "scheduler"))},
        {"nr_requests", ReadTrimmed(queue + "nr_requests")},
        {"read_ahead_kb", ReadTrimmed(queue + "read_ahead_kb")}};
  };
  const auto before = settings();
  const std::string offered = ReadTrimmed(queue + "scheduler");
  const std::string scheduler = offered.find("bfq") != std::string::npos ? "bfq" : "mq-deadline";
  ASSERT_NE(before.at("scheduler"), scheduler);
  const std::string report = out.path() + "/r.json";
  const std::vector<std::string> args = {
      "run", "mmap_msync", "--target=" + fs->mount_point(), "--threads=2", "--duration=0",
      "--ops=6", "--mmap_msync.region_size=1MiB", "--min_free=1MiB", "--format=none",
      "--output=" + report,
      "--tune=queue.scheduler=" + scheduler + ",queue.nr_requests=32,queue.read_ahead_kb=4092"};

  // A whole run on this machine: when it reaches measure and cleanup, and
  // ends. A third of the instants is spread over the whole run, a third
  // over what follows "measure", a third over what follows "cleanup" (the
  // short windows of cleanup, restore and the report's write would
  // otherwise get few).
  using Clock = std::chrono::steady_clock;
  const auto us_since = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t).count();
  };
  int64_t to_measure_us = 0, to_cleanup_us = 0, whole_us = 0;
  {
    const auto t0 = Clock::now();
    SpawnedProcess whole;
    whole.Start(args);
    ASSERT_TRUE(whole.WaitForStderr("iomimic: measure", seconds(60))) << whole.StderrSoFar();
    to_measure_us = us_since(t0);
    ASSERT_TRUE(whole.WaitForStderr("iomimic: cleanup:", seconds(60))) << whole.StderrSoFar();
    to_cleanup_us = us_since(t0);
    const RunResult r = whole.Wait(seconds(60));
    whole_us = us_since(t0);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ASSERT_EQ(settings(), before);
  ::unlink(report.c_str());

  const uint64_t seed = EnvOr("IOMIMIC_KILL_SEED", 20261123);
  const uint64_t instants = EnvOr("IOMIMIC_KILL_INSTANTS", 200);
  const int64_t span_us = whole_us * 11 / 10;
  std::mt19937_64 rng(seed);
  struct Window {
    const char* after;  // a line to wait for first ("" for the start)
    int64_t length_us;
  };
  const Window windows[] = {{"", span_us},
                            {"iomimic: measure", span_us - to_measure_us},
                            {"iomimic: cleanup:", span_us - to_cleanup_us}};
  std::map<std::string, int> phases;
  int restored_by_clean = 0, dirs_removed = 0, journals_finished = 0, dirs_left = 0;
  for (uint64_t i = 0; i < instants; ++i) {
    // IOMIMIC_KILL_WINDOW=0|1|2 keeps to one window (replaying a failure).
    const Window& w = windows[EnvOr("IOMIMIC_KILL_WINDOW", i % 3) % 3];
    const int64_t at_us = std::uniform_int_distribution<int64_t>(0, w.length_us)(rng);
    SCOPED_TRACE(::testing::Message() << "instant " << i << ": " << at_us << " us after '"
                                      << w.after << "' (IOMIMIC_KILL_SEED=" << seed << ")");
    SpawnedProcess p;
    p.Start(args);
    if (*w.after != '\0') {
      ASSERT_TRUE(p.WaitForStderr(w.after, seconds(60))) << p.StderrSoFar();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(at_us));  // the kill instant itself
    const bool killed = p.Signal(SIGKILL);
    const RunResult r = p.Wait(seconds(60));
    ASSERT_FALSE(r.timed_out);
    ++phases[PhaseOf(r.err, !killed || r.term_signal == 0)];

    const RunResult c = RunIomimic({"clean", "--target=" + fs->mount_point()});
    ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
    restored_by_clean += CountOf(c.err, "iomimic: restored ");
    const size_t removed_at = c.out.find(" removed, ");
    if (removed_at != std::string::npos) {
      dirs_removed += std::atoi(c.out.c_str() + c.out.rfind(' ', removed_at - 1) + 1);
    }
    const size_t finished_at = c.out.find(" journals finished");
    journals_finished += std::atoi(c.out.c_str() + c.out.rfind(' ', finished_at - 1) + 1);

    ASSERT_EQ(settings(), before) << r.err << c.out << c.err;
    const int left = CountEntries(fs->mount_point());
    dirs_left += left;
    ASSERT_EQ(left, 0) << c.out;
    ASSERT_TRUE(state.Entries().empty()) << ::testing::PrintToString(state.Entries()) << c.out;
    // The report: whole or absent, and no temporary beside it.
    for (const std::string& name : out.Names()) {
      ASSERT_EQ(name, "r.json") << "left in the output directory";
      ASSERT_TRUE(ReadReport(report).is_object()) << "a half-written report";
    }
    ::unlink(report.c_str());
  }
  std::string by_phase;
  for (const auto& [phase, n] : phases) by_phase += phase + "=" + std::to_string(n) + " ";
  std::cout << "kill -9 sweep: " << instants << " instants over a run of " << whole_us / 1000
            << " ms (measure at " << to_measure_us / 1000 << " ms, cleanup at "
            << to_cleanup_us / 1000 << " ms; seed " << seed << "); reached: " << by_phase << "; clean restored "
            << restored_by_clean << " settings, finished " << journals_finished
            << " journals, removed " << dirs_removed << " run directories; directories left: "
            << dirs_left << "\n";
  RecordProperty("instants", static_cast<int>(instants));
  RecordProperty("settings_restored_by_clean", restored_by_clean);
  RecordProperty("run_dirs_removed_by_clean", dirs_removed);
  RecordProperty("dirs_left", dirs_left);
}

}  // namespace
}  // namespace iomimic::test
