// The evidence of a run, gathered after the measured phase: device deltas
// per device (application bytes attributed to the target's), vmstat and CPU
// deltas, then, while the files still exist, their layout (FIEMAP) and the
// module's own report. Main thread only.
#pragma once

#include "engine/run_state.h"
#include "iomimic/workload.h"

namespace iomimic::engine {

// From the snapshots the measured phase took.
void CounterEvidence(Workload& workload, RunState* state);

// Needs the files: called before cleanup. A failure fails the run.
void FileEvidence(Workload& workload, RunState* state);

}  // namespace iomimic::engine
