#include "platform/sysfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>

namespace iomimic::platform {
namespace {

constexpr std::string_view kSpace = " \t\n\r\f\v";

std::string_view Trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

}  // namespace

std::optional<std::string> ReadFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      // E.g. EINVAL from a sysfs attribute the driver does not implement.
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::optional<std::string> ReadFileTrimmed(const std::string& path) {
  std::optional<std::string> text = ReadFile(path);
  if (!text) return std::nullopt;
  return std::string(Trim(*text));
}

std::optional<uint64_t> ParseUint(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<uint64_t> ReadUint(const std::string& path) {
  std::optional<std::string> text = ReadFileTrimmed(path);
  if (!text) return std::nullopt;
  return ParseUint(*text);
}

std::optional<std::string> ReadLink(const std::string& path) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  if (n < 0 || static_cast<size_t>(n) >= sizeof buf) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (true) {
    const size_t begin = text.find_first_not_of(kSpace, pos);
    if (begin == std::string_view::npos) break;
    size_t end = text.find_first_of(kSpace, begin);
    if (end == std::string_view::npos) end = text.size();
    words.emplace_back(text.substr(begin, end - begin));
    pos = end;
  }
  return words;
}

std::optional<std::string> ActiveChoice(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  if (trimmed.empty()) return std::nullopt;
  for (const std::string& word : SplitWords(trimmed)) {
    if (word.size() >= 2 && word.front() == '[' && word.back() == ']') {
      return word.substr(1, word.size() - 2);
    }
  }
  return std::string(trimmed);
}

std::vector<std::string> AllChoices(std::string_view text) {
  std::vector<std::string> words = SplitWords(text);
  for (std::string& word : words) {
    if (word.size() >= 2 && word.front() == '[' && word.back() == ']') {
      word = word.substr(1, word.size() - 2);
    }
  }
  return words;
}

}  // namespace iomimic::platform
