// replay end to end: the built binary replays real traces (recorded here,
// workloads/replay/traces/) on a loop-mounted ext4; the module report's
// traced-vs-replayed table must match call for call, and bad traces and
// impossible runs are refused (exit 2) before anything is written.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;

const std::string kTraces = std::string(IOMIMIC_SOURCE_DIR) + "/workloads/replay/traces/";

struct ReplayRun {
  int exit_code = -1;
  std::string err;
  json report;
};

ReplayRun Replay(const std::string& target, std::vector<std::string> args) {
  const std::string out = "/tmp/iomimic-e2e-replay-" + std::to_string(::getpid()) + ".json";
  ::unlink(out.c_str());
  args.insert(args.begin(), {"run", "replay", "--target=" + target, "--output=" + out,
                             "--format=none"});
  const RunResult r = RunIomimic(args);
  ReplayRun run{r.exit_code, r.err, nullptr};
  std::ifstream in(out);
  if (in) run.report = json::parse(in);
  ::unlink(out.c_str());
  return run;
}

size_t Entries(const std::string& dir) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                           std::filesystem::directory_iterator()));
}

class ReplayE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS("ext4");
    fs_ = LoopFs::Create("ext4", 256ull << 20);
  }
  std::unique_ptr<LoopFs> fs_;
};

