// Input that must be refused before anything runs (exit 2, the file or
// option named, nothing written), output that must not be lost silently
// (exit 1), and user text that must not forge lines on the terminal.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/loop_fs.h"
#include "support/run_binary.h"
#include "support/scratch_dir.h"
#include "support/sys_setting.h"

namespace iomimic::test {
namespace {

using std::chrono::seconds;

class InputChecks : public ::testing::Test {
 protected:
  InputChecks() : dir_("input-checks"), target_(dir_.path() + "/target") {
    ::mkdir(target_.c_str(), 0755);
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  RunResult Run(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--target=" + target_);
    return RunIomimic(args);
  }
  void ExpectRefused(const RunResult& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(CountEntries(target_), 0);
  }

  TempDir dir_;
  std::string target_;
};

constexpr const char* kProfile = "module = mmap_msync\nops = 2\nduration = 0\n[mmap_msync]\n"
                                 "region_size = 1MiB\n";

TEST_F(InputChecks, AProfileMustBeARegularFile) {
  const std::string fifo = dir_.path() + "/fifo.ini";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  SpawnedProcess p;  // a FIFO nobody writes to: refused at once, not waited on
  p.Start({"run", fifo, "--target=" + target_});
  const RunResult r = p.Wait(seconds(20));
  ASSERT_FALSE(r.timed_out) << "hung on the FIFO";
  ExpectRefused(r, "profile '" + fifo + "' is a FIFO");

  const std::string dev = dir_.path() + "/zero.ini";
  ASSERT_EQ(::symlink("/dev/zero", dev.c_str()), 0);
  ExpectRefused(Run({dev}), "is a character device");

  const std::string directory = dir_.path() + "/dir.ini";
  ASSERT_EQ(::mkdir(directory.c_str(), 0755), 0);
  ExpectRefused(Run({directory}), "profile '" + directory + "' is a directory");
}

TEST_F(InputChecks, BinaryProfilesNameTheFileAndTheLine) {
  const std::string nul = Write("nul.ini", std::string("module = mmap_msync\nops = 2\0x\n", 30));
  ExpectRefused(Run({nul}), "profile '" + nul + "' line 2: a NUL byte");
  const std::string binary = Write("bin.ini", "module = mmap_msync\n\n\xff\xfe\x01garbage\n");
  ExpectRefused(Run({binary}), "profile '" + binary + "' line 3: byte 0xff is not UTF-8");
  const std::string control = Write("ctl.ini", "module = mmap_msync\n\x1b[31m\n");
  ExpectRefused(Run({control}), "line 2: control character 0x1b");
}

TEST_F(InputChecks, AByteOrderMarkIsAccepted) {
  const std::string bom = Write("bom.ini", "\xef\xbb\xbf" + std::string(kProfile));
  const RunResult r = Run({bom, "--format=none", "--min_free=1MiB"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(InputChecks, TheReportMayNotReplaceTheProfile) {
  const std::string profile = Write("p.ini", kProfile);
  for (const std::string option : {"--output=", "--series_output="}) {
    SCOPED_TRACE(option);
    std::vector<std::string> args = {profile, option + profile};
    if (option == "--series_output=") args.push_back("--interval=1s");
    ExpectRefused(Run(args), "it is the profile");
    EXPECT_EQ(ReadTrimmed(profile) + "\n", kProfile);
  }
}

TEST_F(InputChecks, PseudoFilesystemsAreRefusedUpFront) {
  for (const std::string target : {"/proc", "/sys", "/proc/sys/vm", "/sys/kernel/mm"}) {
    SCOPED_TRACE(target);
    const RunResult r = RunIomimic({"run", "mmap_msync", "--target=" + target});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("pseudo filesystem"), std::string::npos) << r.err;
  }
  ExpectRefused(Run({"build_tree", "--build_tree.obj_target=/sys"}), "pseudo filesystem");
  ExpectRefused(Run({"mmap_msync", "--output=/proc/report.json"}),
                "invalid value '/proc/report.json' for option 'output'");
  ExpectRefused(Run({"mmap_msync", "--output=/sys/kernel/report.csv"}), "pseudo filesystem");
}

TEST_F(InputChecks, ASeriesNeedsAnInterval) {
  const std::string series = dir_.path() + "/s.csv";
  ExpectRefused(Run({"mmap_msync", "--series_output=" + series}), "needs --interval");
  EXPECT_EQ(::access(series.c_str(), F_OK), -1);
}

TEST_F(InputChecks, ABuildTreeWithoutSourcesIsRefused) {
  const std::string src = dir_.path() + "/empty-src";
  ASSERT_EQ(::mkdir(src.c_str(), 0755), 0);
  Write("empty-src/README", "no sources here\n");
  ExpectRefused(Run({"build_tree", "--build_tree.source_dir=" + src}), "nothing to compile");
}

// Text and CSV are buffered: a full or closed stdout fails at the flush.
TEST_F(InputChecks, AReportLostOnStdoutFailsTheRun) {
  for (const std::string format : {"text", "csv", "json"}) {
    for (const std::string redirect : {">/dev/full", ">&-"}) {
      SCOPED_TRACE(format + " " + redirect);
      const RunResult r = RunCommand(
          {"/bin/sh", "-c",
           std::string(IOMIMIC_BINARY) + " run mmap_msync --duration=0 --ops=2 " +
               "--mmap_msync.region_size=1MiB --min_free=1MiB --format=" + format +
               " --target=" + target_ + " " + redirect});
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_EQ(CountEntries(target_), 0) << "cleaned up all the same";
    }
  }
}

// A newline in a path cannot forge a line of iomimic's on stderr or in
// the text report; an escape sequence cannot reach the terminal.
TEST_F(InputChecks, ControlCharactersInPathsAreEscaped) {
  const RunResult missing = RunIomimic({"run", "mmap_msync", "--target=/nonexistent\nforged"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent\\nforged"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.err.find("\nforged"), std::string::npos) << missing.err;

  const std::string odd = target_ + "/odd\ndir\x1b[2J";
  ASSERT_EQ(::mkdir(odd.c_str(), 0755), 0);
  const RunResult r = RunIomimic({"run", "mmap_msync", "--duration=0", "--ops=2",
                                  "--mmap_msync.region_size=1MiB", "--min_free=1MiB",
                                  "--target=" + odd});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& text : {r.err, r.out}) {
    EXPECT_NE(text.find("odd\\ndir\\x1b[2J"), std::string::npos) << text;
    EXPECT_EQ(text.find("\ndir"), std::string::npos) << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace iomimic::test
