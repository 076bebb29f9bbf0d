// Compiler handlers for calls that name paths or mappings: the stat family
// and access, mkdir/rmdir/unlink, rename, mmap and the calls on mappings,
// fcntl, dup (see compiler.h).
#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>

#include "trace/args.h"
#include "trace/compile_ctx.h"
#include "trace/compiler.h"
#include "trace/flag_tables.h"

namespace iomimic::trace {

// stat/lstat(path, buf), fstat(fd, buf), newfstatat(dirfd, path, buf,
// flags), statx(dirfd, path, flags, mask, buf), access(path, mode),
// faccessat(dirfd, path, mode[, flags]). With AT_EMPTY_PATH and "" the
// call is on the descriptor.
bool Compiler::Stat(Ctx& c) {
  const Sys s = c.op.sys;
  const bool statx = s == Sys::k_statx;
  if (s == Sys::k_fstat) {
    if (!FdOp(c, 0)) return false;
    if (c.ok()) ObservedStat(c.fd->file, c.arg(1), false);
    Emit(c);
    return true;
  }
  const bool at = s == Sys::k_newfstatat || statx || s == Sys::k_faccessat ||
                  s == Sys::k_faccessat2;
  const size_t flags_arg = s == Sys::k_newfstatat ? 3 : statx ? 2 : s == Sys::k_faccessat2 ? 3 : 9;
  c.op.c = Flags(c.arg(flags_arg));
  if (s == Sys::k_access || s == Sys::k_faccessat || s == Sys::k_faccessat2) {
    c.op.b = Flags(c.arg(at ? 2 : 1));
  }
  if (statx) c.op.b = ParseInt(c.arg(3)).value_or(0x7ff);
  if (at && (c.op.c & AT_EMPTY_PATH) && ParseString(c.arg(1)).value_or("x").empty()) {
    if (!FdOp(c, 0)) return false;
    if (c.ok()) ObservedStat(c.fd->file, c.arg(statx ? 4 : 2), statx);
    Emit(c);
    return true;
  }
  uint32_t file;
  if (!PathArg(c, at ? 0 : -1, at ? 1 : 0, &file)) return false;
  c.op.file = file;
  if (c.ok()) {
    if (s == Sys::k_access || s == Sys::k_faccessat || s == Sys::k_faccessat2) {
      if (files_.at(file).initial == Initial::kUnknown) files_.Saw(file, Initial::kFile);
    } else {
      const size_t buf = statx ? 4 : at ? 2 : 1;
      ObservedStat(file, c.arg(buf), statx);
    }
  } else {
    Lookup(file, c.ev.err);
  }
  Emit(c);
  return true;
}

// mkdir(path, mode), mkdirat(dirfd, path, mode), rmdir(path),
// unlink(path), unlinkat(dirfd, path, flags).
bool Compiler::Names(Ctx& c) {
  const Sys s = c.op.sys;
  const bool at = s == Sys::k_mkdirat || s == Sys::k_unlinkat;
  uint32_t file;
  if (!PathArg(c, at ? 0 : -1, at ? 1 : 0, &file)) return false;
  c.op.file = file;
  FileInfo& f = files_.at(file);
  const bool mkdir = s == Sys::k_mkdir || s == Sys::k_mkdirat;
  if (mkdir) c.op.mode = static_cast<uint32_t>(c.num(at ? 2 : 1));
  if (s == Sys::k_unlinkat) c.op.c = Flags(c.arg(2));
  const bool dir = mkdir || s == Sys::k_rmdir || (c.op.c & AT_REMOVEDIR);
  if (c.ok()) {
    if (mkdir) {
      files_.Saw(file, Initial::kAbsent);
      f.created = f.is_dir = true;
      f.deleted = false;
    } else {
      files_.Saw(file, dir ? Initial::kDir : Initial::kFile);
      f.deleted = true;
      f.touched_by_trace = true;
      f.size = 0;
    }
  } else if (c.ev.err == EEXIST) {
    files_.Saw(file, dir ? Initial::kDir : Initial::kFile);
  } else {
    Lookup(file, c.ev.err);
  }
  Emit(c);
  return true;
}

// rename(old, new), renameat(od, old, nd, new), renameat2(..., flags).
bool Compiler::Rename(Ctx& c) {
  const bool at = c.op.sys != Sys::k_rename;
  uint32_t from, to;
  if (!PathArg(c, at ? 0 : -1, at ? 1 : 0, &from)) return false;
  if (!PathArg(c, at ? 2 : -1, at ? 3 : 1, &to)) return false;
  c.op.file = from;
  c.op.file2 = to;
  if (c.op.sys == Sys::k_renameat2) c.op.c = Flags(c.arg(4));
  if (c.ok()) {
    FileInfo& f = files_.at(from);
    files_.Saw(from, f.is_dir ? Initial::kDir : Initial::kFile);
    const uint64_t size = files_.at(from).size;
    files_.at(from).deleted = true;
    files_.at(from).touched_by_trace = true;
    FileInfo& t = files_.at(to);
    if (t.initial == Initial::kUnknown) files_.Saw(to, Initial::kAbsent);
    t.created = true;
    t.deleted = false;
    files_.SetSize(to, size);
  } else {
    Lookup(from, c.ev.err);
  }
  Emit(c);
  return true;
}

// mmap(addr, len, prot, flags, fd, off) of a file; anonymous memory is not I/O.
bool Compiler::Mmap(Ctx& c) {
  const int64_t flags = Flags(c.arg(3));
  if ((flags & MAP_ANONYMOUS) || ParseFd(c.arg(4)).fd < 0) {
    Skip(c.ev, "not file I/O");
    return false;
  }
  if (!FdOp(c, 4)) return false;
  c.op.b = c.num(1);
  c.op.extra = static_cast<uint16_t>(Flags(c.arg(2)));
  c.op.c = flags;
  c.op.a = c.num(5);
  files_.at(c.fd->file).mmapped = true;
  if (c.ok()) {
    c.op.new_slot = tables_.Map(c.thread, static_cast<uint64_t>(c.ev.ret),
                                static_cast<uint64_t>(c.op.b), c.fd->file);
  }
  Emit(c, static_cast<uint64_t>(c.op.a));
  return true;
}

// munmap(addr, len), msync(addr, len, flags), madvise(addr, len, advice)
// on a file mapping: the replay acts on its own mapping at the same delta.
bool Compiler::MapOp(Ctx& c) {
  const uint64_t addr = static_cast<uint64_t>(c.num(0));
  uint64_t delta = 0;
  const Mapping* m = tables_.FindMap(c.thread, addr, &delta);
  if (m == nullptr) {
    Skip(c.ev, "not file I/O");
    return false;
  }
  c.op.map = m->map;
  c.op.file = m->file;
  c.op.a = static_cast<int64_t>(delta);
  c.op.b = c.num(1);
  c.op.c = Flags(c.arg(2));
  if (c.op.sys == Sys::k_munmap && c.ok()) {
    tables_.Unmap(c.thread, addr, static_cast<uint64_t>(c.op.b));
  }
  Emit(c);
  return true;
}

// fcntl(fd, cmd, arg): locks (F_SETLK, F_SETLKW, F_GETLK, F_OFD_*), flags
// (F_GETFL/F_SETFL/F_GETFD/F_SETFD) and F_DUPFD(_CLOEXEC).
bool Compiler::Fcntl(Ctx& c) {
  if (!FdOp(c, 0)) return false;
  const int64_t cmd = Flags(c.arg(1));
  c.op.extra = static_cast<uint16_t>(cmd);
  switch (cmd) {
    case F_SETLK: case F_SETLKW: case F_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
    case F_OFD_GETLK: {
      std::string_view lock = c.arg(2);
      c.op.c = Flags(StructField(lock, "l_type").value_or("F_UNLCK")) |
               (Flags(StructField(lock, "l_whence").value_or("SEEK_SET")) << 8);
      c.op.a = ParseInt(StructField(lock, "l_start").value_or("0")).value_or(0);
      c.op.b = ParseInt(StructField(lock, "l_len").value_or("0")).value_or(0);
      break;
    }
    case F_GETFL: case F_GETFD: break;
    case F_SETFL: c.op.c = OpenFlags(c.arg(2)); break;
    case F_SETFD: c.op.c = Flags(c.arg(2)); break;
    case F_DUPFD: case F_DUPFD_CLOEXEC:
      if (c.ok()) {
        const FdEntry& e = tables_.Bind(c.thread, c.ev.ret, c.fd->file);
        c.op.new_slot = e.slot;
        c.op.new_gen = e.gen;
      }
      break;
    default: Skip(c.ev, "fcntl command not replayed"); return false;
  }
  Emit(c);
  return true;
}

// dup(fd), dup2(fd, new), dup3(fd, new, flags): the copy gets its own slot.
bool Compiler::Dup(Ctx& c) {
  if (!FdOp(c, 0)) return false;
  const uint32_t file = c.fd->file;
  if (c.ok()) {
    const FdEntry& e = tables_.Bind(c.thread, c.ev.ret, file);
    c.op.new_slot = e.slot;
    c.op.new_gen = e.gen;
  }
  Emit(c);
  return true;
}

}  // namespace iomimic::trace
