// Never outside the run directory: every path the iomimic process (and
// every child it starts) creates, writes, truncates, renames or removes,
// traced with strace -f, is inside the run directory it created, or is the
// report (--output, --series_output) or its temporary DIR/.FILE.tmp-RANDOM
// (util/atomic_file.h; usually none: the report is linked into place).
// /proc/sys/vm/drop_caches is written with --cache=drop and only then.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"
#include "support/write_audit.h"

namespace iomimic::test {
namespace {

using nlohmann::json;

struct Case {
  std::string name;
  std::vector<std::string> args;  // after the target, output and format; SERIES: the test's CSV
  int exit_code = 0;
  bool drops_caches = false;
  uint64_t fs_bytes = 256ull << 20;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class NoStrayWrites : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS("ext4");
    IOMIMIC_REQUIRE_STRACE();
    char templ[] = "/tmp/iomimic-audit-XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    out_dir_ = templ;
  }
  void TearDown() override {
    if (!out_dir_.empty()) std::system(("rm -rf '" + out_dir_ + "'").c_str());
  }
  std::string out_dir_;
};

TEST_P(NoStrayWrites, OnlyTheRunDirectoryAndTheReport) {
  const Case& c = GetParam();
  auto fs = LoopFs::Create("ext4", c.fs_bytes);
  const std::string report = out_dir_ + "/report.json";
  const std::string series = out_dir_ + "/series.csv";
  std::vector<std::string> args = {"run", "mmap_msync", "--target=" + fs->mount_point(),
                                   "--output=" + report, "--format=none"};
  for (const std::string& a : c.args)
    args.push_back(a == "--series_output=SERIES" ? "--series_output=" + series : a);
  const std::string report_tmp = out_dir_ + "/.report.json.tmp-*";
  const std::string series_tmp = out_dir_ + "/.series.csv.tmp-*";
  std::vector<std::string> allowed = {fs->mount_point() + "/iomimic-mmap_msync-*", report,
                                      report_tmp, series, series_tmp};
  if (c.drops_caches) allowed.push_back("/proc/sys/vm/drop_caches");
  const WriteAudit audit = AuditWrites(args, allowed);
  ASSERT_EQ(audit.run.exit_code, c.exit_code) << audit.run.err;
  EXPECT_TRUE(audit.violations.empty()) << "written outside the run directory:\n"
                                        << Describe(audit.violations);

  // Narrower, now that the report names the run directory: not just any
  // directory of that name pattern, this run's own.
  std::ifstream in(report);
  const json j = json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report";
  const std::string run_dir = j["run_dir"];
  ASSERT_EQ(run_dir.rfind(fs->mount_point() + "/iomimic-mmap_msync-", 0), 0u) << run_dir;
  std::vector<std::string> exact = {report, report_tmp, series, series_tmp};
  if (j.contains("repeats")) {
    // Each repeat has a fresh run directory: all of them are this run's.
    exact.push_back(fs->mount_point() + "/iomimic-mmap_msync-*");
  } else {
    exact.push_back(run_dir);
  }
  if (c.drops_caches) exact.push_back("/proc/sys/vm/drop_caches");
  EXPECT_TRUE(WritesOutside(audit.writes, exact).empty())
      << Describe(WritesOutside(audit.writes, exact));

  // The trace did see the run's own writes: the audit is not blind.
  bool made_dir = false, removed_dir = false, opened_data = false, renamed_report = false,
       dropped = false;
  for (const TracedWrite& w : audit.writes) {
    made_dir |= w.call == "mkdir" && w.path == run_dir;
    removed_dir |= w.call == "rmdir" && w.path == run_dir;
    opened_data |= w.path == run_dir + "/data.db";
    renamed_report |=
        (w.call == "rename" || w.call == "linkat") && w.path == report && w.succeeded;
    dropped |= w.path == "/proc/sys/vm/drop_caches";
  }
  EXPECT_TRUE(made_dir) << Describe(audit.writes);
  EXPECT_TRUE(removed_dir) << Describe(audit.writes);
  EXPECT_TRUE(opened_data) << Describe(audit.writes);
  EXPECT_TRUE(renamed_report) << Describe(audit.writes);
  EXPECT_EQ(dropped, c.drops_caches) << "drop_caches is written with --cache=drop and only then";
}

INSTANTIATE_TEST_SUITE_P(
    MmapMsync, NoStrayWrites,
    ::testing::Values(
        Case{"Default",
             {"--threads=2", "--duration=0", "--ops=8", "--mmap_msync.region_size=1MiB"}},
        Case{"PreallocWriteColdCacheSeriesRepeat",
             {"--threads=2", "--duration=0", "--ops=4", "--mmap_msync.region_size=1MiB",
              "--mmap_msync.prealloc=write", "--mmap_msync.cache_after_prepare=drop",
              "--cache=cold", "--repeat=2", "--interval=100ms", "--series_output=SERIES"}},
        Case{"FallocateDropCaches",
             {"--threads=1", "--duration=0", "--ops=2", "--mmap_msync.region_size=1MiB",
              "--mmap_msync.prealloc=fallocate", "--cache=drop"},
             0,
             true},
        // A failed run (SIGBUS on a full filesystem) cleans up inside too.
        Case{"FullFilesystem",
             {"--threads=2", "--duration=0", "--ops=8", "--mmap_msync.region_size=128MiB",
              "--space_check=false"},
             1,
             false,
             64ull << 20}),
    [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace iomimic::test
