// DescribeTarget's filesystem geometry on real loop filesystems made with
// known parameters: what mkfs was told must come back.
#include <unistd.h>

#include <gtest/gtest.h>

#include "probes/probes.h"
#include "support/result_json.h"
#include "support/loop_fs.h"

namespace iomimic::test {
namespace {

TEST(FsGeometry, XfsAllocationGroupsAsMade) {
  IOMIMIC_REQUIRE_LOOP_FS("xfs");
  auto fs = LoopFs::Create("xfs", 512ull << 20, "-d agcount=5");
  const auto t = J(probes::DescribeTarget(fs->mount_point()));
  ASSERT_TRUE(t["fs"].contains("xfs")) << t.dump(2);
  EXPECT_EQ(t["fs"]["xfs"]["ag_count"], 5);
  EXPECT_EQ(t["fs"]["xfs"]["block_size"], 4096);
  EXPECT_GT(t["fs"]["xfs"]["ag_bytes"].get<uint64_t>(), 0u);
}

TEST(FsGeometry, Ext4FeaturesAsMade) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 128ull << 20, "-O ^has_journal -I 512");
  const auto t = J(probes::DescribeTarget(fs->mount_point()));
  ASSERT_TRUE(t["fs"].contains("ext4")) << t.dump(2);
  const auto& e = t["fs"]["ext4"];
  EXPECT_EQ(e["block_size"], 4096);
  EXPECT_EQ(e["inode_size"], 512);
  const auto& f = e["features"];
  EXPECT_NE(std::find(f.begin(), f.end(), "extent"), f.end()) << f.dump();
  EXPECT_EQ(std::find(f.begin(), f.end(), "has_journal"), f.end()) << f.dump();
}

}  // namespace
}  // namespace iomimic::test
