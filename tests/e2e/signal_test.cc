// SIGINT and SIGTERM at different points of a run: during prepare, during
// the measured phase, and a second signal while the first is being handled.
// One signal: the run stops, the report says interrupted, the run directory
// is removed, exit 1. A second signal: exit 1 at once, and the report file
// is either absent or complete (it is written to a temporary and renamed).
// The tests wait for the run to reach each point by polling the target
// directory, never with fixed sleeps.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;


// Names in `dir` that start with `prefix`.
std::vector<std::string> Named(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) == 0) out.push_back(dir + "/" + name);
  }
  ::closedir(d);
  return out;
}

bool PollUntil(const std::function<bool()>& done, milliseconds timeout) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

// True once the run directory exists under `target` (prepare has begun).
bool RunDirExists(const std::string& target) {
  return !Named(target, "iomimic-mmap_msync-").empty();
}

// True once data.db has allocated blocks: with prealloc=none nothing is
// allocated before the fill of the measured phase. Run directories in
// `ignore` (left by earlier runs) do not count.
bool Measuring(const std::string& target, const std::vector<std::string>& ignore = {}) {
  for (const std::string& dir : Named(target, "iomimic-mmap_msync-")) {
    if (std::find(ignore.begin(), ignore.end(), dir) != ignore.end()) continue;
    struct stat st {};
    if (::stat((dir + "/data.db").c_str(), &st) == 0 && st.st_blocks > 0) return true;
  }
  return false;
}

json ReadJson(const std::string& path, bool* parsed) {
  std::ifstream in(path);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  *parsed = !j.is_discarded();
  return j;
}

std::string ReportPath(const std::string& tag) {
  return "/tmp/iomimic-signal-" + tag + "-" + std::to_string(::getpid()) + ".json";
}

class OneSignal : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { IOMIMIC_REQUIRE_LOOP_FS("ext4"); }
  void TearDown() override {
    if (!report_.empty()) ::unlink(report_.c_str());
  }

  // Waits for the run to exit and checks what a single signal promises.
  json ExpectInterrupted(SpawnedProcess* p, const std::string& target) {
    const RunResult r = p->Wait(seconds(60));
    EXPECT_FALSE(r.timed_out) << "the run did not stop on the signal";
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("signal received"), std::string::npos) << r.err;
    bool parsed = false;
    const json j = ReadJson(report_, &parsed);
    EXPECT_TRUE(parsed) << "no valid report: " << r.err;
    if (!parsed) return json();
    EXPECT_EQ(j["status"], "interrupted") << j["error"].dump();
    EXPECT_EQ(j["signal"], GetParam());
    EXPECT_TRUE(j["error"].is_null()) << j["error"].dump();
    EXPECT_EQ(CountEntries(target), 0) << "the run directory must be gone";
    return j;
  }

  std::string report_;
};

// Prepare writes 512 MiB of zeros (prealloc=write): the signal lands while
// it does; the measured phase never starts.
TEST_P(OneSignal, DuringPrepare) {
  auto fs = LoopFs::Create("ext4", 1ull << 30);
  report_ = ReportPath("prepare");
  SpawnedProcess p;
  p.Start({"run", "mmap_msync", "--target=" + fs->mount_point(), "--threads=2", "--duration=10s",
           "--mmap_msync.region_size=256MiB", "--mmap_msync.prealloc=write", "--output=" + report_,
           "--format=none"});
  ASSERT_TRUE(PollUntil([&] { return RunDirExists(fs->mount_point()); }, seconds(30)))
      << p.StderrSoFar();
  ASSERT_TRUE(p.Signal(GetParam()));
  const json j = ExpectInterrupted(&p, fs->mount_point());
  if (j.is_null()) return;
  EXPECT_EQ(j["work_units"], 0) << "the signal should have stopped the run before measuring";
}

TEST_P(OneSignal, DuringMeasure) {
  auto fs = LoopFs::Create("ext4", 256ull << 20);
  report_ = ReportPath("measure");
  SpawnedProcess p;
  p.Start({"run", "mmap_msync", "--target=" + fs->mount_point(), "--threads=2", "--duration=10m",
           "--mmap_msync.region_size=1MiB", "--output=" + report_, "--format=none"});
  ASSERT_TRUE(PollUntil([&] { return Measuring(fs->mount_point()); }, seconds(30)))
      << p.StderrSoFar();
  ASSERT_TRUE(p.Signal(GetParam()));
  const json j = ExpectInterrupted(&p, fs->mount_point());
  if (j.is_null()) return;
  EXPECT_GT(j["work_units"].get<uint64_t>(), 0u);
  EXPECT_GT(j["ops"]["msync"]["count"].get<uint64_t>(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Signals, OneSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& param_info) {
                           return std::string(sigabbrev_np(param_info.param));
                         });

// The second signal comes 0-20 ms after the first, so it lands at varied
// points of the stop: joining the workers, the probes, the cleanup, the
// report being written, or after the process has already finished.
TEST(SecondSignal, ExitsAtOnceAndNeverLeavesAHalfWrittenReport) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 256ull << 20);
  const std::string report = ReportPath("second");
  const unsigned seed = std::random_device()();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay_us(0, 20000);
  for (int i = 0; i < 6; ++i) {
    const int delay = i == 0 ? 0 : delay_us(rng);
    SCOPED_TRACE("run " + std::to_string(i) + ", second signal " + std::to_string(delay) +
                 " us after the first (seed " + std::to_string(seed) + ")");
    ::unlink(report.c_str());
    // Run directories left by earlier second signals are not this run's.
    const std::vector<std::string> earlier = Named(fs->mount_point(), "iomimic-");
    SpawnedProcess p;
    p.Start({"run", "mmap_msync", "--target=" + fs->mount_point(), "--threads=2", "--duration=10m",
             "--mmap_msync.region_size=1MiB", "--output=" + report, "--format=none"});
    ASSERT_TRUE(PollUntil([&] { return Measuring(fs->mount_point(), earlier); }, seconds(30)))
        << p.StderrSoFar();
    ASSERT_TRUE(p.Signal(SIGINT));
    std::this_thread::sleep_for(std::chrono::microseconds(delay));  // the random point
    p.Signal(SIGTERM);  // false when the run has already been reaped: fine
    const RunResult r = p.Wait(seconds(10));
    ASSERT_FALSE(r.timed_out) << "a second signal must end the run at once";
    EXPECT_EQ(r.exit_code, 1) << r.err;

    struct stat st {};
    if (::stat(report.c_str(), &st) == 0) {
      bool parsed = false;
      const json j = ReadJson(report, &parsed);
      EXPECT_TRUE(parsed) << "the report is half-written";
      if (parsed) {
        EXPECT_EQ(j["status"], "interrupted");
      }
    }
    // The second signal removes a temporary report it interrupted.
    for (const std::string& tmp : Named("/tmp", report.substr(5) + ".tmp.")) {
      ADD_FAILURE() << "a temporary report was left behind: " << tmp;
      ::unlink(tmp.c_str());
    }
    // After the second signal the run directory may stay behind (the process
    // ends at once, by design); LoopFs removes it with the filesystem.
  }
  ::unlink(report.c_str());
}

}  // namespace
}  // namespace iomimic::test
