// Reads a text file line by line in fixed-size chunks: memory is one chunk
// plus the longest line, whatever the file's size (a 1 GB strace log is
// never held). Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace iomimic::trace {

class LineReader {
 public:
  // Throws std::system_error when the file cannot be opened.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its '\n'; valid until the next call. Returns
  // false at the end. *complete is false for a last line that had no '\n'
  // (a truncated file).
  bool Next(std::string_view* line, bool* complete);
  // 1-based number of the line Next() returned last.
  uint64_t line_number() const { return line_number_; }
  // Bytes consumed so far (for progress and speed figures).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  bool Fill();

  int fd_ = -1;
  std::string path_;
  std::string buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  uint64_t line_number_ = 0;
  uint64_t bytes_read_ = 0;
};

}  // namespace iomimic::trace
