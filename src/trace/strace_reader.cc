#include "trace/strace_reader.h"

#include <charconv>

#include <fmt/format.h>

#include "trace/args.h"
#include "trace/errno_names.h"

namespace iomimic::trace {
namespace {

constexpr std::string_view kUnfinished = " <unfinished ...>";
constexpr std::string_view kResumed = "<... ";
constexpr uint64_t kDayNs = 86'400'000'000'000ull;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Splits the first space-separated word off `s`.
std::string_view Word(std::string_view* s) {
  while (!s->empty() && s->front() == ' ') s->remove_prefix(1);
  size_t sp = s->find(' ');
  std::string_view w = s->substr(0, sp);
  *s = sp == std::string_view::npos ? std::string_view() : s->substr(sp + 1);
  return w;
}

// "12.000345" → ns (up to 9 fractional digits).
bool SecondsToNs(std::string_view s, uint64_t* ns) {
  const size_t dot = s.find('.');
  uint64_t whole = 0, frac = 0;
  std::string_view w = s.substr(0, dot);
  if (std::from_chars(w.data(), w.data() + w.size(), whole).ec != std::errc() || w.empty()) {
    return false;
  }
  if (dot != std::string_view::npos) {
    std::string_view f = s.substr(dot + 1);
    if (f.empty() || f.size() > 9) return false;
    if (std::from_chars(f.data(), f.data() + f.size(), frac).ec != std::errc()) return false;
    for (size_t i = f.size(); i < 9; ++i) frac *= 10;
  }
  *ns = whole * 1'000'000'000ull + frac;
  return true;
}

}  // namespace

StraceReader::StraceReader(const std::string& path) : path_(path), lines_(path) {}

void StraceReader::Fail(const std::string& why) const {
  throw TraceError(path_, lines_.line_number(), why);
}

// -tt "20:10:15.635432" (wraps at midnight: a time earlier than the last by
// more than 12 h is the next day) or -ttt "1700000000.635432".
uint64_t StraceReader::Timestamp(std::string_view ts) {
  uint64_t ns = 0;
  if (ts.size() > 2 && ts[2] == ':') {
    uint64_t h = 0, m = 0;
    if (ts.size() < 8 || ts[5] != ':' || std::from_chars(ts.data(), ts.data() + 2, h).ec != std::errc() ||
        std::from_chars(ts.data() + 3, ts.data() + 5, m).ec != std::errc() ||
        !SecondsToNs(ts.substr(6), &ns)) {
      Fail("bad timestamp '" + std::string(ts) + "'");
    }
    ns += (h * 3600 + m * 60) * 1'000'000'000ull;
    if (ns + day_offset_ + kDayNs / 2 < last_ts_) day_offset_ += kDayNs;
    ns += day_offset_;
  } else if (!SecondsToNs(ts, &ns)) {
    Fail("bad timestamp '" + std::string(ts) + "'");
  }
  last_ts_ = ns;
  return ns;
}

bool StraceReader::Next(Event* ev) {
  std::string_view line;
  bool complete = false;
  while (lines_.Next(&line, &complete)) {
    if (!complete) Fail("the last line is cut short (no end of line): the trace is truncated");
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (ParseLine(line, ev)) return true;
  }
  return false;
}

// [pid] [time] then a call, a resumed call, a signal or an exit.
bool StraceReader::ParseLine(std::string_view line, Event* ev) {
  std::string_view rest = line;
  {
    Event fresh;  // every field reset, the argument vector's memory kept
    fresh.args = std::move(ev->args);
    fresh.args.clear();
    *ev = std::move(fresh);
  }
  ev->line = lines_.line_number();
  if (rest.substr(0, 5) == "[pid ") {  // strace -f writing to a terminal
    rest.remove_prefix(5);
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) Fail("bad '[pid N]' prefix");
    std::string_view p = rest.substr(0, close);
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    std::from_chars(p.data(), p.data() + p.size(), ev->pid);
    rest.remove_prefix(close + 1);
  } else if (!rest.empty() && IsDigit(rest[0])) {
    std::string_view save = rest;
    std::string_view w = Word(&rest);
    if (w.find_first_of(":.") == std::string_view::npos) {  // a pid, not a time
      std::from_chars(w.data(), w.data() + w.size(), ev->pid);
    } else {
      rest = save;
    }
  }
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (!rest.empty() && IsDigit(rest[0])) {
    ev->ts_ns = Timestamp(Word(&rest));
    ev->has_time = true;
  }
  if (rest.substr(0, 4) == "--- ") {  // --- SIGCHLD {si_signo=...} ---
    ev->kind = EventKind::kSignal;
    std::string_view r = rest.substr(4);
    ev->name = Word(&r);
    return true;
  }
  if (rest.substr(0, 4) == "+++ ") {  // +++ exited with 0 +++ / killed by SIGKILL
    ev->kind = EventKind::kExit;
    ev->name = "exit";
    return true;
  }
  if (rest.empty() || rest.substr(0, 3) == "???" || rest.substr(0, 7) == "strace:") {
    ++skipped_;
    return false;
  }
  return ParseCall(rest, ev);
}

