#include "fuzz_common.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/sweep_plan.h"
#include "iomimic/status.h"

namespace iomimic::fuzz {

void ParseExpectingOnlyUsageError(const std::vector<std::string>& args) {
  try {
    (void)cli::ParseRun(args);
  } catch (const UsageError&) {
    // Refused with a message: the contract.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FINDING: ParseRun threw a non-UsageError exception: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "FINDING: ParseRun threw a non-std::exception\n");
    std::abort();
  }
}

bool TouchesSystemFiles(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    for (const char* prefix : {"/proc", "/sys", "/dev"}) {
      if (a.find(prefix) != std::string::npos) return true;
    }
  }
  return false;
}

}  // namespace iomimic::fuzz
