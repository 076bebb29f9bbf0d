// RunInChild: one job in a forked child process, as make forks a compiler.
//
// The parent thread forks (recorded as `fork`); the child runs the job with
// a Recorder that writes each op (op id, start/end ns, bytes) into a pipe,
// then its counters, and _exit()s. The parent reads the pipe to the child's
// last record, replays every op into its own Recorder, reaps the child and
// returns the counters. A SysError in the child comes back as a record and
// is rethrown in the parent with the child's op, path and errno.
//
// The child closes every inherited descriptor but its pipe first, so that
// another worker's pipe is never held open by this child. No exec: the
// child is a copy of iomimic (fork of a small process, ~0.1-0.3 ms), which
// is cheaper than make's fork + exec of cc1; the fork op shows the cost.
// Called from worker threads concurrently; each call is independent.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "compile_job.h"
#include "iomimic/recorder.h"

namespace iomimic::build_tree {

struct ChildOutcome {
  JobCounters counters;
  int64_t ready_dir = -1;  // the child's object-directory cache after the job
};

// `label` names the job in errors (the source's path). Throws SysError.
ChildOutcome RunInChild(Recorder& rec, const std::string& label,
                        const std::function<ChildOutcome(Recorder&)>& job);

}  // namespace iomimic::build_tree
