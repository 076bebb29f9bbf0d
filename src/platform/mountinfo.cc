#include "platform/mountinfo.h"

#include <charconv>

#include "platform/sysfs.h"

namespace iomimic::platform {
namespace {

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

// True when `prefix` is `path` or one of its ancestor directories.
bool IsPathPrefix(const std::string& prefix, const std::string& path) {
  if (prefix == "/") return !path.empty() && path.front() == '/';
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

std::vector<std::string_view> SplitOn(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(sep, pos);
    if (end == std::string_view::npos) end = text.size();
    if (end > pos) parts.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return parts;
}

}  // namespace

std::string UnescapeMountPath(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && IsOctal(text[i + 1]) &&
        IsOctal(text[i + 2]) && IsOctal(text[i + 3])) {
      out.push_back(static_cast<char>(((text[i + 1] - '0') << 6) | ((text[i + 2] - '0') << 3) |
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::optional<MountEntry> ParseMountInfoLine(std::string_view line) {
  const std::vector<std::string> words = SplitWords(line);
  // Six fixed fields, zero or more optional fields, "-", then three more.
  size_t dash = 6;
  while (dash < words.size() && words[dash] != "-") ++dash;
  if (dash >= words.size() || words.size() < dash + 3) return std::nullopt;

  MountEntry entry;
  const std::string& dev = words[2];
  const size_t colon = dev.find(':');
  if (colon == std::string::npos) return std::nullopt;
  if (!ParseNumber(std::string_view(words[0]), &entry.mount_id) ||
      !ParseNumber(std::string_view(words[1]), &entry.parent_id) ||
      !ParseNumber(std::string_view(dev).substr(0, colon), &entry.major) ||
      !ParseNumber(std::string_view(dev).substr(colon + 1), &entry.minor)) {
    return std::nullopt;
  }
  entry.root = UnescapeMountPath(words[3]);
  entry.mount_point = UnescapeMountPath(words[4]);
  entry.options = words[5];
  entry.fs_type = words[dash + 1];
  entry.source = UnescapeMountPath(words[dash + 2]);
  // Super options are absent on a few pseudo filesystems' older kernels.
  if (words.size() > dash + 3) entry.super_options = words[dash + 3];
  return entry;
}

std::vector<MountEntry> ReadMountInfo(const std::string& path) {
  std::vector<MountEntry> mounts;
  const std::optional<std::string> text = ReadFile(path);
  if (!text) return mounts;
  for (std::string_view line : SplitOn(*text, '\n')) {
    if (std::optional<MountEntry> entry = ParseMountInfoLine(line)) {
      mounts.push_back(std::move(*entry));
    }
  }
  return mounts;
}

const MountEntry* FindMountFor(const std::vector<MountEntry>& mounts,
                               const std::string& absolute_path) {
  const MountEntry* best = nullptr;
  for (const MountEntry& m : mounts) {
    if (!IsPathPrefix(m.mount_point, absolute_path)) continue;
    if (best == nullptr || m.mount_point.size() >= best->mount_point.size()) best = &m;
  }
  return best;
}

std::string MergeOptions(std::string_view a, std::string_view b) {
  std::vector<std::string_view> merged = SplitOn(a, ',');
  for (std::string_view opt : SplitOn(b, ',')) {
    bool seen = false;
    for (std::string_view have : merged) seen = seen || have == opt;
    if (!seen) merged.push_back(opt);
  }
  std::string out;
  for (std::string_view opt : merged) {
    if (!out.empty()) out.push_back(',');
    out.append(opt);
  }
  return out;
}

}  // namespace iomimic::platform
