#include "iomimic/units.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace iomimic {
namespace {

struct Suffix {
  const char* text;
  uint64_t factor;
};

// Splits "4.5MiB" into 4.5 and "MiB". Returns false if no number leads.
bool SplitNumber(const std::string& text, long double* number, std::string* suffix,
                 std::string* error) {
  size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  size_t end = text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  const std::string trimmed = text.substr(begin, end - begin);
  if (trimmed.empty()) {
    *error = "empty value";
    return false;
  }
  size_t i = 0;
  bool digits = false, dot = false;
  for (; i < trimmed.size(); ++i) {
    const char c = trimmed[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) {
    *error = trimmed[0] == '-' ? "negative values are not allowed" : "not a number";
    return false;
  }
  *number = std::strtold(trimmed.substr(0, i).c_str(), nullptr);
  *suffix = trimmed.substr(i);
  while (!suffix->empty() && std::isspace(static_cast<unsigned char>((*suffix)[0]))) {
    suffix->erase(0, 1);
  }
  return true;
}

std::optional<uint64_t> Scale(long double number, const std::string& suffix,
                              const std::vector<Suffix>& table, const char* allowed,
                              std::string* error) {
  for (const Suffix& s : table) {
    if (suffix == s.text) {
      const long double value = number * static_cast<long double>(s.factor);
      if (value > static_cast<long double>(std::numeric_limits<uint64_t>::max())) {
        *error = "too large";
        return std::nullopt;
      }
      if (value != std::floor(value)) {
        *error = "not a whole number of the smallest unit";
        return std::nullopt;
      }
      return static_cast<uint64_t>(value);
    }
  }
  *error = fmt::format("unknown unit '{}' (use {})", suffix, allowed);
  return std::nullopt;
}

constexpr uint64_t kKiB = 1024;

}  // namespace

std::optional<uint64_t> ParseSize(const std::string& text, std::string* error) {
  static const std::vector<Suffix> kTable = {
      {"", 1},           {"B", 1},          {"b", 1},
      {"k", kKiB},       {"K", kKiB},       {"KiB", kKiB},       {"KB", kKiB},       {"kB", kKiB},
      {"m", kKiB << 10}, {"M", kKiB << 10}, {"MiB", kKiB << 10}, {"MB", kKiB << 10},
      {"g", kKiB << 20}, {"G", kKiB << 20}, {"GiB", kKiB << 20}, {"GB", kKiB << 20},
      {"t", kKiB << 30}, {"T", kKiB << 30}, {"TiB", kKiB << 30}, {"TB", kKiB << 30},
  };
  long double number;
  std::string suffix;
  if (!SplitNumber(text, &number, &suffix, error)) return std::nullopt;
  return Scale(number, suffix, kTable, "a number of bytes with k, M, G, T or KiB, MiB, GiB, TiB",
               error);
}

std::optional<uint64_t> ParseDurationNs(const std::string& text, std::string* error) {
  static const std::vector<Suffix> kTable = {
      {"ns", 1},
      {"us", 1000},
      {"ms", 1000 * 1000},
      {"", 1000ull * 1000 * 1000},
      {"s", 1000ull * 1000 * 1000},
      {"m", 60ull * 1000 * 1000 * 1000},
      {"min", 60ull * 1000 * 1000 * 1000},
      {"h", 3600ull * 1000 * 1000 * 1000},
  };
  long double number;
  std::string suffix;
  if (!SplitNumber(text, &number, &suffix, error)) return std::nullopt;
  return Scale(number, suffix, kTable, "ns, us, ms, s, m or h; a bare number is seconds", error);
}

std::optional<int64_t> ParseInteger(const std::string& text, std::string* error) {
  if (text.empty()) {
    *error = "empty value";
    return std::nullopt;
  }
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') {
    *error = "not a whole number";
    return std::nullopt;
  }
  if (errno == ERANGE) {
    *error = "out of range";
    return std::nullopt;
  }
  return v;
}

std::optional<bool> ParseBool(const std::string& text, std::string* error) {
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  *error = "not a boolean (use true/false, yes/no, on/off, 1/0)";
  return std::nullopt;
}

std::string FormatSize(uint64_t bytes) {
  static const std::pair<const char*, uint64_t> kUnits[] = {
      {"TiB", kKiB << 30}, {"GiB", kKiB << 20}, {"MiB", kKiB << 10}, {"KiB", kKiB}};
  for (const auto& [name, factor] : kUnits) {
    if (bytes >= factor && bytes % factor == 0) return fmt::format("{}{}", bytes / factor, name);
  }
  for (const auto& [name, factor] : kUnits) {
    if (bytes >= factor) {
      return fmt::format("{:.2f}{}", static_cast<double>(bytes) / static_cast<double>(factor),
                         name);
    }
  }
  return fmt::format("{}B", bytes);
}

std::string FormatBytesHuman(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 5) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{}B", bytes);
  if (v >= 100) return fmt::format("{:.0f}{}", v, kUnits[unit]);
  if (v >= 10) return fmt::format("{:.1f}{}", v, kUnits[unit]);
  return fmt::format("{:.2f}{}", v, kUnits[unit]);
}

std::string FormatDuration(uint64_t ns) {
  static const std::pair<const char*, uint64_t> kUnits[] = {{"h", 3600ull * 1000000000},
                                                            {"m", 60ull * 1000000000},
                                                            {"s", 1000000000},
                                                            {"ms", 1000000},
                                                            {"us", 1000}};
  if (ns == 0) return "0s";
  for (const auto& [name, factor] : kUnits) {
    if (ns % factor == 0) return fmt::format("{}{}", ns / factor, name);
  }
  return fmt::format("{}ns", ns);
}

std::string FormatLatency(uint64_t ns) {
  const double v = static_cast<double>(ns);
  auto three = [](double x, const char* unit) {
    if (x >= 100) return fmt::format("{:.0f}{}", x, unit);
    if (x >= 10) return fmt::format("{:.1f}{}", x, unit);
    return fmt::format("{:.2f}{}", x, unit);
  };
  if (ns < 1000) return fmt::format("{}ns", ns);
  if (ns < 1000000) return three(v / 1e3, "us");
  if (ns < 1000000000) return three(v / 1e6, "ms");
  return three(v / 1e9, "s");
}

}  // namespace iomimic
