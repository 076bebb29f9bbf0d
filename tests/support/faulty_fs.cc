#include "support/faulty_fs.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/loop_fs.h"

namespace iomimic::test {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::string Run(const std::vector<std::string>& argv) {
  const RunResult r = RunCommand(argv);
  if (r.exit_code != 0) {
    std::string cmd;
    for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    throw std::runtime_error("`" + cmd + "` exited " + std::to_string(r.exit_code) + ": " + r.out +
                             r.err);
  }
  return r.out;
}

std::string TempBase() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/var/tmp";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Unmounts `path`: retried with a sync while busy, lazily as a last resort.
void Unmount(const std::string& path) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (::umount2(path.c_str(), 0) == 0 || errno == EINVAL || errno == ENOENT) return;
    ::sync();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::umount2(path.c_str(), MNT_DETACH);
}

}  // namespace

std::string FaultyFuseBinary() { return IOMIMIC_FAULTY_FUSE; }

std::string FaultyFsUnavailableReason() {
  std::string reason = LoopFsUnavailableReason("ext4");
  if (!reason.empty()) return reason;
  if (FaultyFuseBinary().empty()) {
    return "faulty_fuse was not built (libfuse3-dev missing at configure time; scripts/setup "
           "installs it)";
  }
  if (::access("/dev/fuse", R_OK | W_OK) != 0) return "no usable /dev/fuse";
  return "";
}

std::unique_ptr<FaultyFs> FaultyFs::Create(uint64_t size_bytes, const std::string& mount_opts) {
  const std::string helper = FaultyFuseBinary();
  if (helper.empty()) throw std::runtime_error("FaultyFs: faulty_fuse was not built");
  // Owned from the first step on: a failure tears down what was set up.
  std::unique_ptr<FaultyFs> fs(new FaultyFs());

  std::string dir_template = TempBase() + "/iomimic-faultyfs-XXXXXX";
  if (::mkdtemp(dir_template.data()) == nullptr) {
    throw std::runtime_error("mkdtemp " + dir_template + ": " + std::strerror(errno));
  }
  char resolved[PATH_MAX];
  fs->dir_ = ::realpath(dir_template.c_str(), resolved) != nullptr ? resolved : dir_template;

  fs->backing_ = fs->dir_ + "/backing.img";
  const int fd = ::open(fs->backing_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("create " + fs->backing_ + ": " + std::strerror(errno));
  const int rc = ::ftruncate(fd, static_cast<off_t>(size_bytes));  // sparse
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("ftruncate " + fs->backing_ + ": " + std::strerror(err));

  fs->fuse_dir_ = fs->dir_ + "/fuse";
  fs->mount_point_ = fs->dir_ + "/mnt";
  for (const std::string& d : {fs->fuse_dir_, fs->mount_point_}) {
    if (::mkdir(d.c_str(), 0755) != 0) {
      throw std::runtime_error("mkdir " + d + ": " + std::strerror(errno));
    }
  }

  fs->daemon_ = std::make_unique<SpawnedProcess>();
  fs->daemon_->StartCommand({helper, fs->backing_, fs->fuse_dir_});
  fs->fuse_mounted_ = true;  // from here on, teardown tries to unmount it
  if (!fs->daemon_->WaitForStdout("ready", std::chrono::seconds(10))) {
    throw std::runtime_error("faulty_fuse did not come up: " + fs->daemon_->StderrSoFar());
  }
  fs->disk_ = fs->fuse_dir_ + "/disk.img";

  // Two callers can race for the same free loop number: the loser gets EBUSY.
  for (int attempt = 0;; ++attempt) {
    const RunResult r = RunCommand({"losetup", "--find", "--show", fs->disk_});
    if (r.exit_code == 0) {
      fs->device_ = Trim(r.out);
      break;
    }
    if (attempt >= 4 || r.err.find("busy") == std::string::npos) {
      throw std::runtime_error("losetup over " + fs->disk_ + " failed: " + r.out + r.err);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // nodiscard: the FUSE file does not implement fallocate (punch hole).
  Run({"mkfs.ext4", "-q", "-F", "-b", "4096", "-E", "nodiscard", fs->device_});
  std::vector<std::string> mount = {"mount", "-t", "ext4"};
  if (!mount_opts.empty()) mount.insert(mount.end(), {"-o", mount_opts});
  mount.insert(mount.end(), {fs->device_, fs->mount_point_});
  Run(mount);
  fs->mounted_ = true;
  return fs;
}

FaultyFs::~FaultyFs() { TearDown(); }

void FaultyFs::SetFault(Fault fault, uint64_t after_bytes) const {
  std::string line;
  switch (fault) {
    case Fault::kNone:
      line = "ok";
      break;
    case Fault::kReads:
      line = "fail-reads";
      break;
    case Fault::kWrites:
      line = "fail-writes";
      break;
    case Fault::kAll:
      line = "fail-all";
      break;
  }
  if (after_bytes != 0) line += " after=" + std::to_string(after_bytes);
  line += "\n";
  const std::string control = fuse_dir_ + "/control";
  const int fd = ::open(control.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("open " + control + ": " + std::strerror(errno));
  const ssize_t n = ::write(fd, line.data(), line.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(line.size())) {
    throw std::runtime_error("write " + control + ": " + std::strerror(err));
  }
}

FaultyFs::Counters FaultyFs::ReadCounters() const {
  const std::string text = ReadAll(fuse_dir_ + "/control");
  if (text.find("mode=") == std::string::npos) {
    throw std::runtime_error("cannot read the counters of " + fuse_dir_ + ": '" + text + "'");
  }
  Counters c;
  std::istringstream in(text);
  for (std::string field; in >> field;) {
    const size_t eq = field.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    if (key == "mode") {
      c.mode = value;
      continue;
    }
    const uint64_t v = std::strtoull(value.c_str(), nullptr, 10);
    if (key == "reads") c.reads = v;
    if (key == "writes") c.writes = v;
    if (key == "read_bytes") c.read_bytes = v;
    if (key == "write_bytes") c.write_bytes = v;
    if (key == "failed_reads") c.failed_reads = v;
    if (key == "failed_writes") c.failed_writes = v;
    if (key == "failed_fsyncs") c.failed_fsyncs = v;
  }
  return c;
}

int FaultyFs::SyncFs() const {
  const int fd = ::open(mount_point_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int rc = ::syncfs(fd);
  const int err = rc == 0 ? 0 : errno;
  ::close(fd);
  return err;
}

void FaultyFs::TearDown() noexcept {
  const bool daemon_alive = daemon_ && daemon_->pid().has_value();
  // A healthy disk again, so unmounting can write what it still has to.
  if (daemon_alive && !disk_.empty()) {
    try {
      SetFault(Fault::kNone);
    } catch (...) {
    }
  }
  if (mounted_) {
    Unmount(mount_point_);
    mounted_ = false;
  }
  if (!device_.empty()) {
    DetachLoopIfBoundTo(device_, disk_);
    device_.clear();
  }
  if (fuse_mounted_) {
    Unmount(fuse_dir_);
    fuse_mounted_ = false;
  }
  if (daemon_) {
    // Unmounting ends the daemon; if it has not ended within 5 s, Wait()
    // kills it, which aborts the FUSE connection: any request still pending
    // fails instead of hanging.
    (void)daemon_->Wait(std::chrono::seconds(5));
    daemon_.reset();
  }
  if (!backing_.empty()) ::unlink(backing_.c_str());
  for (const std::string& d : {mount_point_, fuse_dir_, dir_}) {
    if (!d.empty()) ::rmdir(d.c_str());
  }
}

}  // namespace iomimic::test
