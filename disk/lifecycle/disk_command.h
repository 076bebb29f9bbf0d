// `iomimic disk up|down|list`: the command line of the emulated disk.
// Bad usage throws UsageError (exit 2); returns the exit code otherwise.
#pragma once

#include <string>
#include <vector>

namespace iomimic::disk {

int DiskCommand(const std::vector<std::string>& args);

}  // namespace iomimic::disk
