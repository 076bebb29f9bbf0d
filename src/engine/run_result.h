// The engine builds the typed result of result/run_result.h; these names
// keep the engine's code short. report/ sees result/ only, never engine/.
#pragma once

#include "result/run_result.h"

namespace iomimic::engine {

using result::RunError;
using result::RunResult;
using result::RunStatus;

}  // namespace iomimic::engine
