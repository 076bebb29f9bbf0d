// log_writers end to end: the built binary on loop-mounted ext4 and xfs,
// checked through its JSON report (and, for rotation, the files it left
// with --keep). Counts are exact: one thread, or per-log figures, wherever
// the split of --ops between threads would make them vary.
#include <dirent.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "log_writers_test_util.h"

namespace iomimic::test::log_writers {
namespace {

using nlohmann::json;

std::set<std::string> Names(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.insert(name);
  }
  ::closedir(d);
  return names;
}

// layout.files as path -> entry, checking every entry has its extents.
std::map<std::string, json> LayoutFiles(const json& report) {
  std::map<std::string, json> files;
  for (const json& f : report["layout"]["files"]) {
    EXPECT_TRUE(f["error"].is_null()) << f.dump();
    EXPECT_TRUE(f["extents"].is_number()) << f.dump();
    files[f["path"].get<std::string>()] = f;
  }
  EXPECT_EQ(report["layout"]["summary"]["files"].get<size_t>(), files.size());
  return files;
}

class LogWritersOnFs : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS(GetParam());
    fs_ = &SharedFs(GetParam());
  }
  LwRun Go(std::vector<std::string> args) {
    args.insert(args.begin(), "--duration=0");
    LwRun r = RunLogWriters(fs_->mount_point(), args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.report.is_object()) << r.err;
    if (r.report.is_object()) {
      EXPECT_EQ(r.report["status"], "complete") << r.err;
    }
    return r;
  }
  LoopFs* fs_ = nullptr;
};

TEST_P(LogWritersOnFs, OpCountsPerRecordMatchTheOptions) {
  const LwRun r = Go({"--threads=2", "--ops=200", "--log_writers.files_per_thread=2",
                    "--log_writers.writes_per_record=7", "--log_writers.lseeks_per_record=3",
                    "--log_writers.clock_reads_per_record=5"});
  const json& j = r.report;
  EXPECT_EQ(j["work_units"], 200);
  EXPECT_EQ(OpCount(j, "record"), 200u);
  EXPECT_EQ(OpCount(j, "write"), 1400u);
  EXPECT_EQ(OpCount(j, "lseek"), 600u);
  EXPECT_EQ(OpCount(j, "clock"), 1000u);
  EXPECT_EQ(j["ops"]["write"]["bytes"], 200 * 1024);
  EXPECT_EQ(j["app_bytes"]["write"], 200 * 1024);
  for (const char* absent : {"fdatasync", "fsync", "rename", "open", "lock_wait"}) {
    EXPECT_FALSE(j["ops"].contains(absent)) << absent << " cannot happen in this run";
  }
  const json& m = j["module_report"];
  EXPECT_EQ(m["records"], 200);
  EXPECT_EQ(m["per_record"]["writes"], 7.0);
  EXPECT_EQ(m["per_record"]["lseeks"], 3.0);
  EXPECT_EQ(m["per_record"]["clock_reads"], 5.0);
  EXPECT_EQ(m["flush"]["flushes"], 0);
  EXPECT_EQ(m["logs"], 4);
  EXPECT_EQ(m["files_created"], 4);

  // Every log has its layout, and the sizes add up to what was written.
  const auto files = LayoutFiles(j);
  uint64_t bytes = 0;
  for (const char* name : {"t0_f0.log", "t0_f1.log", "t1_f0.log", "t1_f1.log"}) {
    ASSERT_EQ(files.count(std::string("logs/") + name), 1u) << name;
    const json& f = files.at(std::string("logs/") + name);
    bytes += f["size_bytes"].get<uint64_t>();
    // A thread may get no record at all: --ops is shared first come.
    if (f["size_bytes"].get<uint64_t>() > 0) {
      EXPECT_GE(f["extents"].get<uint64_t>(), 1u) << name;
    }
  }
  EXPECT_EQ(bytes, 200u * 1024);
  EXPECT_TRUE(j["device"].is_object());
  std::set<std::string> left = Names(fs_->mount_point());
  left.erase("lost+found");
  EXPECT_TRUE(left.empty()) << "the run directory must be gone";
}

