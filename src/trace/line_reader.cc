#include "trace/line_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace iomimic::trace {
namespace {
constexpr size_t kChunk = 1 << 20;
}

LineReader::LineReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "open " + path);
  // Read once, front to back: tell the kernel so it reads ahead far.
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  buf_.resize(2 * kChunk);
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

// Moves the unread tail to the front and reads more after it; grows the
// buffer only when one line is longer than what it holds.
bool LineReader::Fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() - end_ < kChunk) buf_.resize(buf_.size() * 2);
  ssize_t n;
  do {
    n = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw std::system_error(errno, std::generic_category(), "read " + path_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<size_t>(n);
  bytes_read_ += static_cast<uint64_t>(n);
  return true;
}

bool LineReader::Next(std::string_view* line, bool* complete) {
  size_t scanned = begin_;
  for (;;) {
    const void* nl = std::memchr(buf_.data() + scanned, '\n', end_ - scanned);
    if (nl != nullptr) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(nl) - buf_.data());
      *line = std::string_view(buf_.data() + begin_, at - begin_);
      *complete = true;
      begin_ = at + 1;
      ++line_number_;
      return true;
    }
    const size_t consumed = end_ - begin_;
    if (!Fill()) break;
    scanned = begin_ + consumed;
  }
  if (begin_ == end_) return false;
  *line = std::string_view(buf_.data() + begin_, end_ - begin_);
  *complete = false;
  begin_ = end_;
  ++line_number_;
  return true;
}

}  // namespace iomimic::trace
