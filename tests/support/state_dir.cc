#include "support/state_dir.h"

#include <cstdlib>

namespace iomimic::test {

ScopedStateDir::ScopedStateDir() : dir_("state") {
  ::setenv("IOMIMIC_STATE_DIR", dir_.path().c_str(), 1);
}

ScopedStateDir::~ScopedStateDir() { ::unsetenv("IOMIMIC_STATE_DIR"); }

}  // namespace iomimic::test
