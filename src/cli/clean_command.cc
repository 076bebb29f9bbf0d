// iomimic clean [--target DIR]... [--dry-run]: what a run ended by kill -9
// or a crash left behind.
//
// First the state directory (engine/tunings_journal.h): each journal whose
// run is gone (its flock is free) has its settings put back (those still
// at the value the run wrote), then the journal and its locks are removed.
// This needs no run directory: a run killed before it made one, or after
// it removed it, is restored all the same. Then each DIR/iomimic-*
// directory whose marker (engine/run_marker.h) names a process that no
// longer runs is removed, and so is an empty one iomimic created (a run
// killed between making it and writing its marker). A live run's
// directory, a kept one, and one without a marker that is not empty are
// left as they are.
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
#include "engine/tunings_journal.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "lifecycle/lifecycle.h"
#include "platform/sysfs.h"
#include "util/stderr_line.h"

namespace iomimic::cli {
namespace {

constexpr const char* kCleanUsage =
    "usage: iomimic clean [--target DIR]... [--dry-run]\n"
    "  Puts back the settings that --tune runs which were killed (kill -9, a\n"
    "  crash) left changed, from their journals in the state directory\n"
    "  (/run/iomimic, or $IOMIMIC_STATE_DIR); then, under each DIR given,\n"
    "  removes the run directories (DIR/iomimic-*) of such runs.\n"
    "  A run still going, a directory kept with --keep, a setting changed by\n"
    "  someone else since, or a directory without iomimic's marker is left.\n"
    "  --target DIR: may be given several times.\n"
    "  --dry-run: say what would be done, change nothing.\n";

struct CleanArgs {
  std::vector<std::string> targets;
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
      a.targets.push_back(arg.substr(9));
    } else if (arg == "--target") {
      if (i + 1 == args.size()) throw UsageError("option 'target' needs a directory");
      a.targets.push_back(args[++i]);
    } else {
      throw UsageError(fmt::format("unknown option '{}' for clean\n{}", Printable(arg),
                                   kCleanUsage));
    }
  }
  for (const std::string& t : a.targets) {
    if (t.empty()) throw UsageError("option 'target' needs a directory, not an empty value");
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

void Say(const std::string& where, const std::string& what) {
  fmt::print("iomimic: clean: {}: {}\n", Printable(where), what);
}

// The lines a restore plan gives: what is left (changed since) and, on a
// dry run, what would be restored.
void SayPlan(const std::string& where, const nlohmann::json& plan, bool dry_run) {
  for (const nlohmann::json& p : plan) {
    const std::string name = p["name"], found = p["found"];
    if (p["action"] == "left") {
      Say(where, fmt::format("{} reads '{}', not the '{}' the run wrote: changed since, left as "
                             "it is",
                             name, Printable(found), Printable(p["value"].get<std::string>())));
    } else if (dry_run && p["action"] == "restore" && !p["value"].get<std::string>().empty()) {
      Say(where, fmt::format("would restore {} to {}", name,
                             Printable(p["before"].get<std::string>())));
    }
  }
}

// Puts back what a dead run's journal names. False when something could
// not be: the journal (or marker) then stays, still saying what to restore.
bool RestoreJournal(const std::string& where, const nlohmann::json& entries, bool dry_run) {
  if (::geteuid() != 0) {
    Say(where, "restoring the settings the run changed needs root, left");
    return false;
  }
  engine::Tunings tunings;
  try {
    tunings.Adopt(entries);
  } catch (const UsageError& e) {
    Say(where, fmt::format("{}; left", e.what()));
    return false;
  }
  SayPlan(where, tunings.Plan(), dry_run);
  if (dry_run) {
    tunings.Disarm();
    return true;
  }
  tunings.Restore(/*quiet=*/false);
  return !tunings.restore_failed();
}

struct Counts {
  int removed = 0, left = 0;
  bool failed = false;
};

// The journals of the state directory.
Counts CleanStateDir(bool dry_run) {
  Counts c;
  const std::string boot_id =
      platform::ReadFileTrimmed("/proc/sys/kernel/random/boot_id").value_or("");
  for (engine::FoundJournal& j : engine::FindJournals()) {
    const int pid = j.doc.is_object() && j.doc.contains("pid") && j.doc["pid"].is_number_integer()
                        ? j.doc["pid"].get<int>()
                        : 0;
    bool remove = true;
    if (j.alive) {
      Say(j.file, "its run is still going, left");
      remove = false;
    } else if (!j.refused.empty()) {
      Say(j.file, fmt::format("{}: left", j.refused));
      c.failed = true;
      remove = false;
    } else if (j.doc.is_null()) {
      Say(j.file, "incomplete (its run was killed while writing it, before changing anything)");
    } else if (!j.doc.contains("boot_id") || j.doc["boot_id"] != boot_id) {
      Say(j.file, fmt::format("of pid {} in an earlier boot: the reboot reset its settings", pid));
    } else {
      remove = RestoreJournal(fmt::format("{} (pid {})", j.file, pid),
                              j.doc.contains("entries") ? j.doc["entries"] : nlohmann::json(),
                              dry_run);
      c.failed |= !remove;
    }
    if (!remove) {
      ++c.left;
    } else if (dry_run) {
      Say(j.file, "would remove");
    } else {
      engine::RemoveJournal(j);
      Say(j.file, "done, removed");
      ++c.removed;
    }
    if (j.fd >= 0) ::close(j.fd);
  }
  if (!dry_run) engine::RemoveStaleLocks();
  return c;
}

// A directory without a marker is iomimic's when mkdtemp made it (mode
// 0700, the caller's, "iomimic-MODULE-XXXXXX") and it is empty: a run was
// killed between making it and writing its marker. rmdir removes only an
// empty directory, so nothing of anyone's can be lost.
bool RemoveIfEmptyRunDir(const std::string& dir, bool dry_run) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || (st.st_mode & 07777) != 0700 ||
      st.st_uid != ::geteuid()) {
    return false;
  }
  const std::string name = dir.substr(dir.rfind('/') + 1);
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash < 9 || name.size() - dash - 1 != 6) return false;
  // "iomimic-MODULE-": only a module iomimic has (a test's "iomimic-state-"
  // directory is not a run directory).
  if (Registry::Get().Find(name.substr(8, dash - 8)) == nullptr) return false;
  if (dry_run) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return false;
    int entries = 0;
    while (::readdir(d) != nullptr) ++entries;
    ::closedir(d);
    return entries == 2;
  }
  return ::rmdir(dir.c_str()) == 0;
}

