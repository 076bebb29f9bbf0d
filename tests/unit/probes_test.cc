// Probes on the real thing: loop-mounted ext4, xfs and btrfs for the
// target, device counters and file layout; this machine's /proc for CPU,
// memory and vmstat. Parsing details are pinned on fixed input.
#include "probes/probes.h"
#include "support/result_json.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platform/mountinfo.h"
#include "platform/path.h"
#include "platform/sysfs.h"
#include "support/loop_fs.h"

namespace iomimic::probes {
namespace {

using nlohmann::json;
using test::LoopFs;
using test::J;

constexpr size_t kBlock = 4096;

// --- helpers ------------------------------------------------------------------

int OpenOrDie(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) ADD_FAILURE() << "open " << path << ": " << std::strerror(errno);
  return fd;
}

void PwriteAll(int fd, const void* buf, size_t len, off_t off) {
  ASSERT_EQ(::pwrite(fd, buf, len, off), static_cast<ssize_t>(len)) << std::strerror(errno);
}

// 8 MiB, preallocated, written front to back in 1 MiB writes, one fsync.
void WriteSequential(const std::string& path, size_t bytes) {
  const int fd = OpenOrDie(path, O_WRONLY | O_CREAT | O_TRUNC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::posix_fallocate(fd, 0, static_cast<off_t>(bytes)), 0);
  const std::string chunk(1 << 20, 's');
  for (size_t off = 0; off < bytes; off += chunk.size()) {
    PwriteAll(fd, chunk.data(), chunk.size(), static_cast<off_t>(off));
  }
  ASSERT_EQ(::fsync(fd), 0);
  ::close(fd);
}

// Two files grown 4 KiB at a time, in turn, each write made durable at
// once: the allocator hands out blocks to both alternately, which is how
// concurrent appenders fragment each other.
void WriteInterleaved(const std::string& a, const std::string& b, size_t blocks) {
  const int fa = OpenOrDie(a, O_WRONLY | O_CREAT | O_TRUNC);
  const int fb = OpenOrDie(b, O_WRONLY | O_CREAT | O_TRUNC);
  ASSERT_GE(fa, 0);
  ASSERT_GE(fb, 0);
  const std::string block(kBlock, 'i');
  for (size_t i = 0; i < blocks; ++i) {
    for (int fd : {fa, fb}) {
      PwriteAll(fd, block.data(), block.size(), static_cast<off_t>(i * kBlock));
      ASSERT_EQ(::fsync(fd), 0);
    }
  }
  ::close(fa);
  ::close(fb);
}

// One file written 4 KiB at a time from its end to its start, fsync after each.
void WriteReverse(const std::string& path, size_t blocks) {
  const int fd = OpenOrDie(path, O_WRONLY | O_CREAT | O_TRUNC);
  ASSERT_GE(fd, 0);
  const std::string block(kBlock, 'r');
  for (size_t i = blocks; i-- > 0;) {
    PwriteAll(fd, block.data(), block.size(), static_cast<off_t>(i * kBlock));
    ASSERT_EQ(::fsync(fd), 0);
  }
  ::close(fd);
}

uint64_t Extents(const json& layout, size_t index) {
  const json& f = layout.at("files").at(index);
  EXPECT_TRUE(f.at("error").is_null()) << f.dump();
  return f.at("extents").get<uint64_t>();
}

// Writes a sysfs attribute and puts the old value back when it goes out of scope.
class SysfsOverride {
 public:
  SysfsOverride(std::string path, const std::string& value) : path_(std::move(path)) {
    old_ = platform::ReadFileTrimmed(path_).value_or("");
    Write(value);
  }
  ~SysfsOverride() {
    if (!old_.empty()) Write(old_);
  }
  bool Write(const std::string& value) {
    std::ofstream out(path_);
    out << value << '\n';
    out.flush();
    return out.good();
  }

