// `iomimic run ... --disk MODEL`: the run on a scratch emulated disk
// (disk/, docs/emulated-disk.md). Takes the --disk* options out of the
// arguments, brings a disk up, runs RunCommand with --target on it, and
// takes the disk down afterwards, whatever the run's outcome. Without
// --disk it is RunCommand itself.
#pragma once

#include <string>
#include <vector>

namespace iomimic::cli {

int RunWithDisk(const std::vector<std::string>& args, const std::string& command_line);

}  // namespace iomimic::cli
