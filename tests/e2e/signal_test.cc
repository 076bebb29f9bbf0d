// A second signal while the first is being handled: exit 1 at once, and
// the report file is either absent or complete (it is written to a
// temporary and renamed). One signal in each phase, for every module, is
// in module_faults_test.cc. The test waits for the run to measure by
// polling the target directory, never with fixed sleeps.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/report_file.h"
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

// The second signal comes 0-20 ms after the first, so it lands at varied
// points of the stop: joining the workers, the probes, the cleanup, the
// report being written, or after the process has already finished.
TEST(SecondSignal, ExitsAtOnceAndNeverLeavesAHalfWrittenReport) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 256ull << 20);
  const std::string report = ReportPathFor("second-signal");
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
      const json j = ReadReport(report);
      EXPECT_TRUE(j.is_object()) << "the report is half-written";
      if (j.is_object()) {
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
