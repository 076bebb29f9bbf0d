// util/atomic_file.h and util/stderr_line.h's Printable, on a real
// directory under /tmp.
#include "util/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "iomimic/status.h"
#include "support/scratch_dir.h"
#include "util/stderr_line.h"

namespace iomimic {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, WritesANewFileAndReplacesAnOldOneLeavingNothingElse) {
  test::TempDir dir("atomic");
  const std::string path = dir.path() + "/report.json";
  WriteFileAtomically(path, "first\n", 0644);
  EXPECT_EQ(Slurp(path), "first\n");
  WriteFileAtomically(path, "second\n", 0600);
  EXPECT_EQ(Slurp(path), "second\n");
  EXPECT_EQ(dir.Names(), std::vector<std::string>{"report.json"}) << "no temporary left";
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(PendingTempFile(), nullptr);
}

// A symbolic link at the name itself is replaced, never written through.
TEST(AtomicFile, ASymlinkAtTheNameIsReplacedNotFollowed) {
  test::TempDir dir("atomic-link");
  const std::string victim = dir.path() + "/victim", path = dir.path() + "/out";
  std::ofstream(victim) << "keep\n";
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  WriteFileAtomically(path, "new\n", 0644);
  EXPECT_EQ(Slurp(victim), "keep\n");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST(AtomicFile, AMissingDirectoryIsASysErrorNamingIt) {
  try {
    WriteFileAtomically("/nonexistent-dir-iomimic/x", "x", 0644);
    FAIL() << "no error";
  } catch (const SysError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir-iomimic"), std::string::npos)
        << e.what();
  }
}

TEST(Printable, EscapesControlCharactersOnly) {
  EXPECT_EQ(Printable("/tmp/a b/é"), "/tmp/a b/é");
  EXPECT_EQ(Printable("a\nb\tc\rd\x1b[2J\x7f\\"), "a\\nb\\tc\\rd\\x1b[2J\\x7f\\\\");
}

}  // namespace
}  // namespace iomimic
