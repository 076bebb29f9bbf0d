// The compact binary op list: what a trace compiles into, one fixed-size
// record per replayed syscall, written per traced thread to its own file
// (op_stream.h). Paths and descriptors are ids: a path is an index into the
// FileTable, a descriptor a "slot" a replaying copy keeps its real fd in,
// a mapping a "map slot". Fields a syscall does not use are 0.
#pragma once

#include <cstdint>
#include <string_view>

namespace iomimic::trace {

// The syscalls the replay issues, by the name strace prints. The replay
// issues exactly these (raw syscall()), so an strace of the replay counts
// the same names.
#define IOMIMIC_TRACE_SYSCALLS(X)                                                         \
  X(open) X(openat) X(creat) X(close) X(read) X(write) X(pread64) X(pwrite64) X(readv)    \
  X(writev) X(preadv) X(pwritev) X(preadv2) X(pwritev2) X(lseek) X(fsync) X(fdatasync)    \
  X(sync_file_range) X(syncfs) X(fallocate) X(ftruncate) X(truncate) X(mmap) X(munmap)    \
  X(msync) X(madvise) X(stat) X(lstat) X(fstat) X(newfstatat) X(statx) X(access)          \
  X(faccessat) X(faccessat2) X(getdents64) X(mkdir) X(mkdirat) X(rmdir) X(unlink)         \
  X(unlinkat) X(rename) X(renameat) X(renameat2) X(fcntl) X(flock) X(dup) X(dup2) X(dup3) \
  X(fadvise64)

enum class Sys : uint8_t {
#define IOMIMIC_TRACE_ENUM(n) k_##n,
  IOMIMIC_TRACE_SYSCALLS(IOMIMIC_TRACE_ENUM)
#undef IOMIMIC_TRACE_ENUM
      kCount
};
constexpr int kSysCount = static_cast<int>(Sys::kCount);

std::string_view SysName(Sys s);
// kCount for a name the replay does not issue.
Sys SysFromName(std::string_view name);

constexpr uint32_t kNoId = 0xffffffffu;

struct Op {
  Sys sys = Sys::kCount;
  uint8_t err = 0;        // the errno the traced call returned (0: it succeeded)
  uint16_t extra = 0;     // lseek whence, fcntl cmd, readv iovcnt, mmap prot
  uint32_t slot = kNoId;  // the descriptor it uses
  uint32_t new_slot = kNoId;  // the descriptor (open, dup) or mapping (mmap) it makes
  uint32_t file = kNoId;      // path argument
  uint32_t file2 = kNoId;     // second path (rename target)
  uint32_t map = kNoId;       // munmap/msync/madvise: the mapping
  int64_t a = 0;          // offset (pread, lseek, mmap, fallocate, lock start) / map delta
  int64_t b = 0;          // size or length
  int64_t c = 0;          // flags, mode, advice, lock type
  int64_t ret = 0;        // what the traced call returned (bytes for read/write)
  uint64_t ts_ns = 0;     // start, since the trace's first event
  uint32_t dur_ns = 0;    // time the traced call took (capped at ~4 s)
  uint32_t mode = 0;      // open/mkdir mode
  // Which binding of `slot` the op uses, and which binding of new_slot it
  // makes (1, 2, ... per slot): a worker waits until another thread's open
  // of its descriptor has happened, as it had in the trace.
  uint32_t gen = 0, new_gen = 0;
  // The op's place in the whole trace (all threads): a close waits until
  // the other workers have done every op before it.
  uint64_t seq = 0;
};
static_assert(sizeof(Op) == 88);

}  // namespace iomimic::trace
