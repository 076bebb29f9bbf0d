// Running the system tools the emulated disk is built with (losetup, mkfs,
// mount, umount): fork + exec, output captured, no shell.
// Thread-safety: independent calls may run concurrently.
#pragma once

#include <string>
#include <vector>

namespace iomimic::disk {

struct ToolResult {
  int exit_code = -1;  // 127 when the program could not be started
  std::string output;  // stdout and stderr, interleaved
};

// Runs argv[0] (looked up in PATH, then /usr/sbin and /sbin).
ToolResult RunTool(const std::vector<std::string>& argv);

// "losetup --find ... failed (exit 1): <output>"
std::string Describe(const std::vector<std::string>& argv, const ToolResult& r);

}  // namespace iomimic::disk
