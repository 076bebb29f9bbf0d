#include "trace/args.h"

#include <charconv>
#include <cstring>

namespace iomimic::trace {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

// A '<' opens a decoration only right after an fd (a digit or AT_FDCWD):
// paths inside may hold commas and brackets. Decorations nest
// (`</dev/null<char 1:3>>`).
bool SplitArgs(std::string_view text, std::vector<std::string_view>* out) {
  out->clear();
  int depth = 0, angle = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        quoted = false;
      }
      continue;
    }
    if (angle > 0) {
      if (c == '<') ++angle;
      if (c == '>') --angle;
      continue;
    }
    switch (c) {
      case '"': quoted = true; break;
      case '<':
        if (i > 0 && (IsDigit(text[i - 1]) || text[i - 1] == 'D')) angle = 1;
        break;
      case '{': case '[': case '(': ++depth; break;
      case '}': case ']': case ')': --depth; break;
      case ',':
        if (depth == 0) {
          out->push_back(Trim(text.substr(start, i - start)));
          start = i + 1;
        }
        break;
      default: break;
    }
    if (depth < 0) return false;
  }
  if (quoted || depth != 0 || angle != 0) return false;
  std::string_view last = Trim(text.substr(start));
  if (!last.empty() || !out->empty()) out->push_back(last);
  return true;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  s = Trim(s);
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

std::optional<std::string> ParseString(std::string_view s) {
  s = Trim(s);
  if (s.size() >= 3 && s.substr(s.size() - 3) == "...") s.remove_suffix(3);
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::string r;
  r.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      r += s[i];
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case 'n': r += '\n'; break;
      case 't': r += '\t'; break;
      case 'r': r += '\r'; break;
      case 'v': r += '\v'; break;
      case 'f': r += '\f'; break;
      case 'x':
        if (i + 2 < s.size()) {
          unsigned v = 0;
          std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
          r += static_cast<char>(v);
          i += 2;
        }
        break;
      default:
        if (e >= '0' && e <= '7') {  // octal, up to three digits
          unsigned v = 0;
          size_t k = 0;
          while (k < 3 && i + k < s.size() && s[i + k] >= '0' && s[i + k] <= '7') {
            v = v * 8 + static_cast<unsigned>(s[i + k] - '0');
            ++k;
          }
          r += static_cast<char>(v);
          i += k - 1;
        } else {
          r += e;
        }
    }
  }
  return r;
}

// strace escapes unprintable bytes in a decoration the way it does in
// strings; an unescaped copy is the path.
static std::string UnescapeDeco(std::string_view s) {
  if (s.find('\\') == std::string_view::npos) return std::string(s);
  std::string quoted = "\"";
  quoted.append(s);
  quoted += '"';
  auto r = ParseString(quoted);
  return r ? *r : std::string(s);
}

FdArg ParseFd(std::string_view s) {
  s = Trim(s);
  FdArg a;
  const size_t lt = s.find('<');
  std::string_view num = lt == std::string_view::npos ? s : s.substr(0, lt);
  if (num == "AT_FDCWD") {
    a.fd = -100;
  } else {
    auto v = ParseInt(num);
    if (!v) return a;
    a.fd = *v;
  }
  if (lt != std::string_view::npos) {
    if (s.back() != '>') return a;
    a.deco = UnescapeDeco(s.substr(lt + 1, s.size() - lt - 2));
  }
  a.ok = true;
  return a;
}

int64_t ParseFlags(std::string_view s, const FlagName* table, size_t n, std::string* unknown) {
  int64_t v = 0;
  s = Trim(s);
  while (!s.empty()) {
    const size_t bar = s.find('|');
    std::string_view part = Trim(s.substr(0, bar));
    s = bar == std::string_view::npos ? std::string_view() : s.substr(bar + 1);
    if (auto num = ParseInt(part)) {
      v |= *num;
      continue;
    }
    bool found = false;
    for (size_t i = 0; i < n; ++i) {
      if (part == table[i].name) {
        v |= table[i].value;
        found = true;
        break;
      }
    }
    if (!found && unknown != nullptr) {
      if (!unknown->empty()) *unknown += '|';
      unknown->append(part);
    }
  }
  return v;
}

std::optional<std::string_view> StructField(std::string_view s, std::string_view key) {
  size_t at = 0;
  while ((at = s.find(key, at)) != std::string_view::npos) {
    const bool starts = at == 0 || s[at - 1] == '{' || s[at - 1] == ' ' || s[at - 1] == ',';
    if (starts && at + key.size() < s.size() && s[at + key.size()] == '=') {
      const size_t b = at + key.size() + 1;
      size_t e = b;
      while (e < s.size() && s[e] != ',' && s[e] != '}') ++e;
      return s.substr(b, e - b);
    }
    at += key.size();
  }
  return std::nullopt;
}

bool DecoIsRegularPath(std::string_view deco) {
  if (deco.empty() || deco.front() != '/') return false;  // pipe:[..], socket:[..], anon_inode:
  if (deco.back() == '>') return false;                   // </dev/x<char 1:3>>
  for (const char* p : {"/dev/", "/proc/", "/sys/"}) {
    if (deco.compare(0, std::strlen(p), p) == 0) return false;
  }
  return true;
}

}  // namespace iomimic::trace