 private:
  std::string path_;
  std::string old_;
};

// --- platform parsing (no root needed) --------------------------------------

TEST(ProbePlatformTest, ParsesMountInfoLineWithEscapesAndOptionalFields) {
  const auto e = platform::ParseMountInfoLine(
      "36 35 98:0 /mnt1 /mnt/my\\040disk rw,noatime master:1 shared:7 - ext4 /dev/sd\\134x "
      "rw,errors=continue");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->mount_id, 36);
  EXPECT_EQ(e->parent_id, 35);
  EXPECT_EQ(e->major, 98u);
  EXPECT_EQ(e->minor, 0u);
  EXPECT_EQ(e->root, "/mnt1");
  EXPECT_EQ(e->mount_point, "/mnt/my disk");
  EXPECT_EQ(e->options, "rw,noatime");
  EXPECT_EQ(e->fs_type, "ext4");
  EXPECT_EQ(e->source, "/dev/sd\\x");
  EXPECT_EQ(e->super_options, "rw,errors=continue");
}

TEST(ProbePlatformTest, RejectsMalformedMountInfoLines) {
  EXPECT_FALSE(platform::ParseMountInfoLine("").has_value());
  EXPECT_FALSE(platform::ParseMountInfoLine("36 35 98:0 / /mnt rw ext4 /dev/x rw").has_value());
  EXPECT_FALSE(platform::ParseMountInfoLine("36 35 980 / /mnt rw - ext4 /dev/x rw").has_value());
}

TEST(ProbePlatformTest, FindsLongestMountPrefixByPathComponent) {
  std::vector<platform::MountEntry> mounts(4);
  mounts[0].mount_point = "/";
  mounts[1].mount_point = "/mnt/a";
  mounts[2].mount_point = "/mnt/ab";
  mounts[3].mount_point = "/mnt/a";  // mounted over [1]
  mounts[3].fs_type = "top";
  EXPECT_EQ(platform::FindMountFor(mounts, "/mnt/a/x"), &mounts[3]);
  EXPECT_EQ(platform::FindMountFor(mounts, "/mnt/a"), &mounts[3]);
  EXPECT_EQ(platform::FindMountFor(mounts, "/mnt/abc"), &mounts[0]);
  EXPECT_EQ(platform::FindMountFor(mounts, "/mnt/ab/c"), &mounts[2]);
  EXPECT_EQ(platform::FindMountFor({}, "/x"), nullptr);
}

TEST(ProbePlatformTest, ThisProcessHasARootMount) {
  const std::vector<platform::MountEntry> mounts = platform::ReadMountInfo();
  ASSERT_FALSE(mounts.empty());
  const platform::MountEntry* root = platform::FindMountFor(mounts, "/");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->mount_point, "/");
  EXPECT_TRUE(platform::ReadMountInfo("/nonexistent/mountinfo").empty());
}

TEST(ProbePlatformTest, SysfsSelectorsAndNumbers) {
  EXPECT_EQ(platform::ActiveChoice("none [mq-deadline] kyber bfq\n"), "mq-deadline");
  EXPECT_EQ(platform::ActiveChoice("always [madvise] never"), "madvise");
  EXPECT_EQ(platform::ActiveChoice("none\n"), "none");
  EXPECT_EQ(platform::ActiveChoice("  \n"), std::nullopt);
  EXPECT_EQ(platform::AllChoices("[none] mq-deadline"),
            (std::vector<std::string>{"none", "mq-deadline"}));
  EXPECT_EQ(platform::ParseUint("128"), 128u);
  EXPECT_EQ(platform::ParseUint("-1"), std::nullopt);
  EXPECT_EQ(platform::ParseUint("12 kB"), std::nullopt);
  EXPECT_EQ(platform::ParseUint(""), std::nullopt);
  EXPECT_EQ(platform::ReadUint("/nonexistent"), std::nullopt);
  EXPECT_EQ(platform::MergeOptions("rw,relatime", "rw,discard"), "rw,relatime,discard");
  EXPECT_EQ(platform::RelativeTo("/a/b/c", "/a"), "b/c");
  EXPECT_EQ(platform::RelativeTo("/a/b/c", "/a/"), "b/c");
  EXPECT_EQ(platform::RelativeTo("/ab/c", "/a"), "/ab/c");
}

TEST(ProbePlatformTest, ResolvesAPathThatDoesNotExistYetThroughItsParent) {
  const auto resolved = platform::ResolveExistingPrefix("/proc/self/../nonexistent/x/y");
  EXPECT_EQ(resolved, "/proc/nonexistent/x/y");
}

