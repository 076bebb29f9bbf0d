// Errors a module and the core raise.
//
// One error path (docs/architecture.md): a failed system call becomes a
// SysError carrying the call, the path and errno. Workers never exit() and
// never let an exception escape their thread: the engine catches the first
// SysError, raises the stop flag and reports it. UsageError is bad input
// (exit 2, nothing written).
#pragma once

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

namespace iomimic {

class SysError : public std::system_error {
 public:
  SysError(std::string op, std::string path, int err);

  const std::string& op() const { return op_; }
  const std::string& path() const { return path_; }
  int err() const { return code().value(); }

 private:
  std::string op_;
  std::string path_;
};

// Bad option, bad profile, refused target: reported before anything is written.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws SysError(op, path, errno) when ret < 0; returns ret otherwise.
// Usage: int fd = CheckSys(::open(p, O_RDWR), "open", p);
template <typename T>
T CheckSys(T ret, const char* op, const std::string& path) {
  if (ret < 0) throw SysError(op, path, errno);
  return ret;
}

}  // namespace iomimic
