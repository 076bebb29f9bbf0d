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

}  // namespace iomimic::test
