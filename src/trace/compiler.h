// Turns the events of a trace into replayable ops: resolves descriptors to
// slots, paths to FileTable ids (relative ones against the -yy decoration
// of their directory or the process's working directory), mappings to map
// slots, and infers what the files were before the program ran. Every
// syscall it does not turn into an op is counted with the reason.
//
// Streaming: Add() one event at a time; memory O(threads + files + open
// descriptors). Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "trace/event.h"
#include "trace/fd_tables.h"
#include "trace/file_table.h"
#include "trace/op.h"

namespace iomimic::trace {

// Receives what the compiler makes, in trace order.
class OpSink {
 public:
  virtual ~OpSink() = default;
  // Every syscall event (replayed or not), with its thread index.
  virtual void OnEvent(const Event&, uint32_t /*thread*/) {}
  // A replayable op. file_offset: where a read/write/mmap lands in its file.
  virtual void OnOp(const Op& op, uint32_t thread, uint64_t file_offset) = 0;
};

struct SysTotals {
  uint64_t count = 0, errors = 0, bytes = 0, time_ns = 0;
};

class Compiler {
 public:
  // under: replay only calls on paths under this directory (others are
  // counted as "outside"); "" = all.
  explicit Compiler(OpSink* sink, std::string under = {})
      : sink_(sink), under_(std::move(under)) {}

  void Add(const Event& ev);
  // After the last event: settles what existed before (FileTable::Finish).
  void Finish();

  FileTable& files() { return files_; }
  const FileTable& files() const { return files_; }
  FdTables& tables() { return tables_; }
  // Per replayed syscall: what the trace did (one copy, one pass).
  const std::array<SysTotals, kSysCount>& traced() const { return traced_; }
  // (syscall, reason) -> count, for every syscall not replayed.
  const std::map<std::pair<std::string, std::string>, uint64_t>& unreplayed() const {
    return unreplayed_;
  }
  uint64_t syscalls() const { return syscalls_; }
  uint64_t ops() const { return ops_; }  // ops made (Op::seq runs 0 .. ops()-1)
  uint64_t signals() const { return signals_; }
  uint64_t exits() const { return exits_; }
  uint64_t first_ts() const { return first_ts_; }
  uint64_t last_end() const { return last_end_; }

 private:
  struct Ctx;  // the event being compiled
  void Skip(const Event& ev, const char* reason);
  void Emit(Ctx& c, uint64_t file_offset = 0);
  bool TrackProcess(const Event& ev, uint32_t thread);
  bool FdOp(Ctx& c, size_t fd_arg);
  bool PathArg(Ctx& c, int dirfd_arg, size_t path_arg, uint32_t* file);
  bool Open(Ctx& c);
  bool Close(Ctx& c);
  bool ReadWrite(Ctx& c);
  bool Seek(Ctx& c);
  bool Sync(Ctx& c);
  bool Space(Ctx& c);
  bool Mmap(Ctx& c);
  bool MapOp(Ctx& c);
  bool Stat(Ctx& c);
  bool Names(Ctx& c);
  bool Rename(Ctx& c);
  bool Fcntl(Ctx& c);
  bool Dup(Ctx& c);
  void ObservedStat(uint32_t file, std::string_view st, bool statx);
  void Lookup(uint32_t file, int err);

  OpSink* sink_;
  std::string under_;
  FileTable files_;
  FdTables tables_;
  std::array<SysTotals, kSysCount> traced_{};
  std::map<std::pair<std::string, std::string>, uint64_t> unreplayed_;
  uint64_t syscalls_ = 0, signals_ = 0, exits_ = 0, ops_ = 0;
  bool started_ = false;
  uint64_t first_ts_ = 0, last_end_ = 0;
};

}  // namespace iomimic::trace
