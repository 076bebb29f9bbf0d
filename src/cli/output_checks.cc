#include "cli/output_checks.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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