// module_report covers what the ops table covers: the records of the
// warmup are in the files but in neither.
TEST_P(LogWritersOnFs, WarmupIsLeftOutOfTheModuleReport) {
  const LwRun r = Go({"--threads=2", "--warmup=200ms", "--ops=300",
                    "--log_writers.lseeks_per_record=2", "--log_writers.clock_reads_per_record=3",
                    "--log_writers.flush=fdatasync:4", "--log_writers.rotate_size=64KiB"});
  const json& j = r.report;
  const json& m = j["module_report"];
  EXPECT_EQ(OpCount(j, "record"), 300u);
  EXPECT_EQ(m["records"], 300);
  EXPECT_EQ(m["bytes"], j["ops"]["write"]["bytes"]);
  EXPECT_EQ(m["writes"], OpCount(j, "write"));
  EXPECT_EQ(m["lseeks"], OpCount(j, "lseek"));
  EXPECT_EQ(m["clock_reads"], OpCount(j, "clock"));
  EXPECT_EQ(m["flush"]["flushes"], OpCount(j, "fdatasync"));
  EXPECT_EQ(m["rotations"], OpCount(j, "rename"));
  // The warmup did write: the files hold more than the measured records.
  uint64_t on_disk = 0;
  for (const auto& [path, f] : LayoutFiles(j)) on_disk += f["size_bytes"].get<uint64_t>();
  EXPECT_GT(on_disk, 300u * 1024);
  EXPECT_EQ(m["files_created"], LayoutFiles(j).size());
}

TEST_P(LogWritersOnFs, RotationLeavesExactlyTheFilesItShould) {
  // One thread, two logs: 25 records of 1 KiB each. A log is rotated before
  // the record that finds it at 10 KiB: .1 and .2 hold 10 records, the
  // current file 5.
  const LwRun r = Go({"--threads=1", "--ops=50", "--keep", "--log_writers.files_per_thread=2",
                    "--log_writers.writes_per_record=4", "--log_writers.rotate_size=10KiB",
                    "--log_writers.flush=fdatasync:4"});
  const json& j = r.report;
  ASSERT_TRUE(j["run_dir_kept"].get<bool>());
  const std::string run_dir = j["run_dir"];
  ASSERT_EQ(run_dir.rfind(fs_->mount_point() + "/", 0), 0u) << run_dir;
  const std::set<std::string> expected = {"t0_f0.log", "t0_f0.log.1", "t0_f0.log.2",
                                          "t0_f1.log", "t0_f1.log.1", "t0_f1.log.2"};
  EXPECT_EQ(Names(run_dir + "/logs"), expected);
  EXPECT_EQ(Names(run_dir), (std::set<std::string>{".iomimic-run", "logs"}));
  for (const std::string& name : expected) {
    const uint64_t want = name.back() == 'g' ? 5 * 1024 : 10 * 1024;
    EXPECT_EQ(std::filesystem::file_size(run_dir + "/logs/" + name), want) << name;
  }
  std::filesystem::remove_all(run_dir);

  for (const char* op : {"close", "rename", "open"}) EXPECT_EQ(OpCount(j, op), 4u) << op;
  // fdatasync:4 counts records per log across its files: 25 records, 6 calls.
  EXPECT_EQ(OpCount(j, "fdatasync"), 12u);
  EXPECT_EQ(j["module_report"]["rotations"], 4);
  EXPECT_EQ(j["module_report"]["files_created"], 6);
  const auto files = LayoutFiles(j);
  EXPECT_EQ(files.size(), 6u);
  for (const std::string& name : expected) {
    ASSERT_EQ(files.count("logs/" + name), 1u) << name;
    EXPECT_GE(files.at("logs/" + name)["extents"].get<uint64_t>(), 1u) << name;
  }
}

TEST_P(LogWritersOnFs, SyncEveryNRecordsIssuesOneCallPerNRecordsOfEachLog) {
  LwRun r = Go({"--threads=1", "--ops=160", "--log_writers.writes_per_record=10",
              "--log_writers.flush=fdatasync:16"});
  EXPECT_EQ(OpCount(r.report, "fdatasync"), 10u);
  EXPECT_EQ(r.report["ops"]["fdatasync"]["bytes"], 160 * 1024);
  EXPECT_FALSE(r.report["ops"].contains("fsync"));
  EXPECT_EQ(r.report["module_report"]["flush"]["bytes_per_flush"], 16.0 * 1024);
  EXPECT_GE(r.report["device"]["flushes"].get<uint64_t>(), 1u);

  // Two threads, two logs each: the split of records between threads
  // varies, the rule per log does not.
  r = Go({"--threads=2", "--ops=160", "--log_writers.files_per_thread=2",
          "--log_writers.writes_per_record=10", "--log_writers.flush=fsync:16"});
  uint64_t expected = 0, records = 0;
  for (const json& log : r.report["module_report"]["per_log"]) {
    expected += log["records"].get<uint64_t>() / 16;
    records += log["records"].get<uint64_t>();
    EXPECT_EQ(log["flushes"].get<uint64_t>(), log["records"].get<uint64_t>() / 16) << log.dump();
  }
  EXPECT_EQ(records, 160u);
  EXPECT_EQ(OpCount(r.report, "fsync"), expected);
  EXPECT_FALSE(r.report["ops"].contains("fdatasync"));
}

