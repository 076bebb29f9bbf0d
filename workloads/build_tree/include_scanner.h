// IncludeScanner: finds `#include <name>` and `#include "name"` lines in a
// file read chunk by chunk, as the preprocessor would see them.
//
// Feed() takes each chunk as read; a line cut by a chunk boundary is carried
// over (at most kMaxCarry bytes: a longer line is not a directive we care
// about and is skipped). Finish() handles a last line without a newline.
// Conditionals (#ifdef) are not evaluated: every include found counts, so a
// real tree is over-approximated. Header-only, so tests can include it.
// Not thread-safe; one per compile job.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace iomimic::build_tree {

struct IncludeDirective {
  std::string name;  // as written between the delimiters, e.g. "linux/types.h"
  bool quoted = false;  // "name": the includer's directory is searched first
};

class IncludeScanner {
 public:
  static constexpr size_t kMaxCarry = 1024;

  void Feed(const char* data, size_t n) {
    size_t pos = 0;
    while (pos < n) {
      const auto* nl = static_cast<const char*>(std::memchr(data + pos, '\n', n - pos));
      const size_t end = nl != nullptr ? static_cast<size_t>(nl - data) : n;
      if (nl == nullptr) {  // partial line: keep it for the next chunk
        if (!skipping_ && carry_.size() + (end - pos) <= kMaxCarry) {
          carry_.append(data + pos, end - pos);
        } else {
          skipping_ = true;
          carry_.clear();
        }
        return;
      }
      if (!skipping_) {
        if (carry_.empty()) {
          Line(std::string_view(data + pos, end - pos));
        } else {
          carry_.append(data + pos, end - pos);
          Line(carry_);
        }
      }
      carry_.clear();
      skipping_ = false;
      pos = end + 1;
    }
  }

  void Finish() {
    if (!skipping_ && !carry_.empty()) Line(carry_);
    carry_.clear();
    skipping_ = false;
  }

  // The directives found so far, in file order.
  const std::vector<IncludeDirective>& found() const { return found_; }
  void Reset() {
    found_.clear();
    carry_.clear();
    skipping_ = false;
  }

 private:
  static size_t SkipBlanks(std::string_view s, size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    return i;
  }

  void Line(std::string_view s) {
    size_t i = SkipBlanks(s, 0);
    if (i >= s.size() || s[i] != '#') return;
    i = SkipBlanks(s, i + 1);
    constexpr std::string_view kInclude = "include";
    if (s.substr(i, kInclude.size()) != kInclude) return;
    i = SkipBlanks(s, i + kInclude.size());
    if (i >= s.size() || (s[i] != '<' && s[i] != '"')) return;
    const char close = s[i] == '<' ? '>' : '"';
    const size_t end = s.find(close, i + 1);
    if (end == std::string_view::npos || end == i + 1) return;
    found_.push_back({std::string(s.substr(i + 1, end - i - 1)), close == '"'});
  }

  std::string carry_;
  bool skipping_ = false;
  std::vector<IncludeDirective> found_;
};

}  // namespace iomimic::build_tree
