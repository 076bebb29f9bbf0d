#include "lifecycle/tool.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

namespace iomimic::disk {
namespace {

std::string Find(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  size_t b = 0;
  while (b <= path.size()) {
    const size_t e = std::min(path.find(':', b), path.size());
    const std::string cand = path.substr(b, e - b) + "/" + name;
    if (e > b && ::access(cand.c_str(), X_OK) == 0) return cand;
    b = e + 1;
  }
  return name;
}

}  // namespace

ToolResult RunTool(const std::vector<std::string>& argv) {
  ToolResult r;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return r;
  const std::string prog = Find(argv[0]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::execv(prog.c_str(), args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) r.output.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  if (pid > 0) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  while (!r.output.empty() && r.output.back() == '\n') r.output.pop_back();
  return r;
}

std::string Describe(const std::vector<std::string>& argv, const ToolResult& r) {
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return fmt::format("'{}' failed (exit {}){}{}", cmd, r.exit_code, r.output.empty() ? "" : ": ",
                     r.output);
}

}  // namespace iomimic::disk
