#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "iomimic/status.h"

namespace iomimic {
namespace {

// Holds the published temporary name; kept in static storage so that the
// pointer stays valid while the signal watcher may read it.
std::atomic<const char*> pending{nullptr};
thread_local char pending_buf[4096];

class Publish {
 public:
  explicit Publish(const std::string& path) {
    if (path.size() >= sizeof pending_buf) return;
    path.copy(pending_buf, path.size());
    pending_buf[path.size()] = '\0';
    pending.store(pending_buf);
  }
  ~Publish() { pending.store(nullptr); }
  Publish(const Publish&) = delete;
  Publish& operator=(const Publish&) = delete;
};

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The process's umask without changing it (umask() would, for every
// thread, for a moment). /proc/self/status has it since Linux 4.7.
mode_t CurrentUmask() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

std::string TempName(const std::string& path) {
  return fmt::format("{}/.{}.tmp-{}", DirOf(path), BaseOf(path), RandomSuffix());
}

void WriteAll(int fd, const std::string& content, const std::string& what) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw SysError("write", what, errno);
    done += static_cast<size_t>(n);
  }
}

// Closes the descriptor and removes a named temporary unless Keep() was called.
struct Scratch {
  int fd = -1;
  std::string name;  // "" while the data has no name
  ~Scratch() {
    if (fd >= 0) ::close(fd);
    if (!name.empty()) ::unlink(name.c_str());
  }
};

// An unnamed inode in `dir`, or -1 when the filesystem has no O_TMPFILE.
int OpenUnnamed(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) return -1;
  throw SysError("open (O_TMPFILE)", dir, errno);
}

// A fresh file under a random name: O_EXCL refuses anything planted there,
// a symbolic link included.
int OpenNamed(const std::string& path, std::string* name) {
  for (int attempt = 0;; ++attempt) {
    *name = TempName(path);
    const int fd =
        ::open(name->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    if (errno != EEXIST || attempt == 100) {
      const int err = errno;
      name->clear();
      throw SysError("open", path, err);
    }
  }
}

// Gives the unnamed inode `fd` the name `name`; false when it is taken.
bool LinkUnnamed(int fd, const std::string& name) {
  const std::string self = fmt::format("/proc/self/fd/{}", fd);
  if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
    return true;
  }
  if (errno == EEXIST) return false;
  throw SysError("linkat", name, errno);
}

}  // namespace

std::string RandomSuffix() {
  unsigned char bytes[8];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw SysError("getrandom", "", errno);
    got += static_cast<size_t>(n);
  }
  std::string out;
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

const char* PendingTempFile() { return pending.load(); }

void FsyncParentDir(const std::string& path) {
  const std::string dir = DirOf(path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw SysError("open", dir, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw SysError("fsync", dir, err);
}

void WriteFileAtomically(const std::string& path, const std::string& content, mode_t mode) {
  Scratch s;
  s.fd = OpenUnnamed(DirOf(path));
  const bool unnamed = s.fd >= 0;
  if (!unnamed) s.fd = OpenNamed(path, &s.name);
  std::optional<Publish> publish;
  if (!unnamed) publish.emplace(s.name);
  WriteAll(s.fd, content, unnamed ? path : s.name);
  if (::fsync(s.fd) != 0) throw SysError("fsync", unnamed ? path : s.name, errno);
  bool in_place = false;
  if (unnamed) {
    // Linked straight to its name when that is free: no temporary name at all.
    in_place = LinkUnnamed(s.fd, path);
    for (int attempt = 0; !in_place; ++attempt) {
      const std::string name = TempName(path);
      if (LinkUnnamed(s.fd, name)) {
        s.name = name;
        publish.emplace(s.name);
        break;
      }
      if (attempt == 100) throw SysError("linkat", path, EEXIST);
    }
  }
  if (!in_place) {
    if (::rename(s.name.c_str(), path.c_str()) != 0) throw SysError("rename", path, errno);
    s.name.clear();  // it is the file now
    publish.reset();
  }
  if (::fchmod(s.fd, mode & ~CurrentUmask()) != 0 || ::fsync(s.fd) != 0) {
    throw SysError("fchmod", path, errno);
  }
  FsyncParentDir(path);
}

}  // namespace iomimic