// Every replayed syscall as often as traced, with the same outcome (the
// ENOENT probes fail again, the opens of existing files succeed).
TEST_F(ReplayE2e, RealTracesReplayCallForCall) {
  for (const std::string name : {"sqlite3", "tar", "rrdtool"}) {
    SCOPED_TRACE(name);
    const ReplayRun r = Replay(fs_->mount_point(), {"--replay.trace=" + kTraces + name + ".strace"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json& m = r.report["module_report"];
    ASSERT_GT(m["syscalls"].size(), 3u);
    for (const auto& [sys, row] : m["syscalls"].items()) {
      if (sys == "syncfs_at_end") continue;
      EXPECT_EQ(row["replayed_count"], row["traced_count"]) << sys;
      EXPECT_EQ(row["outcome_mismatches"], 0) << sys;
      EXPECT_EQ(row["skipped"], 0) << sys;
    }
    // The ops table counts successes and errors apart.
    const json& openat = r.report["ops"]["openat"];
    EXPECT_EQ(openat["count"].get<int>() + openat["errors"].get<int>(),
              m["syscalls"]["openat"]["traced_count"].get<int>());
    EXPECT_EQ(m["passes_completed"], 1);
  }
  EXPECT_EQ(Entries(fs_->mount_point()), 1u);  // lost+found: the run directory is gone
}

// Four threads of log_writers: each worker waits for the descriptors
// another thread opened, as in the trace.
TEST_F(ReplayE2e, ThreadsShareDescriptorsInTraceOrder) {
  const std::string trace = kTraces + "log_writers.strace";
  const ReplayRun r = Replay(fs_->mount_point(), {"--replay.trace=" + trace, "--threads=7"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json& rows = r.report["module_report"]["syscalls"];
  EXPECT_EQ(rows["write"]["replayed_count"], rows["write"]["traced_count"]);
  EXPECT_EQ(rows["write"]["skipped"], 0);
  EXPECT_EQ(rows["lseek"]["replayed_count"], rows["lseek"]["traced_count"]);
}

// An op list larger than op_memory is streamed from the run directory:
// the same calls, and two copies each get their own files.
TEST_F(ReplayE2e, StreamedOpListAndCopiesReplayTheSameCalls) {
  const ReplayRun r = Replay(fs_->mount_point(), {"--replay.trace=" + kTraces + "tar.strace",
                                            "--replay.op_memory=1KiB", "--replay.copies=2",
                                            "--threads=2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json& rows = r.report["module_report"]["syscalls"];
  for (const auto& [sys, row] : rows.items()) {
    EXPECT_EQ(row["replayed_count"].get<int>(), 2 * row["traced_count"].get<int>()) << sys;
    EXPECT_EQ(row["outcome_mismatches"], 0) << sys;
  }
}

// speed=original keeps the traced gaps: the replay lasts at least the
// traced span (2.7 s for the sqlite3 trace). A factor scales them: tar's
// 0.11 s at 0.1 (ten times slower) lasts at least 1.1 s, where asap takes a
// few hundredths. Lower bounds only: the pacing guarantees them, the disk
// can only add.
TEST_F(ReplayE2e, SpeedKeepsOrScalesTheTracedGaps) {
  for (const std::string name : {"sqlite3", "tar"}) {
    SCOPED_TRACE(name);
    const RunResult summary = RunIomimic({"trace", "summarize", kTraces + name + ".strace",
                                          "--format=json"});
    const double span = json::parse(summary.out)["trace"]["span_s"].get<double>();
    ASSERT_GT(span, 0.05);
    const std::string speed = name == "tar" ? "0.1" : "original";
    const double stretch = name == "tar" ? 10 : 1;
    const ReplayRun paced = Replay(fs_->mount_point(), {"--replay.trace=" + kTraces + name +
                                                        ".strace", "--replay.speed=" + speed});
    ASSERT_EQ(paced.exit_code, 0) << paced.err;
    EXPECT_GE(paced.report["duration_s"].get<double>(), 0.95 * span * stretch);
  }
  const ReplayRun asap = Replay(fs_->mount_point(), {"--replay.trace=" + kTraces + "tar.strace"});
  ASSERT_EQ(asap.exit_code, 0) << asap.err;
  EXPECT_LT(asap.report["duration_s"].get<double>(), 1.0);
  const ReplayRun bad = Replay(fs_->mount_point(),
                               {"--replay.trace=" + kTraces + "tar.strace", "--replay.speed=fast"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("replay.speed"), std::string::npos) << bad.err;
}

// --duration loops the trace: more than one pass, the files of the first
// pass met again (tar's O_EXCL creates then fail: counted, not fatal).
TEST_F(ReplayE2e, DurationLoopsTheTrace) {
  const ReplayRun r = Replay(fs_->mount_point(),
                             {"--replay.trace=" + kTraces + "tar.strace", "--duration=1s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json& m = r.report["module_report"];
  EXPECT_GE(m["passes_completed"].get<int>(), 2);
  EXPECT_GT(m["syscalls"]["openat"]["replayed_count"].get<int>(),
            m["syscalls"]["openat"]["traced_count"].get<int>());
  EXPECT_GT(m["syscalls"]["openat"]["outcome_mismatches"].get<int>(), 0);
}

// The traced paths are only ever reached remapped under the run
// directory: in an strace of the replay, every path naming the trace's
// directory (/tmp/replay_fid_work.*) is inside a copy<K>/.
TEST_F(ReplayE2e, OriginalPathsAreNeverOpened) {
  const auto strace = FindProgram("strace");
  if (!strace) GTEST_SKIP() << "strace not installed";
  const std::string log = "/tmp/iomimic-e2e-replay-paths-" + std::to_string(::getpid());
  const std::string out = log + ".json";
  const RunResult r = RunCommand({*strace, "-f", "-e", "trace=%file,%desc", "-o", log,
                                  IomimicBinary(), "run", "replay", "--target=" + fs_->mount_point(),
                                  "--replay.trace=" + kTraces + "tar.strace", "--format=none",
                                  "--output=" + out});
  ::unlink(out.c_str());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(log);
  std::string line;
  int remapped = 0;
  while (std::getline(in, line)) {
    for (size_t at = line.find("/tmp/replay_fid_work"); at != std::string::npos;
         at = line.find("/tmp/replay_fid_work", at + 1)) {
      ASSERT_GE(at, 6u) << line;
      EXPECT_EQ(line.substr(at - 6, 6), "/copy0") << "an original path reached: " << line;
      ++remapped;
    }
  }
  ::unlink(log.c_str());
  EXPECT_GT(remapped, 200);  // tar's 200 files and more, all remapped
}

TEST_F(ReplayE2e, WrongThreadCountIsRefusedNamingTheNeed) {
  const ReplayRun r = Replay(fs_->mount_point(),
                       {"--replay.trace=" + kTraces + "sqlite3.strace", "--threads=2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("must be 1"), std::string::npos) << r.err;
  EXPECT_EQ(Entries(fs_->mount_point()), 1u);
}

TEST_F(ReplayE2e, BadTraceIsRefusedWithItsLine) {
  const std::string bad = "/tmp/iomimic-e2e-replay-bad-" + std::to_string(::getpid()) + ".strace";
  {
    std::ifstream in(kTraces + "tar.strace");
    std::ofstream out(bad);
    std::string line;
    for (int i = 0; i < 30 && std::getline(in, line); ++i) out << line << '\n';
    out << "1234 10:00:00.000001 read(3</x>, \"\"..., 83";  // cut short, line 31
  }
  const ReplayRun r = Replay(fs_->mount_point(), {"--replay.trace=" + bad});
  ::unlink(bad.c_str());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(":31:"), std::string::npos) << r.err;
  EXPECT_EQ(Entries(fs_->mount_point()), 1u);
}

// dd read a 100 MiB file: 4 copies need 400 MiB on a 256 MiB filesystem.
TEST_F(ReplayE2e, TraceNeedingMoreSpaceThanTheTargetIsRefused) {
  const ReplayRun r = Replay(fs_->mount_point(), {"--replay.trace=" + kTraces + "dd_read.strace",
                                            "--replay.copies=4", "--threads=4"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(Entries(fs_->mount_point()), 1u);
}

TEST_F(ReplayE2e, SummarizeGivesThreadsFilesAndProbes) {
  const RunResult r =
      RunIomimic({"trace", "summarize", kTraces + "sqlite3.strace", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = json::parse(r.out);
  EXPECT_EQ(s["threads"].size(), 1u);
  EXPECT_GT(s["ops"]["fdatasync"]["count"].get<int>(), 100);
  EXPECT_GT(s["files"]["enoent_probes"].get<int>(), 0);
  EXPECT_GT(s["flush"]["period_s"]["mean"].get<double>(), 0);
  const RunResult bad = RunIomimic({"trace", "summarize", "/nonexistent.strace"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("/nonexistent.strace"), std::string::npos);
  // A "regular file" of /proc can be endless (/proc/kcore): refused up front.
  const RunResult proc = RunIomimic({"trace", "summarize", "/proc/self/status"});
  EXPECT_EQ(proc.exit_code, 2);
  EXPECT_NE(proc.err.find("pseudo filesystem"), std::string::npos) << proc.err;
}

}  // namespace
}  // namespace iomimic::test
