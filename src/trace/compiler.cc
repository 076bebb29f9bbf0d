#include "trace/compiler.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "trace/args.h"
#include "trace/compile_ctx.h"
#include "trace/flag_tables.h"

namespace iomimic::trace {

namespace {

// File syscalls the replay does not issue: counted apart from the rest so
// a summary shows what of the I/O is missing.
bool IsUnreplayedFileCall(std::string_view n) {
  static constexpr std::string_view kNames[] = {
      "sendfile", "sendfile64", "copy_file_range", "splice", "tee", "io_submit",
      "io_uring_enter", "io_uring_setup", "fchmod", "fchmodat", "chmod", "fchown", "chown",
      "lchown", "fchownat", "utimensat", "utime", "utimes", "futimesat", "readlink",
      "readlinkat", "symlink", "symlinkat", "link", "linkat", "setxattr", "fsetxattr",
      "lsetxattr", "getxattr", "fgetxattr", "lgetxattr", "listxattr", "flistxattr",
      "removexattr", "fremovexattr", "statfs", "fstatfs", "mknod", "mknodat", "openat2",
      "close_range", "readahead", "name_to_handle_at", "open_by_handle_at", "memfd_create",
      "pread", "pwrite", "getdents", "fstatat64", "fadvise64_64", "chdir", "fchdir"};
  for (std::string_view k : kNames) {
    if (n == k) return true;
  }
  return false;
}

bool Interrupted(const Event& ev) {
  return ev.err == EINTR || ev.err == 512 || ev.ret_unknown;
}

}  // namespace

void Compiler::Skip(const Event& ev, const char* reason) {
  ++unreplayed_[{std::string(ev.name), reason}];
}

void Compiler::Emit(Ctx& c, uint64_t file_offset) {
  Op& op = c.op;
  if (!under_.empty()) {
    const uint32_t f = op.file != kNoId ? op.file : c.fd != nullptr ? c.fd->file : kNoId;
    if (f == kNoId || !PathUnder(files_.at(f).path, under_)) {
      return Skip(c.ev, "outside replay.only_under");
    }
  }
  op.err = static_cast<uint8_t>(std::min(c.ev.err, 255));
  op.ret = c.ev.ret;
  op.ts_ns = c.ev.ts_ns - first_ts_;
  op.seq = ops_++;
  op.dur_ns = static_cast<uint32_t>(std::min<uint64_t>(c.ev.dur_ns, 0xffffffffu));
  SysTotals& t = traced_[static_cast<int>(op.sys)];
  ++t.count;
  if (op.err != 0) ++t.errors;
  t.time_ns += c.ev.dur_ns;
  switch (op.sys) {
    case Sys::k_read: case Sys::k_write: case Sys::k_pread64: case Sys::k_pwrite64:
    case Sys::k_readv: case Sys::k_writev: case Sys::k_preadv: case Sys::k_pwritev:
    case Sys::k_preadv2: case Sys::k_pwritev2:
      if (c.ev.ret > 0) t.bytes += static_cast<uint64_t>(c.ev.ret);
      break;
    default: break;
  }
  sink_->OnOp(op, c.thread, file_offset);
}

void Compiler::Add(const Event& ev) {
  if (ev.kind == EventKind::kSignal) {
    ++signals_;
    return;
  }
  if (ev.kind == EventKind::kExit) {
    ++exits_;
    return;
  }
  ++syscalls_;
  if (!started_) {
    started_ = true;
    first_ts_ = ev.ts_ns;
  }
  last_end_ = std::max(last_end_, ev.ts_ns + ev.dur_ns);
  const uint32_t thread = tables_.Thread(ev.pid);
  sink_->OnEvent(ev, thread);
  if (!TrackProcess(ev, thread)) return;
  const Sys s = SysFromName(ev.name);
  if (s == Sys::kCount) {
    Skip(ev, IsUnreplayedFileCall(ev.name) ? "file syscall not replayed" : "not file I/O");
    return;
  }
  if (Interrupted(ev)) return Skip(ev, "interrupted or no result (EINTR, ERESTART*, ?)");
  Ctx c{ev, thread};
  c.op.sys = s;
  bool done = false;
  switch (s) {
    case Sys::k_open: case Sys::k_openat: case Sys::k_creat: done = Open(c); break;
    case Sys::k_close: done = Close(c); break;
    case Sys::k_lseek: done = Seek(c); break;
    case Sys::k_fsync: case Sys::k_fdatasync: case Sys::k_syncfs: case Sys::k_sync_file_range:
    case Sys::k_fadvise64: case Sys::k_getdents64: case Sys::k_flock:
      done = Sync(c); break;
    case Sys::k_fallocate: case Sys::k_ftruncate: case Sys::k_truncate: done = Space(c); break;
    case Sys::k_mmap: done = Mmap(c); break;
    case Sys::k_munmap: case Sys::k_msync: case Sys::k_madvise: done = MapOp(c); break;
    case Sys::k_stat: case Sys::k_lstat: case Sys::k_fstat: case Sys::k_newfstatat:
    case Sys::k_statx: case Sys::k_access: case Sys::k_faccessat: case Sys::k_faccessat2:
      done = Stat(c); break;
    case Sys::k_mkdir: case Sys::k_mkdirat: case Sys::k_rmdir: case Sys::k_unlink:
    case Sys::k_unlinkat: done = Names(c); break;
    case Sys::k_rename: case Sys::k_renameat: case Sys::k_renameat2: done = Rename(c); break;
    case Sys::k_fcntl: done = Fcntl(c); break;
    case Sys::k_dup: case Sys::k_dup2: case Sys::k_dup3: done = Dup(c); break;
    default: done = ReadWrite(c); break;
  }
  (void)done;
}

// Threads, processes and working directories; returns false when the
// event is fully handled here.
bool Compiler::TrackProcess(const Event& ev, uint32_t thread) {
  Process& p = tables_.process_of(thread);
  for (std::string_view a : ev.args) {  // AT_FDCWD</cwd> says where the process is
    if (a.substr(0, 9) == "AT_FDCWD<") p.cwd = ParseFd(a).deco;
  }
  const std::string_view n = ev.name;
  if (n == "clone" || n == "clone3" || n == "fork" || n == "vfork") {
    if (ev.ret > 0) {
      uint64_t flags = 0;
      if (n == "vfork") flags = 0x100;
      for (std::string_view a : ev.args) {
        std::string_view f = a;
        if (auto v = StructField(a, "flags")) f = *v;
        else if (a.substr(0, 6) == "flags=") f = a.substr(6);
        else continue;
        flags |= static_cast<uint64_t>(ParseFlags(f, kCloneFlags, kCloneFlagsCount));
      }
      tables_.Cloned(thread, static_cast<int32_t>(ev.ret), flags);
    }
    Skip(ev, "process or thread creation");
    return false;
  }
  if (n == "execve" || n == "execveat") {
    if (ev.ret == 0) tables_.Exec(thread);
    Skip(ev, "not file I/O");
    return false;
  }
  if ((n == "chdir" || n == "fchdir") && ev.ret == 0) {
    if (n == "chdir") {
      if (auto s = ParseString(ev.args.empty() ? "" : ev.args[0])) p.cwd = NormalisePath(p.cwd, *s);
    } else if (!ev.args.empty()) {
      p.cwd = ParseFd(ev.args[0]).deco;
    }
  }
  return true;
}

// The descriptor argument: a file the trace opened. Anything else (a pipe,
// a socket, a device, one inherited from the shell) is not replayed.
bool Compiler::FdOp(Ctx& c, size_t fd_arg) {
  const FdArg a = ParseFd(c.arg(fd_arg));
  if (!a.ok) {
    Skip(c.ev, "unreadable descriptor argument");
    return false;
  }
  if (!a.deco.empty() && !DecoIsRegularPath(a.deco)) {
    Skip(c.ev, "not a regular file (pipe, socket, device, /proc, /sys)");
    return false;
  }
  c.fd = tables_.Find(c.thread, a.fd);
  if (c.fd == nullptr) {
    Skip(c.ev, "descriptor not opened in the trace");
    return false;
  }
  c.op.slot = c.fd->slot;
  c.op.gen = c.fd->gen;
  return true;
}

// A path argument, resolved against its directory descriptor's decoration
// (or the working directory). dirfd_arg < 0: the call has none.
bool Compiler::PathArg(Ctx& c, int dirfd_arg, size_t path_arg, uint32_t* file) {
  auto path = ParseString(c.arg(path_arg));
  if (!path) {
    Skip(c.ev, "unreadable path argument");
    return false;
  }
  std::string base = tables_.process_of(c.thread).cwd;
  if (dirfd_arg >= 0) {
    const FdArg d = ParseFd(c.arg(static_cast<size_t>(dirfd_arg)));
    if (d.fd != -100 || !d.deco.empty()) {
      if (!d.deco.empty()) {
        base = d.deco;
      } else if (FdEntry* e = tables_.Find(c.thread, d.fd)) {
        base = files_.at(e->file).path;
      }
    }
  }
  const std::string full = NormalisePath(base, *path);
  if (!DecoIsRegularPath(full)) {
    Skip(c.ev, "not a regular file (pipe, socket, device, /proc, /sys)");
    return false;
  }
  *file = files_.Id(full);
  return true;
}

void Compiler::Lookup(uint32_t file, int err) {
  if (err == ENOENT) {
    files_.Saw(file, Initial::kAbsent);
    ++files_.at(file).enoent;
  } else if (err == ENOTDIR) {
    files_.Saw(file, Initial::kAbsent);
  }
}

void Compiler::Finish() { files_.Finish(); }

}  // namespace iomimic::trace
