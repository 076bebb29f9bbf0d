// iomimic-diskd: the FUSE daemon of an emulated disk.
//
//   iomimic-diskd --id ID --backing FILE --model MODEL.ini --mount DIR
//
// Mounts DIR (foreground, multi-threaded) with two files:
//   disk.img  FILE's contents (a sparse file on a real filesystem, its size
//             the disk's), read and written with pread/pwrite after the
//             model has planned each request (daemon/scheduler.h); the
//             request then completes at the planned time. fsync of disk.img
//             (the loop device's cache flush) is a flush of the model.
//   stats     read it: one JSON document, the model and its counters.
// Both use direct_io: every request of the loop device reaches the daemon
// (none absorbed by a page cache of the FUSE file); the loop device's
// asynchronous direct I/O keeps several requests in flight.
//
// Safe under memory pressure: PR_SET_IO_FLUSHER (the daemon's allocations
// never wait on the writeback it is itself doing) and mlockall on fault.
// Prints "ready" on stdout once the kernel has initialised the mount. Ends
// when DIR is unmounted or on SIGTERM/SIGINT. `--id` is only there so that
// `iomimic disk down` can find this process in /proc. Exit 2 on bad usage.
#define FUSE_USE_VERSION 312

#include <fcntl.h>
#include <fuse.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "daemon/scheduler.h"
#include "model/model.h"

