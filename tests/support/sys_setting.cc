#include "support/sys_setting.h"

#include <fstream>
#include <sstream>

namespace iomimic::test {

std::string ReadTrimmed(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const size_t b = text.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  return text.substr(b, text.find_last_not_of(" \t\n") - b + 1);
}

std::string Active(const std::string& selector_text) {
  const size_t open = selector_text.find('[');
  const size_t close = selector_text.find(']');
  if (open == std::string::npos || close == std::string::npos) return selector_text;
  return selector_text.substr(open + 1, close - open - 1);
}

}  // namespace iomimic::test
