// rrd_update's file size arithmetic and memory: a footprint beyond 64 bits
// is refused naming the options (it once wrapped around to a small number,
// passed the space check and died of std::bad_alloc), and a file of
// hundreds of MiB is created without holding it in memory (a 2 GB file
// once took 1.96 GB of RSS).
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
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

using test::LoopFs;
using test::RunIomimic;

TEST(RrdSize, AFootprintBeyond64BitsIsRefusedNamingTheOptions) {
  const std::string huge = "AVERAGE:1:100000000,MIN:1:100000000,MAX:1:100000000,LAST:1:100000000";
  const test::RunResult r =
      RunIomimic({"run", "rrd_update", "--target=/tmp", "--format=none",
                  "--rrd_update.files=9999399", "--rrd_update.data_sources=1000",
                  "--rrd_update.archives=" + huge});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("options 'rrd_update.files' (9999399), 'rrd_update.data_sources' (1000) "
                       "and 'rrd_update.archives'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
}

// 512 MiB per file: the child's peak RSS (getrusage of the waited-for
// children: the run, and the small mkfs/mount of the loop filesystem)
// stays far below the file.
TEST(RrdSize, ALargeFileIsStreamedNotHeldInMemory) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 700ull << 20);
  const test::RunResult r = RunIomimic(
      {"run", "rrd_update", "--target=" + fs->mount_point(), "--format=none", "--keep",
       "--min_free=1MiB", "--rrd_update.files=1", "--rrd_update.passes=1",
       "--rrd_update.data_sources=64", "--rrd_update.archives=AVERAGE:1:1000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  rusage ru {};
  ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &ru), 0);
  EXPECT_LT(ru.ru_maxrss, 128 * 1024) << "KiB of peak RSS for a 512 MiB file";

  // The file is whole: its size, and unknown values to its very end.
  const Layout l(64, {{"AVERAGE", 1, 1000000}});
  const std::string dir = fs->mount_point();
  const test::RunResult find = test::RunCommand({"find", dir, "-name", "*.rrd"});
  const std::string path = find.out.substr(0, find.out.find('\n'));
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  ASSERT_TRUE(in) << find.out;
  EXPECT_EQ(static_cast<uint64_t>(in.tellg()), l.file_bytes());
  char last[8];
  in.seekg(-8, std::ios::end);
  in.read(last, 8);
  double v = 0;
  std::memcpy(&v, last, 8);
  EXPECT_TRUE(std::isnan(v));
  in.seekg(0);
  std::vector<char> head(l.header_bytes());
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  EXPECT_TRUE(HasRrdCookie(head.data()));
}

}  // namespace
}  // namespace iomimic::rrd_update
