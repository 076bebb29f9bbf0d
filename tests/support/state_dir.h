// A state directory of its own for a test (IOMIMIC_STATE_DIR, see
// src/engine/tunings_journal.h): tests running at once, in this binary or
// in another engineer's, never see each other's journals and locks.
#pragma once

#include <string>
#include <vector>

#include "support/scratch_dir.h"

namespace iomimic::test {

class ScopedStateDir {
 public:
  // A TempDir (0700), exported as IOMIMIC_STATE_DIR for the processes the
  // test starts; on destruction, `iomimic clean` restores what a journal
  // left there still names, then the variable is unset and it is removed.
  ScopedStateDir();
  ~ScopedStateDir();
  ScopedStateDir(const ScopedStateDir&) = delete;
  ScopedStateDir& operator=(const ScopedStateDir&) = delete;

  const std::string& path() const { return dir_.path(); }
  // The names in it, sorted ("journal-...", "lock-...").
  std::vector<std::string> Entries() const { return dir_.Names(); }

 private:
  TempDir dir_;
};

}  // namespace iomimic::test
