// Streams the events of an `strace -f -tt -T -yy` log (-ttt, no -f, no -T
// and no -yy are read too). Memory: one chunk of text plus the pending
// half of each thread's unfinished call, so O(threads).
//
// A line it cannot read (cut short, not strace's format) is refused with a
// TraceError naming the line. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "trace/event.h"
#include "trace/line_reader.h"

namespace iomimic::trace {

class StraceReader {
 public:
  explicit StraceReader(const std::string& path);

  // The next event; false at the end. Throws TraceError.
  bool Next(Event* ev);

  uint64_t bytes_read() const { return lines_.bytes_read(); }
  uint64_t lines() const { return lines_.line_number(); }
  // Calls still `<unfinished ...>` at the end (the trace was stopped while
  // they ran, or the thread was killed in them): not replayed, counted.
  uint64_t unfinished_at_end() const { return pending_.size(); }
  // Lines strace writes about itself ("Process N attached", "???").
  uint64_t skipped_lines() const { return skipped_; }

 private:
  bool ParseLine(std::string_view line, Event* ev);
  bool ParseCall(std::string_view rest, Event* ev);
  void ParseResult(std::string_view text, Event* ev);
  uint64_t Timestamp(std::string_view ts);
  [[noreturn]] void Fail(const std::string& why) const;

  std::string path_;
  LineReader lines_;
  struct Pending {
    std::string text;  // "name(args" up to where it was cut
    uint64_t ts_ns = 0;
    uint64_t line = 0;
  };
  std::unordered_map<int32_t, Pending> pending_;
  std::string joined_;  // a resumed call put back together
  uint64_t last_ts_ = 0, day_offset_ = 0;
  uint64_t skipped_ = 0;
};

}  // namespace iomimic::trace
