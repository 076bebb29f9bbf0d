// What the compiler knows of each traced process while it reads: its
// threads, their shared or separate descriptor tables and address spaces,
// the working directory. A descriptor becomes a slot (the index a replaying
// copy keeps its real fd under); a file mapping a map slot. Slots are
// reused when a descriptor number is, so their count is O(threads x open
// descriptors), not O(opens); map slots are one per mmap. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/op.h"

namespace iomimic::trace {

struct FdEntry {
  uint32_t slot = kNoId;
  uint32_t file = kNoId;
  uint32_t owner = 0;       // the descriptor table that opened it
  uint32_t gen = 0;         // the slot's binding number (Op::gen)
  uint64_t offset = 0;      // the file offset the trace implies
  bool append = false;
};

struct Mapping {
  uint64_t len = 0;
  uint32_t map = kNoId;
  uint32_t file = kNoId;
};

struct Process {
  uint32_t fds = 0;    // descriptor table
  uint32_t space = 0;  // address space
  std::string cwd;
};

class FdTables {
 public:
  // The thread index (0, 1, ... in order of first appearance) of a pid.
  uint32_t Thread(int32_t pid);
  uint32_t threads() const { return static_cast<uint32_t>(thread_pids_.size()); }
  int32_t thread_pid(uint32_t t) const { return thread_pids_[t]; }
  Process& process_of(uint32_t thread) { return procs_[thread_proc_[thread]]; }

  // A clone/fork/vfork returned `child`: with CLONE_THREAD or CLONE_FILES
  // it shares the parent's descriptors (CLONE_VM: its mappings); else it
  // starts with a copy.
  void Cloned(uint32_t parent_thread, int32_t child, uint64_t clone_flags);

  FdEntry* Find(uint32_t thread, int64_t fd);
  // Binds fd to a file in the thread's table; returns its slot.
  FdEntry& Bind(uint32_t thread, int64_t fd, uint32_t file);
  void Unbind(uint32_t thread, int64_t fd);
  uint32_t slots() const { return next_slot_; }
  // Bindings made over all slots (the stride between passes of a loop).
  uint64_t binds() const { return binds_; }

  // File mappings of the thread's address space.
  uint32_t Map(uint32_t thread, uint64_t addr, uint64_t len, uint32_t file);
  // The mapping holding addr, and addr's offset in it; nullptr if none.
  const Mapping* FindMap(uint32_t thread, uint64_t addr, uint64_t* delta);
  void Unmap(uint32_t thread, uint64_t addr, uint64_t len);
  uint32_t map_slots() const { return next_map_; }
  // execve: a new address space (mappings gone), descriptors kept.
  void Exec(uint32_t thread);

 private:
  uint32_t NewProcess();

  std::unordered_map<int32_t, uint32_t> thread_of_pid_;
  std::vector<int32_t> thread_pids_;
  std::vector<uint32_t> thread_proc_;
  std::vector<Process> procs_;
  // Per table: fd -> entry; per table and fd number, the slot once given.
  std::vector<std::unordered_map<int64_t, FdEntry>> tables_;
  std::vector<std::unordered_map<int64_t, uint32_t>> table_slots_;
  std::vector<std::map<uint64_t, Mapping>> spaces_;
  std::vector<uint32_t> slot_gen_;
  uint32_t next_slot_ = 0, next_map_ = 0;
  uint64_t binds_ = 0;
};

}  // namespace iomimic::trace
