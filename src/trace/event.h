// One entry of an strace log, as the reader hands it out: a finished
// syscall (an `<unfinished ...>` call already joined with its `<...
// resumed>` half), a signal delivered, or a process that ended.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace iomimic::trace {

// A trace that cannot be read: names the file and the 1-based line.
class TraceError : public std::runtime_error {
 public:
  TraceError(const std::string& file, uint64_t line, const std::string& what)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + what), line_(line) {}
  uint64_t line() const { return line_; }

 private:
  uint64_t line_;
};

enum class EventKind : uint8_t { kSyscall, kSignal, kExit };

// Views point into the reader's buffers: valid until the next Next().
struct Event {
  EventKind kind = EventKind::kSyscall;
  int32_t pid = 0;       // the thread id strace printed (0 without -f)
  uint64_t ts_ns = 0;    // start, ns since the first event's midnight (or epoch with -ttt)
  uint64_t dur_ns = 0;   // time in the syscall (-T), 0 when not shown
  bool has_time = false; // the line had a timestamp
  uint64_t line = 0;     // where the call started
  std::string_view name;                // syscall name; signal name; "exit"
  std::vector<std::string_view> args;   // top-level arguments, as printed
  bool ret_unknown = false;             // "= ?"
  int64_t ret = 0;
  int err = 0;                          // errno when ret is -1 (0 otherwise)
  std::string_view err_name;            // "ENOENT"
  std::string_view ret_deco;            // -yy decoration of a returned fd
};

}  // namespace iomimic::trace
