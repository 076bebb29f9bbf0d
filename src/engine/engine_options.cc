#include <cstdlib>

#include "engine/engine.h"
#include "engine/tunings.h"

namespace iomimic::engine {

void DeclareEngineOptions(OptionSet& options, EngineConfig* config) {
  if (config->target.empty()) {
    const char* tmpdir = std::getenv("TMPDIR");
    config->target = (tmpdir != nullptr && *tmpdir != '\0') ? tmpdir : "/tmp";
  }
  options.Text("target", &config->target,
               "directory under which the run directory is created (on the filesystem under test)",
               [](const std::string& v) -> std::string {
                 return v.empty() ? "must not be empty" : "";
               });
  options.Integer("threads", &config->threads, "worker threads", 1, 1024);
  options.Duration("duration", &config->duration_ns,
                   "length of the measured phase; 0 = until --ops or the module's work is done", 0,
                   365ull * 24 * 3600 * 1000000000);
  options.Integer("ops", &config->ops,
                  "units of work to measure over all threads (the module's unit: cycles, "
                  "updates, records); 0 = no limit",
                  0);
  options.Duration("warmup", &config->warmup_ns, "unmeasured time before the measured phase", 0,
                   24ull * 3600 * 1000000000);
  options.Number("rate", &config->rate,
                 "units of work per second per thread, open loop (latency counted from each "
                 "unit's intended start); 0 = as fast as possible",
                 0, 1e9);
  options.Duration("burst_on", &config->burst_on_ns,
                   "periodic bursts: work for this long, then idle for --burst_off (0 = no bursts)");
  options.Duration("burst_off", &config->burst_off_ns, "periodic bursts: idle time between bursts");
  options.Enum("cache", &config->cache,
               "page cache at the start of the measured phase: keep, cold (fdatasync + "
               "posix_fadvise DONTNEED on the module's files), drop (drop_caches; root only)",
               {"keep", "cold", "drop"});
  options.Duration("interval", &config->interval_ns,
                   "time series interval (throughput, latency percentiles, device, CPU per "
                   "interval); 0 = none",
                   0, 3600ull * 1000000000);
  options.Enum("writeback", &config->writeback,
               "dirty data left when the workers finish: after = syncfs every filesystem the "
               "run wrote once the measured phase ends, timed apart, device counters also "
               "reported with it; measure = that syncfs inside the measured phase; none",
               {"after", "measure", "none"});
  options.Flag("keep", &config->keep, "keep the run directory and its files afterwards");
  options.Integer("seed", &config->seed, "seed for the module's random choices", 0);
  options.Size("min_free", &config->min_free,
               "free space that must remain on the target after the run's estimated footprint "
               "(a run of appends bounded by time is stopped before it would go below it)");
  options.Flag("space_check", &config->space_check,
               "refuse a run whose footprint + min_free exceeds the free space; false only to "
               "reproduce a full filesystem on purpose");
  options.Text("tune", &config->tune,
               "system settings for the run, restored afterwards (also after a failure or a "
               "signal): NAME=VALUE[,NAME=VALUE...], NAME one of " + TunableNames() +
                   "; queue.* is the target's disk; root only",
               [](const std::string& v) {
                 std::vector<TuningRequest> parsed;
                 return ParseTunings(v, &parsed);
               });
}

}  // namespace iomimic::engine
