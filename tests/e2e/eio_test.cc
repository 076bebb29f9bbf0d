// A real EIO reaches a module: ext4 on a loop device over the FUSE disk of
// the tests (support/faulty_fs.h), which starts failing on demand. The run
// must stop cleanly, say what failed, exit 1 and leave nothing behind.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/faulty_fs.h"
#include "support/loop_fs.h"
#include "support/report_file.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;


// The run directory's name under `dir` ("" when none).
std::string RunDirIn(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return "";
  std::string found;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind("iomimic-", 0) == 0) found = dir + "/" + name;
  }
  ::closedir(d);
  return found;
}

class Eio : public ::testing::Test {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_FAULTY_FS();
    report_ = "/tmp/iomimic-eio-" + std::to_string(::getpid()) + ".json";
  }
  void TearDown() override { ::unlink(report_.c_str()); }

  std::vector<std::string> Args(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"run", "mmap_msync", "--target=" + fs_->mount_point(),
                                     "--output=" + report_, "--format=none"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  std::unique_ptr<FaultyFs> fs_;
  std::string report_;
};

// The disk dies in the middle of the measured phase: writeback of the
// filled regions fails, msync(MS_SYNC) returns EIO.
TEST_F(Eio, WriteErrorsStopTheRunWithEio) {
  // commit=60: the periodic journal commit must not abort the journal in the
  // few milliseconds between the EIO and the cleanup (that case, a dead
  // journal at cleanup time, is DeadFilesystemStopsTheRun below).
  fs_ = FaultyFs::Create(128ull << 20, "commit=60");
  SpawnedProcess p;
  p.Start(Args({"--threads=2", "--duration=60s", "--mmap_msync.region_size=1MiB"}));
  // Under way: several MiB of msync'ed regions have reached the disk.
  const uint64_t before = fs_->ReadCounters().write_bytes;
  ASSERT_TRUE(
      PollUntil([&] { return fs_->ReadCounters().write_bytes > before + (4u << 20); }, seconds(30)))
      << p.StderrSoFar();
  fs_->SetFault(FaultyFs::Fault::kWrites);
  const RunResult r = p.Wait(seconds(60));
  ASSERT_FALSE(r.timed_out) << "the run did not stop on EIO";
  EXPECT_EQ(r.exit_code, 1) << r.err;

  const FaultyFs::Counters c = fs_->ReadCounters();
  EXPECT_GT(c.failed_writes + c.failed_fsyncs, 0u) << "the fault was never hit";
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object()) << "no valid report: " << r.err;
  EXPECT_EQ(j["status"], "failed");
  ASSERT_TRUE(j["error"].is_object()) << j.dump(2);
  EXPECT_EQ(j["error"]["op"], "msync") << j["error"].dump();
  EXPECT_EQ(j["error"]["errno"], EIO) << j["error"].dump();
  EXPECT_EQ(j["error"]["path"], "data.db");
  EXPECT_EQ(j["error"]["phase"], "measure");
  EXPECT_GT(j["error"]["ops_before"].get<uint64_t>(), 0u);
  EXPECT_GE(j["ops"]["msync"]["errors"].get<uint64_t>(), 1u) << j["ops"].dump();
  // Removing the run directory only changes cached metadata while the
  // journal lives: it succeeds although the disk can no longer be written
  // (the removal never reaches the dead disk, nor does anything else).
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0) << "the run directory must be gone";
}

