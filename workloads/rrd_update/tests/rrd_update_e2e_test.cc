// rrd_update end to end: the built binary on freshly made loop-mounted ext4
// and xfs, checked through its JSON report and the files it leaves with
// --keep (read back with the module's own format arithmetic).
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../rrd_image.h"
#include "../rrd_layout.h"
#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::rrd_update {
namespace {

using nlohmann::json;
using test::LoopFs;
using test::RunIomimic;

constexpr uint64_t kOrdinary = 1700000100;    // 2023-11-14 22:15 UTC
constexpr uint64_t kTwoHourMark = 1699999200;  // 2023-11-14 22:00 UTC

std::string ReportPath(const std::string& tag) {
  return "/tmp/iomimic-e2e-rrd-" + tag + "-" + std::to_string(::getpid()) + ".json";
}

// Runs rrd_update on `dir` with `args`; returns the JSON report.
json RunRrd(const std::string& dir, const std::string& tag, std::vector<std::string> args) {
  const std::string report = ReportPath(tag);
  std::vector<std::string> argv = {"run", "rrd_update", "--target=" + dir,
                                   "--output=" + report, "--format=none"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = RunIomimic(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(report);
  if (!in) return json();
  json j = json::parse(in);
  ::unlink(report.c_str());
  return j;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string FilePath(const std::string& run_dir, uint64_t i) {
  char name[48];
  std::snprintf(name, sizeof name, "/%03llu/%05llu.rrd", static_cast<unsigned long long>(i / 1000),
                static_cast<unsigned long long>(i));
  return run_dir + name;
}

uint64_t Count(const json& j, const char* op) { return j["ops"][op]["count"].get<uint64_t>(); }

Layout CactiLayout() {
  std::vector<Archive> a;
  ParseArchives(kCactiArchives, &a);
  return Layout(1, a);
}

// Sets /sys/block/DEV/queue/read_ahead_kb and puts the old value back when
// it goes out of scope, also when the test fails.
class ReadAheadGuard {
 public:
  explicit ReadAheadGuard(const std::string& device)
      : path_("/sys/block/" + device + "/queue/read_ahead_kb") {
    std::ifstream in(path_);
    in >> original_;
  }
  ~ReadAheadGuard() {
    if (!original_.empty()) Set(original_);
  }
  void Set(const std::string& kb) {
    std::ofstream out(path_);
    out << kb << "\n";
    out.flush();
    ASSERT_TRUE(out.good()) << "cannot write " << path_;
  }
  bool ok() const { return !original_.empty(); }

 private:
  std::string path_;
  std::string original_;
};

class RrdUpdateOnFs : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS(GetParam());
    fs_ = LoopFs::Create(GetParam(), 320ull << 20);
  }
  std::unique_ptr<LoopFs> fs_;
};

// Every file is touched once per pass, and what each file holds afterwards
// sits where the layout arithmetic says: size, header, cur_row of each
// archive, the rows written and the rows not written.
TEST_P(RrdUpdateOnFs, EachPassUpdatesEveryFileOnceAtTheLayoutsOffsets) {
  const uint64_t files = 30, passes = 2, seed = 5;
  const json j = RunRrd(fs_->mount_point(), "layout",
                     {"--threads=2", "--keep", "--seed=" + std::to_string(seed),
                      "--rrd_update.files=" + std::to_string(files),
                      "--rrd_update.passes=" + std::to_string(passes)});
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(j["work_units"], files * passes);
  for (const char* op : {"update", "open", "fcntl_lock", "pread_header", "close"}) {
    EXPECT_EQ(Count(j, op), files * passes) << op;
  }
  EXPECT_EQ(Count(j, "pass"), passes);
  const json& m = j["module_report"];
  const Layout l = CactiLayout();
  EXPECT_EQ(m["file_bytes"], l.file_bytes());
  EXPECT_EQ(m["file_bytes"], 95608u);
  EXPECT_EQ(m["header_bytes"], l.header_bytes());
  EXPECT_EQ(m["archives"][4]["offset"], l.archive_offset(4));
  ASSERT_EQ(m["passes"].size(), passes);
  for (const json& p : m["passes"]) EXPECT_EQ(p["updates"], files);
  EXPECT_EQ(j["layout"]["summary"]["files"], files);

  const std::string run_dir = j["run_dir"];
  for (uint64_t i = 0; i < files; ++i) {
    const std::string path = FilePath(run_dir, i);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
    EXPECT_EQ(static_cast<uint64_t>(st.st_size), l.file_bytes()) << path;
    const std::string bytes = ReadAll(path);
    ASSERT_EQ(bytes.size(), l.file_bytes());
    const char* b = bytes.data();
    ASSERT_TRUE(HasRrdCookie(b)) << path;
    EXPECT_EQ(LoadU64(b, l.live_head_offset()), kOrdinary + (passes - 1) * 300) << path;
    for (size_t a = 0; a < l.archive_count(); ++a) {
      const uint64_t rows = l.archive(a).rows;
      const uint64_t first = InitialRow(seed, i, a, rows);
      const uint64_t cur = LoadU64(b, CurRowOffset(l, a));
      if (l.archive(a).pdp_cnt == 1) {
        // Two ordinary passes: two rows, the last one at cur_row.
        ASSERT_EQ(cur, (first + passes) % rows) << path << " archive " << a;
        EXPECT_EQ(LoadDouble(b, l.row_offset(a, cur)), double(kOrdinary + 300)) << path;
        EXPECT_EQ(LoadDouble(b, l.row_offset(a, (cur + rows - 1) % rows)), double(kOrdinary));
        EXPECT_TRUE(std::isnan(LoadDouble(b, l.row_offset(a, (cur + 1) % rows)))) << path;
      } else {
        // 22:15 and 22:20 are not on a 30-minute boundary: no row yet.
        EXPECT_EQ(cur, first) << path << " archive " << a;
        EXPECT_TRUE(std::isnan(LoadDouble(b, l.row_offset(a, (cur + 1) % rows)))) << path;
      }
    }
  }
}

// Syscalls per update, from the recorder's counts alone: an ordinary pass
// writes the four 1-step archives, a pass on a 2-hour boundary twelve.
TEST_P(RrdUpdateOnFs, SyscallsPerUpdateOrdinaryVsTwoHourBoundary) {
  const uint64_t files = 40;
  const std::map<uint64_t, uint64_t> due = {{kOrdinary, 4}, {kTwoHourMark, 12}};
  for (const auto& [start, rows] : due) {
    const json j =
        RunRrd(fs_->mount_point(), "pread",
               {"--rrd_update.files=40", "--rrd_update.start_time=" + std::to_string(start)});
    ASSERT_TRUE(j.is_object());
    ASSERT_EQ(j["work_units"], files);
    const std::map<std::string, uint64_t> per_update = {
        {"open", 1},          {"fcntl_lock", 1}, {"pread_header", 1}, {"pread_row", rows},
        {"pwrite_row", rows}, {"pwrite_header", 4}, {"close", 1},     {"fstat", 0},
        {"mmap", 0},          {"madvise", 0},    {"munmap", 0},       {"touch_read_row", 0}};
    for (const auto& [op, n] : per_update) {
      EXPECT_EQ(Count(j, op.c_str()), n * files) << op << " start " << start;
    }
    EXPECT_EQ(j["module_report"]["passes"][0]["due_archives"], rows);
    EXPECT_EQ(j["module_report"]["passes"][0]["syscalls_per_update"], 8.0 + 2.0 * rows);
    // Application bytes: the header and 8 bytes per row read; 8 bytes per
    // row and the four live sections written.
    const Layout l = CactiLayout();
    EXPECT_EQ(j["app_bytes"]["read"], files * (l.header_bytes() + rows * 8));
    EXPECT_EQ(j["app_bytes"]["write"], files * (rows * 8 + l.live_bytes()));
  }
  const json j = RunRrd(fs_->mount_point(), "mmap_random",
                     {"--rrd_update.files=40", "--rrd_update.access=mmap_random",
                      "--rrd_update.start_time=" + std::to_string(kTwoHourMark)});
  ASSERT_TRUE(j.is_object());
  const std::map<std::string, uint64_t> per_update = {
      {"open", 1},           {"fcntl_lock", 1},     {"fstat", 1},  {"mmap", 1},
      {"madvise", 3},        {"touch_read_header", 1}, {"touch_read_row", 12},
      {"touch_write_row", 12}, {"touch_write_header", 1}, {"munmap", 1}, {"close", 1},
      {"pread_header", 0},   {"pwrite_row", 0}};
  for (const auto& [op, n] : per_update) {
    EXPECT_EQ(Count(j, op.c_str()), n * files) << op;
  }
}

// The story: with cold files, a larger read_ahead_kb on the device makes
// the device read more per update than a small one, for the same
// application reads. mmap faults read around the faulting page (up to
// read_ahead_kb): with ~1 MiB files (two 60,000-row archives) that is the
// whole file per update at 4096 against a few 16 KiB windows at 16. pread
// on the Cacti file: the header and the first archive's row look
// sequential to the kernel, so readahead grows over the (small) file.
TEST_P(RrdUpdateOnFs, LargerReadaheadReadsMoreFromTheDevicePerUpdate) {
  ReadAheadGuard guard(fs_->device_name());
  ASSERT_TRUE(guard.ok());
  struct Case {
    const char* access;
    const char* archives;
    double factor;  // at least this many times more KiB per update at 4096
  };
  const Case cases[] = {{"mmap", "AVERAGE:1:60000,MAX:1:60000", 4.0},
                        {"pread", kCactiArchives, 1.5}};
  for (const Case& c : cases) {
    std::map<std::string, double> kib;
    for (const char* ra : {"16", "4096"}) {
      guard.Set(ra);
      const json j = RunRrd(fs_->mount_point(), std::string("ra-") + c.access + ra,
                            {"--rrd_update.files=60", "--rrd_update.passes=2",
                             "--rrd_update.cache=cold",
                             std::string("--rrd_update.access=") + c.access,
                             std::string("--rrd_update.archives=") + c.archives});
      ASSERT_TRUE(j.is_object());
      EXPECT_EQ(j["system"]["target"]["device"]["queue"]["read_ahead_kb"], std::stoi(ra));
      const json& s = j["module_report"]["summary"];
      ASSERT_TRUE(s["device_read_kib_per_update"].is_object()) << j["module_report"].dump();
      kib[ra] = s["device_read_kib_per_update"]["median"].get<double>();
      // Cold: every update had to read something from the device.
      EXPECT_GT(kib[ra], 0.0) << c.access << " read_ahead_kb " << ra;
    }
    EXPECT_GT(kib["4096"], c.factor * kib["16"])
        << c.access << ": KiB read per update at read_ahead_kb 4096 vs 16";
    std::printf("%s %s: device KiB read per update: %.1f at read_ahead_kb 16, %.1f at 4096\n",
                GetParam().c_str(), c.access, kib["16"], kib["4096"]);
  }
}

INSTANTIATE_TEST_SUITE_P(Filesystems, RrdUpdateOnFs, ::testing::Values("ext4", "xfs"),
                         [](const auto& param_info) { return param_info.param; });

TEST(RrdUpdate, BadOptionsAreRefusedNamingTheOption) {
  const auto bad = RunIomimic({"run", "rrd_update", "--rrd_update.archives=AVERAGE:1:x"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("rrd_update.archives"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("AVERAGE:1:x"), std::string::npos) << bad.err;
  const auto start = RunIomimic({"run", "rrd_update", "--rrd_update.start_time=10"});
  EXPECT_EQ(start.exit_code, 2);
  EXPECT_NE(start.err.find("rrd_update.start_time"), std::string::npos) << start.err;
  const auto threads = RunIomimic({"run", "rrd_update", "--rrd_update.files=2", "--threads=3"});
  EXPECT_EQ(threads.exit_code, 2);
  EXPECT_NE(threads.err.find("rrd_update.files"), std::string::npos) << threads.err;
}

}  // namespace
}  // namespace iomimic::rrd_update