namespace iomimic::disk {
namespace {

struct Daemon {
  int fd = -1;
  off_t size = 0;
  Model model;
  std::unique_ptr<Scheduler> scheduler;
  bool trace = std::getenv("IOMIMIC_DISKD_TRACE") != nullptr;
};
Daemon g;

constexpr const char* kDisk = "/disk.img";
constexpr const char* kStats = "/stats";

uint64_t NowNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

void SleepUntil(uint64_t ns) {
  const timespec ts{static_cast<time_t>(ns / 1'000'000'000u), static_cast<long>(ns % 1'000'000'000u)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

bool Is(const char* path, const char* name) { return std::strcmp(path, name) == 0; }

std::string StatsText() {
  nlohmann::json j = {{"model", ModelToJson(g.model)},
                      {"model_name", g.model.name},
                      {"size", g.size},
                      {"counters", g.scheduler->Stats(NowNs())}};
  return j.dump() + "\n";
}

// One request through the model: plan, transfer, wait for the planned end.
template <typename F>
int Serve(Op op, uint64_t off, uint64_t len, F&& transfer) {
  const uint64_t now = NowNs();
  const uint64_t done_at = g.scheduler->Admit(op, off, len, now);
  if (g.trace) std::fprintf(stderr, "%lu %d %lu %lu %lu\n", now, static_cast<int>(op), off, len, done_at - now);
  const int rc = transfer();
  if (rc < 0) {
    g.scheduler->CountError();
  } else {
    SleepUntil(done_at);
  }
  g.scheduler->Done(NowNs());
  return rc;
}

void* Init(fuse_conn_info* conn, fuse_config* cfg) {
  cfg->direct_io = 1;
  cfg->attr_timeout = 0;
  cfg->entry_timeout = 0;
  cfg->use_ino = 1;
  // Many requests in flight (a SAN's or a cloud volume's queue), not the
  // default 12 background requests.
  conn->max_background = 128;
  conn->congestion_threshold = 96;
  std::printf("ready\n");
  std::fflush(stdout);
  return nullptr;
}

int GetAttr(const char* path, struct stat* st, fuse_file_info*) {
  std::memset(st, 0, sizeof *st);
  st->st_nlink = 1;
  if (Is(path, "/")) {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
  } else if (Is(path, kDisk)) {
    st->st_mode = S_IFREG | 0600;
    st->st_size = g.size;
    st->st_ino = 2;
  } else if (Is(path, kStats)) {
    st->st_mode = S_IFREG | 0444;
    st->st_ino = 3;
  } else {
    return -ENOENT;
  }
  return 0;
}

int ReadDir(const char* path, void* buf, fuse_fill_dir_t fill, off_t, fuse_file_info*,
            fuse_readdir_flags) {
  if (!Is(path, "/")) return -ENOENT;
  for (const char* name : {".", "..", kDisk + 1, kStats + 1}) {
    fill(buf, name, nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  }
  return 0;
}

int Open(const char* path, fuse_file_info* fi) {
  if (!Is(path, kDisk) && !Is(path, kStats)) return -ENOENT;
  fi->direct_io = 1;
  return 0;
}

int Truncate(const char* path, off_t size, fuse_file_info*) {
  if (Is(path, kDisk)) return size == g.size ? 0 : -EPERM;
  return -EACCES;
}

int Read(const char* path, char* buf, size_t len, off_t off, fuse_file_info*) {
  if (Is(path, kStats)) {
    const std::string text = StatsText();
    if (off >= static_cast<off_t>(text.size())) return 0;
    const size_t n = std::min(len, text.size() - static_cast<size_t>(off));
    std::memcpy(buf, text.data() + off, n);
    return static_cast<int>(n);
  }
  if (!Is(path, kDisk)) return -ENOENT;
  if (off >= g.size) return 0;
  len = std::min<uint64_t>(len, static_cast<uint64_t>(g.size - off));
  return Serve(Op::kRead, static_cast<uint64_t>(off), len, [&]() -> int {
    size_t done = 0;
    while (done < len) {
      const ssize_t n = ::pread(g.fd, buf + done, len - done, off + static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -errno;
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    std::memset(buf + done, 0, len - done);  // a hole past the backing file's end
    return static_cast<int>(len);
  });
}

int Write(const char* path, const char* buf, size_t len, off_t off, fuse_file_info*) {
  if (!Is(path, kDisk)) return -EACCES;
  if (off >= g.size) return -ENOSPC;
  len = std::min<uint64_t>(len, static_cast<uint64_t>(g.size - off));
  return Serve(Op::kWrite, static_cast<uint64_t>(off), len, [&]() -> int {
    size_t done = 0;
    while (done < len) {
      const ssize_t n = ::pwrite(g.fd, buf + done, len - done, off + static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -errno;  // ENOSPC of the backing filesystem: the disk's write fails
      done += static_cast<size_t>(n);
    }
    return static_cast<int>(done);
  });
}

// The loop device's REQ_OP_FLUSH. The backing file is not fsynced: the
// emulated disk is scratch space, its durability is the model's business,
// and a real fsync would add the host disk's latency to every flush.
int Fsync(const char* path, int, fuse_file_info*) {
  if (!Is(path, kDisk)) return 0;
  return Serve(Op::kFlush, 0, 0, [] { return 0; });
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int Usage() {
  std::fprintf(stderr, "usage: iomimic-diskd --id ID --backing FILE --model MODEL.ini --mount DIR\n");
  return 2;
}

}  // namespace
}  // namespace iomimic::disk

int main(int argc, char** argv) {
  using namespace iomimic::disk;
  std::string id, backing, model_file, mount;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--id") id = argv[i + 1];
    else if (k == "--backing") backing = argv[i + 1];
    else if (k == "--model") model_file = argv[i + 1];
    else if (k == "--mount") mount = argv[i + 1];
    else return Usage();
  }
  if (argc % 2 == 0 || id.empty() || backing.empty() || model_file.empty() || mount.empty()) {
    return Usage();
  }
  try {
    g.model = ParseModel(ReadText(model_file), "custom", model_file);
    Validate(g.model);
    const std::string name = ReadText(model_file + ".name");
    if (!name.empty()) g.model.name = name;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iomimic-diskd: %s\n", e.what());
    return 2;
  }
  g.fd = ::open(backing.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st {};
  if (g.fd < 0 || ::fstat(g.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fprintf(stderr, "iomimic-diskd: %s: not a readable and writable regular file: %s\n",
                 backing.c_str(), std::strerror(errno));
    return 2;
  }
  g.size = st.st_size;
  g.scheduler = std::make_unique<Scheduler>(g.model, static_cast<uint64_t>(g.size), 0x10D15C);
  // Never wait on the writeback this daemon is itself serving.
  if (::prctl(PR_SET_IO_FLUSHER, 1, 0, 0, 0) != 0) std::perror("iomimic-diskd: PR_SET_IO_FLUSHER");
  if (::mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) != 0) std::perror("iomimic-diskd: mlockall");
  ::prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0);  // 1 us, not 50 us: sub-ms models

  fuse_operations ops{};
  ops.init = Init;
  ops.getattr = GetAttr;
  ops.readdir = ReadDir;
  ops.open = Open;
  ops.truncate = Truncate;
  ops.read = Read;
  ops.write = Write;
  ops.fsync = Fsync;
  // fuse_new + fuse_loop_mt rather than fuse_main: the thread limit (one
  // thread per request in flight) is only settable through a loop config.
  std::string prog = argv[0], o = "-o", opts = "fsname=iomimic-disk,subtype=iomimic";
  char* fuse_argv[] = {prog.data(), o.data(), opts.data(), nullptr};
  fuse_args args = FUSE_ARGS_INIT(3, fuse_argv);
  fuse* f = fuse_new(&args, &ops, sizeof ops, nullptr);
  if (f == nullptr) return 1;
  int rc = 1;
  if (fuse_mount(f, mount.c_str()) == 0) {
    fuse_session* se = fuse_get_session(f);
    fuse_set_signal_handlers(se);
    fuse_loop_config* cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(cfg, 160);
    fuse_loop_cfg_set_idle_threads(cfg, 16);
    rc = fuse_loop_mt(f, cfg) == 0 ? 0 : 1;
    fuse_loop_cfg_destroy(cfg);
    fuse_remove_signal_handlers(se);
    fuse_unmount(f);
  }
  fuse_destroy(f);
  ::close(g.fd);
  return rc;
}