TEST_P(LogWritersOnFs, BufferWritesOnceEachTimeItFillsAndAtRotation) {
  // 160 KiB through a 4000-byte buffer: ceil(163840 / 4000) = 41 write()s.
  LwRun r = Go({"--threads=1", "--ops=160", "--log_writers.flush=buffer:4000"});
  EXPECT_EQ(OpCount(r.report, "write"), 41u);
  EXPECT_EQ(r.report["ops"]["write"]["bytes"], 160 * 1024);
  EXPECT_EQ(OpCount(r.report, "lseek"), 160u * 15);
  EXPECT_EQ(r.report["module_report"]["flush"]["flushes"], 41);
  EXPECT_EQ(r.report["module_report"]["per_record"]["buffer_copies"], 100);
  EXPECT_EQ(LayoutFiles(r.report).at("logs/t0_f0.log")["size_bytes"], 160 * 1024);

  // With rotation at 10 KiB the buffer is written out before each rotation:
  // per log ceil(10240/3000) + ceil(10240/3000) + ceil(5120/3000) = 10.
  r = Go({"--threads=1", "--ops=50", "--log_writers.files_per_thread=2",
          "--log_writers.rotate_size=10KiB", "--log_writers.flush=buffer:3000"});
  EXPECT_EQ(OpCount(r.report, "write"), 20u);
  EXPECT_EQ(r.report["ops"]["write"]["bytes"], 50 * 1024);
  EXPECT_EQ(LayoutFiles(r.report).size(), 6u);
}

TEST_P(LogWritersOnFs, OdsyncMakesEveryWriteAFlush) {
  const LwRun r = Go({"--threads=1", "--ops=20", "--log_writers.writes_per_record=4",
                    "--log_writers.flush=odsync"});
  EXPECT_EQ(OpCount(r.report, "write"), 80u);
  EXPECT_EQ(r.report["module_report"]["flush"]["flushes"], 80);
  EXPECT_EQ(r.report["module_report"]["flush"]["bytes_per_flush"], 256.0);
}

TEST_P(LogWritersOnFs, PreallocReservesEachFileAheadOfItsRecords) {
  const LwRun r = Go({"--threads=1", "--ops=30", "--log_writers.writes_per_record=4",
                    "--log_writers.prealloc=fallocate:1MiB", "--log_writers.rotate_size=10KiB"});
  // Created at prepare (untimed), then once per rotation (recorded).
  EXPECT_EQ(OpCount(r.report, "fallocate"), 2u);
  EXPECT_EQ(r.report["ops"]["fallocate"]["bytes"], 2 << 20);
  const auto files = LayoutFiles(r.report);
  ASSERT_EQ(files.size(), 3u);
  for (const auto& [path, f] : files) {
    // KEEP_SIZE: the size is what was written, the reserve lies beyond it.
    EXPECT_EQ(f["size_bytes"], 10 * 1024) << path;
    EXPECT_GE(f["unwritten_extents"].get<uint64_t>(), 1u) << path << " " << f.dump();
  }
}

TEST_P(LogWritersOnFs, SharedLogsAreWrittenByEveryThreadUnderALock) {
  const LwRun r = Go({"--threads=3", "--ops=90", "--log_writers.shared_files=2",
                    "--log_writers.writes_per_record=5", "--log_writers.lseeks_per_record=0",
                    "--log_writers.clock_reads_per_record=0"});
  EXPECT_EQ(OpCount(r.report, "lock_wait"), 90u);
  EXPECT_EQ(OpCount(r.report, "write"), 450u);
  EXPECT_FALSE(r.report["ops"].contains("lseek"));
  EXPECT_FALSE(r.report["ops"].contains("clock"));
  const auto files = LayoutFiles(r.report);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files.at("logs/shared_f0.log")["size_bytes"].get<uint64_t>() +
                files.at("logs/shared_f1.log")["size_bytes"].get<uint64_t>(),
            90u * 1024);
}

INSTANTIATE_TEST_SUITE_P(Filesystems, LogWritersOnFs, ::testing::Values("ext4", "xfs"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace iomimic::test::log_writers
