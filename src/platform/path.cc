#include "platform/path.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace iomimic::platform {

std::optional<std::string> RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (path.empty() || ::realpath(path.c_str(), buf) == nullptr) return std::nullopt;
  return std::string(buf);
}

std::optional<std::string> ResolveExistingPrefix(const std::string& path) {
  if (std::optional<std::string> real = RealPath(path)) return real;
  std::string absolute = path;
  if (absolute.empty() || absolute.front() != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return std::nullopt;
    absolute = std::string(cwd) + "/" + absolute;
  }
  std::string tail;
  while (absolute.size() > 1) {
    while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
    const size_t slash = absolute.find_last_of('/');
    const std::string name = absolute.substr(slash + 1);
    tail = tail.empty() ? name : name + "/" + tail;
    absolute = slash == 0 ? "/" : absolute.substr(0, slash);
    if (std::optional<std::string> real = RealPath(absolute)) {
      return *real == "/" ? "/" + tail : *real + "/" + tail;
    }
  }
  return RealPath("/");
}

std::string RelativeTo(const std::string& path, const std::string& base) {
  std::string prefix = base;
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  if (prefix.empty() || prefix == "/") return path;
  if (path.size() > prefix.size() + 1 && path.compare(0, prefix.size(), prefix) == 0 &&
      path[prefix.size()] == '/') {
    return path.substr(prefix.size() + 1);
  }
  return path;
}

}  // namespace iomimic::platform