// Reads fail: the fill's first store into each page of a file whose cache
// was dropped must read the page in, the read fails, the store takes SIGBUS.
TEST_F(Eio, ReadErrorOnPageInIsASigbusOfTheFill) {
  fs_ = FaultyFs::Create(128ull << 20);
  // Warm the metadata the run will need (bitmaps, inode table, directory
  // blocks) so that only the data pages are read once reads fail.
  const std::string warm = fs_->mount_point() + "/warm";
  ASSERT_EQ(::mkdir(warm.c_str(), 0755), 0);
  {
    std::ofstream f(warm + "/f");
    f << std::string(1 << 20, 'x');
  }
  ASSERT_EQ(fs_->SyncFs(), 0);
  ASSERT_EQ(::unlink((warm + "/f").c_str()), 0);
  ASSERT_EQ(::rmdir(warm.c_str()), 0);
  ASSERT_EQ(fs_->SyncFs(), 0);

  fs_->SetFault(FaultyFs::Fault::kReads);
  const RunResult r =
      RunIomimic(Args({"--threads=1", "--duration=0", "--ops=4", "--mmap_msync.region_size=1MiB",
                       "--mmap_msync.prealloc=write", "--mmap_msync.cache_after_prepare=drop"}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_GT(fs_->ReadCounters().failed_reads, 0u) << "the fault was never hit";
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object()) << "no valid report: " << r.err;
  EXPECT_EQ(j["status"], "failed");
  ASSERT_TRUE(j["error"].is_object()) << j.dump(2);
  EXPECT_EQ(j["error"]["op"], "fill (SIGBUS)") << j["error"].dump();
  EXPECT_EQ(j["error"]["phase"], "measure");
  EXPECT_EQ(j["error"]["path"], "data.db");
  // The SIGBUS does not carry the errno; fault_guard finds it by reading
  // the faulting page again, which fails the same way.
  EXPECT_EQ(j["error"]["errno"], EIO) << j["error"].dump();
  EXPECT_EQ(CountEntries(fs_->mount_point()), 0) << "the run directory must be gone";
}

// The disk dies and ext4 aborts its journal while the run goes on
// (msync=none: the module never asks for writeback, so only the filesystem
// notices at first). The run's next mmap or page fault fails (EROFS, or
// SIGBUS), and removing the run directory then fails too: nothing can be
// changed on a filesystem whose journal is gone. What must hold: the run
// stops by itself, exit 1, a valid report naming the first error.
void KillJournalMidRun(FaultyFs* fs, SpawnedProcess* p, std::string* run_dir) {
  ASSERT_TRUE(PollUntil(
      [&] {
        *run_dir = RunDirIn(fs->mount_point());
        struct stat st {};
        return !run_dir->empty() && ::stat((*run_dir + "/data.db").c_str(), &st) == 0 &&
               st.st_blocks > 0;
      },
      seconds(30)))
      << p->StderrSoFar();
  fs->SetFault(FaultyFs::Fault::kWrites);
  // Push the dirty pages at the dead disk so ext4 notices now. Its return is
  // not asserted: if writeback already met the error before this syncfs
  // opened its descriptor, the error is not reported to it again (errseq).
  fs->SyncFs();
}

TEST_F(Eio, DeadFilesystemStopsTheRun) {
  fs_ = FaultyFs::Create(128ull << 20);
  SpawnedProcess p;
  p.Start(Args({"--threads=2", "--duration=60s", "--mmap_msync.region_size=1MiB",
                "--mmap_msync.msync=none"}));
  std::string run_dir;
  KillJournalMidRun(fs_.get(), &p, &run_dir);
  if (HasFatalFailure()) return;
  const RunResult r = p.Wait(seconds(60));
  ASSERT_FALSE(r.timed_out) << "the run did not stop on the dead filesystem";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object()) << "no valid report: " << r.err;
  EXPECT_EQ(j["status"], "failed");
  ASSERT_TRUE(j["error"].is_object()) << j.dump(2);
  EXPECT_EQ(j["error"]["phase"], "measure") << j["error"].dump();
  const std::string op = j["error"]["op"];
  EXPECT_TRUE(op == "mmap" || op == "fill (SIGBUS)") << j["error"].dump();
  const int err = j["error"]["errno"].get<int>();
  EXPECT_TRUE(err == EROFS || err == EIO || err == EFAULT) << j["error"].dump();
  EXPECT_EQ(j["run_dir"], run_dir);
  // The run directory stays: unlink fails with EROFS on the dead filesystem.
  EXPECT_EQ(CountEntries(fs_->mount_point()), 1);
}

// When the run already failed, a failure to remove the run directory
// afterwards must still be reported (cleanup_error).
TEST_F(Eio, CleanupFailureAfterAnEarlierErrorIsReported) {
  fs_ = FaultyFs::Create(128ull << 20);
  SpawnedProcess p;
  p.Start(Args({"--threads=2", "--duration=60s", "--mmap_msync.region_size=1MiB",
                "--mmap_msync.msync=none"}));
  std::string run_dir;
  KillJournalMidRun(fs_.get(), &p, &run_dir);
  if (HasFatalFailure()) return;
  const RunResult r = p.Wait(seconds(60));
  ASSERT_FALSE(r.timed_out);
  const json j = ReadReport(report_);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(CountEntries(fs_->mount_point()), 1);
  // Somewhere the report must say that removing the run directory failed.
  const std::string text = j.dump();
  EXPECT_NE(text.find("\"cleanup\""), std::string::npos) << j.dump(2);
  EXPECT_NE(text.find("\"errno\":30"), std::string::npos) << j.dump(2);
}

}  // namespace
}  // namespace iomimic::test
