#include "replay_exec.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace iomimic::replay {

using trace::kNoId;
using trace::Op;
using trace::Sys;

namespace {

constexpr uint64_t kClosed = 0xffffff;

// The raw call, as the traced program issued it: the same syscall name in
// an strace of the replay (glibc would turn open() into openat()).
Outcome Sc(long ret) {
  Outcome o;
  o.issued = true;
  o.ret = ret;
  if (ret < 0) o.err = errno;
  return o;
}

// Written data is synthetic: one recognisable pattern, never the traced
// program's (strace -s 0 shows none).
void Fill(char* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) p[i] = static_cast<char>('a' + i % 26);
}

}  // namespace

CopyState::CopyState(std::string r, size_t slots, size_t map_slots)
    : root(std::move(r)),
      fds(new std::atomic<uint64_t>[std::max<size_t>(slots, 1)]),
      slot_files(new std::atomic<uint32_t>[std::max<size_t>(slots, 1)]),
      maps(new std::atomic<char*>[std::max<size_t>(map_slots, 1)]),
      map_lens(new std::atomic<uint64_t>[std::max<size_t>(map_slots, 1)]) {
  for (size_t i = 0; i < slots; ++i) {
    fds[i].store(kClosed);
    slot_files[i].store(kNoId);
  }
  for (size_t i = 0; i < map_slots; ++i) {
    maps[i].store(nullptr);
    map_lens[i].store(0);
  }
}

Executor::~Executor() { std::free(buf_); }

std::string Executor::PathOf(uint32_t file) const { return copy_->root + files_->at(file).path; }

std::string Executor::PathOf(const Op& op) const {
  if (op.file != kNoId) return PathOf(op.file);
  const uint32_t f = op.slot == kNoId ? kNoId : copy_->slot_files[op.slot].load();
  return f == kNoId ? copy_->root : PathOf(f);
}

// 4 KiB aligned, for O_DIRECT; grown as the trace asks for more.
char* Executor::Buffer(uint64_t bytes) {
  if (bytes > buf_size_) {
    std::free(buf_);
    buf_size_ = std::max<uint64_t>((bytes + 4095) / 4096 * 4096, 64 << 10);
    void* p = nullptr;
    if (::posix_memalign(&p, 4096, buf_size_) != 0) throw std::bad_alloc();
    buf_ = static_cast<char*>(p);
    Fill(buf_, buf_size_);
  }
  return buf_;
}

int Executor::Fd(const Op& op) const {
  if (op.slot == kNoId) return -1;
  const uint64_t v = copy_->fds[op.slot].load(std::memory_order_acquire);
  if ((v >> 24) != base_ + op.gen || (v & kClosed) == kClosed) return -1;
  return static_cast<int>(v & kClosed);
}

Executor::Slot Executor::State(const Op& op) const {
  if (op.slot == kNoId) return Slot::kReady;
  const uint64_t v = copy_->fds[op.slot].load(std::memory_order_acquire);
  const uint64_t gen = v >> 24, want = base_ + op.gen;
  if (gen < want) return Slot::kNotYet;
  return gen == want && (v & kClosed) != kClosed ? Slot::kReady : Slot::kGone;
}

void Executor::Publish(uint32_t slot, uint32_t gen, long fd, uint32_t file) {
  if (file != kNoId) copy_->slot_files[slot].store(file);
  const uint64_t low = fd < 0 ? kClosed : static_cast<uint64_t>(fd);
  copy_->fds[slot].store(((base_ + gen) << 24) | low, std::memory_order_release);
}

