// The timed part of a run: worker threads behind a start latch, an optional
// warmup, the measured phase until the deadline, the op limit, the module's
// end of work, an error or a signal; interval ticks and gauge samples on
// the main thread meanwhile. Fills the state's figures (ops, units,
// duration, series, snapshots, gauges).
//
// Main thread only; the workers it starts are joined before it returns.
#pragma once

#include "engine/engine.h"
#include "engine/run_state.h"
#include "iomimic/workload.h"

namespace iomimic::engine {

void MeasurePhase(const EngineConfig& config, StopSource* stop, Workload& workload,
                  RunState* state);

}  // namespace iomimic::engine
