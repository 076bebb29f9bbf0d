// --memory_balloon SIZE: memory held locked by the run's process while it
// runs, refused when it would leave too little available.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace iomimic::test {
namespace {

// A /proc/PID/status field in KiB ("VmLck"), -1 when unreadable.
long StatusKib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

TEST(MemoryBalloon, RefusedWhenItWouldLeaveTooLittle) {
  const std::string out = "/tmp/iomimic-balloon-" + std::to_string(::getpid()) + ".json";
  const RunResult r = RunIomimic({"run", "mmap_msync", "--memory_balloon", "100T", "--duration",
                                  "1s", "--output", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'memory_balloon'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("safe minimum"), std::string::npos) << r.err;
  EXPECT_NE(::access(out.c_str(), F_OK), 0) << "a refused run wrote its report";
  EXPECT_EQ(RunIomimic({"run", "mmap_msync", "--memory_balloon", "lots"}).exit_code, 2);
}

TEST(MemoryBalloon, HeldLockedDuringTheRunAndGoneWithTheProcess) {
  if (::geteuid() != 0) GTEST_SKIP() << "mlock of 256 MiB needs root";
  SpawnedProcess p;
  p.Start({"run", "mmap_msync", "--memory_balloon", "256M", "--duration", "60s",
           "--mmap_msync.region_size=1MiB", "--format", "none"});
  ASSERT_TRUE(p.WaitForStderr("measure", std::chrono::seconds(30))) << p.StderrSoFar();
  const pid_t pid = *p.pid();
  EXPECT_GE(StatusKib(pid, "VmLck"), 256 * 1024);
  p.Signal(SIGKILL);
  p.Wait();
  EXPECT_EQ(StatusKib(pid, "VmLck"), -1);  // the process, and its locked memory, are gone
}

}  // namespace
}  // namespace iomimic::test
