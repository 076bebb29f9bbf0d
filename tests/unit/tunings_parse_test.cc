// --tune's syntax: what is refused before anything is looked up or written.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/tunings.h"

namespace iomimic::engine {
namespace {

std::string Parse(const std::string& text, std::vector<TuningRequest>* out = nullptr) {
  std::vector<TuningRequest> local;
  return ParseTunings(text, out != nullptr ? out : &local);
}

TEST(ParseTunings, ReadsNameValueListsInOrderWithSpaces) {
  std::vector<TuningRequest> r;
  ASSERT_EQ(Parse(" queue.read_ahead_kb = 4096 ,queue.scheduler=mq-deadline,vm.dirty_ratio=5", &r),
            "");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].name, "queue.read_ahead_kb");
  EXPECT_EQ(r[0].value, "4096");
  EXPECT_EQ(r[1].name, "queue.scheduler");
  EXPECT_EQ(r[1].value, "mq-deadline");
  EXPECT_EQ(r[2].value, "5");
}

TEST(ParseTunings, EmptyTextIsNoTunings) {
  std::vector<TuningRequest> r = {{"x", "y"}};
  EXPECT_EQ(Parse("", &r), "");
  EXPECT_TRUE(r.empty());
}

TEST(ParseTunings, RefusesWhatCannotBeAppliedAndNamesIt) {
  EXPECT_NE(Parse("queue.read_ahead_kb").find("not NAME=VALUE"), std::string::npos);
  EXPECT_NE(Parse("queue.read_ahead_kb=4096,").find("empty item"), std::string::npos);
  EXPECT_NE(Parse("queue.write_cache=1").find("unknown setting 'queue.write_cache'"),
            std::string::npos);
  EXPECT_NE(Parse("/sys/block/sda/queue/read_ahead_kb=1").find("unknown setting"),
            std::string::npos);
  EXPECT_NE(Parse("queue.read_ahead_kb=-1").find("'-1' is not a valid value"), std::string::npos);
  EXPECT_NE(Parse("queue.read_ahead_kb=4M").find("'4M'"), std::string::npos);
  EXPECT_NE(Parse("queue.scheduler=mq deadline").find("'mq deadline'"), std::string::npos);
  EXPECT_NE(Parse("queue.scheduler=[none]").find("'[none]'"), std::string::npos);
  EXPECT_NE(Parse("thp.enabled=").find("''"), std::string::npos);
  EXPECT_NE(Parse("vm.dirty_ratio=5,vm.dirty_ratio=6").find("given twice"), std::string::npos);
}

TEST(ParseTunings, RefusesBothMembersOfAnExclusivePair) {
  EXPECT_NE(Parse("vm.dirty_bytes=100000000,vm.dirty_ratio=5").find("exclude each other"),
            std::string::npos);
  EXPECT_NE(Parse("vm.dirty_background_ratio=1,vm.dirty_background_bytes=9999999")
                .find("exclude each other"),
            std::string::npos);
  EXPECT_EQ(Parse("vm.dirty_bytes=100000000,vm.dirty_background_ratio=5"), "");
}

}  // namespace
}  // namespace iomimic::engine
