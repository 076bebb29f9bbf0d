#include "support/loop_fs.h"

#include <dirent.h>

#include <fcntl.h>
#include <linux/blkpg.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/run_binary.h"
#include "support/sys_setting.h"

namespace iomimic::test {
namespace {

std::string Joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Runs `argv`; throws with the command line and everything it printed
// when it does not exit 0. Returns its stdout.
std::string Run(const std::vector<std::string>& argv) {
  const RunResult r = RunCommand(argv);
  if (r.exit_code != 0) {
    throw std::runtime_error("`" + Joined(argv) + "` exited " + std::to_string(r.exit_code) +
                             ": " + r.out + r.err);
  }
  return r.out;
}

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t begin = 0;
  while (begin < s.size() && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
  return s.substr(begin);
}

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string MkfsProgram(const std::string& fs_type) { return "mkfs." + fs_type; }

// True when the kernel lists `fs_type` in /proc/filesystems or could load
// it as a module (a modules directory for the running kernel exists; the
// module is then loaded at mount time).
bool KernelKnowsFs(const std::string& fs_type) {
  std::ifstream in("/proc/filesystems");
  if (!in) return true;  // cannot tell: let mount decide
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    if (Trim(tab == std::string::npos ? line : line.substr(tab + 1)) == fs_type) return true;
  }
  utsname u {};
  if (::uname(&u) != 0) return true;
  return ::access(("/lib/modules/" + std::string(u.release)).c_str(), F_OK) == 0;
}

// A DOS partition table with one Linux partition from sector 2048 (1 MiB,
// the usual alignment) to the end of a `size_bytes` disk.
std::string MasterBootRecord(uint64_t size_bytes) {
  std::string mbr(512, '\0');
  const uint32_t first = 2048;
  const uint64_t sectors = size_bytes / 512;
  const uint32_t count = sectors > first ? static_cast<uint32_t>(sectors - first) : 0;
  const auto put32 = [&mbr](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) mbr[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  const size_t entry = 446;
  mbr[entry + 0] = 0x00;  // not bootable
  // CHS fields are ignored by Linux when the LBA ones are set: 0xfe,0xff,0xff
  // is the conventional "use LBA" value.
  mbr[entry + 1] = static_cast<char>(0xfe);
  mbr[entry + 2] = static_cast<char>(0xff);
  mbr[entry + 3] = static_cast<char>(0xff);
  mbr[entry + 4] = static_cast<char>(0x83);  // Linux
  mbr[entry + 5] = static_cast<char>(0xfe);
  mbr[entry + 6] = static_cast<char>(0xff);
  mbr[entry + 7] = static_cast<char>(0xff);
  put32(entry + 8, first);
  put32(entry + 12, count);
  mbr[510] = 0x55;
  mbr[511] = static_cast<char>(0xaa);
  return mbr;
}

// BLKPG_ADD_PARTITION: what `addpart` does, without needing it installed.
void AddPartition(const std::string& disk, int number, uint64_t start, uint64_t length) {
  const int fd = ::open(disk.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("open " + disk + ": " + std::strerror(errno));
  blkpg_partition part {};
  part.start = static_cast<long long>(start);
  part.length = static_cast<long long>(length);
  part.pno = number;
  blkpg_ioctl_arg arg {};
  arg.op = BLKPG_ADD_PARTITION;
  arg.datalen = sizeof part;
  arg.data = &part;
  const int rc = ::ioctl(fd, BLKPG, &arg);
  const int err = errno;
  ::close(fd);
  if (rc != 0) {
    throw std::runtime_error("ioctl BLKPG_ADD_PARTITION " + disk + ": " + std::strerror(err));
  }
}

std::string TempBase() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/var/tmp";
}

}  // namespace

std::unique_ptr<LoopFs> LoopFs::Create(const std::string& fs_type, uint64_t size_bytes,
                                       const std::string& mkfs_extra,
                                       const std::string& mount_opts) {
  return CreateImpl(fs_type, size_bytes, mkfs_extra, mount_opts, false);
}

std::unique_ptr<LoopFs> LoopFs::CreatePartitioned(const std::string& fs_type,
                                                  uint64_t size_bytes,
                                                  const std::string& mkfs_extra,
                                                  const std::string& mount_opts) {
  return CreateImpl(fs_type, size_bytes, mkfs_extra, mount_opts, true);
}

std::unique_ptr<LoopFs> LoopFs::CreateImpl(const std::string& fs_type, uint64_t size_bytes,
                                           const std::string& mkfs_extra,
                                           const std::string& mount_opts, bool partitioned) {
  if (fs_type != "ext4" && fs_type != "xfs" && fs_type != "btrfs") {
    throw std::runtime_error("LoopFs: unsupported filesystem type '" + fs_type + "'");
  }
  // Owned from the first step on, so that a failure below tears down
  // exactly what was set up, through the destructor.
  std::unique_ptr<LoopFs> fs(new LoopFs());
  fs->fs_type_ = fs_type;

  std::string dir_template = TempBase() + "/iomimic-loopfs-XXXXXX";
  if (::mkdtemp(dir_template.data()) == nullptr) {
    throw std::runtime_error("mkdtemp " + dir_template + ": " + std::strerror(errno));
  }
  // Resolved, so that paths compare equal to what the kernel reports
  // (mountinfo, loop/backing_file) even when $TMPDIR is a symlink.
  char resolved[PATH_MAX];
  fs->dir_ = ::realpath(dir_template.c_str(), resolved) != nullptr ? resolved : dir_template;

  fs->image_ = fs->dir_ + "/" + fs_type + ".img";
  const int fd = ::open(fs->image_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("create " + fs->image_ + ": " + std::strerror(errno));
  // Sparse: the image costs only what the filesystem writes.
  int rc = ::ftruncate(fd, static_cast<off_t>(size_bytes));
  if (rc == 0 && partitioned) {
    const std::string mbr = MasterBootRecord(size_bytes);
    rc = ::pwrite(fd, mbr.data(), mbr.size(), 0) == static_cast<ssize_t>(mbr.size()) ? 0 : -1;
  }
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("prepare " + fs->image_ + ": " + std::strerror(err));

  fs->mount_point_ = fs->dir_ + "/mnt";
  if (::mkdir(fs->mount_point_.c_str(), 0755) != 0) {
    throw std::runtime_error("mkdir " + fs->mount_point_ + ": " + std::strerror(errno));
  }

  // losetup picks a free device and binds it in one LOOP_CONFIGURE, but two
  // callers can still race for the same free number; the loser gets EBUSY.
  for (int attempt = 0;; ++attempt) {
    std::vector<std::string> argv = {"losetup", "--find", "--show", fs->image_};
    // --partscan makes the kernel read the table and create loopNp1.
    if (partitioned) argv.insert(argv.begin() + 1, "--partscan");
    const RunResult r = RunCommand(argv);
    if (r.exit_code == 0) {
      fs->device_ = Trim(r.out);
      break;
    }
    if (attempt >= 4 || r.err.find("busy") == std::string::npos) {
      throw std::runtime_error("`" + Joined(argv) + "` exited " + std::to_string(r.exit_code) +
                               ": " + r.out + r.err);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  std::string fs_device = fs->device_;
  if (partitioned) {
    fs->partition_ = fs->device_ + "p1";
    fs_device = fs->partition_;
    // The kernel creates loopNp1 when it can parse the table itself; a
    // kernel built without any partition-table parser (this project's CI VM
    // has none) needs the partition declared by hand.
    if (::access(fs_device.c_str(), F_OK) != 0) {
      AddPartition(fs->device_, 1, 2048ull * 512, size_bytes - 2048ull * 512);
    }
    // devtmpfs creates the node without udev, but not always at once.
    for (int i = 0; i < 50 && ::access(fs_device.c_str(), F_OK) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::vector<std::string> mkfs = {MkfsProgram(fs_type), "-q"};
  mkfs.push_back(fs_type == "ext4" ? "-F" : "-f");
  const std::vector<std::string> extra = Words(mkfs_extra);
  bool has_block_size = false;
  for (const std::string& w : extra) has_block_size = has_block_size || w.rfind("-b", 0) == 0;
  if (fs_type == "ext4" && !has_block_size) mkfs.insert(mkfs.end(), {"-b", "4096"});
  mkfs.insert(mkfs.end(), extra.begin(), extra.end());
  mkfs.push_back(fs_device);
  Run(mkfs);

  std::vector<std::string> mount = {"mount", "-t", fs_type};
  if (!mount_opts.empty()) mount.insert(mount.end(), {"-o", mount_opts});
  mount.insert(mount.end(), {fs_device, fs->mount_point_});
  Run(mount);
  fs->mounted_ = true;
  return fs;
}

LoopFs::~LoopFs() { TearDown(); }

std::string LoopFs::device_name() const {
  const size_t slash = device_.find_last_of('/');
  return slash == std::string::npos ? device_ : device_.substr(slash + 1);
}

void LoopFs::Sync() const {
  const int fd = ::open(mount_point_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("open " + mount_point_ + ": " + std::strerror(errno));
  const int rc = ::syncfs(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("syncfs " + mount_point_ + ": " + std::strerror(err));
}

void LoopFs::TearDown() noexcept {
  bool lazy = false;
  if (mounted_) {
    // EBUSY right after a test usually means writeback or a just-closed
    // file still holds the filesystem: sync and try again before giving up.
    bool done = false;
    for (int attempt = 0; attempt < 5 && !done; ++attempt) {
      if (::umount2(mount_point_.c_str(), 0) == 0 || errno == EINVAL || errno == ENOENT) {
        done = true;
      } else {
        ::sync();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    }
    // Last resort: detach it from the tree now; the kernel releases the
    // filesystem (and with it the loop device) when the last user goes.
    if (!done) ::umount2(mount_point_.c_str(), MNT_DETACH);
    lazy = !done;
    mounted_ = false;
  }
  if (!device_.empty()) {
    // A lazily unmounted filesystem holds the device until its last user
    // goes: do not wait for that detach.
    DetachLoopIfBoundTo(device_, image_,
                        lazy ? std::chrono::milliseconds(0) : std::chrono::seconds(10));
    device_.clear();
  }
  if (!image_.empty()) ::unlink(image_.c_str());
  if (!mount_point_.empty()) ::rmdir(mount_point_.c_str());
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

std::string LoopUnavailableReason() {
  if (::geteuid() != 0) {
    return "needs root to set up loop devices and mount (euid " + std::to_string(::geteuid()) +
           ")";
  }
  if (::access("/dev/loop-control", F_OK) != 0) {
    return "no /dev/loop-control (loop driver not available)";
  }
  for (const char* tool : {"losetup", "mount"}) {
    if (!FindProgram(tool)) return std::string(tool) + " not found";
  }
  return "";
}

std::string LoopFsUnavailableReason(const std::string& fs_type) {
  std::string reason = LoopUnavailableReason();
  if (reason.empty() && !FindProgram(MkfsProgram(fs_type))) {
    reason = MkfsProgram(fs_type) + " not found";
  }
  if (reason.empty() && !KernelKnowsFs(fs_type)) {
    reason = "the kernel has no " + fs_type + " support (/proc/filesystems, no modules)";
  }
  return reason;
}

void DetachLoopIfBoundTo(const std::string& device, const std::string& backing_file,
                         std::chrono::milliseconds wait_for_detach) noexcept {
  try {
    const std::string name = device.substr(device.find_last_of('/') + 1);
    if (ReadTrimmed("/sys/block/" + name + "/loop/backing_file") != backing_file) return;
    const int fd = ::open(device.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (::ioctl(fd, LOOP_CLR_FD, 0) == 0 || errno != EBUSY) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::close(fd);
    // While anyone else holds the device open (udev probing it after the
    // unmount, another test's blkid), LOOP_CLR_FD only marks it autoclear:
    // the detach happens at the last close. Wait for it, so that a caller
    // who asked for a detach finds the device free (seen under ctest -j2).
    const auto deadline = std::chrono::steady_clock::now() + wait_for_detach;
    while (ReadTrimmed("/sys/block/" + name + "/loop/backing_file") == backing_file &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  } catch (...) {
    // Best effort, as the rest of a teardown.
  }
}

int CountEntries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != ".." && name != "lost+found") ++n;
  }
  ::closedir(d);
  return n;
}

}  // namespace iomimic::test
