// Evidence that does not mislead (issue 13, items 5 and 6): the write-back
// after the measured phase, iomimic's own figures beside the system-wide
// ones, and a time-bound run of appends guarded instead of refused.
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;

json RunForReport(std::vector<std::string> args, int expect_exit = 0) {
  const std::string report = "/tmp/iomimic-wbg-" + std::to_string(::getpid()) + ".json";
  args.push_back("--output=" + report);
  args.push_back("--format=none");
  const RunResult r = RunIomimic(args);
  EXPECT_EQ(r.exit_code, expect_exit) << r.err;
  std::ifstream in(report);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  ::unlink(report.c_str());
  return j;
}

const json* DeviceWithRole(const json& devices, const std::string& role) {
  for (const json& d : devices) {
    for (const json& r : d["roles"]) {
      if (r == role) return &d;
    }
  }
  return nullptr;
}

// The objects are still dirty when the build ends: the measured phase sees
// no write on the object disk, the write-back does.
TEST(Writeback, ObjectsOnAnotherDiskShowUpWithTheWriteBack) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto src = LoopFs::Create("ext4", 256ull << 20);
  auto obj = LoopFs::Create("ext4", 256ull << 20);
  const json j = RunForReport({"run", "build_tree", "--target=" + src->mount_point(),
                               "--build_tree.obj_target=" + obj->mount_point(), "--threads=2",
                               "--build_tree.dirs=10", "--build_tree.cpu_per_kib=0"});
  ASSERT_EQ(j["status"], "complete");
  EXPECT_EQ(j["writeback"]["mode"], "after");
  EXPECT_GT(j["writeback"]["seconds"].get<double>(), 0.0);
  const json* measured = DeviceWithRole(j["devices"], "obj_target");
  const json* with_writeback = DeviceWithRole(j["writeback"]["devices"], "obj_target");
  ASSERT_NE(measured, nullptr) << j["devices"].dump();
  ASSERT_NE(with_writeback, nullptr) << j["writeback"].dump();
  const uint64_t objects = j["module_report"]["bytes"]["object_written"].get<uint64_t>();
  ASSERT_GT(objects, 0u);
  EXPECT_LT((*measured)["write_bytes"].get<uint64_t>(), objects);
  EXPECT_GE((*with_writeback)["write_bytes"].get<uint64_t>(), objects);
}

TEST(Writeback, InsideTheMeasuredPhaseOrNotAtAll) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 256ull << 20);
  const std::vector<std::string> base = {"run", "log_writers", "--target=" + fs->mount_point(),
                                         "--duration=0", "--ops=2000"};
  std::vector<std::string> measure = base, none = base;
  measure.push_back("--writeback=measure");
  none.push_back("--writeback=none");
  const json m = RunForReport(measure);
  const json n = RunForReport(none);
  EXPECT_EQ(m["writeback"]["mode"], "measure");
  EXPECT_TRUE(m["writeback"]["devices"].empty());
  // The records' bytes reached the disk inside the measured phase.
  EXPECT_GE(m["device"]["write_bytes"].get<uint64_t>(), m["app_bytes"]["write"].get<uint64_t>());
  EXPECT_EQ(n["writeback"]["mode"], "none");
  EXPECT_EQ(n["writeback"]["seconds"], 0.0);
  EXPECT_EQ(n["stop_reason"], "ops");
}

TEST(ProcessFigures, BesideTheSystemWideOnes) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 256ull << 20);
  const json j = RunForReport({"run", "log_writers", "--target=" + fs->mount_point(),
                               "--duration=0", "--ops=1000", "--log_writers.flush=fdatasync:1"});
  EXPECT_EQ(j["cpu"]["scope"], "system-wide");
  EXPECT_EQ(j["vmstat"]["scope"], "system-wide");
  EXPECT_EQ(j["process"]["scope"], "process");
  // Every write call of every record is one of ours (the lseeks and clock
  // reads are not writes).
  const uint64_t writes = j["ops"]["write"]["count"].get<uint64_t>();
  EXPECT_GE(j["process"]["io"]["syscw"].get<uint64_t>(), writes);
  EXPECT_GE(j["process"]["io"]["wchar"].get<uint64_t>(), j["app_bytes"]["write"].get<uint64_t>());
  // fdatasync after each record: the bytes went to storage inside the run.
  EXPECT_GE(j["process"]["io"]["write_bytes"].get<uint64_t>(),
            j["app_bytes"]["write"].get<uint64_t>());
}

// 60 s on a 1 GiB filesystem was refused by a worst-case estimate: now it
// runs, and stops cleanly before the free space would go below --min_free.
TEST(FreeSpaceGuard, ATimeBoundRunOfAppendsStopsAtMinFreeInsteadOfBeingRefused) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 320ull << 20);
  const json j = RunForReport({"run", "log_writers", "--target=" + fs->mount_point(),
                               "--duration=60s", "--threads=2",
                               "--log_writers.record_size=64KiB", "--min_free=96MiB"});
  ASSERT_EQ(j["status"], "complete") << j["error"].dump();
  EXPECT_EQ(j["stop_reason"], "min_free");
  EXPECT_LT(j["duration_s"].get<double>(), 60.0);
  EXPECT_GT(j["app_bytes"]["write"].get<uint64_t>(), 64ull << 20);
  EXPECT_EQ(j["error"], nullptr);
}

TEST(FreeSpaceGuard, AnOpBoundRunIsStillCheckedUpFront) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 320ull << 20);
  const RunResult r =
      RunIomimic({"run", "log_writers", "--target=" + fs->mount_point(), "--duration=0",
                  "--ops=100000", "--log_writers.record_size=64KiB", "--format=none"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--min_free"), std::string::npos) << r.err;
  EXPECT_EQ(CountEntries(fs->mount_point()), 0);
}

}  // namespace
}  // namespace iomimic::test
