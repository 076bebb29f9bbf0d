#include "child_job.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <exception>
#include <type_traits>
#include <vector>

#include "build_ops.h"
#include "iomimic/status.h"

namespace iomimic::build_tree {
namespace {

enum Kind : uint8_t { kOk = 1, kError = 2, kOutcome = 3, kFailure = 4 };

// One record on the pipe. kOutcome is followed by a ChildOutcome; kFailure
// by the op's name (start bytes) and the path (end bytes), errno in aux.
struct Wire {
  uint8_t kind = 0;
  uint8_t pad = 0;
  uint16_t op = 0;
  uint32_t aux = 0;
  uint64_t start = 0, end = 0, bytes = 0;
};
static_assert(std::is_trivially_copyable_v<Wire> && std::is_trivially_copyable_v<ChildOutcome>);

void WriteAllOrDie(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ::_exit(3);  // the parent is gone: nothing to report to
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// The child's Recorder: buffers records and writes them to the pipe.
class PipeRecorder final : public Recorder {
 public:
  explicit PipeRecorder(int fd) : fd_(fd) { buf_.reserve(kFlushAt + 512); }
  void Record(OpId op, uint64_t start_ns, uint64_t end_ns, uint64_t bytes) override {
    Put({kOk, 0, op, 0, start_ns, end_ns, bytes});
  }
  void RecordError(OpId op, uint64_t start_ns, uint64_t end_ns) override {
    Put({kError, 0, op, 0, start_ns, end_ns, 0});
  }
  void RecordPaced(OpId op, uint64_t, uint64_t start_ns, uint64_t end_ns,
                   uint64_t bytes) override {
    Record(op, start_ns, end_ns, bytes);
  }
  void Outcome(const ChildOutcome& o) {
    Put({kOutcome, 0, 0, 0, 0, 0, 0});
    Append(&o, sizeof(o));
    Flush();
  }
  void Failure(const std::string& op, const std::string& path, int err) {
    Put({kFailure, 0, 0, static_cast<uint32_t>(err), op.size(), path.size(), 0});
    Append(op.data(), op.size());
    Append(path.data(), path.size());
    Flush();
  }
  void Flush() {
    WriteAllOrDie(fd_, buf_.data(), buf_.size());
    buf_.clear();
  }

 private:
  static constexpr size_t kFlushAt = 16 << 10;
  void Put(const Wire& w) {
    Append(&w, sizeof(w));
    if (buf_.size() >= kFlushAt) Flush();
  }
  void Append(const void* p, size_t n) {
    const auto* c = static_cast<const char*>(p);
    buf_.insert(buf_.end(), c, c + n);
  }
  int fd_;
  std::vector<char> buf_;
};

[[noreturn]] void ChildMain(int fd, const std::function<ChildOutcome(Recorder&)>& job) {
  // Keep only the pipe: another worker's pipe held open here would delay
  // that worker's end of file until this job ends.
  if (fd > 3) ::close_range(3, static_cast<unsigned>(fd) - 1, 0);
  ::close_range(static_cast<unsigned>(fd) + 1, ~0u, 0);
  PipeRecorder rec(fd);
  try {
    const ChildOutcome o = job(rec);
    rec.Outcome(o);
    ::_exit(0);
  } catch (const SysError& e) {
    rec.Failure(e.op(), e.path(), e.err());
  } catch (const std::exception& e) {
    rec.Failure(std::string("internal: ") + e.what(), "", EIO);
  } catch (...) {
    rec.Failure("internal", "", EIO);
  }
  ::_exit(1);
}

// Reads to end of file: the child's exit (other children close their
// inherited copy of this pipe as they start).
std::string ReadFromChild(int fd) {
  std::string data;
  char buf[16 << 10];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

}  // namespace

ChildOutcome RunInChild(Recorder& rec, const std::string& label,
                        const std::function<ChildOutcome(Recorder&)>& job) {
  int fds[2];
  CheckSys(::pipe2(fds, O_CLOEXEC), "pipe2", label);
  pid_t pid = -1;
  try {
    Timed(rec, kFork, 0, [&] { pid = CheckSys(::fork(), "fork", label); });
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  if (pid == 0) {
    ::close(fds[0]);
    ChildMain(fds[1], job);
  }
  ::close(fds[1]);
  const std::string data = ReadFromChild(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }

  ChildOutcome outcome;
  bool done = false;
  for (size_t off = 0; off + sizeof(Wire) <= data.size();) {
    Wire w;
    std::memcpy(&w, data.data() + off, sizeof(w));
    off += sizeof(w);
    if (w.kind == kOk) {
      rec.Record(w.op, w.start, w.end, w.bytes);
    } else if (w.kind == kError) {
      rec.RecordError(w.op, w.start, w.end);
    } else if (w.kind == kOutcome && off + sizeof(outcome) <= data.size()) {
      std::memcpy(&outcome, data.data() + off, sizeof(outcome));
      off += sizeof(outcome);
      done = true;
    } else if (w.kind == kFailure && off + w.start + w.end <= data.size()) {
      const std::string op = data.substr(off, w.start);
      const std::string path = data.substr(off + w.start, w.end);
      throw SysError(op, path, static_cast<int>(w.aux));
    } else {
      break;
    }
  }
  if (done && WIFEXITED(status) && WEXITSTATUS(status) == 0) return outcome;
  if (WIFSIGNALED(status)) {
    throw SysError("compile (child killed by signal " + std::to_string(WTERMSIG(status)) + ")",
                   label, EINTR);
  }
  throw SysError("compile (child exited " + std::to_string(WEXITSTATUS(status)) +
                     " without a result)",
                 label, ECHILD);
}

}  // namespace iomimic::build_tree
