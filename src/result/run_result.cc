#include "result/run_result.h"

namespace iomimic::result {

const char* StatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kComplete:
      return "complete";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kFailed:
      break;
  }
  return "failed";
}

ResolvedConfig::Section& ResolvedConfig::section(const std::string& name) {
  for (Section& s : sections) {
    if (s.name == name) return s;
  }
  sections.push_back({name, {}});
  return sections.back();
}

void ResolvedConfig::Set(const std::string& section_name, const std::string& option,
                         const std::string& value) {
  Section& s = section(section_name);
  for (auto& [name, text] : s.options) {
    if (name == option) {
      text = value;
      return;
    }
  }
  s.options.emplace_back(option, value);
}

uint64_t RunResult::op_count() const {
  uint64_t n = 0;
  for (const auto& op : ops) n += op.count;
  return n;
}

}  // namespace iomimic::result
