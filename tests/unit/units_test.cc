#include "iomimic/units.h"

#include <gtest/gtest.h>

namespace iomimic {
namespace {

uint64_t Size(const std::string& s) {
  std::string error;
  auto v = ParseSize(s, &error);
  EXPECT_TRUE(v.has_value()) << s << ": " << error;
  return v.value_or(0);
}

std::string SizeError(const std::string& s) {
  std::string error;
  EXPECT_FALSE(ParseSize(s, &error).has_value()) << s;
  return error;
}

uint64_t Ns(const std::string& s) {
  std::string error;
  auto v = ParseDurationNs(s, &error);
  EXPECT_TRUE(v.has_value()) << s << ": " << error;
  return v.value_or(0);
}

TEST(Units, SizesAreBinary) {
  EXPECT_EQ(Size("0"), 0u);
  EXPECT_EQ(Size("4096"), 4096u);
  EXPECT_EQ(Size("4k"), 4096u);
  EXPECT_EQ(Size("4K"), 4096u);
  EXPECT_EQ(Size("4KiB"), 4096u);
  EXPECT_EQ(Size("4KB"), 4096u);
  EXPECT_EQ(Size("4M"), 4u << 20);
  EXPECT_EQ(Size("4MiB"), 4u << 20);
  EXPECT_EQ(Size("1.5k"), 1536u);
  EXPECT_EQ(Size("2G"), 2ull << 30);
  EXPECT_EQ(Size("3TiB"), 3ull << 40);
  EXPECT_EQ(Size(" 8 MiB "), 8u << 20);
}

TEST(Units, BadSizesSayWhy) {
  EXPECT_NE(SizeError("4X").find("'X'"), std::string::npos);
  EXPECT_NE(SizeError("").find("empty"), std::string::npos);
  EXPECT_NE(SizeError("-4k").find("negative"), std::string::npos);
  EXPECT_NE(SizeError("MiB").find("number"), std::string::npos);
  EXPECT_NE(SizeError("1.3").find("whole"), std::string::npos);
  EXPECT_NE(SizeError("99999999T").find("too large"), std::string::npos);
  SizeError("4 M B");
  SizeError("4MiBs");
}

TEST(Units, Durations) {
  EXPECT_EQ(Ns("250ns"), 250u);
  EXPECT_EQ(Ns("3us"), 3000u);
  EXPECT_EQ(Ns("20ms"), 20000000u);
  EXPECT_EQ(Ns("20s"), 20000000000u);
  EXPECT_EQ(Ns("20"), 20000000000u);  // bare number: seconds, as fio
  EXPECT_EQ(Ns("1.5s"), 1500000000u);
  EXPECT_EQ(Ns("2m"), 120000000000u);
  EXPECT_EQ(Ns("1h"), 3600000000000u);
  std::string error;
  EXPECT_FALSE(ParseDurationNs("5parsecs", &error));
  EXPECT_NE(error.find("parsecs"), std::string::npos);
  EXPECT_FALSE(ParseDurationNs("-1s", &error));
}

TEST(Units, IntegersAndBools) {
  std::string error;
  EXPECT_EQ(ParseInteger("42", &error), 42);
  EXPECT_EQ(ParseInteger("-7", &error), -7);
  EXPECT_FALSE(ParseInteger("4.2", &error));
  EXPECT_FALSE(ParseInteger("", &error));
  EXPECT_FALSE(ParseInteger("99999999999999999999", &error));
  EXPECT_EQ(ParseBool("yes", &error), true);
  EXPECT_EQ(ParseBool("off", &error), false);
  EXPECT_FALSE(ParseBool("maybe", &error));
}

TEST(Units, FormattingRoundTrips) {
  for (uint64_t v : {0ull, 1ull, 4096ull, 4ull << 20, 3ull << 30, 1536ull}) {
    std::string error;
    const std::string text = FormatSize(v);
    if (text.find('.') == std::string::npos) {
      EXPECT_EQ(ParseSize(text, &error), v) << text;
    }
  }
  EXPECT_EQ(FormatSize(4u << 20), "4MiB");
  EXPECT_EQ(FormatBytesHuman(2733536ull * 1024), "2.61GiB");
  EXPECT_EQ(FormatBytesHuman(512), "512B");
  EXPECT_EQ(FormatBytesHuman(150ull << 20), "150MiB");
  EXPECT_EQ(FormatDuration(20000000000ull), "20s");
  EXPECT_EQ(FormatDuration(1500), "1500ns");
  EXPECT_EQ(FormatLatency(812), "812ns");
  EXPECT_EQ(FormatLatency(23456), "23.5us");
  EXPECT_EQ(FormatLatency(2210000), "2.21ms");
  EXPECT_EQ(FormatLatency(1200000000), "1.20s");
}

}  // namespace
}  // namespace iomimic
