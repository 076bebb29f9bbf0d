// Compiled into skeleton_tests only: the module skeleton's tests
// (docs/module-skeleton/tests) run build/<preset>/iomimic_skeleton, the
// core with that module alone. Copied to workloads/<name>/tests, the same
// tests run the iomimic binary, which then holds the module.
#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace iomimic::test {
namespace {

const bool kUsesSkeletonBinary = [] {
  SetIomimicBinary(IOMIMIC_SKELETON_BINARY);
  return true;
}();

// The skeleton is a template, not a workload: the user's binary does not
// list it, the test-only binary does.
TEST(ModuleSkeleton, IsInTheTestBinaryButNotInTheUsersList) {
  ASSERT_TRUE(kUsesSkeletonBinary);
  const RunResult users = RunCommand({IOMIMIC_BINARY, "list"});
  ASSERT_EQ(users.exit_code, 0) << users.err;
  EXPECT_NE(users.out.find("mmap_msync"), std::string::npos) << users.out;
  EXPECT_EQ(users.out.find("skeleton"), std::string::npos) << users.out;
  const RunResult skeleton = RunIomimic({"list"});
  ASSERT_EQ(skeleton.exit_code, 0) << skeleton.err;
  EXPECT_NE(skeleton.out.find("skeleton"), std::string::npos) << skeleton.out;
  EXPECT_EQ(skeleton.out.find("mmap_msync"), std::string::npos) << skeleton.out;
}

}  // namespace
}  // namespace iomimic::test
