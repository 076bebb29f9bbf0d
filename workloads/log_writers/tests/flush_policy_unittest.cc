// log_writers' flush_policy.cc linked into the unit tests: a module's .cc
// code tested directly, not only through the binary.
#include <gtest/gtest.h>

#include "../flush_policy.h"

namespace iomimic::log_writers {
namespace {

TEST(LogWritersFlushPolicy, ParsesEachKindWithItsArgument) {
  FlushPolicy p;
  EXPECT_EQ(ParseFlushPolicy("fdatasync:16", &p), "");
  EXPECT_EQ(p.kind, FlushPolicy::Kind::kFdatasync);
  EXPECT_EQ(p.every, 16u);
  EXPECT_TRUE(p.syncs_every_n());
  EXPECT_EQ(ParseFlushPolicy("buffer:64KiB", &p), "");
  EXPECT_EQ(p.kind, FlushPolicy::Kind::kBuffer);
  EXPECT_EQ(p.buffer_bytes, 64u << 10);
  EXPECT_TRUE(p.buffered());
  EXPECT_EQ(ParseFlushPolicy("odsync", &p), "");
  EXPECT_EQ(p.kind, FlushPolicy::Kind::kOdsync);
}

TEST(LogWritersFlushPolicy, RefusesWhatIsNotAPolicy) {
  FlushPolicy p;
  EXPECT_NE(ParseFlushPolicy("fdatasync", &p), "");       // N missing
  EXPECT_NE(ParseFlushPolicy("none:3", &p), "");          // no argument allowed
  EXPECT_NE(ParseFlushPolicy("buffer:1TiB", &p), "");     // above kMaxBufferBytes
  EXPECT_NE(ParseFlushPolicy("sometimes", &p), "");
  uint64_t bytes = 1;
  EXPECT_EQ(ParsePrealloc("none", &bytes), "");
  EXPECT_EQ(bytes, 0u);
  EXPECT_EQ(ParsePrealloc("fallocate:1MiB", &bytes), "");
  EXPECT_EQ(bytes, 1u << 20);
  EXPECT_NE(ParsePrealloc("fallocate:0", &bytes), "");
}

}  // namespace
}  // namespace iomimic::log_writers
