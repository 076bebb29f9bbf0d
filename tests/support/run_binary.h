// Running the built iomimic binary (and other programs) from tests.
//
// The child's stdout and stderr are captured through pipes that are drained
// together (poll), so a child that fills one pipe while the test waits on
// the other cannot deadlock. The child starts with default signal
// dispositions and an empty signal mask, whatever the test process has
// blocked, so signal tests see what a shell user would.
// Thread-safety: a SpawnedProcess is used from one test thread; its output
// accessors may be called while the process runs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace iomimic::test {

struct RunResult {
  int exit_code = -1;     // exit status, or 128 + signal number when killed by a signal
  std::string out;        // everything the child wrote to stdout
  std::string err;        // everything the child wrote to stderr
  int term_signal = 0;    // the signal that ended the child, 0 when it exited
  bool timed_out = false;  // Wait()'s timeout expired and the child was killed
};

// Calls `done` every millisecond until it holds (true) or `timeout` passes
// (false): for waiting on a state the test cannot be told about, such as a
// file's first allocated block.
bool PollUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout);

// Path of the iomimic binary under test: IOMIMIC_BINARY from CMake, unless
// a test binary chose another with SetIomimicBinary().
std::string IomimicBinary();

// Makes IomimicBinary(), RunIomimic() and SpawnedProcess::Start() run
// `path` instead, for every test of this test binary: the module
// skeleton's tests run the test-only build/<preset>/iomimic_skeleton. Call
// it before the tests start (from a static initializer); not thread-safe.
void SetIomimicBinary(const std::string& path);

// `name` itself when it contains a '/', else the first executable `name` in
// $PATH followed by the sbin directories (tests run as root with a user's
// PATH at times; mkfs and losetup live in sbin). nullopt when not found.
std::optional<std::string> FindProgram(const std::string& name);

// Runs `argv` (argv[0] is looked up in PATH) to completion, feeding
// `stdin_text` on its stdin (stdin is /dev/null when empty). Throws
// std::runtime_error when the program cannot be started.
RunResult RunCommand(const std::vector<std::string>& argv, const std::string& stdin_text = "");

// Runs the iomimic binary with `args` (not including the program name).
RunResult RunIomimic(const std::vector<std::string>& args, const std::string& stdin_text = "");

// A child that runs while the test does something to it (a signal) or
// waits for it to reach a point (a line on stderr). Destroying a process
// that still runs kills it with SIGKILL and reaps it.
class SpawnedProcess {
 public:
  SpawnedProcess() = default;
  SpawnedProcess(const SpawnedProcess&) = delete;
  SpawnedProcess& operator=(const SpawnedProcess&) = delete;
  ~SpawnedProcess();

  // Starts iomimic with `args`. Throws std::runtime_error on failure or
  // when already started.
  void Start(const std::vector<std::string>& args, const std::string& stdin_text = "");
  // Starts any program; argv[0] is looked up in PATH.
  void StartCommand(const std::vector<std::string>& argv, const std::string& stdin_text = "");

  // The child's pid while it has not been reaped, else nullopt.
  std::optional<pid_t> pid() const;

  // Sends `sig` to the child. False when it has already been reaped.
  bool Signal(int sig);

  // Blocks until the captured stdout (or stderr) contains `needle`, or the
  // timeout passes, or the child closes its output. True when found.
  bool WaitForStdout(const std::string& needle, std::chrono::milliseconds timeout);
  bool WaitForStderr(const std::string& needle, std::chrono::milliseconds timeout);

  // What has been captured so far.
  std::string StdoutSoFar() const;
  std::string StderrSoFar() const;

  // Waits for the child to exit and returns its status and all its output.
  // With a non-zero timeout the child is killed (SIGKILL) when it has not
  // exited by then, and the result says timed_out.
  RunResult Wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

 private:
  void StartArgv(const std::vector<std::string>& argv, const std::string& stdin_text);
  bool WaitFor(const std::string* stream, const std::string& needle,
               std::chrono::milliseconds timeout);
  void Pump(int out_fd, int err_fd, int in_fd, std::string stdin_text);
  // Stops the pump thread (once the child's pipes are closed, or after a
  // grace period when a grandchild keeps them open) and joins it.
  void StopPump();

  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::thread pump_;
  int wake_fd_[2] = {-1, -1};  // written to stop the pump early
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::string out_;  // guarded by mu_
  std::string err_;  // guarded by mu_
  bool closed_ = false;  // both output pipes reached EOF; guarded by mu_
};

}  // namespace iomimic::test
