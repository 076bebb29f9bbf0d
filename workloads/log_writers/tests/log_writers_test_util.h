// Helpers of the log_writers end-to-end tests: one loop filesystem per type
// for the whole test program, and a run of the built binary read back as
// its JSON report.
#pragma once

#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test::log_writers {

// Making a filesystem costs more than a run here: each type is made once,
// on first use, and torn down by a global test environment after the last
// test (not by a static destructor: teardown runs umount and losetup).
// Every run makes and removes its own run directory, so runs do not see
// each other.
class SharedFsEnvironment : public ::testing::Environment {
 public:
  static std::map<std::string, std::unique_ptr<LoopFs>>& Made() {
    static std::map<std::string, std::unique_ptr<LoopFs>> made;
    return made;
  }
  void TearDown() override { Made().clear(); }
};

// Registered at static initialisation, before RUN_ALL_TESTS (inline: once
// for all files that include this header).
inline ::testing::Environment* const kSharedFsEnvironment =
    ::testing::AddGlobalTestEnvironment(new SharedFsEnvironment);

inline LoopFs& SharedFs(const std::string& type) {
  auto& fs = SharedFsEnvironment::Made()[type];
  if (!fs) fs = LoopFs::Create(type, 320ull << 20);
  return *fs;
}

struct LwRun {
  int exit_code = -1;
  std::string err;
  nlohmann::json report;  // null when the run wrote none
};

// `iomimic run log_writers --target=DIR ARGS...`, its JSON report parsed.
inline LwRun RunLogWriters(const std::string& target, const std::vector<std::string>& args) {
  static int serial = 0;
  const std::string out = "/tmp/iomimic-e2e-log_writers-" + std::to_string(::getpid()) + "-" +
                          std::to_string(++serial) + ".json";
  std::vector<std::string> argv = {"run", "log_writers", "--target=" + target, "--output=" + out,
                                   "--format=none"};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = RunIomimic(argv);
  LwRun run{r.exit_code, r.err, nullptr};
  std::ifstream in(out);
  if (in) run.report = nlohmann::json::parse(in);
  ::unlink(out.c_str());
  return run;
}

inline uint64_t OpCount(const nlohmann::json& report, const std::string& op) {
  if (!report["ops"].contains(op)) return 0;
  return report["ops"][op]["count"].get<uint64_t>();
}

}  // namespace iomimic::test::log_writers
