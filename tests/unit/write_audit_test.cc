// The strace parser behind AuditWrites (tests/support/write_audit.h): which
// calls count as writes, how paths are resolved, interleaved threads.
#include "support/write_audit.h"

#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace iomimic::test {
namespace {

std::vector<TracedWrite> Parse(const std::string& trace, const std::string& cwd = "/work") {
  std::istringstream in(trace);
  return ParseStraceWrites(in, cwd);
}

TEST(WriteAudit, OpensForWritingCountReadOnlyOpensDoNot) {
  const auto w = Parse(
      "10 openat(AT_FDCWD</w>, \"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3</etc/passwd>\n"
      "10 openat(AT_FDCWD</w>, \"out.json.tmp.10\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, "
      "0644) = 4</w/out.json.tmp.10>\n"
      "10 openat(AT_FDCWD</w>, \"/x/y\", O_RDWR) = -1 ENOENT (No such file or directory)\n"
      "10 creat(\"c\", 0644) = 5</w/c>\n"
      "10 open(\"/a/b\", O_WRONLY|O_APPEND) = 6</a/b>\n");
  ASSERT_EQ(w.size(), 4u) << Describe(w);
  EXPECT_EQ(w[0].path, "/w/out.json.tmp.10");
  EXPECT_TRUE(w[0].succeeded);
  EXPECT_EQ(w[1].path, "/x/y");
  EXPECT_FALSE(w[1].succeeded) << "failed attempts count too";
  EXPECT_EQ(w[2].path, "/w/c");
  EXPECT_EQ(w[3].path, "/a/b");
}

TEST(WriteAudit, NamespaceChangesAndDescriptorWrites) {
  const auto w = Parse(
      "7 mkdir(\"/m/iomimic-x-1\", 0700) = 0\n"
      "7 unlinkat(3</m/iomimic-x-1>, \"data.db\", 0) = 0\n"
      "7 rename(\"/o/r.json.tmp.7\", \"/o/r.json\") = 0\n"
      "7 renameat2(AT_FDCWD</o>, \"a\", 4</p>, \"../q/b\", RENAME_NOREPLACE) = 0\n"
      "7 symlinkat(\"/etc\", AT_FDCWD</o>, \"link\") = 0\n"
      "7 write(1<pipe:[123]>, \"hello\", 5) = 5\n"
      "7 write(5</m/iomimic-x-1/f>, \"x\", 1) = 1\n"
      "7 ftruncate(5</m/iomimic-x-1/f>, 4096) = 0\n"
      "7 fallocate(5</m/iomimic-x-1/f>, 0, 0, 4096) = 0\n"
      "7 rmdir(\"/m/iomimic-x-1\") = 0\n");
  std::vector<std::string> paths;
  for (const auto& x : w) paths.push_back(x.call + " " + x.path);
  const std::vector<std::string> expected = {"mkdir /m/iomimic-x-1",
                                             "unlinkat /m/iomimic-x-1/data.db",
                                             "rename /o/r.json.tmp.7",
                                             "rename /o/r.json",
                                             "renameat2 /o/a",
                                             "renameat2 /q/b",
                                             "symlinkat /o/link",
                                             "write /m/iomimic-x-1/f",
                                             "ftruncate /m/iomimic-x-1/f",
                                             "fallocate /m/iomimic-x-1/f",
                                             "rmdir /m/iomimic-x-1"};
  EXPECT_EQ(paths, expected) << Describe(w);
}

TEST(WriteAudit, SharedWritableMappingsCountPrivateOnesDoNot) {
  const auto w = Parse(
      "3 mmap(NULL, 4096, PROT_READ, MAP_SHARED, 4</f/ro>, 0) = 0x7f00\n"
      "3 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE, 4</f/priv>, 0) = 0x7f00\n"
      "3 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, 4</f/shared>, 0) = 0x7f00\n"
      "3 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f00\n");
  ASSERT_EQ(w.size(), 1u) << Describe(w);
  EXPECT_EQ(w[0].path, "/f/shared");
}

TEST(WriteAudit, UnfinishedCallsOfInterleavedThreadsAreJoined) {
  const auto w = Parse(
      "21 mmap(NULL, 1048576, PROT_READ|PROT_WRITE, MAP_SHARED, 3</r/data.db>, 0x100000 "
      "<unfinished ...>\n"
      "22 openat(AT_FDCWD</w>, \"/r/other\", O_WRONLY|O_CREAT, 0644 <unfinished ...>\n"
      "21 <... mmap resumed>) = 0x7f973b2f3000\n"
      "20 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---\n"
      "22 <... openat resumed>) = 4</r/other>\n"
      "20 +++ exited with 0 +++\n");
  ASSERT_EQ(w.size(), 2u) << Describe(w);
  EXPECT_EQ(w[0].path, "/r/data.db");
  EXPECT_EQ(w[0].pid, 21);
  EXPECT_EQ(w[1].path, "/r/other");
  EXPECT_TRUE(w[1].succeeded);
}

TEST(WriteAudit, RelativePathsFollowTheWorkingDirectory) {
  const auto w = Parse(
      "5 mkdir(\"a/../b\", 0755) = 0\n"
      "5 chdir(\"/elsewhere\") = 0\n"
      "5 unlink(\"c\") = 0\n"
      "5 newfstatat(AT_FDCWD</moved>, \"x\", {st_mode=S_IFREG}, 0) = 0\n"
      "5 unlink(\"d\") = 0\n",
      "/start");
  ASSERT_EQ(w.size(), 3u) << Describe(w);
  EXPECT_EQ(w[0].path, "/start/b");
  EXPECT_EQ(w[1].path, "/elsewhere/c");
  EXPECT_EQ(w[2].path, "/moved/d") << "AT_FDCWD annotations tell the working directory";
}

TEST(WriteAudit, EscapedStringsAndAnnotations) {
  const auto w = Parse(
      "5 openat(AT_FDCWD</w>, \"/t/a \\\"q\\\", b\", O_WRONLY|O_CREAT, 0644) = 3</t/a \"q\", b>\n"
      "5 mkdir(\"/t/\\x41\\102\", 0755) = 0\n");
  ASSERT_EQ(w.size(), 2u) << Describe(w);
  EXPECT_EQ(w[0].path, "/t/a \"q\", b");
  EXPECT_EQ(w[1].path, "/t/AB");
}

TEST(WriteAudit, AllowedPrefixesAndDirectories) {
  std::vector<TracedWrite> w(6);
  w[0].path = "/mnt/iomimic-m-1/data.db";
  w[1].path = "/mnt/iomimic-m-1";
  w[2].path = "/mnt/other";
  w[3].path = "/o/r.json.tmp.42";
  w[4].path = "/o/r.jsonx";
  w[5].path = "/dev/null";
  const auto out = WritesOutside(w, {"/mnt/iomimic-m-*", "/o/r.json", "/o/r.json.tmp.*"});
  ASSERT_EQ(out.size(), 2u) << Describe(out);
  EXPECT_EQ(out[0].path, "/mnt/other");
  EXPECT_EQ(out[1].path, "/o/r.jsonx") << "a file entry is not a prefix";
  EXPECT_EQ(WritesOutside(w, {"/"}).size(), 0u);
}

TEST(WriteAudit, NormalizePath) {
  EXPECT_EQ(NormalizePath("/a/./b/../c//"), "/a/c");
  EXPECT_EQ(NormalizePath("/../.."), "/");
  EXPECT_EQ(NormalizePath("/"), "/");
}

}  // namespace
}  // namespace iomimic::test
