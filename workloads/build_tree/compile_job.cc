#include "compile_job.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "build_ops.h"
#include "iomimic/status.h"

namespace iomimic::build_tree {
namespace {

// cpp gives up beyond this nesting ("#include nested depth 200 exceeds").
constexpr int kMaxIncludeDepth = 200;

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, std::max<size_t>(slash, 1));
}

}  // namespace

void JobCounters::Add(const JobCounters& o) {
  compiled += o.compiled;
  source_bytes += o.source_bytes;
  headers_read += o.headers_read;
  header_bytes += o.header_bytes;
  includes += o.includes;
  includes_cached += o.includes_cached;
  includes_skipped += o.includes_skipped;
  unresolved += o.unresolved;
  probes += o.probes;
  probe_enoent += o.probe_enoent;
  mkdirs += o.mkdirs;
  mkdir_eexist += o.mkdir_eexist;
  objects += o.objects;
  object_bytes += o.object_bytes;
  cpu_ns += o.cpu_ns;
  link_objects += o.link_objects;
  link_bytes += o.link_bytes;
  max_depth = std::max(max_depth, o.max_depth);
}

Compiler::Compiler(const BuildSettings& settings, Recorder& rec)
    : s_(settings), rec_(rec), buf_(settings.read_size), fill_(settings.read_size) {
  uint64_t x = 0x243F6A8885A308D3ull;
  for (char& b : fill_) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<char>(x >> 56);
  }
}

JobCounters Compiler::Compile(const SourceJob& job, int64_t* ready_dir) {
  JobCounters c;
  lookups_.clear();
  included_.clear();
  struct stat st {};
  Timed(rec_, kStat, 0, [&] { CheckSys(::stat(job.source.c_str(), &st), "stat", job.source); });
  int fd = -1;
  Timed(rec_, kOpen, 0, [&] {
    fd = CheckSys(OpenForReading(job.source.c_str()), "open", job.source);
  });
  Process(job.source, fd, 0, true, &c);

  const uint64_t burn_ns = s_.cpu_per_kib_ns * (c.source_bytes + c.header_bytes) / 1024;
  Timed(rec_, kCpu, 0, [&] { s_.burner->Burn(burn_ns); });
  c.cpu_ns = burn_ns;

  if (*ready_dir != job.object_dir_key) {
    if (job.object_dir != s_.obj_root) MakeDirs(job.object_dir, &c);
    *ready_dir = job.object_dir_key;
  }
  const uint64_t obj_bytes = ObjectBytes(c.source_bytes, s_.obj_ratio);
  WriteFile(job.object, obj_bytes);
  c.objects = 1;
  c.object_bytes = obj_bytes;
  c.compiled = 1;
  return c;
}

void Compiler::Process(const std::string& path, int fd, int depth, bool is_source,
                       JobCounters* c) {
  IncludeScanner scanner;
  int64_t bytes = 0;
  try {
    bytes = ReadAll(fd, path, &scanner);
  } catch (...) {
    ::close(fd);
    throw;
  }
  Close(fd, path);
  if (bytes < 0) {  // a directory named like the header: nothing to read
    ++c->unresolved;
    return;
  }
  if (is_source) {
    c->source_bytes += static_cast<uint64_t>(bytes);
  } else {
    ++c->headers_read;
    c->header_bytes += static_cast<uint64_t>(bytes);
  }
  c->max_depth = std::max<uint64_t>(c->max_depth, static_cast<uint64_t>(depth));
  if (depth >= kMaxIncludeDepth) return;
  const std::vector<IncludeDirective> includes = scanner.found();
  const std::string dir = DirName(path);
  for (const IncludeDirective& inc : includes) {
    ++c->includes;
    std::string found;
    const int hfd = Resolve(dir, inc, &found, c);
    if (hfd >= 0) Process(found, hfd, depth + 1, false, c);
  }
}

int Compiler::Resolve(const std::string& includer_dir, const IncludeDirective& inc,
                      std::string* found, JobCounters* c) {
  // cpp caches a lookup per (start directory, name): a quoted name starts in
  // the includer's directory, an angled one at the first include directory.
  std::string key = inc.quoted ? includer_dir : std::string();
  key += inc.quoted ? "\n\"" : "\n<";
  key += inc.name;
  if (auto it = lookups_.find(key); it != lookups_.end()) {
    ++c->includes_cached;
    if (it->second.empty()) {
      ++c->unresolved;
    } else {
      ++c->includes_skipped;  // found before, so read before
    }
    return -1;
  }
  std::string& result = lookups_[key];
  const size_t first = inc.quoted ? 0 : 1;
  const size_t n = s_.include_dirs.size() + 1;
  for (size_t k = first; k < n; ++k) {
    const std::string candidate =
        (k == 0 ? includer_dir : s_.include_dirs[k - 1]) + "/" + inc.name;
    const int fd = Probe(candidate, c);
    if (fd == -2) continue;  // miss
    result = candidate;
    if (!included_.insert(candidate).second) {  // reached before under another name
      if (fd >= 0) Close(fd, candidate);
      ++c->includes_skipped;
      return -1;
    }
    *found = candidate;
    if (fd >= 0) return fd;
    int opened = -1;  // probed with stat: open it now
    Timed(rec_, kOpen, 0, [&] {
      opened = CheckSys(OpenForReading(candidate.c_str()), "open", candidate);
    });
    return opened;
  }
  ++c->unresolved;
  return -1;
}

