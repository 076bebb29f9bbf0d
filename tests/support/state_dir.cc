#include "support/state_dir.h"

#include <cstdlib>

#include "support/run_binary.h"

namespace iomimic::test {

ScopedStateDir::ScopedStateDir() : dir_("state") {
  ::setenv("IOMIMIC_STATE_DIR", dir_.path().c_str(), 1);
}

ScopedStateDir::~ScopedStateDir() {
  // A test that stopped half way (a failed assertion, an exception) may
  // leave a journal: its settings are put back before it is deleted, so
  // that no later test (or another engineer's, on a reused loop device)
  // starts from them.
  bool journals = false;
  for (const std::string& name : dir_.Names()) journals |= name.rfind("journal-", 0) == 0;
  if (journals) {
    try {
      RunIomimic({"clean"});
    } catch (const std::exception&) {
      // Nothing more to do: the test has failed already.
    }
  }
  ::unsetenv("IOMIMIC_STATE_DIR");
}

}  // namespace iomimic::test
