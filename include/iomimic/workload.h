// The interface a workload module implements. See workloads/skeleton/ for
// a commented starting point, docs/writing-a-module.md for the guide.
//
// Life of a run, and which thread calls what:
//   1. DeclareOptions()  main thread, once, before parsing; binds option fields.
//   2. Validate()        main thread, after all options are applied.
//   3. Footprint()       main thread; the engine refuses a target without room.
//   4. Prepare()         main thread, untimed: lay out files in ctx.run_dir().
//   5. RunWorker()       once per worker thread, concurrently, behind a start
//                        barrier; loops while ctx.KeepRunning().
//   6. Files()           main thread after the workers joined: the layout
//                        probe (FIEMAP) and cache control read these.
//   7. Report()          main thread, last; the module's own JSON section.
// The engine removes the run directory afterwards; a module never deletes
// anything outside it and never writes outside it.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "iomimic/options.h"
#include "iomimic/recorder.h"

namespace iomimic {

// Counters of the block device behind a path, for a module's own
// per-pass or per-phase evidence (the engine reports the whole measured
// phase by itself). valid is false when no block device is behind the path.
struct DeviceSample {
  bool valid = false;
  std::string device;  // sysfs name, e.g. "loop0"
  uint64_t reads = 0, writes = 0;  // completed requests
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t flushes = 0;
};

// A directory besides --target that a module uses, named by its options
// (build_tree's object tree on another filesystem, or a user's source tree).
struct ExtraTarget {
  std::string option;  // the option that named it, for messages
  std::string path;
  // true: the module writes there. The engine checks it like --target,
  // creates a run directory inside it and removes it afterwards.
  // false: read only; the engine only checks it exists. Never written.
  bool writes = false;
  // Bytes the module may allocate there (checked against its free space).
  uint64_t footprint = 0;
};

// The engine's settings a module may read (all resolved, never changed mid-run).
struct RunSettings {
  int threads = 1;
  uint64_t duration_ns = 0;  // 0: no time limit
  uint64_t ops = 0;          // 0: no op limit (total work units over all threads)
  uint64_t seed = 1;
  // Open-loop pacing: units of work per second per thread (0 = as fast as
  // possible). When set, KeepRunning() waits for each unit's intended start
  // and IntendedStartNs() returns it; a module records its unit with
  // WorkerContext::RecordUnit(), which counts latency from the intended
  // start too.
  double rate_per_thread = 0;
  // --quiet: Info() prints nothing; a module prints only through it.
  bool quiet = false;
};

class PrepareContext {
 public:
  virtual ~PrepareContext() = default;
  virtual const std::string& run_dir() const = 0;
  virtual const RunSettings& settings() const = 0;
  // One per ExtraTargets() entry, same order: the run directory created in
  // a written target, the canonical path of a read-only one.
  virtual const std::vector<std::string>& extra_dirs() const = 0;
  // True once SIGINT/SIGTERM arrived: a long prepare should return early.
  virtual bool StopRequested() const = 0;
  // The device behind `path` (a file or directory), read now.
  virtual DeviceSample SampleDevice(const std::string& path) const = 0;
  // One line on stderr, "iomimic: <line>", unless --quiet: what a long
  // prepare is doing, or a setting it changes that the user should know.
  // Never throws (a closed stderr loses the line, not the run).
  virtual void Info(const std::string& line) const = 0;
};

class WorkerContext {
 public:
  virtual ~WorkerContext() = default;
  virtual int thread_index() const = 0;
  virtual const RunSettings& settings() const = 0;
  virtual Recorder& recorder() = 0;
  // As PrepareContext::extra_dirs().
  virtual const std::vector<std::string>& extra_dirs() const = 0;
  // True once the run must stop (time, op count, signal, another worker's
  // error). For long work that is not a unit (a walk, a link, a wait between
  // passes); unlike KeepRunning() it counts nothing.
  virtual bool StopRequested() const = 0;
  // Sleeps until NowNs() >= when_ns; returns false early when the run must
  // stop (checked at least every 50 ms).
  virtual bool SleepUntil(uint64_t when_ns) = 0;
  // Call once before each unit of work (a cycle, an update, a record).
  // Returns false when the run must stop (duration, op count, signal, an
  // error in another worker). Cheap: an atomic load in the common case.
  virtual bool KeepRunning() = 0;
  // True when the unit KeepRunning() last started belongs to the measured
  // phase (always, without --warmup). A module's own counters (its
  // Report()) count only then, so they cover what the ops table covers.
  virtual bool Measuring() const = 0;
  // The time this unit of work was meant to start: with a rate, the slot on
  // the schedule (earlier than now when the run is behind); without, the
  // time KeepRunning() returned.
  virtual uint64_t IntendedStartNs() const = 0;
  // The device behind `path` (a file or directory), read now. Costs a few
  // microseconds (a sysfs read): call it per pass or per phase, not per op.
  virtual DeviceSample SampleDevice(const std::string& path) const = 0;