// --- system, CPU, vmstat ---------------------------------------------------------

TEST(ProbeSystemTest, ReportsKernelCpusMemoryAndWritebackTunables) {
  const json s = J(SystemInfo());
  EXPECT_FALSE(s.at("kernel").get<std::string>().empty());
  EXPECT_EQ(s.at("cpus").get<long>(), ::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(s.at("page_size").get<long>(), ::sysconf(_SC_PAGESIZE));
  EXPECT_GT(s.at("memory_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(s.at("vm").at("dirty_ratio"), json(platform::ReadUint("/proc/sys/vm/dirty_ratio")
                                                    .value_or(0)));
  ASSERT_TRUE(s.at("thp").contains("enabled"));
  if (s.at("thp").at("enabled").is_string()) {
    // The active choice, without its brackets.
    EXPECT_EQ(s.at("thp").at("enabled").get<std::string>().find('['), std::string::npos);
  }
}

TEST(ProbeCpuTest, SharesSumToOneHundred) {
  const CpuTimes before = ReadCpuTimes();
  ASSERT_TRUE(before.valid);
  // Burn 300 ms of this process's CPU time (not wall time: on a loaded
  // machine a wall-clock loop may get far less CPU than it lasts).
  auto cpu_ns = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
  };
  const auto until = cpu_ns() + 300'000'000LL;
  volatile uint64_t sink = 0;
  while (cpu_ns() < until) sink = sink + 1;
  const CpuTimes after = ReadCpuTimes();
  const json d = J(CpuDelta(before, after));
  const double sum = d.at("user_pct").get<double>() + d.at("system_pct").get<double>() +
                     d.at("iowait_pct").get<double>() + d.at("idle_pct").get<double>() +
                     d.at("other_pct").get<double>();
  EXPECT_NEAR(sum, 100.0, 1e-6);
  EXPECT_GT(d.at("user_pct").get<double>(), 0.0);
  EXPECT_GT(d.at("process").at("user_s").get<double>() + d.at("process").at("sys_s").get<double>(),
            0.1);
  EXPECT_TRUE(d.at("procs_blocked_end").is_number_unsigned());
}

TEST(ProbeCpuTest, NoElapsedJiffiesGiveNullShares) {
  CpuTimes t;
  t.valid = true;
  const json d = J(CpuDelta(t, t));
  EXPECT_TRUE(d.at("user_pct").is_null());
  EXPECT_TRUE(d.at("idle_pct").is_null());
}

TEST(ProbeVmStatTest, FreshAnonymousMemoryCountsPageFaults) {
  constexpr size_t kBytes = 16 << 20;
  const VmStat before = ReadVmStat();
  ASSERT_TRUE(before.valid);
  void* p = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  // Small pages, so that each page is one fault whatever THP is set to.
  ::madvise(p, kBytes, MADV_NOHUGEPAGE);
  const long page = ::sysconf(_SC_PAGESIZE);
  for (size_t off = 0; off < kBytes; off += static_cast<size_t>(page)) {
    static_cast<volatile char*>(p)[off] = 1;
  }
  const VmStat after = ReadVmStat();
  ::munmap(p, kBytes);
  const json d = J(VmStatDelta(before, after));
  ASSERT_TRUE(d.contains("pgfault")) << d.dump();
  EXPECT_GE(d.at("pgfault").get<uint64_t>(), kBytes / static_cast<size_t>(page));
  EXPECT_TRUE(d.contains("nr_dirty_end"));
  EXPECT_FALSE(d.contains("nr_dirty"));  // a gauge: its end value, not a delta
  EXPECT_FALSE(d.contains("nr_free_pages"));  // not one of the explained counters
}

TEST(ProbeVmStatTest, MissingCountersAreLeftOut) {
  VmStat before, after;
  before.valid = after.valid = true;
  before.values = {{"pgfault", 10}, {"pgscan_direct", 1}};
  after.values = {{"pgfault", 15}, {"pgscan_direct", 4}, {"pgmajfault", 3}};
  const json d = J(VmStatDelta(before, after));
  EXPECT_EQ(d, json({{"scope", "system-wide"}, {"pgfault", 5}, {"pgscan_direct", 3}}));
}

// --- device counters: arithmetic --------------------------------------------------

