// What a run's --tune is about to change, kept where a kill -9 cannot take
// it away: the state directory (/run/iomimic, or $IOMIMIC_STATE_DIR), not
// the run directory (which does not exist yet when the first setting is
// written, and is removed before the settings are put back).
//
// For each run that tunes: a journal, journal-PID-RANDOM.json, naming every
// setting file with its value before and the value to write, the pid, the
// boot id and the start time; written and fsynced (with the directory)
// before the first write to /sys or /proc/sys, removed only after every
// setting is back. The run holds an flock on it while it lives: `iomimic
// clean` tells a dead run's journal from a live one by that lock (exact,
// unlike a pid, which the kernel reuses).
//
// For each setting file a run changes: lock-<path with / as %2F>, flocked
// by the run for as long as it lives, naming the run's pid and journal. A
// second run that wants the same setting is refused while the first lives,
// and also once it is dead as long as its journal has not been restored by
// `clean` (the setting is still the dead run's value).
//
// Order, so that a SIGKILL at any instant leaves something `clean` can
// finish: locks, journal (fsync), settings written ... settings restored,
// journal removed (fsync), locks removed. Thread-safety: one object per
// run, used under the owner's (Tunings') mutex.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace iomimic::engine {

// $IOMIMIC_STATE_DIR, else /run/iomimic.
std::string StateDir();

// The state directory, created (0700) when missing. Refuses (UsageError) a
// relative path, and one that is a symbolic link, not a directory, not the
// caller's, or writable by others: `clean` acts as root on what it finds
// there.
std::string EnsureStateDir();

class TuningsJournal {
 public:
  TuningsJournal() = default;
  TuningsJournal(const TuningsJournal&) = delete;
  TuningsJournal& operator=(const TuningsJournal&) = delete;
  // Lets the locks go (the process ending would too); removes nothing.
  ~TuningsJournal();

  // Locks every file in `paths`, then writes `entries` as the journal.
  // Throws UsageError (nothing locked or written is left) when another run
  // holds one of the settings, naming it and its pid.
  void Begin(const nlohmann::json& entries, const std::vector<std::string>& paths);

  // Every setting is back: removes the journal, then the locks.
  void End() noexcept;

  // A setting could not be put back: the journal stays for `clean`; the
  // locks are let go (they still name the journal, so no other run takes
  // the setting until `clean` has restored it).
  void Keep() noexcept;

  bool active() const { return journal_fd_ >= 0; }

 private:
  void Lock(const std::string& setting, const std::string& shown);
  void ReleaseLocks(bool remove) noexcept;

  std::string dir_;
  std::string journal_;  // full path
  int journal_fd_ = -1;
  struct HeldLock {
    std::string file;
    int fd;
  };
  std::vector<HeldLock> locks_;
};

// --- for `iomimic clean` ---

struct FoundJournal {
  std::string file;      // full path
  nlohmann::json doc;    // null when the file could not be parsed
  bool alive = false;    // its run still holds it
  int fd = -1;           // held (flocked) while the caller works on a dead one
  std::string refused;   // why it must not be acted on ("" when it may)
};

// Every journal in the state directory (none when it does not exist).
std::vector<FoundJournal> FindJournals();

// After its settings are back (or it had none): removes the journal, then
// the lock files that name it. Closes `j.fd`.
void RemoveJournal(FoundJournal& j) noexcept;

// Lock files no live run holds whose journal is gone (a run killed before
// or after its journal existed). Returns how many were removed.
int RemoveStaleLocks() noexcept;

}  // namespace iomimic::engine
