// faulty_fuse: a tiny FUSE filesystem of the tests that fails I/O on demand.
//
//   faulty_fuse BACKING_FILE MOUNTPOINT
//
// Mounts MOUNTPOINT (foreground, single-threaded) with two files:
//   disk.img  the contents of BACKING_FILE (an existing regular file, opened
//             read-write), same size, read and written through pread/pwrite.
//             Tests put a loop device over it and a real filesystem on that,
//             so an I/O error here is what the filesystem sees from a disk.
//   control   write one line to change the fault mode, read it for counters:
//               ok                 every request succeeds (the start state)
//               fail-reads         reads of disk.img fail with EIO
//               fail-writes        writes and fsyncs of disk.img fail with EIO
//               fail-all           both
//             A mode may end in " after=BYTES": that many more bytes of the
//             failing kind still succeed first (a disk that dies mid-run).
//             Reading gives one line:
//               mode=fail-writes reads=N writes=N read_bytes=N write_bytes=N
//               failed_reads=N failed_writes=N failed_fsyncs=N
//             A bad command fails the write with EINVAL.
// Both files use direct_io: every read and write of disk.img reaches this
// process, none is served from or absorbed by the kernel's cache of the FUSE
// file, so a fault takes effect on the next request.
//
// Prints "ready" on stdout once the kernel has initialised the mount. Ends
// when MOUNTPOINT is unmounted (umount as root, or fusermount3 -u) or on
// SIGTERM/SIGINT (libfuse then unmounts). Exit 2 on bad usage.
// Built only when libfuse3 is found (tests/CMakeLists.txt: IOMIMIC_FAULTY_FUSE).
#define FUSE_USE_VERSION 31

#include <fcntl.h>
#include <fuse.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

enum Fault : unsigned { kFailReads = 1, kFailWrites = 2 };

struct State {
  int backing_fd = -1;
  off_t size = 0;
  // The daemon is single-threaded (-s): no request runs concurrently with
  // another, so plain fields are enough.
  unsigned faults = 0;
  std::string mode = "ok";
  uint64_t grace_bytes = 0;  // bytes still allowed before the faults apply
  uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
  uint64_t failed_reads = 0, failed_writes = 0, failed_fsyncs = 0;
};

State g;

constexpr const char* kDisk = "/disk.img";
constexpr const char* kControl = "/control";

bool Is(const char* path, const char* name) { return std::strcmp(path, name) == 0; }

// True when a request of `kind` for `bytes` must fail now.
bool ShouldFail(unsigned kind, uint64_t bytes) {
  if ((g.faults & kind) == 0) return false;
  if (g.grace_bytes >= bytes) {
    g.grace_bytes -= bytes;
    return false;
  }
  g.grace_bytes = 0;
  return true;
}

std::string ControlText() {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "mode=%s reads=%" PRIu64 " writes=%" PRIu64 " read_bytes=%" PRIu64
                " write_bytes=%" PRIu64 " failed_reads=%" PRIu64 " failed_writes=%" PRIu64
                " failed_fsyncs=%" PRIu64 "\n",
                g.mode.c_str(), g.reads, g.writes, g.read_bytes, g.write_bytes, g.failed_reads,
                g.failed_writes, g.failed_fsyncs);
  return buf;
}

// Applies one control line; false when it is not understood.
bool ApplyControl(std::string line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  uint64_t grace = 0;
  const size_t space = line.find(' ');
  if (space != std::string::npos) {
    const std::string arg = line.substr(space + 1);
    line.resize(space);
    if (arg.rfind("after=", 0) != 0 || arg.size() == 6) return false;
    char* end = nullptr;
    errno = 0;
    grace = std::strtoull(arg.c_str() + 6, &end, 10);
    if (errno != 0 || *end != '\0') return false;
  }
  unsigned faults;
  if (line == "ok") {
    faults = 0;
  } else if (line == "fail-reads") {
    faults = kFailReads;
  } else if (line == "fail-writes") {
    faults = kFailWrites;
  } else if (line == "fail-all") {
    faults = kFailReads | kFailWrites;
  } else {
    return false;
  }
  g.faults = faults;
  g.mode = line;
  g.grace_bytes = grace;
  return true;
}

void* Init(fuse_conn_info*, fuse_config* cfg) {
  cfg->direct_io = 1;
  cfg->attr_timeout = 0;
  cfg->entry_timeout = 0;
  std::printf("ready\n");
  std::fflush(stdout);
  return nullptr;
}

