#include "iomimic/options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "iomimic/status.h"
#include "iomimic/units.h"

namespace iomimic {

std::string OptionSet::QualifiedName(const std::string& name) const {
  return section_.empty() ? name : section_ + "." + name;
}

const OptionSpec* OptionSet::Find(const std::string& name) const {
  for (const OptionSpec& spec : specs_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

void OptionSet::Apply(const std::string& name, const std::string& value) const {
  const OptionSpec* spec = Find(name);
  if (spec == nullptr) {
    throw UsageError(fmt::format("unknown option '{}'", QualifiedName(name)));
  }
  const std::string reason = spec->apply(value);
  if (!reason.empty()) {
    throw UsageError(
        fmt::format("invalid value '{}' for option '{}': {}", value, QualifiedName(name), reason));
  }
}

void OptionSet::Size(const std::string& name, uint64_t* field, const std::string& help,
                     uint64_t min, uint64_t max) {
  OptionSpec spec{name, "size", help, FormatSize(*field), {}, nullptr, nullptr};
  spec.apply = [field, min, max](const std::string& text) -> std::string {
    std::string error;
    auto v = ParseSize(text, &error);
    if (!v) return error;
    if (*v < min || *v > max) {
      return fmt::format("must be between {} and {}", FormatSize(min), FormatSize(max));
    }
    *field = *v;
    return {};
  };
  spec.current = [field] { return FormatSize(*field); };
  specs_.push_back(std::move(spec));
}

void OptionSet::Duration(const std::string& name, uint64_t* field_ns, const std::string& help,
                         uint64_t min_ns, uint64_t max_ns) {
  OptionSpec spec{name, "duration", help, FormatDuration(*field_ns), {}, nullptr, nullptr};
  spec.apply = [field_ns, min_ns, max_ns](const std::string& text) -> std::string {
    std::string error;
    auto v = ParseDurationNs(text, &error);
    if (!v) return error;
    if (*v < min_ns || *v > max_ns) {
      return fmt::format("must be between {} and {}", FormatDuration(min_ns),
                         FormatDuration(max_ns));
    }
    *field_ns = *v;
    return {};
  };
  spec.current = [field_ns] { return FormatDuration(*field_ns); };
  specs_.push_back(std::move(spec));
}

void OptionSet::Integer(const std::string& name, int64_t* field, const std::string& help,
                        int64_t min, int64_t max) {
  OptionSpec spec{name, "integer", help, std::to_string(*field), {}, nullptr, nullptr};
  spec.apply = [field, min, max](const std::string& text) -> std::string {
    std::string error;
    auto v = ParseInteger(text, &error);
    if (!v) return error;
    if (*v < min || *v > max) return fmt::format("must be between {} and {}", min, max);
    *field = *v;
    return {};
  };
  spec.current = [field] { return std::to_string(*field); };
  specs_.push_back(std::move(spec));
}

void OptionSet::Number(const std::string& name, double* field, const std::string& help,
                       double min, double max) {
  OptionSpec spec{name, "number", help, fmt::format("{}", *field), {}, nullptr, nullptr};
  spec.apply = [field, min, max](const std::string& text) -> std::string {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE ||
        !std::isfinite(v)) {
      return "not a number";
    }
    if (v < min || v > max) return fmt::format("must be between {} and {}", min, max);
    *field = v;
    return {};
  };
  spec.current = [field] { return fmt::format("{}", *field); };
  specs_.push_back(std::move(spec));
}

std::string EnumChoicesReason(const std::vector<std::string>& names) {
  return fmt::format("must be one of: {}", fmt::join(names, ", "));
}

void OptionSet::Enum(const std::string& name, std::string* field, const std::string& help,
                     std::vector<std::string> choices) {
  OptionSpec spec{name, "enum", help, *field, choices, nullptr, nullptr};
  spec.apply = [field, choices](const std::string& text) -> std::string {
    if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
      return EnumChoicesReason(choices);
    }
    *field = text;
    return {};
  };
  spec.current = [field] { return *field; };
  specs_.push_back(std::move(spec));
}

void OptionSet::Flag(const std::string& name, bool* field, const std::string& help) {
  OptionSpec spec{name, "flag", help, *field ? "true" : "false", {}, nullptr, nullptr};
  spec.apply = [field](const std::string& text) -> std::string {
    std::string error;
    auto v = ParseBool(text, &error);
    if (!v) return error;
    *field = *v;
    return {};
  };
  spec.current = [field] { return std::string(*field ? "true" : "false"); };
  specs_.push_back(std::move(spec));
}

void OptionSet::Text(const std::string& name, std::string* field, const std::string& help,
                     std::function<std::string(const std::string&)> check) {
  OptionSpec spec{name, "text", help, *field, {}, nullptr, nullptr};
  spec.apply = [field, check](const std::string& text) -> std::string {
    if (check) {
      std::string reason = check(text);
      if (!reason.empty()) return reason;
    }
    *field = text;
    return {};
  };
  spec.current = [field] { return *field; };
  specs_.push_back(std::move(spec));
}

}  // namespace iomimic
