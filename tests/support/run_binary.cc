#include "support/run_binary.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace iomimic::test {
namespace {

std::runtime_error Failure(const std::string& what, int err) {
  return std::runtime_error(what + ": " + std::strerror(err));
}

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

std::string Describe(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

bool PollUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

namespace {
// Function-local, so that a static initializer of another file may set it.
std::string& BinaryOverride() {
  static std::string path;
  return path;
}
}  // namespace

std::string IomimicBinary() {
  return BinaryOverride().empty() ? IOMIMIC_BINARY : BinaryOverride();
}

void SetIomimicBinary(const std::string& path) { BinaryOverride() = path; }

std::optional<std::string> FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path_env = std::getenv("PATH");
  std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  path += ":/usr/local/sbin:/usr/sbin:/sbin";
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t end = path.find(':', pos);
    if (end == std::string::npos) end = path.size();
    const std::string dir = end > pos ? path.substr(pos, end - pos) : ".";
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    pos = end + 1;
  }
  return std::nullopt;
}

RunResult RunCommand(const std::vector<std::string>& argv, const std::string& stdin_text) {
  SpawnedProcess p;
  p.StartCommand(argv, stdin_text);
  return p.Wait();
}

RunResult RunIomimic(const std::vector<std::string>& args, const std::string& stdin_text) {
  SpawnedProcess p;
  p.Start(args, stdin_text);
  return p.Wait();
}

SpawnedProcess::~SpawnedProcess() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  StopPump();
}

