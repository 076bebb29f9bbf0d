// The command line: iomimic list | describe MODULE | run [MODULE|PROFILE.ini] [options]
// | clean --target DIR.
// Returns the process exit code: 0 success, 1 the run failed or was
// interrupted, 2 bad usage or a bad profile (nothing written).
#pragma once

#include <string>
#include <vector>

namespace iomimic::cli {

int Main(int argc, char** argv);

int ListCommand();
int DescribeCommand(const std::vector<std::string>& args);
int RunCommand(const std::vector<std::string>& args, const std::string& command_line);
int CleanCommand(const std::vector<std::string>& args);
int TraceCommand(const std::vector<std::string>& args);  // trace_command.cc

// The built-in default profile (workloads/default.ini, embedded at build time).
extern const char* const kDefaultProfile;

}  // namespace iomimic::cli
