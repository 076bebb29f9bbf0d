// What both fuzz targets share: the oracle around cli::ParseRun (the
// options, then --sweep's points, each parsed as the command line is).
//
// ParseRun may accept its input or refuse it with iomimic::UsageError
// (exit 2 in the binary). Anything else is a finding: another exception
// type (the binary's Main catches only UsageError, so it would end in
// std::terminate), a crash, or a sanitizer report. Findings abort(), which
// libFuzzer records as a crash with the input that caused it.
#pragma once

#include <string>
#include <vector>

namespace iomimic::fuzz {

// Runs ParseRun(args) under the oracle.
void ParseExpectingOnlyUsageError(const std::vector<std::string>& args);

// True when an argument could make ParseRunArgs read a file that is not
// ours (a profile path under /proc, /sys or /dev: /proc/kcore is a
// "regular file" of 128 TiB); such inputs are skipped, not findings.
bool TouchesSystemFiles(const std::vector<std::string>& args);

}  // namespace iomimic::fuzz
