// Checks of where a run's output goes, made before anything runs (exit 2),
// and of standard output once the report is printed (exit 1 when lost).
#pragma once

#include "cli/run_options.h"

namespace iomimic::cli {

// Refuses (UsageError) an --output or --series_output whose directory is not
// writable, whose name is taken by something other than a regular file (a
// device, a symbolic link, a directory: the report is renamed over it), or
// the same file for both.
void CheckReportPaths(const RunPlan& plan);

// Refuses (UsageError) --series_output without --interval (the file would
// be empty), an --output or --series_output that is the profile itself
// (the report would replace it), and one in a directory of a pseudo
// filesystem such as /proc or /sys (the write would fail after the run).
void CheckOutputs(const RunPlan& plan);

// Flushes stdout: false (after saying why on stderr) when the report
// printed there was lost (a full disk, /dev/full, a closed stdout).
bool FinishStdout();

}  // namespace iomimic::cli
