// Fuzzes command lines: the input is split on NUL bytes into the arguments
// that follow `iomimic run` (so "mmap_msync\0--threads=2" is two).
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.emplace_back();
    } else {
      args.back().push_back(static_cast<char>(data[i]));
    }
  }
  if (size == 0) args.clear();
  if (args.size() > 64 || iomimic::fuzz::TouchesSystemFiles(args)) return 0;
  iomimic::fuzz::ParseExpectingOnlyUsageError(args);
  return 0;
}