Outcome Executor::Run(const Op& op) {
  int fd = -1;
  if (op.slot != kNoId) {
    fd = Fd(op);
    if (fd < 0) return {};  // its open failed here, or it was closed
  }
  switch (op.sys) {
    case Sys::k_read: case Sys::k_write: case Sys::k_pread64: case Sys::k_pwrite64:
    case Sys::k_readv: case Sys::k_writev: case Sys::k_preadv: case Sys::k_pwritev:
    case Sys::k_preadv2: case Sys::k_pwritev2: case Sys::k_getdents64:
      return Data(op, fd);
    case Sys::k_close: {
      Outcome o = Sc(::syscall(SYS_close, fd));
      Publish(op.slot, op.gen, -1);
      return o;
    }
    case Sys::k_lseek: return Sc(::syscall(SYS_lseek, fd, op.a, op.extra));
    case Sys::k_fsync: return Sc(::syscall(SYS_fsync, fd));
    case Sys::k_fdatasync: return Sc(::syscall(SYS_fdatasync, fd));
    case Sys::k_syncfs: return Sc(::syscall(SYS_syncfs, fd));
    case Sys::k_sync_file_range: return Sc(::syscall(SYS_sync_file_range, fd, op.a, op.b, op.c));
    case Sys::k_fadvise64: return Sc(::syscall(SYS_fadvise64, fd, op.a, op.b, op.c));
    case Sys::k_fallocate: return Sc(::syscall(SYS_fallocate, fd, op.c, op.a, op.b));
    case Sys::k_ftruncate: return Sc(::syscall(SYS_ftruncate, fd, op.b));
    case Sys::k_flock: return Sc(::syscall(SYS_flock, fd, op.c));
    case Sys::k_fcntl: return Fcntl(op, fd);
    case Sys::k_mmap: case Sys::k_munmap: case Sys::k_msync: case Sys::k_madvise:
      return Mapping(op);
    default: return Meta(op);
  }
}

// Reads and writes of the traced sizes and offsets; vectors cut into the
// traced number of iovecs.
Outcome Executor::Data(const Op& op, int fd) {
  const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(op.b, 0));
  char* p = Buffer(n);
  iovec iov[1024];
  const int cnt = std::max<int>(1, op.extra);
  for (int i = 0; i < cnt; ++i) {
    const uint64_t each = n / static_cast<uint64_t>(cnt);
    iov[i].iov_base = p + each * static_cast<uint64_t>(i);
    iov[i].iov_len = i + 1 == cnt ? n - each * static_cast<uint64_t>(cnt - 1) : each;
  }
  Outcome o;
  switch (op.sys) {
    case Sys::k_read: o = Sc(::syscall(SYS_read, fd, p, n)); break;
    case Sys::k_write: o = Sc(::syscall(SYS_write, fd, p, n)); break;
    case Sys::k_pread64: o = Sc(::syscall(SYS_pread64, fd, p, n, op.a)); break;
    case Sys::k_pwrite64: o = Sc(::syscall(SYS_pwrite64, fd, p, n, op.a)); break;
    case Sys::k_readv: o = Sc(::syscall(SYS_readv, fd, iov, cnt)); break;
    case Sys::k_writev: o = Sc(::syscall(SYS_writev, fd, iov, cnt)); break;
    case Sys::k_preadv: o = Sc(::syscall(SYS_preadv, fd, iov, cnt, op.a, 0)); break;
    case Sys::k_pwritev: o = Sc(::syscall(SYS_pwritev, fd, iov, cnt, op.a, 0)); break;
    case Sys::k_preadv2: o = Sc(::syscall(SYS_preadv2, fd, iov, cnt, op.a, 0, op.c)); break;
    case Sys::k_pwritev2: o = Sc(::syscall(SYS_pwritev2, fd, iov, cnt, op.a, 0, op.c)); break;
    default: o = Sc(::syscall(SYS_getdents64, fd, p, n)); return o;
  }
  if (o.ret > 0) o.bytes = static_cast<uint64_t>(o.ret);
  return o;
}

