// The state of one run as it goes through the engine's phases (engine.cc):
// what each phase leaves for the next, in one place. Main thread only; the
// workers see `shared` alone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/run_marker.h"
#include "engine/run_result.h"
#include "engine/tunings.h"
#include "engine/worker.h"
#include "probes/probes.h"

namespace iomimic::engine {

// Every block device the run touches, with the roles it plays.
struct DeviceUse {
  std::string name;
  std::vector<std::string> roles;  // "target", or the option of an extra target
  probes::DiskCounters before, after;
  probes::DiskCounters after_writeback;  // with --writeback=after
};

// System-wide counters read at the start and the end of the measured phase.
struct Snapshot {
  probes::VmStat vm;
  probes::CpuTimes cpu;
  probes::ProcessCounters process;
};

struct RunState {
  Shared shared;
  Tunings tunings;
  RunResult result;
  RunMarker marker;
  std::vector<std::string> created;  // run directories made, the target's first
  std::vector<DeviceUse> devices;
  std::string primary_device;  // the target's, "" when it has none
  std::vector<std::string> op_names;
  bool guard_free_space = false;  // Engine::Checked::guard_free_space
  // Filled by the measured phase when it ran.
  bool measured = false;
  Snapshot before, after;
  std::optional<nlohmann::json> disk_before;  // an emulated disk's counters (disk/)
  result::GaugeSummary gauges;
};

}  // namespace iomimic::engine
