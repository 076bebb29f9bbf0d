#include "lifecycle/lifecycle.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "iomimic/status.h"
#include "lifecycle/tool.h"
#include "model/model.h"
#include "iomimic/units.h"

namespace iomimic::disk {
namespace {

constexpr long kFuseSuperMagic = 0x65735546;

std::string Now() {
  char buf[32];
  const time_t t = ::time(nullptr);
  tm tm{};
  ::gmtime_r(&t, &tm);
  ::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string NewId() {
  std::random_device rd;
  return fmt::format("disk-{:012x}", (static_cast<uint64_t>(rd()) << 32 | rd()) & 0xffffffffffffull);
}

std::string Resolve(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? buf : "";
}

std::vector<std::string> Split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out.flush()) throw SysError("write", path, errno);
}

std::string DaemonBinary() {
  const char* env = std::getenv("IOMIMIC_DISKD");
  if (env != nullptr && *env != '\0') return env;
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string self = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  return self.substr(0, self.rfind('/') + 1) + "iomimic-diskd";
}

uint64_t MinSize(const std::string& fs) {
  if (fs == "xfs") return 300ull << 20;
  if (fs == "btrfs") return 128ull << 20;
  return 32ull << 20;
}

bool IsEmptyDir(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  int n = 0;
  while (const dirent* de = ::readdir(d)) n += std::strcmp(de->d_name, ".") != 0 && std::strcmp(de->d_name, "..") != 0;
  ::closedir(d);
  return n == 0;
}

// An existing empty directory that nothing is mounted on, or a new one
// whose parent exists.
void CheckMountPoint(const std::string& mount) {
  auto bad = [&](const char* why) {
    return UsageError(fmt::format("invalid value '{}' for option 'mount': {}", mount, why));
  };
  struct stat st {};
  if (::stat(mount.c_str(), &st) != 0) {
    const size_t slash = mount.find_last_of('/');
    const std::string parent = slash == std::string::npos ? "." : mount.substr(0, slash + 1);
    if (Resolve(parent).empty()) throw bad("its parent directory does not exist");
    return;
  }
  if (!S_ISDIR(st.st_mode)) throw bad("not a directory");
  if (IsMountPoint(Resolve(mount))) throw bad("already a mount point (in use)");
  if (!IsEmptyDir(mount)) throw bad("not empty (mounting would hide its files)");
}

// Everything that can be refused before anything is made.
void CheckInput(const UpOptions& o) {
  if (::geteuid() != 0) {
    throw UsageError("iomimic disk needs root (it attaches a loop device and mounts)");
  }
  if (o.fs != "ext4" && o.fs != "xfs" && o.fs != "btrfs") {
    throw UsageError(fmt::format("invalid value '{}' for option 'fs': expected ext4, xfs or btrfs", o.fs));
  }
  LoadModel(o.model, o.overrides);  // throws UsageError naming the model or key
  if (o.size < MinSize(o.fs)) {
    throw UsageError(fmt::format("invalid value '{}' for option 'size': {} needs at least {}",
                                 FormatSize(o.size), o.fs, FormatSize(MinSize(o.fs))));
  }
  if (!o.mount.empty()) CheckMountPoint(o.mount);
  struct statfs sfs {};
  if (::statfs(o.backing_dir.c_str(), &sfs) != 0) {
    throw UsageError(fmt::format("invalid value '{}' for option 'backing_dir': {}", o.backing_dir, std::strerror(errno)));
  }
  if (sfs.f_type == kFuseSuperMagic || FindHolding(o.backing_dir)) {
    throw UsageError(fmt::format("invalid value '{}' for option 'backing_dir': on an emulated or FUSE filesystem (the daemon would wait on itself)", o.backing_dir));
  }
  if (::access(DaemonBinary().c_str(), X_OK) != 0) {
    throw std::runtime_error(fmt::format("the daemon {} is missing (build target iomimic-diskd)", DaemonBinary()));
  }
}

// Starts the daemon in its own session, waits for its "ready".
void StartDaemon(const DiskRecord& r) {
  int out[2];
  CheckSys(::pipe2(out, O_CLOEXEC), "pipe2", "");
  const std::string bin = DaemonBinary(), model = r.dir + "/model.ini", fuse = r.fuse_dir(),
                    log = r.dir + "/daemon.log";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    const int null_fd = ::open("/dev/null", O_RDWR);
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(null_fd, 0);
    ::dup2(out[1], 1);
    ::dup2(log_fd >= 0 ? log_fd : null_fd, 2);
    ::execl(bin.c_str(), bin.c_str(), "--id", r.id.c_str(), "--backing", r.backing.c_str(),
            "--model", model.c_str(), "--mount", fuse.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    throw SysError("fork", bin, errno);
  }
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (got.find("ready\n") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[256];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  ::close(out[0]);
  // The daemon is reparented to init once this process ends; reap it now if it failed.
  if (got.find("ready\n") == std::string::npos) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    std::ifstream in(log);
    std::ostringstream s;
    s << in.rdbuf();
    throw std::runtime_error(fmt::format("the disk daemon did not start: {}", s.str()));
  }
}

std::string AttachLoop(const DiskRecord& r, const Model& m) {
  const std::vector<std::string> argv = {"losetup", "--direct-io=on", "--find", "--show",
                                         r.served_file()};
  const ToolResult t = RunTool(argv);
  if (t.exit_code != 0) throw std::runtime_error(Describe(argv, t));
  const std::string dev = t.output;
  // A hard disk says so: the block layer and filesystems read this flag.
  if (m.kind == ModelKind::kHdd) {
    std::ofstream(fmt::format("/sys/block/{}/queue/rotational", dev.substr(dev.rfind('/') + 1))) << "1";
  }
  return dev;
}

void MakeFs(const UpOptions& o, const std::string& dev) {
  std::vector<std::string> argv = {"mkfs." + o.fs, "-q"};
  const std::vector<std::string> extra = Split(o.mkfs_opts);
  argv.push_back(o.fs == "ext4" ? "-F" : "-f");
  bool has_block = false;
  for (const std::string& e : extra) has_block |= e == "-b" || e.rfind("-b", 0) == 0;
  // mke2fs.conf's "small" type would give a small image 1 KiB blocks.
  if (o.fs == "ext4" && !has_block) argv.insert(argv.end(), {"-b", "4096"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(dev);
  const ToolResult t = RunTool(argv);
  if (t.exit_code != 0) {
    throw UsageError(fmt::format("invalid value '{}' for option 'mkfs_opts' or 'size': {}",
                                 o.mkfs_opts, Describe(argv, t)));
  }
}

}  // namespace

DiskRecord Up(const UpOptions& o) {
  CheckInput(o);
  const Model model = LoadModel(o.model, o.overrides);
  DiskRecord r;
  r.id = NewId();
  ::mkdir("/run/iomimic", 0755);
  ::mkdir(StateRoot().c_str(), 0755);
  r.dir = StateRoot() + "/" + r.id;
  CheckSys(::mkdir(r.dir.c_str(), 0700), "mkdir", r.dir);
  r.fs = o.fs;
  r.mkfs_opts = o.mkfs_opts;
  r.model = model.name;
  r.size = o.size;
  r.backing = Resolve(o.backing_dir) + "/iomimic-" + r.id + ".img";
  r.mount = o.mount.empty() ? r.dir + "/mnt" : o.mount;
  r.phase = "starting";
  r.creator_pid = ::getpid();
  r.creator_start = ProcessStart(r.creator_pid);
  r.owner_pid = o.owner_pid;
  r.owner_start = ProcessStart(o.owner_pid);
  r.created_at = Now();
  struct stat st {};
  r.created_mount = ::stat(r.mount.c_str(), &st) != 0;
  WriteRecord(r);
  try {
    const int fd = CheckSys(::open(r.backing.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600),
                            "open", r.backing);
    const int rc = ::ftruncate(fd, static_cast<off_t>(o.size));
    ::close(fd);
    CheckSys(rc, "ftruncate", r.backing);
    WriteText(r.dir + "/model.ini", ModelToIni(model));
    WriteText(r.dir + "/model.ini.name", model.name);
    CheckSys(::mkdir(r.fuse_dir().c_str(), 0700), "mkdir", r.fuse_dir());
    StartDaemon(r);
    const std::string dev = AttachLoop(r, model);
    MakeFs(o, dev);
    if (r.created_mount) CheckSys(::mkdir(r.mount.c_str(), 0755), "mkdir", r.mount);
    r.mount = Resolve(r.mount);
    WriteRecord(r);
    const std::vector<std::string> argv = {"mount", "-t", o.fs, dev, r.mount};
    const ToolResult t = RunTool(argv);
    if (t.exit_code != 0) throw std::runtime_error(Describe(argv, t));
    r.phase = "up";
    WriteRecord(r);
  } catch (...) {
    Down(r, /*force=*/true);
    throw;
  }
  return r;
}

std::string Down(const DiskRecord& r, bool force, const std::function<void(const std::string&)>& say) {
  auto tell = [&](const std::string& s) {
    if (say) say(s);
  };
  std::string problems;
  // Found before unmounting: an orphaned loop device is known by our mount.
  const std::vector<std::string> loops = LoopsOver(r.served_file(), r.mount);
  if (!r.mount.empty() && IsMountPoint(r.mount) && !loops.empty()) {
    ToolResult t = RunTool({"umount", r.mount});
    if (t.exit_code != 0 && force) t = RunTool({"umount", "-l", r.mount});
    if (t.exit_code != 0) return fmt::format("cannot unmount {}: {}", r.mount, t.output);
    tell("unmounted " + r.mount);
  }
  for (const std::string& dev : loops) {
    const ToolResult t = RunTool({"losetup", "-d", dev});
    if (t.exit_code != 0) problems += fmt::format("cannot detach {}: {}; ", dev, t.output);
    else tell("detached " + dev);
  }
  for (const pid_t pid : DaemonPids(r.id)) {
    const uint64_t start = ProcessStart(pid);
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 50 && ProcessAlive(pid, start); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (ProcessAlive(pid, start)) ::kill(pid, SIGKILL);
    tell(fmt::format("stopped daemon {}", pid));
  }
  if (IsMountPoint(r.fuse_dir()) && ::umount2(r.fuse_dir().c_str(), 0) != 0 &&
      ::umount2(r.fuse_dir().c_str(), MNT_DETACH) != 0) {
    problems += fmt::format("cannot unmount {}: {}; ", r.fuse_dir(), std::strerror(errno));
  }
  if (!problems.empty()) return problems;
  if (::unlink(r.backing.c_str()) == 0) tell("removed " + r.backing);
  if (r.created_mount && !IsMountPoint(r.mount)) ::rmdir(r.mount.c_str());
  for (const char* f : {"/state.json", "/model.ini", "/model.ini.name", "/daemon.log"}) {
    ::unlink((r.dir + f).c_str());
  }
  ::rmdir(r.fuse_dir().c_str());
  ::rmdir((r.dir + "/mnt").c_str());
  if (::rmdir(r.dir.c_str()) != 0 && errno != ENOENT) {
    return fmt::format("cannot remove {}: {}", r.dir, std::strerror(errno));
  }
  return "";
}

std::optional<DiskRecord> FindByMount(const std::string& mount) {
  const std::string want = Resolve(mount).empty() ? mount : Resolve(mount);
  for (const DiskRecord& r : AllRecords()) {
    if (r.mount == want || r.mount == mount) return r;
  }
  return std::nullopt;
}

std::optional<DiskRecord> FindHolding(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  for (const DiskRecord& r : AllRecords()) {
    struct stat m {};
    if (r.phase == "up" && ::stat(r.mount.c_str(), &m) == 0 && m.st_dev == st.st_dev &&
        IsMountPoint(r.mount)) {
      return r;
    }
  }
  return std::nullopt;
}

std::string Health(const DiskRecord& r) {
  if (r.phase != "up") {
    return ProcessAlive(r.creator_pid, r.creator_start) ? "starting" : "broken: its 'up' was killed";
  }
  if (r.owner_pid != 0 && !ProcessAlive(r.owner_pid, r.owner_start)) {
    return "orphaned: its run is gone";
  }
  if (DaemonPids(r.id).empty()) return "broken: daemon gone (I/O fails with EIO)";
  if (!IsMountPoint(r.mount)) return "broken: not mounted";
  return "up";
}

bool CleanStaleDisks(bool dry_run, const std::function<void(const std::string&)>& say) {
  bool ok = true;
  for (const DiskRecord& r : AllRecords()) {
    const std::string health = Health(r);
    if (health == "up" || health == "starting") continue;
    if (::geteuid() != 0) {
      say(fmt::format("emulated disk {} at {} ({}): taking it down needs root, left", r.id, r.mount, health));
      ok = false;
      continue;
    }
    if (dry_run) {
      say(fmt::format("emulated disk {} at {} ({}): would take it down", r.id, r.mount, health));
      continue;
    }
    const std::string problems = Down(r, /*force=*/true);
    say(fmt::format("emulated disk {} at {} ({}): {}", r.id, r.mount, health,
                    problems.empty() ? "taken down" : "left: " + problems));
    ok &= problems.empty();
  }
  return ok;
}

}  // namespace iomimic::disk
