// A state directory of its own for a test (IOMIMIC_STATE_DIR, see
// src/engine/tunings_journal.h): tests running at once, in this binary or
// in another engineer's, never see each other's journals and locks.
#pragma once

#include <string>
#include <vector>

namespace iomimic::test {

class ScopedStateDir {
 public:
  // mkdtemp under /tmp (0700), exported as IOMIMIC_STATE_DIR for the
  // processes the test starts. Throws std::runtime_error.
  ScopedStateDir();
  // Unsets the variable and removes the directory and what is in it.
  ~ScopedStateDir();
  ScopedStateDir(const ScopedStateDir&) = delete;
  ScopedStateDir& operator=(const ScopedStateDir&) = delete;

  const std::string& path() const { return path_; }
  // The names in it, sorted ("journal-...", "lock-...").
  std::vector<std::string> Entries() const;

 private:
  std::string path_;
};

}  // namespace iomimic::test