// name(args) = ret [ERRNO (text)] [<dur>], possibly in two halves.
bool StraceReader::ParseCall(std::string_view rest, Event* ev) {
  if (rest.size() > kUnfinished.size() &&
      rest.substr(rest.size() - kUnfinished.size()) == kUnfinished) {
    rest.remove_suffix(kUnfinished.size());
    if (rest.find('(') == std::string_view::npos) Fail("unfinished call without '('");
    Pending& p = pending_[ev->pid];
    if (!p.text.empty()) Fail("a second unfinished call of thread " + std::to_string(ev->pid));
    p.text.assign(rest);
    p.ts_ns = ev->ts_ns;
    p.line = ev->line;
    return false;
  }
  if (rest.substr(0, kResumed.size()) == kResumed) {
    const size_t close = rest.find(" resumed>");
    if (close == std::string_view::npos) Fail("'<...' without 'resumed>'");
    std::string_view name = rest.substr(kResumed.size(), close - kResumed.size());
    auto it = pending_.find(ev->pid);
    if (it == pending_.end() || it->second.text.compare(0, name.size(), name) != 0) {
      Fail(fmt::format("'{} resumed' without its unfinished call in thread {}", name, ev->pid));
    }
    joined_ = std::move(it->second.text);
    joined_.append(rest.substr(close + 9));
    ev->ts_ns = it->second.ts_ns;
    ev->line = it->second.line;
    pending_.erase(it);
    rest = joined_;
  }
  const size_t open = rest.find('(');
  if (open == std::string_view::npos || open == 0) Fail("not an strace line");
  ev->name = rest.substr(0, open);
  // The result is after the last ") = "; a path holding one is not read.
  // strace pads short calls: "brk(NULL)         = 0x55..".
  size_t eq = std::string_view::npos;
  for (size_t at = rest.size(); (at = rest.rfind(" = ", at)) != std::string_view::npos && at > open;
       --at) {
    size_t p = at;
    while (p > open && rest[p] == ' ') --p;
    if (rest[p] == ')') {
      eq = p;
      break;
    }
    if (at == 0) break;
  }
  if (eq == std::string_view::npos) {
    Fail("call without a result ('= ...'): the line is cut short or not strace's format");
  }
  if (!SplitArgs(rest.substr(open + 1, eq - open - 1), &ev->args)) {
    Fail("unbalanced quotes or brackets in the arguments of " + std::string(ev->name));
  }
  ParseResult(rest.substr(rest.find(" = ", eq) + 3), ev);
  return true;
}

// "3</p> <0.000012>", "-1 ENOENT (No such file or directory) <0.000009>",
// "? <unavailable>", "0x7f00 <0.000010>", "0 (Timeout)".
void StraceReader::ParseResult(std::string_view text, Event* ev) {
  if (!text.empty() && text.back() == '>') {  // duration
    const size_t lt = text.rfind(" <");
    if (lt != std::string_view::npos && lt + 2 < text.size() && IsDigit(text[lt + 2])) {
      uint64_t d = 0;
      if (!SecondsToNs(text.substr(lt + 2, text.size() - lt - 3), &d)) Fail("bad duration");
      ev->dur_ns = d;
      text = text.substr(0, lt);
    }
  }
  std::string_view r = text;
  std::string_view ret = Word(&r);
  if (ret == "?") {
    ev->ret_unknown = true;
    return;
  }
  const size_t lt = ret.find('<');
  std::string_view num = ret;
  if (lt != std::string_view::npos) {  // "3</path with spaces>": the deco runs to its '>'
    num = ret.substr(0, lt);
    const size_t start = static_cast<size_t>(num.data() - text.data()) + lt + 1;
    int depth = 1;
    size_t e = start;
    for (; e < text.size() && depth > 0; ++e) {
      if (text[e] == '<') ++depth;
      if (text[e] == '>') --depth;
    }
    if (depth != 0) Fail("unbalanced '<' in the result");
    ev->ret_deco = text.substr(start, e - start - 1);
    r = text.substr(e);
  }
  auto v = ParseInt(num);
  if (!v) Fail("bad result '" + std::string(num) + "'");
  ev->ret = *v;
  if (ev->ret == -1) {
    ev->err_name = Word(&r);
    ev->err = ErrnoFromName(ev->err_name);
    if (ev->err == 0 && ev->err_name.empty()) Fail("-1 without an errno name");
    if (ev->err == 0) ev->err = 512;  // ERESTARTSYS & co: the kernel's own
  }
}

}  // namespace iomimic::trace
