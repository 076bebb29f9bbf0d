// iomimic clean --target DIR [--dry-run]: what a run ended by kill -9 or a
// crash left behind. Each DIR/iomimic-* directory whose marker
// (engine/run_marker.h) names a process that no longer runs: the settings
// its --tune changed are put back (those still at the value it wrote), then
// the directory is removed. A live run's directory, and a directory
// without a marker, are left as they are.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/cli.h"
#include "engine/run_dir.h"
#include "engine/run_marker.h"
#include "engine/tunings.h"
#include "iomimic/status.h"
#include "lifecycle/lifecycle.h"

namespace iomimic::cli {
namespace {

constexpr const char* kCleanUsage =
    "usage: iomimic clean --target DIR [--dry-run]\n"
    "  Removes the run directories (DIR/iomimic-*) of runs that were killed\n"
    "  (kill -9, a crash) and puts back the settings their --tune changed.\n"
    "  A directory of a run still going, one kept with --keep, or one without\n"
    "  iomimic's marker is left.\n"
    "  --dry-run: say what would be done, change nothing.\n";

struct CleanArgs {
  std::string target;
  bool dry_run = false;
  bool help = false;
};

CleanArgs ParseCleanArgs(const std::vector<std::string>& args) {
  CleanArgs a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      a.help = true;
    } else if (arg == "--dry-run" || arg == "--dry_run") {
      a.dry_run = true;
    } else if (arg.rfind("--target=", 0) == 0) {
      a.target = arg.substr(9);
    } else if (arg == "--target") {
      if (i + 1 == args.size()) throw UsageError("option 'target' needs a directory");
      a.target = args[++i];
    } else {
      throw UsageError(fmt::format("unknown option '{}' for clean\n{}", arg, kCleanUsage));
    }
  }
  if (!a.help && a.target.empty()) {
    throw UsageError(fmt::format("option 'target' is required\n{}", kCleanUsage));
  }
  return a;
}

// DIR/iomimic-* directories (not symbolic links), sorted.
std::vector<std::string> RunDirsUnder(const std::string& target) {
  std::vector<std::string> dirs;
  DIR* d = ::opendir(target.c_str());
  if (d == nullptr) throw SysError("opendir", target, errno);
  while (const dirent* de = ::readdir(d)) {
    const std::string name = de->d_name;
    if (name.rfind("iomimic-", 0) != 0) continue;
    struct stat st {};
    const std::string path = target + "/" + name;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) dirs.push_back(path);
  }
  ::closedir(d);
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

void Say(const std::string& dir, const std::string& what) {
  fmt::print("iomimic: clean: {}: {}\n", dir, what);
}

// Puts back what the dead run changed. False when something could not be:
// the directory then stays, its marker still saying what to restore.
bool RestoreSettings(const std::string& dir, const engine::RunMarker& marker, bool dry_run) {
  if (marker.tunings.empty()) return true;
  if (marker.owner_uid != 0 || ::geteuid() != 0) {
    Say(dir, marker.owner_uid != 0
                 ? "its marker is not root's: the settings it names are not restored, left"
                 : "restoring the settings the run changed needs root, left");
    return false;
  }
  engine::Tunings tunings;
  std::vector<std::string> left;
  try {
    tunings.Adopt(marker.tunings, &left);
  } catch (const UsageError& e) {
    Say(dir, fmt::format("{}; left", e.what()));
    return false;
  }
  for (const std::string& l : left) Say(dir, l);
  if (dry_run) {
    for (const auto& e : tunings.Report()) {
      if (e.applied && e.value) Say(dir, fmt::format("would restore {} to {}", e.name, e.before));
    }
    tunings.Disarm();
    return true;
  }
  tunings.Restore(/*quiet=*/false);
  return !tunings.restore_failed();
}

}  // namespace

int CleanCommand(const std::vector<std::string>& args) {
  const CleanArgs a = ParseCleanArgs(args);
  if (a.help) {
    fmt::print("{}", kCleanUsage);
    return 0;
  }
  const std::string target = engine::CheckReadable(a.target);
  int removed = 0, left = 0;
  bool failed = false;
  for (const std::string& dir : RunDirsUnder(target)) {
    const std::optional<engine::RunMarker> marker = engine::ReadRunMarker(dir);
    if (!marker) {
      Say(dir, fmt::format("no readable {}: not known to be iomimic's, left",
                           engine::kRunMarkerName));
      ++left;
      continue;
    }
    if (marker->kept) {
      Say(dir, "kept with --keep by a run that ended, left (remove it yourself)");
      ++left;
      continue;
    }
    if (engine::RunIsAlive(*marker)) {
      Say(dir, fmt::format("run of pid {} (started {}) is still going, left", marker->pid,
                           marker->started_at));
      ++left;
      continue;
    }
    if (!RestoreSettings(dir, *marker, a.dry_run)) {
      failed = true;
      ++left;
      continue;
    }
    if (a.dry_run) {
      Say(dir, fmt::format("would remove ({} run of pid {}, started {})", marker->module,
                           marker->pid, marker->started_at));
      continue;
    }
    try {
      engine::RemoveRunDir(dir);
      Say(dir, fmt::format("removed ({} run of pid {}, started {})", marker->module, marker->pid,
                           marker->started_at));
      ++removed;
    } catch (const SysError& e) {
      Say(dir, fmt::format("cannot remove: {}", e.what()));
      failed = true;
      ++left;
    }
  }
  // Emulated disks (disk/) whose run, `disk up` or daemon was killed.
  failed |= !disk::CleanStaleDisks(a.dry_run, [](const std::string& s) { Say("disk", s); });
  fmt::print("iomimic: clean: {} removed, {} left{}\n", removed, left,
             a.dry_run ? " (dry run: nothing changed)" : "");
  return failed ? 1 : 0;
}

}  // namespace iomimic::cli
