#include "trace/fd_tables.h"

namespace iomimic::trace {
namespace {
constexpr uint64_t kCloneVm = 0x100, kCloneFiles = 0x400, kCloneThread = 0x10000;
}

uint32_t FdTables::NewProcess() {
  procs_.push_back(Process{.fds = static_cast<uint32_t>(tables_.size()),
                           .space = static_cast<uint32_t>(spaces_.size()),
                           .cwd = {}});
  tables_.emplace_back();
  table_slots_.emplace_back();
  spaces_.emplace_back();
  return static_cast<uint32_t>(procs_.size() - 1);
}

uint32_t FdTables::Thread(int32_t pid) {
  auto it = thread_of_pid_.find(pid);
  if (it != thread_of_pid_.end()) return it->second;
  const uint32_t t = static_cast<uint32_t>(thread_pids_.size());
  thread_of_pid_.emplace(pid, t);
  thread_pids_.push_back(pid);
  thread_proc_.push_back(NewProcess());
  return t;
}

// The child's lines can come before the parent's clone returns (strace -f
// prints them as they happen): a child already seen keeps its own tables
// unless it has opened nothing yet.
void FdTables::Cloned(uint32_t parent_thread, int32_t child, uint64_t clone_flags) {
  const uint32_t c = Thread(child);
  Process& parent = procs_[thread_proc_[parent_thread]];
  Process& mine = procs_[thread_proc_[c]];
  if (!tables_[mine.fds].empty()) return;
  mine.cwd = parent.cwd;
  if (clone_flags & (kCloneThread | kCloneFiles)) {
    mine.fds = parent.fds;
  } else {
    tables_[mine.fds] = tables_[parent.fds];  // inherited: same slots, owned by the parent
  }
  if (clone_flags & (kCloneThread | kCloneVm)) mine.space = parent.space;
}

FdEntry* FdTables::Find(uint32_t thread, int64_t fd) {
  auto& table = tables_[procs_[thread_proc_[thread]].fds];
  auto it = table.find(fd);
  return it == table.end() ? nullptr : &it->second;
}

FdEntry& FdTables::Bind(uint32_t thread, int64_t fd, uint32_t file) {
  const uint32_t t = procs_[thread_proc_[thread]].fds;
  auto [s, fresh] = table_slots_[t].emplace(fd, next_slot_);
  if (fresh) {
    ++next_slot_;
    slot_gen_.push_back(0);
  }
  ++binds_;
  FdEntry& e = tables_[t][fd];
  e = FdEntry{.slot = s->second, .file = file, .owner = t, .gen = ++slot_gen_[s->second],
              .offset = 0, .append = false};
  return e;
}

void FdTables::Unbind(uint32_t thread, int64_t fd) {
  tables_[procs_[thread_proc_[thread]].fds].erase(fd);
}

uint32_t FdTables::Map(uint32_t thread, uint64_t addr, uint64_t len, uint32_t file) {
  // Never reused: a replaying worker may still hold an old mapping's slot
  // when another maps anew (16 bytes a mapping per copy).
  const uint32_t m = next_map_++;
  Unmap(thread, addr, len);  // MAP_FIXED over an older mapping replaces it
  spaces_[procs_[thread_proc_[thread]].space][addr] = Mapping{len, m, file};
  return m;
}

const Mapping* FdTables::FindMap(uint32_t thread, uint64_t addr, uint64_t* delta) {
  auto& space = spaces_[procs_[thread_proc_[thread]].space];
  auto it = space.upper_bound(addr);
  if (it == space.begin()) return nullptr;
  --it;
  if (addr >= it->first + it->second.len) return nullptr;
  *delta = addr - it->first;
  return &it->second;
}

// A mapping wholly inside [addr, addr+len) is gone; one partly inside is
// kept (its replayed twin is unmapped in part, by the same delta).
void FdTables::Unmap(uint32_t thread, uint64_t addr, uint64_t len) {
  auto& space = spaces_[procs_[thread_proc_[thread]].space];
  for (auto it = space.lower_bound(addr); it != space.end() && it->first < addr + len;) {
    if (it->first + it->second.len <= addr + len) {
      it = space.erase(it);
    } else {
      ++it;
    }
  }
}

void FdTables::Exec(uint32_t thread) {
  auto& space = spaces_[procs_[thread_proc_[thread]].space];
  space.clear();
}

}  // namespace iomimic::trace
