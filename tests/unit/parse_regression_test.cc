// Replays every input of tests/fuzz_regressions/ (found by scripts/fuzz, or
// written by hand) through iomimic::cli::ParseRun: each must be
// accepted or refused with UsageError, in well under a second. Anything
// else is what the fuzzer calls a finding: another exception type (the
// binary would end in std::terminate), a crash, or a hang.
//
// args-*     the arguments after `iomimic run`, separated by NUL bytes
// profile-*  a profile's contents, given as /proc/self/fd/N of a memfd
// known_failures.txt lists inputs that still fail (bugs not yet fixed):
// they must still fail (printed as "known"); when one passes, the test
// fails and says to remove its line.
//
// Each input runs in a forked child, so a hang or a crash fails this test
// instead of ending the whole suite.
#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cli/sweep_plan.h"
#include "iomimic/status.h"

namespace iomimic::test {
namespace {

const std::string kDir = std::string(IOMIMIC_SOURCE_DIR) + "/tests/fuzz_regressions";
constexpr auto kTimeout = std::chrono::seconds(1);

enum ChildExit { kAccepted = 0, kRefused = 2, kOtherException = 3, kSetupFailed = 4 };

std::vector<std::string> Inputs() {
  std::vector<std::string> names;
  DIR* d = ::opendir(kDir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind("args-", 0) == 0 || name.rfind("profile-", 0) == 0) names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::set<std::string> KnownFailures() {
  std::set<std::string> known;
  std::ifstream in(kDir + "/known_failures.txt");
  for (std::string line; std::getline(in, line);) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string name;
    if (words >> name) known.insert(name);
  }
  return known;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// In the child: builds the arguments and parses them. Never returns.
[[noreturn]] void ParseInChild(const std::string& name, const std::string& data) {
  std::vector<std::string> args;
  if (name.rfind("profile-", 0) == 0) {
    const int fd = ::memfd_create("iomimic-regression-profile", 0);
    if (fd < 0 || ::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
      ::_exit(kSetupFailed);
    }
    args.push_back("/proc/self/fd/" + std::to_string(fd));
  } else if (!data.empty()) {
    args.emplace_back();
    for (char c : data) {
      if (c == '\0') {
        args.emplace_back();
      } else {
        args.back() += c;
      }
    }
  }
  int code = kAccepted;
  try {
    (void)cli::ParseRun(args);
  } catch (const UsageError&) {
    code = kRefused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "non-UsageError exception: %s\n", e.what());
    code = kOtherException;
  } catch (...) {
    code = kOtherException;
  }
  std::fflush(stderr);
  ::_exit(code);
}

// Forks a child that parses input `name`; returns its pid (-1 on failure).
pid_t StartReplay(const std::string& name) {
  const std::string data = ReadFile(kDir + "/" + name);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) ParseInChild(name, data);
  return pid;
}

// "" when the child accepted its input or refused it with UsageError, else
// what went wrong.
std::string Verdict(int status) {
  if (WIFSIGNALED(status)) return "crashed with signal " + std::to_string(WTERMSIG(status));
  switch (WEXITSTATUS(status)) {
    case kAccepted:
    case kRefused:
      return "";
    case kOtherException:
      return "threw an exception other than UsageError";
    default:
      return "exited " + std::to_string(WEXITSTATUS(status));
  }
}

// One test over the whole folder (not one per file): a new input is picked
// up without rebuilding, and the inputs run in parallel, so the known hangs
// cost one timeout in all.
TEST(ParseRegression, EveryInputIsAcceptedOrRefusedWithUsageError) {
  const std::vector<std::string> inputs = Inputs();
  ASSERT_FALSE(inputs.empty()) << kDir;
  const std::set<std::string> known = KnownFailures();
  for (const std::string& k : known) {
    EXPECT_NE(std::find(inputs.begin(), inputs.end(), k), inputs.end())
        << "known_failures.txt names a missing input: " << k;
  }

  std::vector<pid_t> pids;
  for (const std::string& name : inputs) pids.push_back(StartReplay(name));
  std::vector<std::string> verdicts(inputs.size());
  std::vector<bool> done(inputs.size(), false);
  const auto give_up = std::chrono::steady_clock::now() + kTimeout;
  for (size_t left = inputs.size(); left > 0;) {
    const bool late = std::chrono::steady_clock::now() >= give_up;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      if (pids[i] < 0) {
        verdicts[i] = "fork failed";
      } else if (::waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        verdicts[i] = Verdict(status);
      } else if (late) {
        ::kill(pids[i], SIGKILL);
        ::waitpid(pids[i], &status, 0);
        verdicts[i] = "hangs (no answer within 1 s)";
      } else {
        continue;
      }
      done[i] = true;
      --left;
    }
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  for (size_t i = 0; i < inputs.size(); ++i) {
    if (known.count(inputs[i])) {
      EXPECT_FALSE(verdicts[i].empty())
          << inputs[i] << " now passes: remove its line from known_failures.txt";
      if (!verdicts[i].empty()) {
        std::cerr << "[ known  ] " << inputs[i] << ": " << verdicts[i] << "\n";
      }
    } else {
      EXPECT_TRUE(verdicts[i].empty()) << inputs[i] << ": " << verdicts[i];
    }
  }
}

}  // namespace
}  // namespace iomimic::test
