#include "cli/output_checks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "engine/run_dir.h"
#include "iomimic/status.h"
#include "util/stderr_line.h"

namespace iomimic::cli {
namespace {

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

}  // namespace

// A report that could not be written at the end would lose the run: the
// directory must be writable, the name free or a regular file, and the two
// outputs different.
void CheckReportPaths(const RunPlan& plan) {
  for (const auto& [name, path] : {std::pair<const char*, const std::string&>{"output", plan.cli.output},
                                   {"series_output", plan.cli.series_output}}) {
    if (path.empty()) continue;
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      throw UsageError(fmt::format("invalid value '{}' for option '{}': directory '{}' is not "
                                   "writable: {}",
                                   path, name, dir, std::strerror(errno)));
    }
    // The report is renamed into place: that would replace a device
    // (/dev/null), a symbolic link (/dev/stdout) or fail on a directory
    // after the whole run.
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      throw UsageError(fmt::format(
          "invalid value '{}' for option '{}': it exists and is not a regular file (a {}); the "
          "report is written to a new file and renamed over it. Give a file name, or "
          "--format=json for standard output",
          path, name,
          S_ISDIR(st.st_mode)   ? "directory"
          : S_ISLNK(st.st_mode) ? "symbolic link"
                                : "device, pipe or socket"));
    }
  }
  if (!plan.cli.output.empty() && plan.cli.output == plan.cli.series_output) {
    throw UsageError(fmt::format("invalid value '{}' for option 'series_output': it is also "
                                 "--output; the series would overwrite the report",
                                 plan.cli.series_output));
  }

}

void CheckOutputs(const RunPlan& plan) {
  if (!plan.cli.series_output.empty() && plan.engine.interval_ns == 0) {
    throw UsageError(fmt::format(
        "invalid value '{}' for option 'series_output': it needs --interval (the series has one "
        "row per interval; without one the file would be empty)",
        Printable(plan.cli.series_output)));
  }
  for (const auto& [name, path] :
       {std::pair<const char*, const std::string&>{"output", plan.cli.output},
        {"series_output", plan.cli.series_output}}) {
    if (path.empty()) continue;
    if (!plan.profile.empty() && SameFile(path, plan.profile)) {
      throw UsageError(fmt::format("invalid value '{}' for option '{}': it is the profile; the "
                                   "report would replace it",
                                   Printable(path), name));
    }
    if (const std::string fs = engine::PseudoFilesystemOf(DirOf(path)); !fs.empty()) {
      throw UsageError(fmt::format("invalid value '{}' for option '{}': its directory is on {}, "
                                   "a pseudo filesystem of the kernel, where no report can be "
                                   "written",
                                   Printable(path), name, fs));
    }
  }
}

bool FinishStdout() {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  PrintErr("iomimic: error: the report could not be written to standard output: {}\n",
           errno != 0 ? std::strerror(errno) : "write error");
  return false;
}

}  // namespace iomimic::cli