void CleanRunDir(const std::string& dir, bool dry_run, Counts* c) {
  const std::optional<engine::RunMarker> marker = engine::ReadRunMarker(dir);
  if (!marker) {
    if (RemoveIfEmptyRunDir(dir, dry_run)) {
      Say(dir, fmt::format("{}empty, without a marker: a run killed as it began",
                           dry_run ? "would remove: " : "removed: "));
      c->removed += !dry_run;
      return;
    }
    Say(dir, fmt::format("no readable {}: not known to be iomimic's, left",
                         engine::kRunMarkerName));
    ++c->left;
    return;
  }
  if (marker->kept) {
    Say(dir, "kept with --keep by a run that ended, left (remove it yourself)");
    ++c->left;
    return;
  }
  if (engine::RunIsAlive(*marker)) {
    Say(dir, fmt::format("run of pid {} (started {}) is still going, left", marker->pid,
                         marker->started_at));
    ++c->left;
    return;
  }
  // Markers of earlier versions carried the settings themselves.
  if (!marker->tunings.empty()) {
    const bool ok = marker->owner_uid == 0 && RestoreJournal(dir, marker->tunings, dry_run);
    if (marker->owner_uid != 0) {
      Say(dir, "its marker is not root's: the settings it names are not restored, left");
    }
    if (!ok) {
      c->failed = true;
      ++c->left;
      return;
    }
  }
  if (dry_run) {
    Say(dir, fmt::format("would remove ({} run of pid {}, started {})", marker->module,
                         marker->pid, marker->started_at));
    return;
  }
  try {
    engine::RemoveRunDir(dir);
    Say(dir, fmt::format("removed ({} run of pid {}, started {})", marker->module, marker->pid,
                         marker->started_at));
    ++c->removed;
  } catch (const SysError& e) {
    Say(dir, fmt::format("cannot remove: {}", e.what()));
    c->failed = true;
    ++c->left;
  }
}

}  // namespace

int CleanCommand(const std::vector<std::string>& args) {
  const CleanArgs a = ParseCleanArgs(args);
  if (a.help) {
    fmt::print("{}", kCleanUsage);
    return 0;
  }
  std::vector<std::string> targets;
  for (const std::string& t : a.targets) targets.push_back(engine::CheckReadable(t));
  const Counts state = CleanStateDir(a.dry_run);
  fmt::print("iomimic: clean: state directory {}: {} journals finished, {} left\n",
             Printable(engine::StateDir()), state.removed, state.left);
  Counts dirs;
  for (const std::string& target : targets) {
    for (const std::string& dir : RunDirsUnder(target)) CleanRunDir(dir, a.dry_run, &dirs);
  }
  if (!targets.empty()) {
    fmt::print("iomimic: clean: {} removed, {} left{}\n", dirs.removed, dirs.left,
               a.dry_run ? " (dry run: nothing changed)" : "");
  }
  // Emulated disks (disk/) whose run, `disk up` or daemon was killed.
  const bool disks_ok = disk::CleanStaleDisks(a.dry_run, [](const std::string& s) { Say("disk", s); });
  return state.failed || dirs.failed || !disks_ok ? 1 : 0;
}

}  // namespace iomimic::cli
