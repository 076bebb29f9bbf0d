// Options are data owned by a module (or by the engine).
//
// A module keeps a plain config struct with in-class defaults and binds each
// field here with a name, a help line and its limits. The CLI turns an
// OptionSet into Boost.Program_options entries: the same name on the command
// line (--mmap_msync.region_size=4MiB) and in a profile ([mmap_msync]
// region_size = 4MiB). Parsing and validation live here so that every error
// names the option and the bad value.
//
// Not thread-safe; used only before a run starts.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace iomimic {

struct OptionSpec {
  std::string name;          // without section, e.g. "region_size"
  std::string kind;          // size | duration | integer | number | enum | flag | text
  std::string help;
  std::string default_text;  // the value before any parsing, as text
  std::vector<std::string> choices;  // for enum
  // Parses and stores a value. Returns "" on success, else the reason
  // (without the option name; the caller adds it).
  std::function<std::string(const std::string&)> apply;
  // The current value, as text a user could pass back in.
  std::function<std::string()> current;
};

class OptionSet {
 public:
  // section: "" for the engine's options, the module name for a module.
  explicit OptionSet(std::string section) : section_(std::move(section)) {}

  // Bytes, written with k/M/G/T (binary) or KiB/MiB/GiB/TiB; a bare number is bytes.
  void Size(const std::string& name, uint64_t* field, const std::string& help,
            uint64_t min = 0, uint64_t max = std::numeric_limits<uint64_t>::max());
  // Nanoseconds, written with ns/us/ms/s/m/h; a bare number is seconds (as fio).
  void Duration(const std::string& name, uint64_t* field_ns, const std::string& help,
                uint64_t min_ns = 0, uint64_t max_ns = std::numeric_limits<uint64_t>::max());
  void Integer(const std::string& name, int64_t* field, const std::string& help,
               int64_t min = std::numeric_limits<int64_t>::min(),
               int64_t max = std::numeric_limits<int64_t>::max());
  // A decimal number ("2.5", "1e3").
  void Number(const std::string& name, double* field, const std::string& help,
              double min = -std::numeric_limits<double>::max(),
              double max = std::numeric_limits<double>::max());
  // One of `choices`, exactly.
  void Enum(const std::string& name, std::string* field, const std::string& help,
            std::vector<std::string> choices);
  // An option of the module's own enum type, so that the hot loop compares
  // values, not strings: o.Enum<Pattern>("pattern", &c_.pattern, "...",
  // {{"cycle", Pattern::kCycle}, {"zero", Pattern::kZero}}). The field's
  // value at declaration is the default and must be one of the choices.
  template <typename E>
  void Enum(const std::string& name, E* field, const std::string& help,
            std::vector<std::pair<std::string, E>> choices);
  // true/false, yes/no, on/off, 1/0.
  void Flag(const std::string& name, bool* field, const std::string& help);
  // Free text; `check` returns "" or a reason.
  void Text(const std::string& name, std::string* field, const std::string& help,
            std::function<std::string(const std::string&)> check = {});

  const std::string& section() const { return section_; }
  const std::vector<OptionSpec>& specs() const { return specs_; }
  const OptionSpec* Find(const std::string& name) const;

  // Applies one value; throws UsageError naming section.name and the value.
  void Apply(const std::string& name, const std::string& value) const;

  // "section.name" or just "name" for the engine's own options.
  std::string QualifiedName(const std::string& name) const;

 private:
  std::string section_;
  std::vector<OptionSpec> specs_;
};

// "must be one of: a, b, c": the reason an enum value is refused.
std::string EnumChoicesReason(const std::vector<std::string>& names);

template <typename E>
void OptionSet::Enum(const std::string& name, E* field, const std::string& help,
                     std::vector<std::pair<std::string, E>> choices) {
  std::vector<std::string> names;
  for (const auto& choice : choices) names.push_back(choice.first);
  const auto name_of = [field, choices] {
    for (const auto& [text, value] : choices) {
      if (value == *field) return text;
    }
    return std::string();
  };
  OptionSpec spec{name, "enum", help, name_of(), names, nullptr, nullptr};
  spec.apply = [field, choices, names](const std::string& text) -> std::string {
    for (const auto& [choice, value] : choices) {
      if (choice == text) {
        *field = value;
        return {};
      }
    }
    return EnumChoicesReason(names);
  };
  spec.current = name_of;
  specs_.push_back(std::move(spec));
}

}  // namespace iomimic
