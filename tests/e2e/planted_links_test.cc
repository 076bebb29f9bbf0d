// A local user who can write to the directory of --output (a shared
// scratch directory) plants symbolic links where the report's temporary
// file would be, pointing at a file of root's; root's run must write
// neither through them nor over them. The links are planted by `nobody`
// (a child that drops to that user with setgid/setuid), for the next
// thousand pids under every name a temporary was ever given
// (FILE.tmp.PID), in a world-writable directory without the sticky bit
// (where the kernel's protected_symlinks does not apply) and with it.
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/report_file.h"
#include "support/run_binary.h"
#include "support/scratch_dir.h"
#include "support/sys_setting.h"

namespace iomimic::test {
namespace {

struct Case {
  const char* name;
  mode_t dir_mode;
};

class PlantedLinks : public ::testing::TestWithParam<Case> {};

// As `nobody`, in a forked child: a symbolic link to `victim` at each of
// NAME.tmp.PID for the next `count` pids, for each name. False when the
// child could not do it.
bool PlantAsNobody(const std::string& dir, const std::vector<std::string>& names,
                   const std::string& victim, int count) {
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) return false;
  const int last = std::stoi(ReadTrimmed("/proc/sys/kernel/ns_last_pid"));
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(nobody->pw_gid) != 0 || ::setuid(nobody->pw_uid) != 0) ::_exit(3);
    int planted = 0;
    for (int pid = last + 1; pid <= last + count; ++pid) {
      for (const std::string& name : names) {
        const std::string link = dir + "/" + name + ".tmp." + std::to_string(pid);
        planted += ::symlink(victim.c_str(), link.c_str()) == 0;
      }
    }
    ::_exit(planted == count * static_cast<int>(names.size()) ? 0 : 4);
  }
  int status = 0;
  return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

TEST_P(PlantedLinks, TheVictimFileIsUnchanged) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (to drop to nobody, and as the victim)";
  TempDir shared("planted-shared");
  TempDir safe("planted-victim");
  TempDir target("planted-target");
  ASSERT_EQ(::chmod(shared.path().c_str(), GetParam().dir_mode), 0);
  const std::string victim = safe.path() + "/victim";
  std::ofstream(victim) << "root's precious file\n";
  ASSERT_EQ(::chmod(safe.path().c_str(), 0755), 0);
  ASSERT_TRUE(PlantAsNobody(shared.path(), {"report.json", "report.csv", "series.csv"}, victim,
                            1000));

  for (const std::string output : {"report.json", "report.csv"}) {
    SCOPED_TRACE(output);
    const std::string report = shared.path() + "/" + output;
    const std::string series = shared.path() + "/series.csv";
    const RunResult r = RunIomimic({"run", "mmap_msync", "--target=" + target.path(),
                                    "--duration=0", "--ops=4", "--mmap_msync.region_size=1MiB",
                                    "--interval=100ms", "--format=none", "--output=" + report,
                                    "--series_output=" + series});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadTrimmed(victim), "root's precious file");
    for (const std::string& written : {report, series}) {
      struct stat st {};
      ASSERT_EQ(::lstat(written.c_str(), &st), 0) << written;
      EXPECT_TRUE(S_ISREG(st.st_mode)) << written << " is not a regular file of its own";
      EXPECT_EQ(st.st_uid, 0u);
      EXPECT_EQ(st.st_mode & 0077 & ~0044, 0u) << "only readable by others";
    }
    if (output == std::string("report.json")) {
      EXPECT_TRUE(ReadReport(report).is_object());
    }
    ::unlink(report.c_str());
    ::unlink(series.c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Dirs, PlantedLinks,
                         ::testing::Values(Case{"WorldWritable", 0777},
                                           Case{"WorldWritableSticky", 01777}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace iomimic::test