// Calls on paths (remapped under the copy's root) and those making
// descriptors (open, dup).
Outcome Executor::Meta(const Op& op) {
  const std::string path = op.file == kNoId ? std::string() : PathOf(op.file);
  const char* p = path.c_str();
  struct stat st{};
  char stx[256];
  Outcome o;
  switch (op.sys) {
    case Sys::k_open: o = Sc(::syscall(SYS_open, p, op.c, op.mode)); break;
    case Sys::k_openat: o = Sc(::syscall(SYS_openat, AT_FDCWD, p, op.c, op.mode)); break;
    case Sys::k_creat: o = Sc(::syscall(SYS_creat, p, op.mode)); break;
    case Sys::k_dup: case Sys::k_dup2: case Sys::k_dup3:
      // Always dup(): the traced target number could be one of the tool's own.
      o = Sc(::syscall(SYS_dup, Fd(op)));
      break;
    case Sys::k_stat: o = Sc(::syscall(SYS_stat, p, &st)); break;
    case Sys::k_lstat: o = Sc(::syscall(SYS_lstat, p, &st)); break;
    case Sys::k_fstat: o = Sc(::syscall(SYS_fstat, Fd(op), &st)); break;
    case Sys::k_newfstatat:
      o = op.file == kNoId ? Sc(::syscall(SYS_newfstatat, Fd(op), "", &st, op.c))
                           : Sc(::syscall(SYS_newfstatat, AT_FDCWD, p, &st, op.c));
      break;
    case Sys::k_statx:
      o = op.file == kNoId ? Sc(::syscall(SYS_statx, Fd(op), "", op.c, op.b, stx))
                           : Sc(::syscall(SYS_statx, AT_FDCWD, p, op.c, op.b, stx));
      break;
    case Sys::k_access: o = Sc(::syscall(SYS_access, p, op.b)); break;
    case Sys::k_faccessat: o = Sc(::syscall(SYS_faccessat, AT_FDCWD, p, op.b)); break;
    case Sys::k_faccessat2: o = Sc(::syscall(SYS_faccessat2, AT_FDCWD, p, op.b, op.c)); break;
    case Sys::k_truncate: o = Sc(::syscall(SYS_truncate, p, op.b)); break;
    case Sys::k_mkdir: o = Sc(::syscall(SYS_mkdir, p, op.mode)); break;
    case Sys::k_mkdirat: o = Sc(::syscall(SYS_mkdirat, AT_FDCWD, p, op.mode)); break;
    case Sys::k_rmdir: o = Sc(::syscall(SYS_rmdir, p)); break;
    case Sys::k_unlink: o = Sc(::syscall(SYS_unlink, p)); break;
    case Sys::k_unlinkat: o = Sc(::syscall(SYS_unlinkat, AT_FDCWD, p, op.c)); break;
    case Sys::k_rename: case Sys::k_renameat: case Sys::k_renameat2: {
      const std::string to = PathOf(op.file2);
      o = op.sys == Sys::k_rename
              ? Sc(::syscall(SYS_rename, p, to.c_str()))
              : op.sys == Sys::k_renameat
                    ? Sc(::syscall(SYS_renameat, AT_FDCWD, p, AT_FDCWD, to.c_str()))
                    : Sc(::syscall(SYS_renameat2, AT_FDCWD, p, AT_FDCWD, to.c_str(), op.c));
      break;
    }
    default: return {};
  }
  if (op.new_slot != kNoId) {
    // Published even when it failed here: a worker waiting for it moves on.
    const uint32_t file = op.file != kNoId ? op.file
                          : op.slot != kNoId ? copy_->slot_files[op.slot].load()
                                             : kNoId;
    Publish(op.new_slot, op.new_gen, o.ret, file);
    if (o.ret >= 0) opened_.emplace_back(op.new_slot, base_ + op.new_gen);
  }
  return o;
}

