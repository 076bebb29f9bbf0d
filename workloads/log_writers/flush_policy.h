// The two "KIND:ARGUMENT" options of log_writers, parsed once before a run:
//
//   flush    = none | fdatasync:N | fsync:N | odsync | buffer:SIZE
//   prealloc = none | fallocate:SIZE
//
// Sizes are read exactly as every size option of iomimic (k/M/G/T binary,
// KiB/MiB also accepted). Parsing returns "" or the reason a value is bad,
// without the option name (OptionSet adds it). Plain values: thread-safe
// to read once parsed.
#pragma once

#include <cstdint>
#include <string>

namespace iomimic::log_writers {

struct FlushPolicy {
  enum class Kind { kNone, kFdatasync, kFsync, kOdsync, kBuffer };
  Kind kind = Kind::kNone;
  // fdatasync / fsync: the call is made after every `every`-th record of a log.
  uint64_t every = 0;
  // buffer: records are copied into a user-space buffer of this many bytes
  // per log; one write() of the whole buffer each time it is full.
  uint64_t buffer_bytes = 0;

  bool buffered() const { return kind == Kind::kBuffer; }
  bool syncs_every_n() const { return kind == Kind::kFdatasync || kind == Kind::kFsync; }
};

// Largest buffer per log: it is allocated once per log at prepare.
inline constexpr uint64_t kMaxBufferBytes = 64ull << 20;
// Largest fallocate per log file.
inline constexpr uint64_t kMaxPreallocBytes = 64ull << 30;

// Parses `text` into *out; returns "" or why it is not a flush policy.
std::string ParseFlushPolicy(const std::string& text, FlushPolicy* out);

// Parses "none" (*bytes = 0) or "fallocate:SIZE" (*bytes = SIZE, >= 1).
std::string ParsePrealloc(const std::string& text, uint64_t* bytes);

}  // namespace iomimic::log_writers