TEST(ProbeDiskTest, DeltaComputesBytesAveragesAndRatios) {
  DiskCounters before, after;
  before.valid = after.valid = true;
  before.reads = 10, after.reads = 14;
  before.read_sectors = 100, after.read_sectors = 100 + 4 * 256;  // 4 x 128 KiB
  before.writes = 5, after.writes = 5;
  before.flushes = 2, after.flushes = 7;
  before.read_merges = 1, after.read_merges = 3;
  const json d = J(DiskDelta("loop9", before, after, 128 << 10, 0));
  EXPECT_EQ(d.at("device"), "loop9");
  EXPECT_EQ(d.at("reads"), 4);
  EXPECT_EQ(d.at("read_bytes"), 512 << 10);
  EXPECT_DOUBLE_EQ(d.at("avg_read_kib").get<double>(), 128.0);
  EXPECT_DOUBLE_EQ(d.at("avg_write_kib").get<double>(), 0.0);
  EXPECT_EQ(d.at("flushes"), 5);
  EXPECT_EQ(d.at("read_merges"), 2);
  EXPECT_DOUBLE_EQ(d.at("device_bytes_per_app_byte").at("read").get<double>(), 4.0);
  EXPECT_TRUE(d.at("device_bytes_per_app_byte").at("write").is_null());
}

TEST(ProbeDiskTest, InvalidOrResetCountersGiveNull) {
  DiskCounters before, after;
  EXPECT_TRUE(J(DiskDelta("x", before, after, 0, 0)).is_null());
  before.valid = after.valid = true;
  before.writes = 10;  // after.writes == 0: the device was re-created
  EXPECT_TRUE(J(DiskDelta("x", before, after, 0, 0)).is_null());
}

TEST(ProbeDiskTest, UnknownDeviceIsInvalidNotAnError) {
  EXPECT_FALSE(ReadDiskCounters("no-such-disk").valid);
  EXPECT_FALSE(ReadDiskCounters("").valid);
  EXPECT_FALSE(ReadDiskCounters("../../proc").valid);
}

// --- layout without a block device ------------------------------------------------

TEST(ProbeLayoutTest, TmpfsGivesAnErrorStringNotAnException) {
  const json target = J(DescribeTarget("/dev/shm"));
  if (target.at("fs_type") != "tmpfs") GTEST_SKIP() << "/dev/shm is not tmpfs here";
  EXPECT_TRUE(target.at("device").is_null());
  EXPECT_EQ(BlockDeviceOf("/dev/shm"), "");

  char path[] = "/dev/shm/iomimic-probe-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  PwriteAll(fd, "data", 4, 0);
  ::close(fd);
  json layout;
  EXPECT_NO_THROW(layout = J(FileLayout({path, "/dev/shm/iomimic-no-such-file"}, "/dev/shm")));
  ::unlink(path);

  const json& f = layout.at("files").at(0);
  EXPECT_EQ(f.at("path"), std::string(path).substr(std::strlen("/dev/shm/")));
  ASSERT_TRUE(f.at("error").is_string()) << f.dump();
  EXPECT_NE(f.at("error").get<std::string>().find("FIEMAP"), std::string::npos);
  EXPECT_TRUE(f.at("extents").is_null());
  const json& missing = layout.at("files").at(1);
  EXPECT_NE(missing.at("error").get<std::string>().find("open"), std::string::npos);
  EXPECT_EQ(layout.at("summary").at("files"), 2);
  EXPECT_EQ(layout.at("summary").at("errors"), 2);
  EXPECT_TRUE(layout.at("summary").at("extents_mean").is_null());
}

// --- on real filesystems ---------------------------------------------------------

class ProbeOnFsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS(GetParam());
    fs_ = LoopFs::Create(GetParam());
  }
  std::string Path(const std::string& name) const { return fs_->mount_point() + "/" + name; }

  std::unique_ptr<LoopFs> fs_;
};

