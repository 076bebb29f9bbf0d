#include "engine/evidence.h"

#include <algorithm>

#include "probes/probes.h"

namespace iomimic::engine {
namespace {

// A run over 100,000 files must not write a 20 MB report.
constexpr size_t kMaxListedFiles = 1000;

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Each device's counters from the start of the measured phase to `end`
// (the end of the phase, or of the write-back). Application bytes are
// attributed to the target's device only: a module spreading over devices
// reports its own split.
void DeviceDeltas(const RunState& state, probes::DiskCounters DeviceUse::*end,
                  std::optional<result::DeviceDelta>* target,
                  std::vector<result::DeviceDelta>* all) {
  const RunResult& result = state.result;
  for (const DeviceUse& d : state.devices) {
    if (!d.before.valid || !(d.*end).valid) continue;
    const bool primary = d.name == state.primary_device;
    std::optional<result::DeviceDelta> delta =
        probes::DiskDelta(d.name, d.before, d.*end, primary ? result.app_read_bytes : 0,
                          primary ? result.app_write_bytes : 0);
    if (!delta) continue;
    delta->roles = d.roles;
    if (primary) *target = delta;
    all->push_back(std::move(*delta));
  }
}

// With --writeback=after: the devices up to the end of the write-back.
void WritebackEvidence(RunState* state) {
  RunResult& result = state->result;
  if (!result.writeback || result.writeback->mode != "after") return;
  DeviceDeltas(*state, &DeviceUse::after_writeback, &result.writeback->device,
               &result.writeback->devices);
}

}  // namespace

void CounterEvidence(Workload& workload, RunState* state) {
  RunResult& result = state->result;
  const auto reads = workload.AppReadOps();
  const auto writes = workload.AppWriteOps();
  for (const auto& op : result.ops) {
    if (Contains(reads, op.name)) result.app_read_bytes += op.bytes;
    if (Contains(writes, op.name)) result.app_write_bytes += op.bytes;
  }
  DeviceDeltas(*state, &DeviceUse::after, &result.device, &result.devices);
  const Snapshot& before = state->before;
  const Snapshot& after = state->after;
  if (before.vm.valid && after.vm.valid) result.vmstat = probes::VmStatDelta(before.vm, after.vm);
  if (before.cpu.valid && after.cpu.valid) {
    result.cpu = probes::CpuDelta(before.cpu, after.cpu);
    result.cpu->gauges = state->gauges;
  }
  if (before.process.valid && after.process.valid) {
    result.process = probes::ProcessDelta(before.process, after.process);
  }
  WritebackEvidence(state);
}

void FileEvidence(Workload& workload, RunState* state) {
  try {
    state->result.layout =
        probes::FileLayout(workload.Files(), state->shared.run_dir, kMaxListedFiles);
    state->result.module_report = workload.Report();
  } catch (...) {
    state->shared.Fail(ErrorFrom(std::current_exception(), "report", state->shared.run_dir,
                                 state->result.work_units));
  }
}

}  // namespace iomimic::engine
