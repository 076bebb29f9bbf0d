#include "cli/cli.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

#include <fmt/format.h>

#include "cli/disk_run.h"
#include "iomimic/status.h"
#include "lifecycle/disk_command.h"
#include "util/stderr_line.h"

namespace iomimic::cli {
namespace {

constexpr const char* kUsage =
    "usage: iomimic list                          the workload modules\n"
    "       iomimic describe MODULE               a module's story and options\n"
    "       iomimic run [MODULE|PROFILE.ini] [options]\n"
    "                                             run a workload (none: the default one)\n"
    "       iomimic run --help                    the engine's options\n"
    "       iomimic clean [--target DIR]... [--dry-run]\n"
    "                                             remove what killed runs left, restore\n"
    "                                             their --tune settings\n"
    "       iomimic trace summarize APP.strace [--format json]\n"
    "                                             what an application's strace shows\n"
    "       iomimic disk up|down|list|models     an emulated slow disk (iomimic disk --help)\n"
    "       iomimic --version\n";

std::string JoinArgs(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

}  // namespace

int Main(int argc, char** argv) {
  // A closed pipe on stdout or stderr is a failed write (PrintErr drops
  // the message), not the end of a run that has settings to restore.
  std::signal(SIGPIPE, SIG_IGN);
  // A closed standard descriptor would be reused by the first file the run
  // opens, and messages would land in it: hold 0-2 open on /dev/null.
  // stdout read-only: a report printed to a closed stdout is lost, and its
  // write fails (exit 1) instead of vanishing.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int null_fd = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
      if (null_fd >= 0 && null_fd != fd) {
        ::dup2(null_fd, fd);
        ::close(null_fd);
      }
    }
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
      std::fputs(kUsage, args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      fmt::print("iomimic {}\n", IOMIMIC_VERSION);
      return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    if (command == "list") return ListCommand();
    if (command == "describe") return DescribeCommand(args);
    if (command == "run") return RunWithDisk(args, JoinArgs(argc, argv));
    if (command == "clean") return CleanCommand(args);
    if (command == "trace") return TraceCommand(args);
    if (command == "disk") return disk::DiskCommand(args);
    throw UsageError(fmt::format("unknown command '{}'\n{}", command, kUsage));
  } catch (const UsageError& e) {
    PrintErr("iomimic: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    // Not a bad input and not a run's own failure (those become reports):
    // say it and fail, never abort.
    PrintErr("iomimic: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace iomimic::cli
