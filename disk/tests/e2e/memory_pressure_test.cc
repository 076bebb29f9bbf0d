// No deadlock under memory pressure: a writer and the disk's daemon both in
// a memory cgroup far smaller than what is written, so reclaim must write
// back dirty pages of the emulated filesystem through the daemon while the
// daemon itself is short of memory. The write must finish (in well under
// the timeout), not hang. cgroup v1 or v2 memory controller, root.
//
// DISABLED: it deadlocks today (Linux 6.18, cgroup v1). The daemon's
// buffered pwrite to the backing file charges page cache to the cgroup;
// reclaim then waits (folio_wait_writeback in shrink_folio_list) for
// writeback of the emulated filesystem's pages, which only the daemon can
// complete. The daemon's threads stay in D state even after kill -9.
// Recovery: raise memory.limit_in_bytes, then abort the FUSE connection
// (mount -t fusectl none /sys/fs/fuse/connections; echo 1 >
// /sys/fs/fuse/connections/<minor of the fuse dir>/abort). The fix to try:
// O_DIRECT on the backing file (no page cache charged to the daemon), or
// the daemon kept out of the workload's memory cgroup.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "disk_fixture.h"

namespace iomimic::test {
namespace {

using DiskMemoryPressure = DiskTest;

// A fresh memory cgroup limited to `bytes`; "" when none can be made.
std::string MakeMemoryCgroup(uint64_t bytes) {
  const std::string name = "iomimic-disktest-" + std::to_string(::getpid());
  const std::string v1 = "/sys/fs/cgroup/memory/" + name, v2 = "/sys/fs/cgroup/" + name;
  if (::mkdir(v1.c_str(), 0755) == 0) {
    std::ofstream(v1 + "/memory.limit_in_bytes") << bytes;
    return v1;
  }
  if (::mkdir(v2.c_str(), 0755) == 0) {
    std::ofstream(v2 + "/memory.max") << bytes;
    return v2;
  }
  return "";
}

TEST_F(DiskMemoryPressure, DISABLED_WriterAndDaemonInA96MiBCgroupFinish) {
  IOMIMIC_REQUIRE_LOOP_FS("xfs");
  const std::string cg = MakeMemoryCgroup(96ull << 20);
  if (cg.empty()) GTEST_SKIP() << "no memory cgroup can be made here";
  ASSERT_EQ(Up("fast", "xfs", "1G").exit_code, 0);
  const RunResult pid = RunCommand({"pgrep", "-f", "iomimic-diskd --id .* --model " + state_});
  ASSERT_FALSE(pid.out.empty());
  std::ofstream(cg + "/cgroup.procs") << std::stoi(pid.out);
  const auto start = std::chrono::steady_clock::now();
  // 512 MiB through a 96 MiB cgroup: most of it must be written back
  // under the cgroup's reclaim, through the daemon, which is in it too.
  const RunResult dd = RunCommand(
      {"timeout", "120", "sh", "-c",
       "echo $$ > " + cg + "/cgroup.procs && exec dd if=/dev/zero of=" + mount_ +
           "/big bs=1M count=512 conv=fsync"});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(dd.exit_code, 0) << dd.err;  // 124: timed out, i.e. hung
  EXPECT_LT(took, std::chrono::seconds(120));
  std::printf("512 MiB through a 96 MiB cgroup: %.1f s\n",
              std::chrono::duration<double>(took).count());
  EXPECT_EQ(RunIomimic({"disk", "down", mount_}).exit_code, 0);
  ::rmdir(cg.c_str());
  ExpectNothingLeft();
}

}  // namespace
}  // namespace iomimic::test
