// The faults of issue 8, for every module (support/module_faults.h): a full
// filesystem in prepare and in the measured phase, SIGINT and SIGTERM in
// prepare, measure and cleanup, a disk that fails with EIO, and a strace
// audit of every path written. Each module instantiates the suite from its
// own tests folder; the tests wait for a phase through the stderr lines
// the engine prints, never with fixed sleeps.
#include "support/module_faults.h"

#include <signal.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/report_file.h"
#include "support/run_binary.h"
#include "support/write_audit.h"

namespace iomimic::test {

void PrintTo(const ModuleFaultCase& c, std::ostream* os) { *os << c.module; }

std::string ModuleFaultName(const ::testing::TestParamInfo<ModuleFaultCase>& info) {
  std::string name = info.param.module;
  name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
  return name;
}

namespace {

using nlohmann::json;
using std::chrono::seconds;

constexpr uint64_t kSmallFs = 64ull << 20;

// The seed of the random signal points: IOMIMIC_FAULT_SEED when set (to
// replay a failure), else the clock.
uint64_t FaultSeed() {
  if (const char* s = std::getenv("IOMIMIC_FAULT_SEED")) return std::strtoull(s, nullptr, 10);
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

// How long after a phase's first line the signal goes: anywhere in the
// measured phase's first half second; in prepare and cleanup, within the
// time they usually last, so most signals land in them.
std::chrono::microseconds RandomPointIn(const std::string& phase, std::mt19937_64& rng) {
  const int64_t max_us = phase == "measure" ? 500'000 : phase == "prepare" ? 50'000 : 10'000;
  return std::chrono::microseconds(std::uniform_int_distribution<int64_t>(0, max_us)(rng));
}

constexpr uint64_t kLongRunFs = 512ull << 20;

// A file of known content beside the run directory, and the filesystem's
// free space, taken before a run: after it, both must be as they were.
class Sentinel {
 public:
  explicit Sentinel(const LoopFs& fs) : fs_(fs), path_(fs.mount_point() + "/sentinel.bin") {
    std::mt19937_64 rng(42);
    content_.resize(256 << 10);
    for (char& c : content_) c = static_cast<char>(rng());
    std::ofstream(path_, std::ios::binary) << content_;
    fs_.Sync();
    free_before_ = FreeBlocks();
  }

  void ExpectUntouched() const {
    std::ifstream in(path_, std::ios::binary);
    const std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(now == content_) << "the sentinel file beside the run directory changed";
    EXPECT_EQ(CountEntries(fs_.mount_point()), 1) << "something beside the sentinel was left";
    // Freed blocks return at the journal commit that syncfs forces; a few
    // blocks of slack for the journal's and the allocator's own state.
    fs_.Sync();
    EXPECT_GE(FreeBlocks() + 64, free_before_) << "blocks were not given back";
  }

 private:
  uint64_t FreeBlocks() const {
    struct statvfs st {};
    return ::statvfs(fs_.mount_point().c_str(), &st) == 0 ? st.f_bfree : 0;
  }

  const LoopFs& fs_;
  std::string path_;
  std::string content_;
  uint64_t free_before_ = 0;
};

std::vector<std::string> RunArgs(const ModuleFaultCase& c, const std::string& target,
                                 const std::string& report, std::vector<std::string> extra) {
  std::vector<std::string> args = {"run", c.module, "--target=" + target, "--output=" + report,
                                   "--format=none"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::string> Plus(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

void ModuleFaults::SetUp() {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  report_ = ReportPathFor("faults-" + GetParam().module);
}

void ModuleFaults::TearDown() { ::unlink(report_.c_str()); }

void ModuleFaults::ExpectFullFilesystemFailure(const std::vector<std::string>& args,
                                               const std::string& op, const std::string& phase) {
  auto fs = LoopFs::Create("ext4", kSmallFs);
  Sentinel sentinel(*fs);
  const RunResult r = RunIomimic(
      RunArgs(GetParam(), fs->mount_point(), report_, Plus(args, {"--space_check=false"})));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object()) << "no valid report: " << r.err;
  EXPECT_EQ(j["status"], "failed");
  ASSERT_TRUE(j["error"].is_object()) << j.dump(2);
  RecordProperty("error", j["error"].dump());
  EXPECT_EQ(j["error"]["errno"], ENOSPC) << j["error"].dump();
  EXPECT_EQ(j["error"]["op"], op) << j["error"].dump();
  EXPECT_EQ(j["error"]["phase"], phase) << j["error"].dump();
  EXPECT_FALSE(j["error"]["path"].get<std::string>().empty()) << "which file";
  if (phase == "measure") {
    EXPECT_GT(j["error"]["ops_before"].get<uint64_t>(), 0u) << "after how many units";
    EXPECT_GT(j["work_units"].get<uint64_t>(), 0u);
  } else {
    EXPECT_EQ(j["work_units"], 0);
  }
  EXPECT_TRUE(j["cleanup_error"].is_null()) << j["cleanup_error"].dump();
  sentinel.ExpectUntouched();
}

namespace {

TEST_P(ModuleFaults, FullFilesystemInPrepare) {
  ExpectFullFilesystemFailure(GetParam().fill_prepare, GetParam().fill_prepare_op, "prepare");
}

TEST_P(ModuleFaults, FullFilesystemInMeasure) {
  if (GetParam().fill_measure.empty()) GTEST_SKIP() << "the module does not grow its files";
  ExpectFullFilesystemFailure(GetParam().fill_measure, GetParam().fill_measure_op, "measure");
}

// SIGINT and SIGTERM in each phase: SIGINT as soon as the engine says the
// phase has begun, SIGTERM after a random delay (a failure prints the seed;
// IOMIMIC_FAULT_SEED=N replays the delays). The measured phase lasts ten minutes,
// so its signal always lands in it. Prepare (0.1-0.4 s for thousands of
// files) and cleanup (tens of milliseconds) are short: the signal may land
// in the next phase, or once the run has completed, while the report is
// written; then the run is complete, exit 0. Either way: a valid report,
// nothing left. Where each signal landed is recorded as a test property.
TEST_P(ModuleFaults, SignalsInPrepareMeasureAndCleanup) {
  auto fs = LoopFs::Create("ext4", kLongRunFs);
  Sentinel sentinel(*fs);
  const uint64_t seed = FaultSeed();
  std::mt19937_64 rng(seed);
  int cleanup_hits = 0, cleanup_tries = 0;
  int prepare_hits = 0;
  std::string landed;
  for (const std::string phase : {"prepare", "measure", "cleanup"}) {
    for (const int sig : {SIGINT, SIGTERM}) {
      // SIGINT right at the phase's start, where a short phase is surely
      // hit; SIGTERM at a random point of it.
      const auto delay = sig == SIGINT ? std::chrono::microseconds(0) : RandomPointIn(phase, rng);
      SCOPED_TRACE(phase + " + " + std::to_string(delay.count()) + " us, " + sigabbrev_np(sig) +
                   ", IOMIMIC_FAULT_SEED=" + std::to_string(seed));
      ::unlink(report_.c_str());
      const bool bounded = phase == "cleanup";
      SpawnedProcess p;
      p.Start(RunArgs(GetParam(), fs->mount_point(), report_,
                      Plus(GetParam().long_run,
                           {bounded ? "--duration=1s" : "--duration=10m", "--space_check=false"})));
      ASSERT_TRUE(p.WaitForStderr("iomimic: " + phase, seconds(60))) << p.StderrSoFar();
      std::this_thread::sleep_for(delay);
      ASSERT_TRUE(p.Signal(sig));
      const RunResult r = p.Wait(seconds(120));
      ASSERT_FALSE(r.timed_out) << "the run did not stop on the signal";
      const json j = ReadReport(report_);
      ASSERT_TRUE(j.is_object()) << "no valid report: " << r.err;
      EXPECT_TRUE(j["error"].is_null()) << j["error"].dump();
      // A short phase may be over when the signal arrives: it lands in a
      // later phase, or after the run (complete, exit 0).
      const std::string landed_in = j["status"] == "complete"         ? "after"
                                    : j["interrupted_in"].is_string() ? j["interrupted_in"]
                                                                      : "nowhere";
      landed += phase + "+" + std::to_string(delay.count()) + "us:" + landed_in + " ";
      if (landed_in == "after") {
        EXPECT_TRUE(bounded) << "a ten-minute run completed";
        EXPECT_EQ(r.exit_code, 0) << r.err;
      } else {
        EXPECT_EQ(j["status"], "interrupted");
        EXPECT_EQ(j["signal"], sig);
        EXPECT_EQ(r.exit_code, 1) << r.err;
      }
      if (phase == "measure") {
        EXPECT_EQ(landed_in, "measure");
      }
      if (landed_in == "prepare") {
        ++prepare_hits;
        EXPECT_EQ(j["work_units"], 0) << "measured work before the measured phase";
      }
      if (bounded) {
        ++cleanup_tries;
        cleanup_hits += landed_in == "cleanup";
      }
      EXPECT_EQ(CountEntries(fs->mount_point()), 1) << "the run directory must be gone";
    }
  }
  RecordProperty("signals_landed_in", landed);
  RecordProperty("prepare_signals_landed_in_prepare", std::to_string(prepare_hits) + "/2");
  RecordProperty("cleanup_signals_landed_in_cleanup",
                 std::to_string(cleanup_hits) + "/" + std::to_string(cleanup_tries));
  sentinel.ExpectUntouched();
}

// The disk starts failing once the module measures. commit=60 keeps ext4's
// periodic journal commit from aborting the journal (and making the
// removal of the run directory fail with EROFS) in the milliseconds
// between the error and the cleanup: that case is eio_test.cc's.
TEST_P(ModuleFaults, DiskErrorsStopTheRunWithEio) {
  const ModuleFaultCase& c = GetParam();
  if (c.eio_run.empty()) GTEST_SKIP() << "covered by tests/e2e/eio_test.cc";
  IOMIMIC_REQUIRE_FAULTY_FS();
  auto fs = FaultyFs::Create(256ull << 20, "commit=60");
  SpawnedProcess p;
  p.Start(RunArgs(c, fs->mount_point(), report_, Plus(c.eio_run, {"--duration=60s", "--space_check=false"})));
  ASSERT_TRUE(p.WaitForStderr("iomimic: measure", seconds(60))) << p.StderrSoFar();
  fs->SetFault(c.eio_fault);
  const RunResult r = p.Wait(seconds(120));
  ASSERT_FALSE(r.timed_out) << "the run did not stop on EIO";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const FaultyFs::Counters counters = fs->ReadCounters();
  EXPECT_GT(counters.failed_reads + counters.failed_writes + counters.failed_fsyncs, 0u)
      << "the fault was never hit";
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object()) << "no valid report: " << r.err;
  EXPECT_EQ(j["status"], "failed");
  ASSERT_TRUE(j["error"].is_object()) << j.dump(2);
  RecordProperty("error", j["error"].dump());
  EXPECT_EQ(j["error"]["errno"], EIO) << j["error"].dump();
  EXPECT_EQ(j["error"]["phase"], "measure") << j["error"].dump();
  const std::string op = j["error"]["op"];
  EXPECT_NE(std::find(c.eio_ops.begin(), c.eio_ops.end(), op), c.eio_ops.end())
      << j["error"].dump();
  EXPECT_FALSE(j["error"]["path"].get<std::string>().empty());
  if (c.eio_fault == FaultyFs::Fault::kReads) {
    EXPECT_EQ(CountEntries(fs->mount_point()), 0) << "the run directory must be gone";
    EXPECT_TRUE(j["cleanup_error"].is_null()) << j["cleanup_error"].dump();
    return;
  }
  // Failing writes: an fdatasync of an appended file commits its new size
  // through the journal, on the dead disk, and ext4 may abort the journal
  // before the cleanup: then nothing can be removed (EROFS). The run
  // directory is gone, or the report says it is not, and why.
  RecordProperty("run_dir_removed", CountEntries(fs->mount_point()) == 0 ? "yes" : "no");
  if (CountEntries(fs->mount_point()) == 0) {
    EXPECT_TRUE(j["cleanup_error"].is_null()) << j["cleanup_error"].dump();
  } else {
    ASSERT_TRUE(j["cleanup_error"].is_object()) << "files left and the report does not say";
    const int err = j["cleanup_error"]["errno"];
    EXPECT_TRUE(err == EROFS || err == EIO) << j["cleanup_error"].dump();
    EXPECT_EQ(j["cleanup_error"]["path"], j["run_dir"]);
  }
}

// strace -f of a complete run and of a run that fills its filesystem:
// every path created, written, renamed or removed is inside this module's
// run directory, or is the report.
TEST_P(ModuleFaults, WritesOnlyInsideTheRunDirectory) {
  IOMIMIC_REQUIRE_STRACE();
  const ModuleFaultCase& c = GetParam();
  struct Run {
    const char* what;
    std::vector<std::string> args;
    uint64_t fs_bytes;
    int exit_code;
  };
  for (const Run& run : {Run{"complete", c.audit_run, 256ull << 20, 0},
                         Run{"full filesystem", Plus(c.fill_prepare, {"--space_check=false"}),
                             kSmallFs, 1}}) {
    SCOPED_TRACE(run.what);
    auto fs = LoopFs::Create("ext4", run.fs_bytes);
    const std::string run_dirs = fs->mount_point() + "/iomimic-" + c.module + "-*";
    const WriteAudit audit = AuditWrites(RunArgs(c, fs->mount_point(), report_, run.args),
                                         {run_dirs, report_, TempNameGlob(report_)});
    EXPECT_EQ(audit.run.exit_code, run.exit_code) << audit.run.err;
    EXPECT_TRUE(audit.violations.empty()) << "written outside the run directory:\n"
                                          << Describe(audit.violations);
    // Not blind: the trace saw the run directory made and removed.
    const std::string prefix = run_dirs.substr(0, run_dirs.size() - 1);
    const auto saw = [&](const char* call) {
      return std::any_of(audit.writes.begin(), audit.writes.end(), [&](const TracedWrite& w) {
        return w.call == call && w.path.rfind(prefix, 0) == 0;
      });
    };
    EXPECT_TRUE(saw("mkdir")) << Describe(audit.writes);
    EXPECT_TRUE(saw("rmdir")) << Describe(audit.writes);
    EXPECT_EQ(CountEntries(fs->mount_point()), 0);
  }
}

}  // namespace

// Defined here, instantiated by the modules (workloads/*/tests/*_faults_test.cc).
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ModuleFaults);

}  // namespace iomimic::test
