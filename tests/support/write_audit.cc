#include "support/write_audit.h"

#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace iomimic::test {
namespace {

// strace's C-style escapes (\", \\, \n, \t, \xNN, octal) undone.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    if (c == 'x' && i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1]))) {
      size_t end = i + 1;
      while (end < s.size() && end < i + 3 && std::isxdigit(static_cast<unsigned char>(s[end]))) {
        ++end;
      }
      out += static_cast<char>(std::stoi(s.substr(i + 1, end - i - 1), nullptr, 16));
      i = end - 1;
    } else if (c >= '0' && c <= '7') {
      size_t end = i;
      while (end < s.size() && end < i + 3 && s[end] >= '0' && s[end] <= '7') ++end;
      out += static_cast<char>(std::stoi(s.substr(i, end - i), nullptr, 8));
      i = end - 1;
    } else if (c == 'n') {
      out += '\n';
    } else if (c == 't') {
      out += '\t';
    } else if (c == 'r') {
      out += '\r';
    } else {
      out += c;  // \" \\ \< \>
    }
  }
  return out;
}

struct Call {
  int pid = 0;
  std::string name;
  std::vector<std::string> args;  // raw tokens, trimmed
  std::string ret;                // what follows " = "
  std::string line;
};

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits "name(arg, arg, ...) = ret" at top-level commas. Strings ("..."),
// brackets and -y annotations (3</path>) are kept whole. False when the
// text is not a complete call.
bool ParseCall(const std::string& text, Call* call) {
  const size_t open = text.find('(');
  if (open == std::string::npos || open == 0) return false;
  call->name = text.substr(0, open);
  for (char c : call->name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  std::string current;
  int depth = 0;
  size_t i = open + 1;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      // A string, escapes and all, up to its closing quote.
      current += c;
      for (++i; i < text.size(); ++i) {
        current += text[i];
        if (text[i] == '\\' && i + 1 < text.size()) {
          current += text[++i];
        } else if (text[i] == '"') {
          break;
        }
      }
      continue;
    }
    if (c == '<' && !current.empty() &&
        (std::isdigit(static_cast<unsigned char>(current.back())) ||
         (current.size() >= 8 && current.compare(current.size() - 8, 8, "AT_FDCWD") == 0))) {
      // A -y annotation: the descriptor's path, '>' inside it escaped.
      for (; i < text.size(); ++i) {
        current += text[i];
        if (text[i] == '\\' && i + 1 < text.size()) {
          current += text[++i];
        } else if (text[i] == '>') {
          break;
        }
      }
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    if (c == ')') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) {
      call->args.push_back(Trim(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (i >= text.size()) return false;
  if (!Trim(current).empty() || !call->args.empty()) call->args.push_back(Trim(current));
  const size_t eq = text.find(" = ", i);
  call->ret = eq == std::string::npos ? "?" : Trim(text.substr(eq + 3));
  return true;
}

// The string of a quoted argument ("" for NULL or anything else).
std::string StringArg(const std::string& token) {
  if (token.size() < 2 || token[0] != '"') return "";
  size_t end = 1;
  for (; end < token.size(); ++end) {
    if (token[end] == '\\') {
      ++end;
    } else if (token[end] == '"') {
      break;
    }
  }
  return Unescape(token.substr(1, end - 1));
}

// The path of a -y annotated descriptor ("3</a/b>" -> "/a/b"); "" when it
// has none or it is not a file (pipe:[..], socket:[..], anon_inode:..).
std::string FdPath(const std::string& token) {
  const size_t lt = token.find('<');
  if (lt == std::string::npos || token.back() != '>') return "";
  const std::string path = Unescape(token.substr(lt + 1, token.size() - lt - 2));
  return !path.empty() && path[0] == '/' ? path : "";
}

bool HasWord(const std::string& token, const std::set<std::string>& words) {
  std::string word;
  for (size_t i = 0; i <= token.size(); ++i) {
    const char c = i < token.size() ? token[i] : ' ';
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else {
      if (words.count(word)) return true;
      word.clear();
    }
  }
  return false;
}

const std::set<std::string> kWriteOpenFlags = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"};

class Parser {
 public:
  explicit Parser(std::string cwd) : initial_cwd_(std::move(cwd)) {}

  void Line(const std::string& raw) {
    size_t i = 0;
    int pid = 0;
    while (i < raw.size() && std::isdigit(static_cast<unsigned char>(raw[i]))) {
      pid = pid * 10 + (raw[i] - '0');
      ++i;
    }
    std::string rest = Trim(raw.substr(i));
    if (rest.empty() || rest.rfind("---", 0) == 0 || rest.rfind("+++", 0) == 0) return;
    static const std::string kUnfinished = " <unfinished ...>";
    if (rest.size() >= kUnfinished.size() &&
        rest.compare(rest.size() - kUnfinished.size(), kUnfinished.size(), kUnfinished) == 0) {
      pending_[pid] = rest.substr(0, rest.size() - kUnfinished.size());
      return;
    }
    if (rest.rfind("<... ", 0) == 0) {
      const size_t resumed = rest.find(" resumed>");
      auto it = pending_.find(pid);
      if (resumed == std::string::npos || it == pending_.end()) return;
      rest = it->second + rest.substr(resumed + 9);
      pending_.erase(it);
    }
    Call call;
    call.pid = pid;
    call.line = raw;
    if (ParseCall(rest, &call)) Handle(call);
  }

  std::vector<TracedWrite> writes() && { return std::move(writes_); }

 private:
  std::string Cwd(int pid) const {
    auto it = cwd_.find(pid);
    return it != cwd_.end() ? it->second : initial_cwd_;
  }

  // `path` of a call, relative to `dirfd` (a token, "" for none).
  std::string Resolve(int pid, const std::string& dirfd, const std::string& path) {
    if (!path.empty() && path[0] == '/') return NormalizePath(path);
    std::string base;
    if (!dirfd.empty() && dirfd.rfind("AT_FDCWD", 0) != 0) {
      base = FdPath(dirfd);
    } else {
      base = Cwd(pid);
    }
    if (base.empty()) return "";
    return NormalizePath(path.empty() ? base : base + "/" + path);
  }

  // An O_TMPFILE inode has no name ("/dir/#1234 (deleted)" in strace -y):
  // writing it is visible nowhere until linkat names it, and that linkat
  // is audited like any other.
  static bool IsUnnamedInode(const std::string& path) {
    const size_t hash = path.rfind("/#");
    const std::string tail = " (deleted)";
    if (hash == std::string::npos || path.size() < tail.size() ||
        path.compare(path.size() - tail.size(), tail.size(), tail) != 0) {
      return false;
    }
    const std::string ino = path.substr(hash + 2, path.size() - tail.size() - hash - 2);
    return !ino.empty() && ino.find_first_not_of("0123456789") == std::string::npos;
  }

  void Add(const Call& c, const std::string& path) {
    if (path.empty() || IsUnnamedInode(path)) return;
    TracedWrite w;
    w.pid = c.pid;
    w.call = c.name;
    w.path = path;
    w.succeeded = !c.ret.empty() && c.ret[0] != '-' && c.ret[0] != '?';
    w.line = c.line;
    writes_.push_back(std::move(w));
  }

  std::string Arg(const Call& c, size_t i) const { return i < c.args.size() ? c.args[i] : ""; }

  void Handle(const Call& c) {
    // -y shows the working directory on AT_FDCWD: the best source for it.
    for (const std::string& a : c.args) {
      if (a.rfind("AT_FDCWD<", 0) == 0) {
        const std::string dir = FdPath(a);
        if (!dir.empty()) cwd_[c.pid] = dir;
      }
    }
    const std::string& n = c.name;
    const auto path_at = [&](size_t dirfd, size_t path) {
      return Resolve(c.pid, Arg(c, dirfd), StringArg(Arg(c, path)));
    };
    const auto path_cwd = [&](size_t path) { return Resolve(c.pid, "", StringArg(Arg(c, path))); };
    // A successful open's result names the file the kernel opened.
    const auto opened = [&](const std::string& fallback) {
      const std::string got = FdPath(c.ret);
      return got.empty() ? fallback : NormalizePath(got);
    };

    if (n == "chdir") {
      if (c.ret == "0") cwd_[c.pid] = path_cwd(0);
    } else if (n == "fchdir") {
      if (c.ret == "0" && !FdPath(Arg(c, 0)).empty()) cwd_[c.pid] = FdPath(Arg(c, 0));
    } else if (n == "open") {
      if (HasWord(Arg(c, 1), kWriteOpenFlags)) Add(c, opened(path_cwd(0)));
    } else if (n == "openat" || n == "openat2") {
      if (HasWord(Arg(c, 2), {"O_TMPFILE"})) return;  // an unnamed inode: see IsUnnamedInode
      if (HasWord(Arg(c, 2), kWriteOpenFlags)) Add(c, opened(path_at(0, 1)));
    } else if (n == "creat") {
      Add(c, opened(path_cwd(0)));
    } else if (n == "mkdir" || n == "rmdir" || n == "unlink" || n == "truncate" || n == "mknod" ||
               n == "chmod" || n == "chown" || n == "lchown" || n == "utime" || n == "utimes" ||
               n == "setxattr" || n == "lsetxattr" || n == "removexattr" || n == "lremovexattr") {
      Add(c, path_cwd(0));
    } else if (n == "mkdirat" || n == "unlinkat" || n == "mknodat" || n == "fchmodat" ||
               n == "fchmodat2" || n == "fchownat" || n == "futimesat" || n == "utimensat") {
      Add(c, path_at(0, 1));
    } else if (n == "rename") {
      Add(c, path_cwd(0));
      Add(c, path_cwd(1));
    } else if (n == "renameat" || n == "renameat2") {
      Add(c, path_at(0, 1));
      Add(c, path_at(2, 3));
    } else if (n == "link" || n == "symlink") {
      Add(c, path_cwd(1));
    } else if (n == "linkat") {
      Add(c, path_at(2, 3));
    } else if (n == "symlinkat") {
      Add(c, path_at(1, 2));
    } else if (n == "write" || n == "pwrite64" || n == "writev" || n == "pwritev" ||
               n == "pwritev2" || n == "ftruncate" || n == "fallocate" || n == "fchmod" ||
               n == "fchown" || n == "fsetxattr" || n == "fremovexattr" || n == "sendfile") {
      Add(c, FdPath(Arg(c, 0)));
    } else if (n == "copy_file_range" || n == "splice") {
      Add(c, FdPath(Arg(c, 2)));
    } else if (n == "mmap") {
      if (HasWord(Arg(c, 2), {"PROT_WRITE"}) &&
          HasWord(Arg(c, 3), {"MAP_SHARED", "MAP_SHARED_VALIDATE"})) {
        Add(c, FdPath(Arg(c, 4)));
      }
    }
  }

  std::string initial_cwd_;
  std::map<int, std::string> cwd_;
  std::map<int, std::string> pending_;  // pid -> the start of an unfinished call
  std::vector<TracedWrite> writes_;
};

// The ThreadSanitizer runtime's own scratch file, created and unlinked at
// start-up of a tsan build (not iomimic's code).
bool SanitizerRuntimeFile(const std::string& path) {
  return path.rfind("/tmp/tsan.rodata.", 0) == 0;
}

bool Allowed(const std::string& path, const std::vector<std::string>& allowed) {
  if (path == "/dev/null" || SanitizerRuntimeFile(path)) return true;
  for (const std::string& a : allowed) {
    if (a.empty()) continue;
    if (a.back() == '*') {
      if (path.compare(0, a.size() - 1, a, 0, a.size() - 1) == 0) return true;
      continue;
    }
    const std::string dir = NormalizePath(a);
    if (path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                        (dir == "/" || path[dir.size()] == '/'))) {
      return true;
    }
  }
  return false;
}

}  // namespace

void PrintTo(const TracedWrite& w, std::ostream* os) {
  *os << w.call << ' ' << w.path << (w.succeeded ? "" : " (failed)") << "  [" << w.line << ']';
}

std::string Describe(const std::vector<TracedWrite>& writes) {
  std::ostringstream os;
  for (const TracedWrite& w : writes) {
    PrintTo(w, &os);
    os << '\n';
  }
  return os.str();
}

std::string NormalizePath(const std::string& path) {
  std::vector<std::string> parts;
  std::string part;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (part == "..") {
        if (!parts.empty()) parts.pop_back();
      } else if (!part.empty() && part != ".") {
        parts.push_back(part);
      }
      part.clear();
    } else {
      part += path[i];
    }
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::vector<TracedWrite> ParseStraceWrites(std::istream& trace, const std::string& cwd) {
  Parser parser(cwd);
  for (std::string line; std::getline(trace, line);) parser.Line(line);
  return std::move(parser).writes();
}

std::vector<TracedWrite> WritesOutside(const std::vector<TracedWrite>& writes,
                                       const std::vector<std::string>& allowed) {
  std::vector<TracedWrite> out;
  for (const TracedWrite& w : writes) {
    if (!Allowed(w.path, allowed)) out.push_back(w);
  }
  return out;
}

std::string StraceUnavailableReason() {
  static const std::string reason = [] {
    const auto strace = FindProgram("strace");
    if (!strace) return std::string("strace not found (scripts/setup installs it)");
    // ptrace may be forbidden (a container, yama ptrace_scope = 3).
    const RunResult r = RunCommand({*strace, "-qq", "-o", "/dev/null", "--", "true"});
    if (r.exit_code != 0) return "strace cannot trace here: " + r.err;
    return std::string();
  }();
  return reason;
}

WriteAudit AuditWrites(const std::vector<std::string>& args,
                       const std::vector<std::string>& allowed) {
  const auto strace = FindProgram("strace");
  if (!strace) throw std::runtime_error("AuditWrites: strace not found");
  const char* tmpdir = std::getenv("TMPDIR");
  std::string trace =
      std::string(tmpdir != nullptr && *tmpdir ? tmpdir : "/tmp") + "/iomimic-strace-XXXXXX";
  const int fd = ::mkstemp(trace.data());
  if (fd < 0) throw std::runtime_error("mkstemp " + trace + ": " + std::strerror(errno));
  ::close(fd);
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr) {
    ::unlink(trace.c_str());
    throw std::runtime_error(std::string("getcwd: ") + std::strerror(errno));
  }

  // -f: threads and children (dumpe2fs); -y: descriptors with their paths;
  // -qq: no attach/exit notices. The trace file is strace's own write.
  std::vector<std::string> argv = {*strace, "-f", "-qq", "-y", "-e", "trace=%file,%desc",
                                   "-o",    trace};
  // LeakSanitizer cannot work under ptrace: an ASan build of iomimic would
  // report a fatal error at exit. Leaks are checked by the untraced tests.
  const char* asan = std::getenv("ASAN_OPTIONS");
  argv.insert(argv.end(), {"-E", "ASAN_OPTIONS=" + std::string(asan != nullptr ? asan : "") +
                                     (asan != nullptr && *asan ? ":" : "") + "detect_leaks=0"});
  argv.insert(argv.end(), {"--", IomimicBinary()});
  argv.insert(argv.end(), args.begin(), args.end());
  WriteAudit audit;
  try {
    audit.run = RunCommand(argv);
  } catch (...) {
    ::unlink(trace.c_str());
    throw;
  }
  std::ifstream in(trace);
  audit.writes = ParseStraceWrites(in, cwd);
  ::unlink(trace.c_str());
  audit.violations = WritesOutside(audit.writes, allowed);
  return audit;
}

}  // namespace iomimic::test