void SpawnedProcess::Start(const std::vector<std::string>& args, const std::string& stdin_text) {
  std::vector<std::string> argv{IomimicBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  StartArgv(argv, stdin_text);
}

void SpawnedProcess::StartCommand(const std::vector<std::string>& argv,
                                  const std::string& stdin_text) {
  StartArgv(argv, stdin_text);
}

void SpawnedProcess::StartArgv(const std::vector<std::string>& argv,
                               const std::string& stdin_text) {
  if (pid_ > 0) throw std::runtime_error("SpawnedProcess started twice");
  if (argv.empty()) throw std::runtime_error("SpawnedProcess: empty argv");
  // Resolved here: between fork and exec only async-signal-safe calls are
  // allowed, and execvp's PATH search is not guaranteed to be one.
  const std::string program = FindProgram(argv[0]).value_or(argv[0]);
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  int out[2] = {-1, -1}, err[2] = {-1, -1}, exec_status[2] = {-1, -1}, in[2] = {-1, -1};
  const auto close_all = [&] {
    for (int* fd : {&out[0], &out[1], &err[0], &err[1], &exec_status[0], &exec_status[1],
                    &in[0], &in[1]}) {
      CloseFd(fd);
    }
  };
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      ::pipe2(exec_status, O_CLOEXEC) != 0 || ::pipe2(wake_fd_, O_CLOEXEC) != 0) {
    const int e = errno;
    close_all();
    throw Failure("pipe2", e);
  }
  // stdin is a socket, not a pipe, so that writing to a child that exits
  // without reading can use MSG_NOSIGNAL instead of killing the test with
  // SIGPIPE.
  if (!stdin_text.empty()) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
      const int e = errno;
      close_all();
      throw Failure("socketpair", e);
    }
  } else {
    in[0] = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }

  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    close_all();
    throw Failure("fork", e);
  }
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
    if ((in[0] >= 0 && ::dup2(in[0], STDIN_FILENO) < 0) || ::dup2(out[1], STDOUT_FILENO) < 0 ||
        ::dup2(err[1], STDERR_FILENO) < 0) {
      const int e = errno;
      (void)!::write(exec_status[1], &e, sizeof e);
      ::_exit(127);
    }
    ::execv(program.c_str(), cargv.data());
    const int e = errno;
    (void)!::write(exec_status[1], &e, sizeof e);
    ::_exit(127);
  }

  pid_ = pid;
  CloseFd(&out[1]);
  CloseFd(&err[1]);
  CloseFd(&exec_status[1]);
  CloseFd(&in[0]);
  int exec_errno = 0;
  ssize_t n;
  while ((n = ::read(exec_status[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  CloseFd(&exec_status[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    CloseFd(&out[0]);
    CloseFd(&err[0]);
    CloseFd(&in[1]);
    throw Failure("exec " + Describe(argv), exec_errno);
  }
  pump_ = std::thread(&SpawnedProcess::Pump, this, out[0], err[0], in[1], stdin_text);
}

void SpawnedProcess::Pump(int out_fd, int err_fd, int in_fd, std::string stdin_text) {
  size_t written = 0;
  if (in_fd >= 0 && stdin_text.empty()) CloseFd(&in_fd);
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    pollfd fds[4] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {in_fd, POLLOUT, 0},
                     {wake_fd_[0], POLLIN, 0}};
    if (::poll(fds, 4, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      int* fd = i == 0 ? &out_fd : &err_fd;
      if (*fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(*fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      std::lock_guard<std::mutex> lock(mu_);
      if (got <= 0) {
        CloseFd(fd);
      } else {
        (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(got));
      }
      changed_.notify_all();
    }
    if (in_fd >= 0 && fds[2].revents != 0) {
      const ssize_t put = ::send(in_fd, stdin_text.data() + written, stdin_text.size() - written,
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
      if (put > 0) written += static_cast<size_t>(put);
      // EOF for the child once everything is written, or when it stopped reading.
      if (written == stdin_text.size() || (put < 0 && errno != EAGAIN && errno != EINTR)) {
        CloseFd(&in_fd);
      }
    }
    if (fds[3].revents != 0) break;
  }
  CloseFd(&out_fd);
  CloseFd(&err_fd);
  CloseFd(&in_fd);
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  changed_.notify_all();
}

void SpawnedProcess::StopPump() {
  if (pump_.joinable()) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      // The child has exited; only a grandchild holding its pipes open could
      // keep them from closing, so the wait is short.
      changed_.wait_for(lock, std::chrono::seconds(5), [this] { return closed_; });
    }
    if (wake_fd_[1] >= 0) (void)!::write(wake_fd_[1], "x", 1);
    pump_.join();
  }
  CloseFd(&wake_fd_[0]);
  CloseFd(&wake_fd_[1]);
}

std::optional<pid_t> SpawnedProcess::pid() const {
  if (pid_ <= 0 || reaped_) return std::nullopt;
  return pid_;
}

bool SpawnedProcess::Signal(int sig) {
  if (pid_ <= 0 || reaped_) return false;
  return ::kill(pid_, sig) == 0;
}

bool SpawnedProcess::WaitFor(const std::string* stream, const std::string& needle,
                             std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, timeout, [&] {
    return stream->find(needle) != std::string::npos || closed_;
  }) && stream->find(needle) != std::string::npos;
}

bool SpawnedProcess::WaitForStdout(const std::string& needle,
                                   std::chrono::milliseconds timeout) {
  return WaitFor(&out_, needle, timeout);
}

bool SpawnedProcess::WaitForStderr(const std::string& needle,
                                   std::chrono::milliseconds timeout) {
  return WaitFor(&err_, needle, timeout);
}

std::string SpawnedProcess::StdoutSoFar() const {
  std::lock_guard<std::mutex> lock(mu_);
  return out_;
}

std::string SpawnedProcess::StderrSoFar() const {
  std::lock_guard<std::mutex> lock(mu_);
  return err_;
}

RunResult SpawnedProcess::Wait(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) throw std::runtime_error("SpawnedProcess::Wait before Start");
  RunResult result;
  if (!reaped_) {
    if (timeout.count() > 0) {
      const auto deadline = std::chrono::steady_clock::now() + timeout;
      for (;;) {
        const pid_t r = ::waitpid(pid_, &status_, WNOHANG);
        if (r == pid_) break;
        if (r < 0 && errno != EINTR) throw Failure("waitpid", errno);
        if (std::chrono::steady_clock::now() >= deadline) {
          ::kill(pid_, SIGKILL);
          result.timed_out = true;
          while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
          }
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    } else {
      while (::waitpid(pid_, &status_, 0) < 0) {
        if (errno != EINTR) throw Failure("waitpid", errno);
      }
    }
    reaped_ = true;
  }
  StopPump();
  if (WIFEXITED(status_)) {
    result.exit_code = WEXITSTATUS(status_);
  } else if (WIFSIGNALED(status_)) {
    result.term_signal = WTERMSIG(status_);
    result.exit_code = 128 + result.term_signal;
  }
  std::lock_guard<std::mutex> lock(mu_);
  result.out = out_;
  result.err = err_;
  return result;
}

}  // namespace iomimic::test