  // Records one unit of work (a cycle, an update, a record) that ran from
  // start_ns to end_ns: under a rate, also from its intended start
  // (coordinated omission, Recorder::RecordPaced), else as a plain op.
  void RecordUnit(OpId op, uint64_t start_ns, uint64_t end_ns, uint64_t bytes) {
    if (settings().rate_per_thread > 0) {
      recorder().RecordPaced(op, IntendedStartNs(), start_ns, end_ns, bytes);
    } else {
      recorder().Record(op, start_ns, end_ns, bytes);
    }
  }
};

class Workload {
 public:
  virtual ~Workload() = default;

  virtual void DeclareOptions(OptionSet& options) = 0;
  // Cross-option checks. Return "" or a message naming the options.
  virtual std::string Validate(const RunSettings&) { return {}; }
  // Directories besides --target (from the module's options). Each one's
  // block device is reported beside the target's.
  virtual std::vector<ExtraTarget> ExtraTargets() const { return {}; }
  // Bytes the run will allocate at most on the target filesystem.
  virtual uint64_t Footprint(const RunSettings& settings) const = 0;
  // For files that grow with run time (appends), whose Footprint() for a
  // time-bound run is only a worst case: the part known before the run
  // (files laid out in prepare, preallocation). When a run is bounded by
  // time, not by --ops, the engine checks only this part up front, then
  // guards the free space while measuring and stops the run cleanly
  // (stop_reason "min_free") before the target falls below --min_free.
  // Default: none (the whole Footprint() is checked, no guard).
  virtual std::optional<uint64_t> KnownFootprint(const RunSettings&) const {
    return std::nullopt;
  }
  // The op classes this module records; OpId is the index in this list.
  virtual std::vector<std::string> OpNames() const = 0;
  // True when RunWorker() ends by itself once its work is done (a number of
  // passes, a tree built): then the run has no default time limit and ends
  // with the work, unless the user gives --duration or --ops.
  virtual bool RunsToCompletion() const { return false; }
  // What one KeepRunning() unit is called in the report (e.g. "cycles").
  virtual std::string WorkUnit() const = 0;
  // The ops whose bytes are what the application read / wrote: the
  // denominators of throughput and of device bytes per application byte.
  virtual std::vector<std::string> AppReadOps() const { return {}; }
  virtual std::vector<std::string> AppWriteOps() const { return {}; }

  virtual void Prepare(PrepareContext& ctx) = 0;
  virtual void RunWorker(WorkerContext& ctx) = 0;

  // Files whose layout (FIEMAP) the report describes, after the run.
  virtual std::vector<std::string> Files() const { return {}; }
  // Files --cache evicts before the measured phase (after Prepare). Default:
  // Files(). A module that reads one set and writes another (a build reads
  // sources, writes objects) names the read set here.
  virtual std::vector<std::string> CacheFiles() const { return Files(); }
  virtual nlohmann::json Report() const { return nlohmann::json::object(); }
};

}  // namespace iomimic
