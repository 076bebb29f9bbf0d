// Fuzzes profile files: the input is the file's contents. It goes to a
// memfd whose /proc/self/fd/N path is given as the profile, so nothing is
// written to disk and every iteration reads exactly the fuzzer's bytes.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_common.h"

namespace {

int ProfileFd() {
  static const int fd = [] {
    const int f = ::memfd_create("iomimic-fuzz-profile", MFD_CLOEXEC);
    if (f < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    return f;
  }();
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = ProfileFd();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) {
    std::perror("memfd write");
    std::abort();
  }
  // The path ends without ".ini": ParseRunArgs takes it as a profile
  // because it is a regular file (memfds are).
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  iomimic::fuzz::ParseExpectingOnlyUsageError({path});
  return 0;
}
