// A machine that cannot give the run its threads (an address-space limit,
// a pids cgroup) gets a failed run that says so, not an abort that leaves
// the run directory and the changed settings behind.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/report_file.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

TEST(ThreadLimit, TooFewThreadsFailTheRunCleanly) {
  // Sanitizers reserve terabytes of address space: no address-space limit
  // can be set under them.
  if (std::getenv("ASAN_OPTIONS") != nullptr || std::getenv("TSAN_OPTIONS") != nullptr) {
    GTEST_SKIP() << "an address-space limit cannot apply to a sanitized binary";
  }
  char templ[] = "/tmp/iomimic-threads-XXXXXX";
  ASSERT_NE(::mkdtemp(templ), nullptr);
  const std::string dir = templ;
  const std::string report = dir + ".json";
  // 400 threads of 8 MiB stacks do not fit in 2 GB of address space.
  const std::string cmd = "ulimit -v 2000000 && exec " + std::string(IOMIMIC_BINARY) +
                          " run mmap_msync --threads=400 --mmap_msync.region_size=4k"
                          " --duration=1s --min_free=0 --format=none --target=" +
                          dir + " --output=" + report;
  const RunResult r = RunCommand({"/bin/sh", "-c", cmd});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json j = ReadReport(report);
  ASSERT_TRUE(j.is_object()) << r.err;
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["error"]["op"], "pthread_create") << j["error"].dump();
  EXPECT_EQ(j["error"]["errno"], EAGAIN) << j["error"].dump();
  EXPECT_EQ(CountEntries(dir), 0) << "the run directory must be gone";
  std::filesystem::remove_all(dir);
  ::unlink(report.c_str());
}

}  // namespace
}  // namespace iomimic::test
