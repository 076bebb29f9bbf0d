// What the module API gives modules beyond the hooks: typed enum options,
// whole writes.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "iomimic/io.h"
#include "iomimic/options.h"
#include "iomimic/status.h"

namespace iomimic {
namespace {

enum class Pattern { kCycle, kRandom, kZero };

TEST(TypedEnumOption, DefaultChoicesAndRefusalByName) {
  Pattern p = Pattern::kRandom;
  OptionSet set("mod");
  set.Enum("pattern", &p, "what a fill stores",
           {{"cycle", Pattern::kCycle}, {"random", Pattern::kRandom}, {"zero", Pattern::kZero}});
  const OptionSpec* spec = set.Find("pattern");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->default_text, "random");
  EXPECT_EQ(spec->choices, (std::vector<std::string>{"cycle", "random", "zero"}));
  set.Apply("pattern", "zero");
  EXPECT_EQ(p, Pattern::kZero);
  EXPECT_EQ(spec->current(), "zero");
  try {
    set.Apply("pattern", "ones");
    FAIL() << "accepted 'ones'";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("mod.pattern"), std::string::npos) << what;
    EXPECT_NE(what.find("ones"), std::string::npos) << what;
    EXPECT_NE(what.find("must be one of: cycle, random, zero"), std::string::npos) << what;
  }
  EXPECT_EQ(p, Pattern::kZero);
}

class WholeWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/iomimic-io-XXXXXX";
    fd_ = ::mkstemp(tmpl);
    ASSERT_GE(fd_, 0);
    path_ = tmpl;
  }
  void TearDown() override {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  std::string Contents() const {
    std::string s(static_cast<size_t>(::lseek(fd_, 0, SEEK_END)), '\0');
    EXPECT_EQ(::pread(fd_, s.data(), s.size(), 0), static_cast<ssize_t>(s.size()));
    return s;
  }
  int fd_ = -1;
  std::string path_;
};

TEST_F(WholeWrites, WriteAllAppendsAndPwriteAllWritesAtTheOffset) {
  const std::string big(3 << 20, 'a');  // more than one pipe-sized write
  WriteAll(fd_, big.data(), big.size(), path_);
  PwriteAll(fd_, "xyz", 3, 10, path_);
  const std::string got = Contents();
  ASSERT_EQ(got.size(), big.size());
  EXPECT_EQ(got.substr(9, 5), "axyza");
}

TEST_F(WholeWrites, AFailedWriteIsASysErrorNamingThePath) {
  const int ro = ::open(path_.c_str(), O_RDONLY);
  ASSERT_GE(ro, 0);
  try {
    WriteAll(ro, "x", 1, path_);
    FAIL() << "wrote to a read-only descriptor";
  } catch (const SysError& e) {
    EXPECT_EQ(e.code().value(), EBADF);
    EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
  }
  ::close(ro);
}

}  // namespace
}  // namespace iomimic
