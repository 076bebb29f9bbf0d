// The strace parser and compiler (src/trace) over snippets of real traces
// recorded here (sqlite3, a multi-threaded program's interleaving) and
// over broken ones: each must be read exactly or refused with its line.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "trace/compiler.h"
#include "trace/op_stream.h"
#include "trace/strace_reader.h"
#include "trace/summary.h"

namespace iomimic::trace {
namespace {

class TraceFile {
 public:
  explicit TraceFile(const std::string& text) {
    path_ = ::testing::TempDir() + "/trace_" + std::to_string(::getpid()) + "_" +
            std::to_string(counter_++) + ".strace";
    std::ofstream(path_) << text;
  }
  ~TraceFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

class Collect : public OpSink {
 public:
  void OnOp(const Op& op, uint32_t thread, uint64_t off) override {
    ops.push_back(op);
    threads.push_back(thread);
    offsets.push_back(off);
  }
  std::vector<Op> ops;
  std::vector<uint32_t> threads;
  std::vector<uint64_t> offsets;
};

// From `strace -f -tt -T -yy -s 0 sqlite3 t.db ...` here.
constexpr const char* kSqlite =
    "12876 20:10:15.639505 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory) <0.000009>\n"
    "12876 20:10:15.639228 brk(NULL)         = 0x559d3281f000 <0.000008>\n"
    "12876 20:10:15.652000 openat(AT_FDCWD</tmp/replay_rec>, \"t.db\", O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC, 0644) = 3</tmp/replay_rec/t.db> <0.000020>\n"
    "12876 20:10:15.652100 newfstatat(3</tmp/replay_rec/t.db>, \"\", {st_mode=S_IFREG|0644, st_size=8192, ...}, AT_EMPTY_PATH) = 0 <0.000008>\n"
    "12876 20:10:15.652200 pread64(3</tmp/replay_rec/t.db>, \"\"..., 100, 0) = 100 <0.000010>\n"
    "12876 20:10:15.652300 fcntl(3</tmp/replay_rec/t.db>, F_SETLK, {l_type=F_RDLCK, l_whence=SEEK_SET, l_start=1073741824, l_len=1}) = 0 <0.000007>\n"
    "12876 20:10:15.652400 pwrite64(3</tmp/replay_rec/t.db>, \"\"..., 4096, 4096) = 4096 <0.000012>\n"
    "12876 20:10:15.652500 fdatasync(3</tmp/replay_rec/t.db>) = 0 <0.000300>\n"
    "12876 20:10:15.652600 write(1</dev/pts/0<char 136:0>>, \"\"..., 4) = 4 <0.000010>\n"
    "12876 20:10:15.652700 close(3</tmp/replay_rec/t.db>) = 0 <0.000009>\n"
    "12876 20:10:15.652800 +++ exited with 0 +++\n";

TEST(TraceParser, RealSqliteSnippetCompilesToOpsAndFileFacts) {
  TraceFile f(kSqlite);
  StraceReader r(f.path());
  Collect sink;
  Compiler c(&sink);
  Event ev;
  while (r.Next(&ev)) c.Add(ev);
  c.Finish();
  ASSERT_EQ(sink.ops.size(), 8u);  // access openat newfstatat pread fcntl pwrite fdatasync close
  EXPECT_EQ(sink.ops[0].sys, Sys::k_access);
  EXPECT_EQ(sink.ops[0].err, ENOENT);
  EXPECT_EQ(sink.ops[1].sys, Sys::k_openat);
  EXPECT_EQ(sink.ops[1].c & O_CREAT, O_CREAT);
  EXPECT_EQ(sink.ops[1].mode, 0644u);
  EXPECT_EQ(sink.ops[3].a, 0);
  EXPECT_EQ(sink.ops[3].b, 100);
  EXPECT_EQ(sink.ops[4].extra, F_SETLK);
  EXPECT_EQ(sink.ops[4].a, 1073741824);
  EXPECT_EQ(sink.ops[5].a, 4096);
  EXPECT_EQ(sink.ops[5].slot, sink.ops[1].new_slot);
  // The O_CREAT open of a database that showed 8 KiB before any write: it
  // existed, with that size.
  const FileInfo& db = c.files().at(sink.ops[1].file);
  EXPECT_EQ(db.path, "/tmp/replay_rec/t.db");
  EXPECT_EQ(db.initial, Initial::kFile);
  EXPECT_EQ(db.initial_size, 8192u);
  EXPECT_FALSE(db.created);
  EXPECT_EQ(c.files().at(sink.ops[0].file).initial, Initial::kAbsent);
  EXPECT_EQ(c.exits(), 1u);
  // brk is not I/O; the write to the terminal is not a file: both counted.
  EXPECT_EQ((c.unreplayed().at({"brk", "not file I/O"})), 1u);
  EXPECT_EQ((c.unreplayed().at({"write", "not a regular file (pipe, socket, device, /proc, /sys)"})),
            1u);
}

// From `strace ... rrdtool -` here: one update of one RRD, through mmap.
constexpr const char* kRrdtool =
    "17497 20:28:45.222059 openat(AT_FDCWD</tmp/replay_fid_work.SOx5gq/mnt/rrdtool>, \"rrd/h7.rrd\", O_RDWR) = 3</tmp/replay_fid_work.SOx5gq/mnt/rrdtool/rrd/h7.rrd> <0.000018>\n"
    "17497 20:28:45.222105 fcntl(3</tmp/replay_fid_work.SOx5gq/mnt/rrdtool/rrd/h7.rrd>, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=0}) = 0 <0.000009>\n"
    "17497 20:28:45.222138 newfstatat(3</tmp/replay_fid_work.SOx5gq/mnt/rrdtool/rrd/h7.rrd>, \"\", {st_mode=S_IFREG|0644, st_size=21984, ...}, AT_EMPTY_PATH) = 0 <0.000008>\n"
    "17497 20:28:45.222174 mmap(NULL, 21984, PROT_READ|PROT_WRITE, MAP_SHARED, 3</tmp/replay_fid_work.SOx5gq/mnt/rrdtool/rrd/h7.rrd>, 0) = 0x7f94cc980000 <0.000015>\n"
    "17497 20:28:45.222216 madvise(0x7f94cc980000, 21984, MADV_RANDOM) = 0 <0.000008>\n"
    "17497 20:28:45.222357 madvise(0x7f94cc980000, 4096, MADV_NORMAL) = 0 <0.000012>\n"
    "17497 20:28:45.222392 madvise(0x7f94cc980000, 4096, MADV_WILLNEED) = 0 <0.000009>\n"
    "17497 20:28:45.222427 munmap(0x7f94cc980000, 21984) = 0 <0.000014>\n"
    "17497 20:28:45.222458 close(3</tmp/replay_fid_work.SOx5gq/mnt/rrdtool/rrd/h7.rrd>) = 0 <0.000014>\n";

TEST(TraceParser, RealRrdtoolUpdateMapsAndAdvisesTheFile) {
  TraceFile f(kRrdtool);
  StraceReader r(f.path());
  Collect sink;
  Compiler c(&sink);
  Event ev;
  while (r.Next(&ev)) c.Add(ev);
  c.Finish();
  std::vector<Sys> seen;
  for (const Op& op : sink.ops) seen.push_back(op.sys);
  ASSERT_EQ(seen, (std::vector<Sys>{Sys::k_openat, Sys::k_fcntl, Sys::k_newfstatat, Sys::k_mmap,
                                    Sys::k_madvise, Sys::k_madvise, Sys::k_madvise, Sys::k_munmap,
                                    Sys::k_close}));
  const Op& mmap = sink.ops[3];
  EXPECT_EQ(mmap.b, 21984);
  EXPECT_EQ(mmap.c & MAP_SHARED, MAP_SHARED);
  for (size_t i = 4; i < 8; ++i) {
    EXPECT_EQ(sink.ops[i].map, mmap.new_slot);
    EXPECT_EQ(sink.ops[i].a, 0);  // at the mapping's start
  }
  EXPECT_EQ(sink.ops[5].b, 4096);
  // The RRD existed (opened without O_CREAT) with the size fstat showed.
  const FileInfo& rrd = c.files().at(sink.ops[0].file);
  EXPECT_EQ(rrd.initial, Initial::kFile);
  EXPECT_EQ(rrd.initial_size, 21984u);
  EXPECT_TRUE(rrd.mmapped);
}

TEST(TraceParser, UnfinishedAndResumedCallsOfTwoThreadsAreJoined) {
  TraceFile f(
      "100 10:00:00.000001 openat(AT_FDCWD</d>, \"a\", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 3</d/a> <0.000010>\n"
      "100 10:00:00.000100 clone(child_stack=0x7f, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 101 <0.000050>\n"
      "100 10:00:00.000200 write(3</d/a>, \"\"..., 10 <unfinished ...>\n"
      "101 10:00:00.000210 write(3</d/a>, \"\"..., 20 <unfinished ...>\n"
      "100 10:00:00.000300 <... write resumed>) = 10 <0.000100>\n"
      "101 10:00:00.000310 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER} ---\n"
      "101 10:00:00.000320 <... write resumed>) = 20 <0.000110>\n"
      "101 10:00:00.000400 +++ exited with 0 +++\n");
  StraceReader r(f.path());
  Collect sink;
  Compiler c(&sink);
  Event ev;
  while (r.Next(&ev)) c.Add(ev);
  ASSERT_EQ(sink.ops.size(), 3u);
  EXPECT_EQ(sink.ops[1].b, 10);
  EXPECT_EQ(sink.threads[1], 0u);
  EXPECT_EQ(sink.ops[2].b, 20);
  EXPECT_EQ(sink.threads[2], 1u);
  // The thread shares its parent's descriptors: same slot, and the second
  // write lands after the first.
  EXPECT_EQ(sink.ops[2].slot, sink.ops[0].new_slot);
  EXPECT_EQ(sink.offsets[2], 10u);
  EXPECT_EQ(sink.ops[1].ts_ns, 199'000u);  // from the unfinished line
  EXPECT_EQ(c.signals(), 1u);
  EXPECT_EQ(r.unfinished_at_end(), 0u);
}

TEST(TraceParser, TruncatedLastLineIsRefusedWithItsNumber) {
  const std::string full = kSqlite;
  size_t cut = 0;
  for (int i = 0; i < 5; ++i) cut = full.find('\n', cut) + 1;
  TraceFile f(full.substr(0, cut + 40));  // cut inside the 6th line
  StraceReader r(f.path());
  Event ev;
  try {
    while (r.Next(&ev)) {
    }
    FAIL() << "a truncated trace was accepted";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.line(), 6u) << e.what();
  }
}

TEST(TraceParser, GarbageAndOrphanResumeAreRefusedWithTheirLine) {
  TraceFile garbage(
      "1 10:00:00.000001 close(3</x>) = 0 <0.000001>\nthis is not strace output\n");
  StraceReader r1(garbage.path());
  Event ev;
  EXPECT_TRUE(r1.Next(&ev));
  EXPECT_THROW(r1.Next(&ev), TraceError);
  EXPECT_EQ(r1.lines(), 2u);
  TraceFile orphan("7 10:00:00.000001 <... read resumed>) = 3 <0.000001>\n");
  StraceReader r2(orphan.path());
  try {
    r2.Next(&ev);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(std::string(e.what()).find("read resumed"), std::string::npos);
  }
}

TEST(TraceParser, OpStreamRoundTripsPerThread) {
  // Its own directory: other test processes (and other checkouts) share /tmp.
  std::string dir = ::testing::TempDir() + "/op_stream_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  OpStreamWriter w(dir);
  Op a;
  a.sys = Sys::k_write;
  a.b = 123;
  for (int i = 0; i < 5000; ++i) w.OnOp(a, static_cast<uint32_t>(i % 2), 0);
  w.Close();
  OpStreamReader r(dir, 1);
  Op op;
  int n = 0;
  while (r.Next(&op)) n += op.b == 123;
  EXPECT_EQ(n, 2500);
  r.Rewind();
  EXPECT_TRUE(r.Next(&op));
  ::unlink(OpStreamWriter::PathOf(dir, 0).c_str());
  ::unlink(OpStreamWriter::PathOf(dir, 1).c_str());
  ::rmdir(dir.c_str());
}

TEST(TraceParser, SummaryCountsSequentialShareAndProbes) {
  TraceFile f(kSqlite);
  const auto s = Summarize(f.path(), {});
  EXPECT_EQ(s["ops"]["pwrite64"]["bytes"].get<uint64_t>(), 4096u);
  EXPECT_EQ(s["files"]["enoent_probes"].get<uint64_t>(), 1u);
  EXPECT_EQ(s["flush"]["count"].get<uint64_t>(), 1u);
  EXPECT_EQ(s["threads"].size(), 1u);
}

}  // namespace
}  // namespace iomimic::trace
