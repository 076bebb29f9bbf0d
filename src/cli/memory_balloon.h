// --memory_balloon SIZE: anonymous memory held locked (mlock) for a run,
// so the page cache is as small as on a server with less memory.
//
// Refused (UsageError) when it would leave less than the safe minimum
// available (MemAvailable - SIZE < max(512 MiB, 5 % of MemTotal)): the
// machine must not start swapping or kill processes. The memory belongs to
// this process: released by the destructor, and by the kernel if the
// process is killed (kill -9 included). Thread-safety: one owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace iomimic::cli {

class MemoryBalloon {
 public:
  // Parses SIZE (option `option` for messages), checks and locks it.
  MemoryBalloon(const std::string& size_text, const std::string& option);
  MemoryBalloon(const MemoryBalloon&) = delete;
  MemoryBalloon& operator=(const MemoryBalloon&) = delete;
  ~MemoryBalloon();

  uint64_t bytes() const { return bytes_; }

 private:
  void* base_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace iomimic::cli