int Compiler::Probe(const std::string& path, JobCounters* c) {
  ++c->probes;
  const uint64_t start = NowNs();
  int fd = -1;
  int err = 0;
  bool is_dir = false;
  if (s_.probe_with_stat) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      err = errno;
    } else {
      is_dir = S_ISDIR(st.st_mode);
    }
  } else {
    fd = OpenForReading(path.c_str());
    if (fd < 0) err = errno;
  }
  const uint64_t end = NowNs();
  if (err == ENOENT || err == ENOTDIR || is_dir) {
    rec_.Record(kProbeEnoent, start, end, 0);
    ++c->probe_enoent;
    return -2;
  }
  const OpId op = s_.probe_with_stat ? kStat : kOpen;
  if (err != 0) {
    rec_.RecordError(op, start, end);
    throw SysError(s_.probe_with_stat ? "stat" : "open", path, err);
  }
  rec_.Record(op, start, end, 0);
  return fd;  // -1 after a stat hit: not opened yet
}

ssize_t Compiler::ReadChunk(int fd, const std::string& path, bool dir_is_miss) {
  const uint64_t start = NowNs();
  const ssize_t n = ::read(fd, buf_.data(), buf_.size());
  if (n < 0) {
    const int err = errno;
    if (err == EISDIR && dir_is_miss) return -1;
    rec_.RecordError(kRead, start, NowNs());
    throw SysError("read", path, err);
  }
  rec_.Record(kRead, start, NowNs(), static_cast<uint64_t>(n));
  return n;
}

int64_t Compiler::ReadAll(int fd, const std::string& path, IncludeScanner* scanner) {
  int64_t total = 0;
  for (;;) {
    const ssize_t n = ReadChunk(fd, path, total == 0);
    if (n < 0) return -1;
    if (scanner != nullptr) scanner->Feed(buf_.data(), static_cast<size_t>(n));
    total += n;
    // A regular file reads full chunks until its end: a short read is the end.
    if (static_cast<size_t>(n) < buf_.size()) break;
  }
  if (scanner != nullptr) scanner->Finish();
  return total;
}

void Compiler::Close(int fd, const std::string& path) {
  Timed(rec_, kClose, 0, [&] { CheckSys(::close(fd), "close", path); });
}

void Compiler::MakeDirs(const std::string& dir, JobCounters* c) {
  // mkdir -p below obj_root: a parent missing (ENOENT) is made first.
  int err = 0;
  Timed(rec_, kMkdir, 0, [&] {
    if (::mkdir(dir.c_str(), 0755) == 0) return;
    err = errno;
    if (err != EEXIST && err != ENOENT) throw SysError("mkdir", dir, err);
  });
  ++c->mkdirs;
  if (err == EEXIST) ++c->mkdir_eexist;
  if (err != ENOENT) return;
  const std::string parent = DirName(dir);
  if (parent.size() <= s_.obj_root.size()) throw SysError("mkdir", dir, ENOENT);
  MakeDirs(parent, c);
  MakeDirs(dir, c);
}

void Compiler::WriteFile(const std::string& path, uint64_t bytes) {
  int fd = -1;
  Timed(rec_, kOpen, 0, [&] {
    fd = CheckSys(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), "open",
                  path);
  });
  try {
    for (uint64_t done = 0; done < bytes;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(fill_.size(), bytes - done));
      Timed(rec_, kWrite, n, [&] {
        const ssize_t w = ::write(fd, fill_.data(), n);
        if (w < 0) throw SysError("write", path, errno);
        if (static_cast<size_t>(w) != n) throw SysError("write (short)", path, ENOSPC);
      });
      done += n;
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  Close(fd, path);
}

JobCounters Compiler::Link(size_t n, const std::function<std::string(size_t)>& object_path,
                           const std::string& output) {
  JobCounters c;
  int out = -1;
  Timed(rec_, kOpen, 0, [&] {
    out = CheckSys(::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), "open",
                   output);
  });
  try {
    for (size_t i = 0; i < n; ++i) {
      const std::string path = object_path(i);
      int fd = -1;
      Timed(rec_, kOpen, 0, [&] { fd = CheckSys(OpenForReading(path.c_str()), "open", path); });
      try {
        for (;;) {
          const ssize_t r = ReadChunk(fd, path, false);
          if (r == 0) break;
          Timed(rec_, kWrite, static_cast<uint64_t>(r), [&] {
            const ssize_t w = ::write(out, buf_.data(), static_cast<size_t>(r));
            if (w < 0) throw SysError("write", output, errno);
            if (w != r) throw SysError("write (short)", output, ENOSPC);
          });
          c.link_bytes += static_cast<uint64_t>(r);
          if (static_cast<size_t>(r) < buf_.size()) break;
        }
      } catch (...) {
        ::close(fd);
        throw;
      }
      Close(fd, path);
      ++c.link_objects;
    }
  } catch (...) {
    ::close(out);
    throw;
  }
  Close(out, output);
  return c;
}

}  // namespace iomimic::build_tree
