// The ops log_writers records, and which of them a configuration can issue.
//
// Only the ops a run can issue are declared (OpNames()), so the report has
// no rows of zeros for calls that never happen (no fsync row under
// flush=fdatasync:N, no rename without rotation). OpTable maps each kind to
// its OpId in that list; it is built from the config alone, so OpNames()
// and every worker agree. Read-only once built: thread-safe.
#pragma once

#include <array>
#include <cassert>
#include <string>
#include <vector>

#include "iomimic/recorder.h"

namespace iomimic::log_writers {

enum class OpKind : int {
  kOpen,
  kWrite,
  kLseek,
  kClock,
  kFdatasync,
  kFsync,
  kClose,
  kRename,
  kFallocate,
  kLockWait,
  kRecord,
  kCount
};

class OpTable {
 public:
  static constexpr OpId kAbsent = 0xFFFF;

  OpTable() { ids_.fill(kAbsent); }

  // Declares `kind` (in call order: the report lists ops in this order).
  void Add(OpKind kind) {
    ids_[Index(kind)] = static_cast<OpId>(names_.size());
    names_.push_back(Name(kind));
  }
  bool Has(OpKind kind) const { return ids_[Index(kind)] != kAbsent; }
  OpId operator[](OpKind kind) const {
    assert(Has(kind));
    return ids_[Index(kind)];
  }
  const std::vector<std::string>& names() const { return names_; }

  static const char* Name(OpKind kind) {
    static constexpr std::array<const char*, static_cast<size_t>(OpKind::kCount)> kNames = {
        "open",  "write",  "lseek",     "clock",     "fdatasync", "fsync",
        "close", "rename", "fallocate", "lock_wait", "record"};
    return kNames[Index(kind)];
  }

 private:
  static size_t Index(OpKind kind) { return static_cast<size_t>(kind); }

  std::array<OpId, static_cast<size_t>(OpKind::kCount)> ids_;
  std::vector<std::string> names_;
};

}  // namespace iomimic::log_writers