TEST_P(ProbeOnFsTest, DescribesFilesystemDeviceAndBackingFile) {
  const std::string dir = Path("sub");
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const json t = J(DescribeTarget(dir));
  EXPECT_EQ(t.at("path"), dir);
  EXPECT_EQ(t.at("fs_type"), GetParam());
  EXPECT_EQ(t.at("mount_point"), fs_->mount_point());
  EXPECT_EQ(t.at("mount_source"), fs_->device());
  EXPECT_NE(t.at("mount_options").get<std::string>().find("rw"), std::string::npos);
  EXPECT_GE(t.at("fs").at("block_size").get<uint64_t>(), 4096u);
  EXPECT_GT(t.at("fs").at("total_bytes").get<uint64_t>(), 0u);
  const json& d = t.at("device");
  ASSERT_TRUE(d.is_object()) << t.dump(1);
  EXPECT_EQ(d.at("name"), fs_->device_name());
  EXPECT_EQ(d.at("major"), 7);  // LOOP_MAJOR
  EXPECT_TRUE(d.at("partition").is_null());
  EXPECT_EQ(d.at("backing_file"), fs_->image());
  EXPECT_EQ(d.at("size_bytes"), test::kLoopFsDefaultBytes);
  const json& q = d.at("queue");
  for (const char* key : {"scheduler", "nr_requests", "read_ahead_kb", "max_sectors_kb",
                          "rotational", "logical_block_size"}) {
    EXPECT_FALSE(q.at(key).is_null()) << key << " in " << q.dump();
  }
  EXPECT_EQ(BlockDeviceOf(dir), fs_->device_name());
  // A run directory that does not exist yet is on the same device.
  EXPECT_EQ(BlockDeviceOf(Path("not/yet/created")), fs_->device_name());
}

TEST_P(ProbeOnFsTest, ReadAheadIsWhatSysfsSaysAndFollowsAChange) {
  const std::string attr = "/sys/block/" + fs_->device_name() + "/queue/read_ahead_kb";
  const uint64_t sysfs = platform::ReadUint(attr).value();
  EXPECT_EQ(J(DescribeTarget(fs_->mount_point()))["device"]["queue"]["read_ahead_kb"], sysfs);

  const uint64_t wanted = sysfs == 256 ? 512 : 256;
  SysfsOverride change(attr, std::to_string(wanted));
  ASSERT_EQ(platform::ReadUint(attr), wanted);
  EXPECT_EQ(J(DescribeTarget(fs_->mount_point()))["device"]["queue"]["read_ahead_kb"], wanted);
}

TEST_P(ProbeOnFsTest, InterleavedSyncedWritesFragmentMoreThanSequential) {
  WriteSequential(Path("seq"), 8 << 20);
  WriteInterleaved(Path("a"), Path("b"), 256);
  WriteReverse(Path("rev"), 256);
  const json layout =
      J(FileLayout({Path("seq"), Path("a"), Path("b"), Path("rev")}, fs_->mount_point()));
  const uint64_t seq = Extents(layout, 0);
  const uint64_t interleaved = Extents(layout, 1);
  EXPECT_EQ(layout.at("files").at(0).at("path"), "seq");
  EXPECT_EQ(layout.at("files").at(0).at("size_bytes"), 8 << 20);
  EXPECT_GE(seq, 1u);
  if (GetParam() != "btrfs") {
    EXPECT_LE(seq, 4u) << layout.dump();
  }
  // Relative, not absolute: how much worse depends on the allocator.
  EXPECT_GT(interleaved, 4 * seq) << layout.dump();
  const json& a = layout.at("files").at(1);
  EXPECT_LE(a.at("contiguous_runs").get<uint64_t>(), interleaved);
  EXPECT_LE(a.at("min_extent_bytes").get<uint64_t>(), a.at("max_extent_bytes").get<uint64_t>());
  const json& s = layout.at("summary");
  EXPECT_EQ(s.at("files"), 4);
  EXPECT_EQ(s.at("errors"), 0);
  EXPECT_EQ(s.at("extents_max").get<uint64_t>(),
            std::max({seq, interleaved, Extents(layout, 2), Extents(layout, 3)}));
}

TEST_P(ProbeOnFsTest, FallocatedButUnwrittenExtentsAreCounted) {
  const int fd = OpenOrDie(Path("prealloc"), O_WRONLY | O_CREAT);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::fallocate(fd, 0, 0, 4 << 20), 0);
  ::close(fd);
  const json f = J(FileLayout({Path("prealloc")}, fs_->mount_point())).at("files").at(0);
  EXPECT_GE(f.at("extents").get<uint64_t>(), 1u);
  EXPECT_EQ(f.at("unwritten_extents"), f.at("extents")) << f.dump();
}

