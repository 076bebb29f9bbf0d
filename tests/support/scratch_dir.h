// A fresh directory under /tmp for one test, removed with what is in it.
#pragma once

#include <string>
#include <vector>

namespace iomimic::test {

class TempDir {
 public:
  // mkdtemp("/tmp/iomimic-<tag>-XXXXXX"). Throws std::runtime_error.
  explicit TempDir(const std::string& tag);
  ~TempDir();  // rm -rf, never following a symbolic link out
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Names in it (not "." and ".."), sorted; empty when it cannot be read.
  std::vector<std::string> Names() const;

 private:
  std::string path_;
};

}  // namespace iomimic::test
