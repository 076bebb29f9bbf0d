// System settings a run changes on request (--tune) and always puts back.
//
// A tuning names a setting and a value: "queue.read_ahead_kb=4096" is
// /sys/block/<the target's disk>/queue/read_ahead_kb, "vm.dirty_ratio=5" is
// /proc/sys/vm/dirty_ratio, "thp.enabled=never" is
// /sys/kernel/mm/transparent_hugepage/enabled. Only the settings in the
// table of tunings.cc are accepted: each is one the stories turn, and one
// that can be read back and restored exactly.
//
// Life of a run's tunings: Parse (option syntax, exit 2) -> Resolve (the
// target's device, the files exist, the value is one the kernel offers;
// nothing written, exit 2) -> Apply (a lock per setting and the journal in
// the state directory first, tunings_journal.h; then each change printed,
// written and read back: a value the kernel refuses, or one it replaces
// by another (a clamp), undoes what was applied and is a usage error) ->
// Restore (each setting that still reads what iomimic wrote gets its value
// before back, read again to prove it; one that reads something else was
// changed by someone else during the run and is left as it is, said in
// the report; then the journal and the locks are removed).
//
// Settings the kernel links are restored as a group: switching the I/O
// scheduler resets nr_requests, so the scheduler is applied and restored
// first and nr_requests is always restored after it; vm.dirty_bytes and
// vm.dirty_ratio exclude each other (writing one zeroes the other, and 0
// cannot be written to dirty_bytes), so the one that was in force before
// is the one written back. The background pair likewise.
//
// Thread-safety: Restore() may be called from the signal watcher's thread
// while the main thread runs or restores; it is serialised and idempotent.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/tunings_journal.h"
#include "result/evidence.h"

namespace iomimic::engine {

struct TuningRequest {
  std::string name;   // "queue.read_ahead_kb"
  std::string value;  // "4096"
};

// Parses the --tune option: NAME=VALUE[,NAME=VALUE...]. Returns "" and
// fills `out`, or the reason (without the option name). Unknown names,
// malformed values and a name given twice are refused.
std::string ParseTunings(const std::string& text, std::vector<TuningRequest>* out);

// The names --tune accepts, for the help text and error messages.
std::string TunableNames();
bool IsTunable(const std::string& name);

// --sweep over a --tune setting: applies `requests` on `target` and puts
// them back at once (journal, locks and read-back as in a run), so that a
// value the kernel would not keep is refused before the first point runs.
// `seen` maps each value the kernel kept for `name` to the sweep value
// that gave it: a point that maps to the value of an earlier one ("064"
// and "64") is refused. Throws UsageError.
void TrySweepPoint(const std::vector<TuningRequest>& requests, const std::string& target,
                   const std::string& name, std::map<std::string, std::string>* seen);

class Tunings {
 public:
  Tunings() = default;
  Tunings(const Tunings&) = delete;
  Tunings& operator=(const Tunings&) = delete;
  // Restores whatever is still applied.
  ~Tunings();

  // Finds every file and reads its current value. Throws UsageError naming
  // the option when a tuning cannot be applied here (not root, the target
  // has no block device, the kernel does not offer the value). Writes
  // nothing.
  void Resolve(const std::vector<TuningRequest>& requests, const std::string& target);

  // Locks the settings and writes the journal (UsageError naming the pid of
  // another run that holds one), then writes the requested values, one
  // line each on stderr unless `quiet`, and reads each back. When the
  // kernel refuses one or keeps another value, restores those already
  // written and throws UsageError naming the setting, the value and the
  // kernel's errno or the value it kept.
  void Apply(bool quiet);

  // Writes back every value read by Resolve() and reads it again, for the
  // settings that still read what iomimic wrote. Never throws; a setting
  // that could not be restored is in Report() and makes restore_failed()
  // true (the journal then stays for `clean`). Later calls do nothing.
  void Restore(bool quiet) noexcept;

  // What Restore() would need after this process is gone: every entry
  // with its file, value before and value written (the journal's entries).
  nlohmann::json Journal() const;

  // `iomimic clean`: takes over the journal entries of a run that died
  // without restoring. Only files of the settings --tune knows are
  // accepted. Restore() then puts back what still reads the value that run
  // wrote (someone may have changed it since: left as it is, with a
  // reason in Report()); linked settings follow their scheduler. Throws
  // UsageError for a journal naming another file.
  void Adopt(const nlohmann::json& journal);

  // What Restore() would do now, changing nothing: [{name, before, value,
  // found, action: "restore" | "unchanged" | "left"}].
  nlohmann::json Plan() const;

  // Restore() and the destructor do nothing afterwards (`clean --dry-run`
  // adopts a journal only to say what it would restore).
  void Disarm();

  bool empty() const { return entries_.empty(); }
  bool restore_failed() const;
  // [{name, path, before, value, applied, restored, reason?, found?,
  // error?}], one per file touched (a setting restored only because of a
  // linked one has no value). reason "changed by someone else": the
  // setting read `found`, not what iomimic wrote, and was left.
  std::vector<result::TuningOutcome> Report() const;

 private:
  struct Entry {
    std::string name;       // as the user wrote it, or the linked setting's name
    std::string path;
    bool selector = false;  // "a [b] c" files: the bracketed word is the value
    std::string before;     // as read by Resolve()
    std::string value;      // to write; "" for a setting only restored
    // vm.dirty_bytes / dirty_ratio pairs: the partner and its value before.
    std::string partner_path;
    std::string partner_before;
    bool applied = false;
    bool written = false;     // iomimic wrote `value`, and read back `kept`
    std::string kept;
    bool restored = false;
    bool wrote_back = false;  // restored by a write (not found as before)
    std::string reason;       // why it was left as found
    std::string found;        // what it read at the restore
    std::string error;  // why it could not be restored
    int err = 0;        // the errno of the failed write, 0 for a wrong read-back
  };
  enum class Action { kNone, kRestore, kLeft };
  Action Decide(const Entry& e, bool follows_scheduler, std::string* found) const;
  void RestoreEntry(Entry& e, bool follows_scheduler) noexcept;
  nlohmann::json JournalLocked() const;

  mutable std::mutex mu_;
  std::vector<Entry> entries_;  // in the order they are applied and restored
  bool restore_done_ = false;
  std::string device_;  // the target's disk, for messages
  TuningsJournal journal_;
};

}  // namespace iomimic::engine
