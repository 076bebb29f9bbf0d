// The compiler's per-syscall handlers: how each call's printed arguments
// become an Op, and what it tells about its files (see compiler.h).
#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>

#include "trace/args.h"
#include "trace/compile_ctx.h"
#include "trace/compiler.h"
#include "trace/flag_tables.h"

namespace iomimic::trace {

// open(path, flags[, mode]), openat(dirfd, path, flags[, mode]),
// creat(path, mode). A created file did not exist before unless the trace
// shows it held data before writing to it (an O_CREAT open of an existing
// database): then it is laid out with that size.
bool Compiler::Open(Ctx& c) {
  const bool at = c.op.sys == Sys::k_openat;
  const bool creat = c.op.sys == Sys::k_creat;
  uint32_t file;
  if (!PathArg(c, at ? 0 : -1, at ? 1 : 0, &file)) return false;
  int64_t flags = creat ? (O_CREAT | O_WRONLY | O_TRUNC) : OpenFlags(c.arg(at ? 2 : 1));
  if (flags & (O_CREAT | O_TMPFILE)) c.op.mode = static_cast<uint32_t>(c.num(creat ? 1 : at ? 3 : 2));
  if (c.ok() && !c.ev.ret_deco.empty() && !DecoIsRegularPath(c.ev.ret_deco)) {
    Skip(c.ev, "not a regular file (pipe, socket, device, /proc, /sys)");
    return false;
  }
  if (flags & O_PATH) {
    Skip(c.ev, "O_PATH open (no I/O)");
    return false;
  }
  if (c.ok() && !c.ev.ret_deco.empty()) file = files_.Id(std::string(c.ev.ret_deco));
  FileInfo& f = files_.at(file);
  c.op.file = file;
  c.op.c = flags;
  if (!c.ok()) {
    Lookup(file, c.ev.err);
    if (c.ev.err == EEXIST) files_.Saw(file, Initial::kFile);
    Emit(c);
    return true;
  }
  if (flags & O_DIRECTORY) {
    files_.Saw(file, Initial::kDir);
  } else if ((flags & O_CREAT) && f.initial == Initial::kUnknown) {
    files_.Saw(file, Initial::kAbsent);
    f.created = true;
    f.maybe_existed = !(flags & O_EXCL) && !(flags & O_TRUNC);
  } else {
    files_.Saw(file, Initial::kFile);
  }
  if ((flags & O_CREAT) && f.deleted) f.created = true;
  if (flags & O_TRUNC) files_.SetSize(file, 0);
  FdEntry& e = tables_.Bind(c.thread, c.ev.ret, file);
  e.append = flags & O_APPEND;
  c.op.new_slot = e.slot;
  c.op.new_gen = e.gen;
  Emit(c);
  return true;
}

bool Compiler::Close(Ctx& c) {
  if (!FdOp(c, 0)) return false;
  if (c.ok()) tables_.Unbind(c.thread, ParseFd(c.arg(0)).fd);
  Emit(c);
  return true;
}

// read/write/pread64/pwrite64/readv/writev/preadv/pwritev(2): the size asked
// (the iovecs' total), the offset where it lands (tracked for the plain
// calls), and the file's implied size.
bool Compiler::ReadWrite(Ctx& c) {
  if (!FdOp(c, 0)) return false;
  const Sys s = c.op.sys;
  const bool vec = s == Sys::k_readv || s == Sys::k_writev || s == Sys::k_preadv ||
                   s == Sys::k_pwritev || s == Sys::k_preadv2 || s == Sys::k_pwritev2;
  const bool positioned = s == Sys::k_pread64 || s == Sys::k_pwrite64 || s == Sys::k_preadv ||
                          s == Sys::k_pwritev || s == Sys::k_preadv2 || s == Sys::k_pwritev2;
  const bool write = s == Sys::k_write || s == Sys::k_pwrite64 || s == Sys::k_writev ||
                     s == Sys::k_pwritev || s == Sys::k_pwritev2;
  FileInfo& f = files_.at(c.fd->file);
  if (vec) {
    uint64_t total = 0, n = 0;
    std::string_view iov = c.arg(1);
    for (size_t at = 0; (at = iov.find("iov_len=", at)) != std::string_view::npos; ++n) {
      at += 8;
      size_t e = at;
      while (e < iov.size() && iov[e] >= '0' && iov[e] <= '9') ++e;
      total += ParseInt(iov.substr(at, e - at)).value_or(0);
    }
    c.op.b = static_cast<int64_t>(total);
    c.op.extra = static_cast<uint16_t>(std::max<int64_t>(1, std::min<int64_t>(c.num(2), 1024)));
    if (s == Sys::k_preadv2 || s == Sys::k_pwritev2) c.op.c = c.num(4);
  } else {
    c.op.b = c.num(2);
  }
  uint64_t offset = c.fd->offset;
  if (positioned) {
    offset = static_cast<uint64_t>(c.num(3));
    c.op.a = static_cast<int64_t>(offset);
  } else if (write && c.fd->append) {
    offset = f.size;
  }
  const uint64_t done = c.ok() ? static_cast<uint64_t>(c.ev.ret) : 0;
  if (!positioned) c.fd->offset = offset + done;
  if (done > 0) {
    (offset == f.last_end ? f.sequential : f.random) += 1;
    f.last_end = offset + done;
    if (write) {
      ++f.writes;
      f.write_bytes += done;
      files_.Grew(c.fd->file, offset + done);
    } else {
      ++f.reads;
      f.read_bytes += done;
      files_.ConfirmExisted(c.fd->file);
      files_.SawSize(c.fd->file, offset + done);
    }
  }
  Emit(c, offset);
  return true;
}

// lseek(fd, offset, whence) = the new offset; SEEK_END reveals the size.
bool Compiler::Seek(Ctx& c) {
  if (!FdOp(c, 0)) return false;
  c.op.a = c.num(1);
  c.op.extra = static_cast<uint16_t>(Flags(c.arg(2)));
  if (c.ok()) {
    c.fd->offset = static_cast<uint64_t>(c.ev.ret);
    if (c.op.extra == SEEK_END && c.ev.ret >= c.op.a) {
      files_.SawSize(c.fd->file, static_cast<uint64_t>(c.ev.ret - c.op.a));
    }
  }
  Emit(c);
  return true;
}

// fsync, fdatasync, syncfs (fd); sync_file_range(fd, off, n, flags);
// fadvise64(fd, off, len, advice); getdents64(fd, buf, count); flock(fd, op).
bool Compiler::Sync(Ctx& c) {
  if (!FdOp(c, 0)) return false;
  switch (c.op.sys) {
    case Sys::k_sync_file_range:
    case Sys::k_fadvise64:
      c.op.a = c.num(1);
      c.op.b = c.num(2);
      c.op.c = Flags(c.arg(3));
      break;
    case Sys::k_getdents64:
      c.op.b = c.num(2);
      files_.Saw(c.fd->file, Initial::kDir);
      break;
    case Sys::k_flock: c.op.c = Flags(c.arg(1)); break;
    default: break;
  }
  Emit(c);
  return true;
}

// fallocate(fd, mode, off, len); ftruncate(fd, len); truncate(path, len).
bool Compiler::Space(Ctx& c) {
  uint32_t file;
  if (c.op.sys == Sys::k_truncate) {
    if (!PathArg(c, -1, 0, &file)) return false;
    c.op.file = file;
  } else {
    if (!FdOp(c, 0)) return false;
    file = c.fd->file;
  }
  if (c.op.sys == Sys::k_fallocate) {
    c.op.c = Flags(c.arg(1));
    c.op.a = c.num(2);
    c.op.b = c.num(3);
    if (c.ok()) {
      const uint64_t end = static_cast<uint64_t>(c.op.a + c.op.b);
      FileInfo& f = files_.at(file);
      if (c.op.c & 1) {  // KEEP_SIZE: allocated, size unchanged
        f.touched_by_trace = true;
        f.max_size = std::max(f.max_size, end);
      } else if (!(c.op.c & 2)) {
        files_.Grew(file, end);
      }
    }
  } else {
    c.op.b = c.num(1);
    if (c.ok()) files_.SetSize(file, static_cast<uint64_t>(c.op.b));
  }
  Emit(c);
  return true;
}

void Compiler::ObservedStat(uint32_t file, std::string_view st, bool statx) {
  auto mode = StructField(st, statx ? "stx_mode" : "st_mode");
  if (mode && mode->find("S_IFDIR") != std::string_view::npos) {
    files_.Saw(file, Initial::kDir);
    return;
  }
  if (mode && mode->find("S_IFREG") == std::string_view::npos) return;
  files_.Saw(file, Initial::kFile);
  if (auto size = StructField(st, statx ? "stx_size" : "st_size")) {
    const uint64_t bytes = static_cast<uint64_t>(ParseInt(*size).value_or(0));
    if (bytes > 0) files_.ConfirmExisted(file);
    files_.SawSize(file, bytes);
  }
}

}  // namespace iomimic::trace
