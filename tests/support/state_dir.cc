#include "support/state_dir.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace iomimic::test {

ScopedStateDir::ScopedStateDir() {
  char templ[] = "/tmp/iomimic-state-XXXXXX";
  if (::mkdtemp(templ) == nullptr) throw std::runtime_error("mkdtemp /tmp/iomimic-state-XXXXXX");
  path_ = templ;
  ::setenv("IOMIMIC_STATE_DIR", path_.c_str(), 1);
}

ScopedStateDir::~ScopedStateDir() {
  ::unsetenv("IOMIMIC_STATE_DIR");
  for (const std::string& name : Entries()) ::unlink((path_ + "/" + name).c_str());
  ::rmdir(path_.c_str());
}

std::vector<std::string> ScopedStateDir::Entries() const {
  std::vector<std::string> names;
  DIR* d = ::opendir(path_.c_str());
  if (d == nullptr) return names;
  while (const dirent* de = ::readdir(d)) {
    if (std::strcmp(de->d_name, ".") != 0 && std::strcmp(de->d_name, "..") != 0) {
      names.push_back(de->d_name);
    }
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace iomimic::test
