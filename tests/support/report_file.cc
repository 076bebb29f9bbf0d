#include "support/report_file.h"

#include <unistd.h>

#include <fstream>

namespace iomimic::test {

nlohmann::json ReadReport(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

std::string ReportPathFor(const std::string& tag) {
  return "/tmp/iomimic-test-" + tag + "-" + std::to_string(::getpid()) + ".json";
}

std::string TempNameGlob(const std::string& path) {
  const size_t slash = path.rfind('/');
  return path.substr(0, slash + 1) + "." + path.substr(slash + 1) + ".tmp-*";
}

}  // namespace iomimic::test
