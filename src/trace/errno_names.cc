#include "trace/errno_names.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace iomimic::trace {
namespace {

// glibc's strerrorname_np (2.32+) knows every errno of this system.
const std::unordered_map<std::string, int>& Table() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, int>();
    for (int e = 1; e < 256; ++e) {
      if (const char* n = ::strerrorname_np(e)) t->emplace(n, e);
    }
    return t;
  }();
  return *table;
}

}  // namespace

int ErrnoFromName(std::string_view name) {
  const auto& t = Table();
  auto it = t.find(std::string(name));
  return it == t.end() ? 0 : it->second;
}

std::string ErrnoName(int err) {
  const char* n = ::strerrorname_np(err);
  if (n != nullptr) return n;
  std::string name = "E";
  name += std::to_string(err);
  return name;
}

}  // namespace iomimic::trace
