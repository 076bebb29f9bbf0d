// A disk model: the parameters of an emulated disk's service time, read
// from an INI file (disk/models/NAME.ini) with command-line overrides.
//
// File format: one [model] section of `key = value` lines; '#' and ';'
// start comments. Durations take ns/us/ms/s, sizes k/M/G (binary), rates
// are decimal MB/s (10^6 bytes per second, as datasheets give them).
// Every key has a default (below); an unknown key is an error, so a typo
// never silently leaves a default. docs/emulated-disk.md lists each key and
// the source of each model's values.
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace iomimic::disk {

enum class ModelKind { kHdd, kFlat };

struct Model {
  std::string name;         // file stem, or "custom"
  std::string description;  // one line for `iomimic disk list`
  ModelKind kind = ModelKind::kFlat;
  // Requests served at the same time (the device's internal parallelism).
  // Default: 1. REQUIRES: 1..256.
  uint32_t parallel = 1;
  // Fixed cost of every request (command overhead, a SAN's round trip).
  uint64_t latency_ns = 0;
  // kFlat: transfer rate of one request, MB/s; 0 = instant.
  double transfer_mb_s = 0;

  // kHdd only. Seek time follows the distance (see service_time.h).
  uint32_t rpm = 7200;
  uint64_t track_to_track_ns = 1'000'000;
  uint64_t average_seek_ns = 8'500'000;
  uint64_t full_stroke_ns = 15'000'000;
  double outer_mb_s = 150;  // zoned transfer rate at offset 0 ...
  double inner_mb_s = 70;   // ... falling linearly to this at the end
  // A forward gap smaller than this costs the rotation over the gap, not a
  // seek: the head is on the same track (or the next).
  uint64_t track_size = 1 << 20;
  // Volatile write cache: a write completes at once and is destaged on a
  // flush (or when the cache is full); off: every write pays its service.
  bool write_cache = true;
  // Bytes the drive reads ahead into its buffer after a read while idle
  // (service_time.h, ReadAheadFor); 0 = none.
  uint64_t read_ahead = 4 << 20;
  uint64_t write_cache_size = 16 << 20;

  // Token buckets (0 = no limit): operations per second, an operation
  // being up to iops_io_size bytes (a larger request counts as several);
  // bytes per second; bucket_depth is the burst allowed, as time at rate.
  double iops_limit = 0;
  uint64_t iops_io_size = 256 << 10;
  double bandwidth_limit_mb_s = 0;
  uint64_t bucket_depth_ns = 0;
};

// The directory of the shipped models: $IOMIMIC_DISK_MODELS when set, else
// the source tree's disk/models (compiled in).
std::string ModelsDir();
// Names of the shipped models (file stems), sorted.
std::vector<std::string> ModelNames();

// Parses INI text into a model named `name`. Throws UsageError naming the
// key and the bad value (`origin` is the file, for the message).
Model ParseModel(const std::string& text, const std::string& name, const std::string& origin);

// Applies one "key=value" override. Throws UsageError on an unknown key or
// bad value.
void ApplyOverride(Model* model, const std::string& key, const std::string& value);

// Checks the model as a whole (ranges, the seek curve being monotonic).
// Throws UsageError naming the key.
void Validate(const Model& model);

// `name_or_path`: a shipped model's name or a path to an .ini file; then
// each override in order; then Validate(). Throws UsageError.
Model LoadModel(const std::string& name_or_path,
                const std::vector<std::pair<std::string, std::string>>& overrides = {});

// Every parameter, as the report's disk_model.parameters and as INI text
// (the daemon is started with this text, so it needs no path).
nlohmann::json ModelToJson(const Model& model);
std::string ModelToIni(const Model& model);

}  // namespace iomimic::disk