int GetAttr(const char* path, struct stat* st, fuse_file_info*) {
  std::memset(st, 0, sizeof *st);
  st->st_uid = ::getuid();
  st->st_gid = ::getgid();
  if (Is(path, "/")) {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
  } else if (Is(path, kDisk)) {
    st->st_mode = S_IFREG | 0600;
    st->st_nlink = 1;
    st->st_size = g.size;
  } else if (Is(path, kControl)) {
    st->st_mode = S_IFREG | 0600;
    st->st_nlink = 1;
    st->st_size = 0;
  } else {
    return -ENOENT;
  }
  return 0;
}

int ReadDir(const char* path, void* buf, fuse_fill_dir_t fill, off_t, fuse_file_info*,
            fuse_readdir_flags) {
  if (!Is(path, "/")) return -ENOENT;
  for (const char* name : {".", "..", kDisk + 1, kControl + 1}) {
    fill(buf, name, nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  }
  return 0;
}

int Open(const char* path, fuse_file_info* fi) {
  if (!Is(path, kDisk) && !Is(path, kControl)) return -ENOENT;
  fi->direct_io = 1;
  return 0;
}

// Truncating the control file (echo > control) is allowed and means nothing;
// disk.img keeps its size.
int Truncate(const char* path, off_t size, fuse_file_info*) {
  if (Is(path, kControl)) return 0;
  if (Is(path, kDisk)) return size == g.size ? 0 : -EPERM;
  return -ENOENT;
}

int Read(const char* path, char* buf, size_t len, off_t off, fuse_file_info*) {
  if (Is(path, kControl)) {
    const std::string text = ControlText();
    if (off >= static_cast<off_t>(text.size())) return 0;
    const size_t n = std::min(len, text.size() - static_cast<size_t>(off));
    std::memcpy(buf, text.data() + off, n);
    return static_cast<int>(n);
  }
  if (!Is(path, kDisk)) return -ENOENT;
  ++g.reads;
  if (ShouldFail(kFailReads, len)) {
    ++g.failed_reads;
    return -EIO;
  }
  size_t done = 0;
  while (done < len) {
    const ssize_t n = ::pread(g.backing_fd, buf + done, len - done, off + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  g.read_bytes += done;
  return static_cast<int>(done);
}

int Write(const char* path, const char* buf, size_t len, off_t off, fuse_file_info*) {
  if (Is(path, kControl)) {
    return ApplyControl(std::string(buf, len)) ? static_cast<int>(len) : -EINVAL;
  }
  if (!Is(path, kDisk)) return -ENOENT;
  if (off >= g.size) return -ENOSPC;
  if (off + static_cast<off_t>(len) > g.size) len = static_cast<size_t>(g.size - off);
  ++g.writes;
  if (ShouldFail(kFailWrites, len)) {
    ++g.failed_writes;
    return -EIO;
  }
  size_t done = 0;
  while (done < len) {
    const ssize_t n =
        ::pwrite(g.backing_fd, buf + done, len - done, off + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    done += static_cast<size_t>(n);
  }
  g.write_bytes += done;
  return static_cast<int>(done);
}

// A cache flush of the disk (the loop device's REQ_OP_FLUSH): a dead disk
// fails it too.
int Fsync(const char* path, int datasync, fuse_file_info*) {
  if (!Is(path, kDisk)) return 0;
  if ((g.faults & kFailWrites) != 0 && g.grace_bytes == 0) {
    ++g.failed_fsyncs;
    return -EIO;
  }
  return (datasync ? ::fdatasync(g.backing_fd) : ::fsync(g.backing_fd)) == 0 ? 0 : -errno;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s BACKING_FILE MOUNTPOINT\n", argv[0]);
    return 2;
  }
  g.backing_fd = ::open(argv[1], O_RDWR | O_CLOEXEC);
  struct stat st {};
  if (g.backing_fd < 0 || ::fstat(g.backing_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fprintf(stderr, "faulty_fuse: %s: not a readable and writable regular file: %s\n", argv[1],
                 std::strerror(errno));
    return 2;
  }
  g.size = st.st_size;

  fuse_operations ops{};
  ops.init = Init;
  ops.getattr = GetAttr;
  ops.readdir = ReadDir;
  ops.open = Open;
  ops.truncate = Truncate;
  ops.read = Read;
  ops.write = Write;
  ops.fsync = Fsync;

  std::string prog = argv[0], fg = "-f", single = "-s", o = "-o",
              opts = "fsname=faulty_fuse,subtype=faulty", mountpoint = argv[2];
  char* fuse_argv[] = {prog.data(), fg.data(),         single.data(), o.data(),
                       opts.data(), mountpoint.data(), nullptr};
  const int rc = fuse_main(6, fuse_argv, &ops, nullptr);
  ::close(g.backing_fd);
  return rc;
}