TEST_P(ProbeOnFsTest, DirectWriteShowsInDeviceWriteBytes) {
  constexpr size_t kBytes = 4 << 20;
  const std::string name = fs_->device_name();
  const DiskCounters before = ReadDiskCounters(name);
  ASSERT_TRUE(before.valid);
  const int fd = OpenOrDie(Path("direct"), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT);
  ASSERT_GE(fd, 0);
  void* buf = nullptr;
  ASSERT_EQ(::posix_memalign(&buf, kBlock, 1 << 20), 0);
  std::memset(buf, 'd', 1 << 20);
  for (size_t off = 0; off < kBytes; off += 1 << 20) {
    PwriteAll(fd, buf, 1 << 20, static_cast<off_t>(off));
  }
  ASSERT_EQ(::fsync(fd), 0);
  ::close(fd);
  std::free(buf);
  const DiskCounters after = ReadDiskCounters(name);
  const json d = J(DiskDelta(name, before, after, 0, kBytes));
  ASSERT_TRUE(d.is_object());
  EXPECT_GE(d.at("write_bytes").get<uint64_t>(), kBytes) << d.dump();
  EXPECT_GT(d.at("writes").get<uint64_t>(), 0u);
  EXPECT_GT(d.at("avg_write_kib").get<double>(), 0.0);
  EXPECT_GE(d.at("device_bytes_per_app_byte").at("write").get<double>(), 1.0);
  EXPECT_TRUE(d.at("device_bytes_per_app_byte").at("read").is_null());
}

TEST_P(ProbeOnFsTest, ColdReadShowsInDeviceReadBytes) {
  constexpr size_t kBytes = 1 << 20;
  WriteSequential(Path("cold"), kBytes);
  const int fd = OpenOrDie(Path("cold"), O_RDONLY);
  ASSERT_GE(fd, 0);
  // Clean after the fsync, so DONTNEED really drops the pages.
  ASSERT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
  const std::string name = fs_->device_name();
  const DiskCounters before = ReadDiskCounters(name);
  std::string buf(kBytes, '\0');
  size_t got = 0;
  while (got < kBytes) {
    const ssize_t n = ::read(fd, buf.data() + got, kBytes - got);
    ASSERT_GT(n, 0) << std::strerror(errno);
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  const DiskCounters after = ReadDiskCounters(name);
  const json d = J(DiskDelta(name, before, after, kBytes, 0));
  ASSERT_TRUE(d.is_object());
  EXPECT_GE(d.at("read_bytes").get<uint64_t>(), kBytes) << d.dump();
  EXPECT_GT(d.at("avg_read_kib").get<double>(), 0.0);
  EXPECT_GE(d.at("device_bytes_per_app_byte").at("read").get<double>(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(ProbeFs, ProbeOnFsTest, ::testing::Values("ext4", "xfs", "btrfs"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(ProbePartitionTest, PartitionResolvesToItsWholeDisk) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  const auto fs = LoopFs::CreatePartitioned("ext4", 64 << 20);
  const json t = J(DescribeTarget(fs->mount_point()));
  EXPECT_EQ(t.at("mount_source"), fs->partition());
  const json& d = t.at("device");
  ASSERT_TRUE(d.is_object()) << t.dump(1);
  EXPECT_EQ(d.at("name"), fs->device_name());
  EXPECT_EQ(d.at("partition"), fs->device_name() + "p1");
  EXPECT_EQ(d.at("backing_file"), fs->image());
  // The disk's own number, not the partition's.
  struct stat st {};
  ASSERT_EQ(::stat(fs->device().c_str(), &st), 0);
  EXPECT_EQ(d.at("minor"), minor(st.st_rdev));
  EXPECT_FALSE(d.at("queue").at("read_ahead_kb").is_null());
  EXPECT_EQ(BlockDeviceOf(fs->mount_point()), fs->device_name());
  EXPECT_TRUE(ReadDiskCounters(fs->device_name()).valid);
}

}  // namespace
}  // namespace iomimic::probes