// File mappings: placed where the kernel likes (never MAP_FIXED over the
// tool's memory), never executable; nothing is stored into them (an
// strace does not show the program's loads and stores).
Outcome Executor::Mapping(const Op& op) {
  if (op.sys == Sys::k_mmap) {
    const int flags = static_cast<int>(op.c) & ~(MAP_FIXED | MAP_FIXED_NOREPLACE | MAP_DENYWRITE);
    const long r = ::syscall(SYS_mmap, nullptr, op.b, op.extra & ~PROT_EXEC, flags, Fd(op), op.a);
    Outcome o = Sc(r == -1 ? -1 : 0);
    if (r != -1 && op.new_slot != kNoId) {
      copy_->map_lens[op.new_slot].store(static_cast<uint64_t>(op.b));
      copy_->maps[op.new_slot].store(reinterpret_cast<char*>(r));
      mapped_.push_back(op.new_slot);
    }
    return o;
  }
  char* base = copy_->maps[op.map].load();
  const uint64_t map_len = copy_->map_lens[op.map].load();
  if (base == nullptr || static_cast<uint64_t>(op.a) >= map_len) return {};
  char* at = base + op.a;
  // Never past this mapping: a traced range spanning several adjacent
  // mappings (ld.so unmapping a library) would reach the tool's own memory
  // here, where the mappings are not adjacent.
  const uint64_t len = std::min<uint64_t>(static_cast<uint64_t>(op.b), map_len - op.a);
  switch (op.sys) {
    case Sys::k_munmap: {
      if (op.a == 0 && len >= map_len) {
        // Whole: whoever takes the address unmaps it, once.
        if (copy_->maps[op.map].exchange(nullptr) != base) return {};
        return Sc(::syscall(SYS_munmap, at, len));
      }
      // In part: the rest stays mapped until the copy ends (never unmapped
      // by its whole length again: the hole may hold something else by then).
      copy_->map_lens[op.map].store(0);
      return Sc(::syscall(SYS_munmap, at, len));
    }
    case Sys::k_msync: return Sc(::syscall(SYS_msync, at, len, op.c));
    default: return Sc(::syscall(SYS_madvise, at, len, op.c));
  }
}

Outcome Executor::Fcntl(const Op& op, int fd) {
  switch (op.extra) {
    case F_SETLK: case F_SETLKW: case F_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
    case F_OFD_GETLK: {
      struct flock lk{};
      lk.l_type = static_cast<short>(op.c & 0xff);
      lk.l_whence = static_cast<short>(op.c >> 8);
      lk.l_start = op.a;
      lk.l_len = op.b;
      return Sc(::syscall(SYS_fcntl, fd, op.extra, &lk));
    }
    case F_DUPFD: case F_DUPFD_CLOEXEC: {
      Outcome o = Sc(::syscall(SYS_fcntl, fd, op.extra, 0));
      if (op.new_slot != kNoId) {
        Publish(op.new_slot, op.new_gen, o.ret, copy_->slot_files[op.slot].load());
        if (o.ret >= 0) opened_.emplace_back(op.new_slot, base_ + op.new_gen);
      }
      return o;
    }
    default: return Sc(::syscall(SYS_fcntl, fd, op.extra, op.c));
  }
}

void Executor::Release() {
  for (const auto& [s, gen] : opened_) {
    uint64_t v = copy_->fds[s].load();
    // Only a slot still holding what this worker opened (not a later
    // binding another worker made).
    while ((v >> 24) == gen && (v & kClosed) != kClosed &&
           !copy_->fds[s].compare_exchange_weak(v, (v & ~kClosed) | kClosed)) {
    }
    if ((v >> 24) == gen && (v & kClosed) != kClosed) ::close(static_cast<int>(v & kClosed));
  }
  opened_.clear();
  for (uint32_t m : mapped_) {
    char* p = copy_->maps[m].exchange(nullptr);
    const uint64_t len = copy_->map_lens[m].load();
    if (p != nullptr && len != 0) ::munmap(p, len);
  }
  mapped_.clear();
}

void CopyState::ReleaseAll(size_t slots, size_t map_slots) {
  for (size_t s = 0; s < slots; ++s) {
    const uint64_t v = fds[s].exchange(kClosed);
    if ((v & kClosed) != kClosed) ::close(static_cast<int>(v & kClosed));
  }
  for (size_t m = 0; m < map_slots; ++m) {
    char* p = maps[m].exchange(nullptr);
    const uint64_t len = map_lens[m].load();
    if (p != nullptr && len != 0) ::munmap(p, len);
  }
}

}  // namespace iomimic::replay
