// The command line contract: list, describe, and that bad input exits 2
// with the option and the value named, writing nothing.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

class ScratchDir {
 public:
  ScratchDir() {
    char templ[] = "/tmp/iomimic-cli-test-XXXXXX";
    path_ = ::mkdtemp(templ);
  }
  ~ScratchDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  int Entries() const {
    int n = 0;
    DIR* d = ::opendir(path_.c_str());
    while (dirent* e = ::readdir(d)) {
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++n;
    }
    ::closedir(d);
    return n;
  }

 private:
  std::string path_;
};

TEST(Cli, ListNamesEveryModuleFolder) {
  auto r = RunIomimic({"list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> folders;
  const std::string root = std::string(IOMIMIC_SOURCE_DIR) + "/workloads";
  DIR* d = ::opendir(root.c_str());
  ASSERT_NE(d, nullptr);
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (name[0] != '.' && ::stat((root + "/" + name + "/CMakeLists.txt").c_str(), &st) == 0) {
      folders.insert(name);
    }
  }
  ::closedir(d);
  ASSERT_FALSE(folders.empty());
  for (const auto& f : folders) {
    EXPECT_NE(r.out.find(f + " "), std::string::npos) << f << " is not registered:\n" << r.out;
  }
}

TEST(Cli, DescribeShowsOptionsWithDefaults) {
  auto r = RunIomimic({"describe", "mmap_msync"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--mmap_msync.region_size"), std::string::npos);
  EXPECT_NE(r.out.find("default: 4MiB"), std::string::npos);
  EXPECT_NE(r.out.find("--threads"), std::string::npos);
}

TEST(Cli, UnknownModuleExits2) {
  auto r = RunIomimic({"describe", "nosuch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nosuch"), std::string::npos);
}

struct BadInput {
  std::vector<std::string> args;
  std::string must_mention;
};

void PrintTo(const BadInput& b, std::ostream* os) {
  for (const auto& a : b.args) *os << a << ' ';
}

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, Exits2NamingTheOptionAndWritesNothing) {
  ScratchDir dir;
  std::vector<std::string> args = {"run"};
  for (const auto& a : GetParam().args) args.push_back(a);
  args.push_back("--target=" + dir.path());
  auto r = RunIomimic(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().must_mention), std::string::npos) << r.err;
  EXPECT_EQ(dir.Entries(), 0) << "something was written";
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Options, CliBadInput,
    ::testing::Values(
        BadInput{{"mmap_msync", "--mmap_msync.region_size=4X"}, "mmap_msync.region_size"},
        BadInput{{"mmap_msync", "--mmap_msync.region_size=4X"}, "'4X'"},
        BadInput{{"mmap_msync", "--mmap_msync.region_size=6000"}, "page size"},
        BadInput{{"mmap_msync", "--mmap_msync.prealloc=dd"}, "mmap_msync.prealloc"},
        BadInput{{"mmap_msync", "--threads=0"}, "threads"},
        BadInput{{"mmap_msync", "--threads=two"}, "'two'"},
        BadInput{{"mmap_msync", "--duration=5parsecs"}, "duration"},
        BadInput{{"mmap_msync", "--duration=-1s"}, "duration"},
        BadInput{{"mmap_msync", "--no_such_option=1"}, "no_such_option"},
        BadInput{{"mmap_msync", "--mmap_msync.no_such=1"}, "mmap_msync.no_such"},
        BadInput{{"no_such_module"}, "no_such_module"},
        BadInput{{"mmap_msync", "--format=xml"}, "format"},
        BadInput{{"mmap_msync", "--output=/nonexistent/r.json"}, "output"},
        // Renaming a report over these would replace a device or a link.
        BadInput{{"mmap_msync", "--output=/dev/null"}, "option 'output': it exists and is not "
                                                       "a regular file (a device"},
        BadInput{{"mmap_msync", "--output=/dev/stdout"}, "(a symbolic link)"},
        BadInput{{"mmap_msync", "--output=/tmp"}, "(a directory)"},
        BadInput{{"mmap_msync", "--output=/tmp/iomimic-cli-same.json", "--interval=1s",
                  "--series_output=/tmp/iomimic-cli-same.json"},
                 "option 'series_output'"},
        BadInput{{"mmap_msync", "--threads=2", "--threads=3"}, "threads"},
        BadInput{{"mmap_msync", "--threads=1024", "--mmap_msync.region_size=1GiB"}, "free"},
        BadInput{{"rrd_update", "--warmup=1s"}, "option 'warmup' cannot be used with module "
                                                "rrd_update"},
        BadInput{{"build_tree", "--warmup=1s"}, "warmup"},
        BadInput{{"mmap_msync", "--tune=queue.read_ahead_kb=4k"}, "option 'tune'"},
        BadInput{{"mmap_msync", "--sweep=threads=1,x"}, "option 'sweep'"}));

TEST(Cli, ProfileErrorsNameTheKey) {
  ScratchDir dir;
  const std::string profile = dir.path() + "/../iomimic-cli-dup.ini";
  {
    std::ofstream f(profile);
    f << "module = mmap_msync\nthreads = 2\n[mmap_msync]\nregion_size = 1M\nregion_size = 2M\n";
  }
  auto r = RunIomimic({"run", profile, "--target=" + dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("region_size"), std::string::npos) << r.err;
  {
    std::ofstream f(profile);
    f << "module = mmap_msync\n[mmap_msync]\nmsync = sometimes\n";
  }
  r = RunIomimic({"run", profile, "--target=" + dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("mmap_msync.msync"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sometimes"), std::string::npos) << r.err;
  EXPECT_EQ(dir.Entries(), 0);
  ::unlink(profile.c_str());
}

// With stderr closed (a daemon, `2>&-`) the run still completes, and its
// messages land nowhere, not in a file the run opened on descriptor 2.
TEST(Cli, ClosedStderrLosesOnlyTheMessages) {
  ScratchDir dir;
  const std::string report = dir.path() + "/../iomimic-cli-closed-stderr.json";
  const RunResult r = RunCommand(
      {"/bin/sh", "-c",
       "exec " + std::string(IOMIMIC_BINARY) + " run mmap_msync --duration=0 --ops=4 "
       "--mmap_msync.region_size=1MiB --keep --target=" + dir.path() + " --output=" + report +
       " 2>&-"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(report);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "complete");
  // The first file the run made (the marker) holds JSON only.
  std::ifstream marker(j["run_dir"].get<std::string>() + "/.iomimic-run");
  EXPECT_TRUE(nlohmann::json::parse(marker, nullptr, false).is_object());
  ::unlink(report.c_str());
}

TEST(Cli, RefusedTargetsExit2) {
  auto r = RunIomimic({"run", "mmap_msync", "--target=/nonexistent/dir"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/dir"), std::string::npos) << r.err;
  r = RunIomimic({"run", "mmap_msync", "--target=/"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'/'"), std::string::npos) << r.err;
  r = RunIomimic({"run", "mmap_msync", "--target=/dev/null"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("device"), std::string::npos) << r.err;
}

TEST(Cli, BlockDeviceTargetRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for a loop device";
  auto fs = LoopFs::Create("ext4", 64ull << 20);
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs->device()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("device"), std::string::npos) << r.err;
}

TEST(Cli, ReadOnlyMountRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for a loop device";
  auto fs = LoopFs::Create("ext4", 64ull << 20, "", "ro");
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs->mount_point()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
}

// 8 threads x 16 MiB regions = 128 MiB on a 64 MiB filesystem: refused
// before anything is written, saying how much is free and how much is needed.
TEST(Cli, NoRoomForTheFootprintRefused) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 64ull << 20);
  ScratchDir out;
  const std::string report = out.path() + "/r.json";
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs->mount_point(), "--threads=8",
                       "--mmap_msync.region_size=16MiB", "--output=" + report});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("free"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("128MiB"), std::string::npos) << "the footprint is named: " << r.err;
  EXPECT_NE(r.err.find("min_free"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(out.Entries(), 0) << "no report for a refused run";
  DIR* d = ::opendir(fs->mount_point().c_str());
  ASSERT_NE(d, nullptr);
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    EXPECT_TRUE(name == "." || name == ".." || name == "lost+found") << name << " was written";
  }
  ::closedir(d);
}

TEST(Cli, TargetThatIsNotADirectoryRefused) {
  ScratchDir dir;
  const std::string file = dir.path() + "/file";
  std::ofstream(file) << "x";
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  EXPECT_EQ(dir.Entries(), 1) << "only the file itself";
}

// The root reached through a symbolic link is still the root.
TEST(Cli, SymlinkToRootRefused) {
  ScratchDir dir;
  const std::string link = dir.path() + "/root";
  ASSERT_EQ(::symlink("/", link.c_str()), 0);
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + link});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'/'"), std::string::npos) << r.err;
}

// A target with free blocks but no free inode: mkdtemp of the run directory
// fails with ENOSPC. That is a failed run (exit 1, a report), not an abort.
TEST(Cli, TargetWithoutFreeInodesFailsCleanly) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto fs = LoopFs::Create("ext4", 256ull << 20, "-N 16");
  const std::string fill = fs->mount_point() + "/fill";
  ASSERT_EQ(::mkdir(fill.c_str(), 0755), 0);
  for (int i = 0;; ++i) {
    const std::string f = fill + "/" + std::to_string(i);
    const int fd = ::open(f.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
      ASSERT_EQ(errno, ENOSPC);
      break;
    }
    ::close(fd);
  }
  auto r = RunIomimic({"run", "mmap_msync", "--target=" + fs->mount_point(), "--duration=1s"});
  EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << "exit " << r.exit_code << ": " << r.err;
  EXPECT_EQ(r.term_signal, 0) << r.err;
  EXPECT_NE(r.err.find("No space left"), std::string::npos) << r.err << r.out;
}

}  // namespace
}  // namespace iomimic::test
