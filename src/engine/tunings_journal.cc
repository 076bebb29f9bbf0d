#include "engine/tunings_journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "iomimic/status.h"
#include "platform/sysfs.h"
#include "util/atomic_file.h"

namespace iomimic::engine {
namespace {

constexpr const char* kJournalPrefix = "journal-";
constexpr const char* kLockPrefix = "lock-";

std::string BootId() {
  return platform::ReadFileTrimmed("/proc/sys/kernel/random/boot_id").value_or("");
}

// A setting file's path as one file name: '%' and '/' escaped.
std::string LockName(const std::string& setting) {
  std::string out = kLockPrefix;
  for (char c : setting) {
    if (c == '%') {
      out += "%25";
    } else if (c == '/') {
      out += "%2F";
    } else {
      out += c;
    }
  }
  return out;
}

std::string ReadAll(int fd) {
  std::string text;
  char buf[4096];
  off_t off = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buf, static_cast<size_t>(n));
    off += n;
  }
}

bool WriteAllAt(int fd, const std::string& text) {
  if (::ftruncate(fd, 0) != 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done,
                               static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return ::fsync(fd) == 0;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> NamesWithPrefix(const std::string& dir, const char* prefix) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* de = ::readdir(d)) {
    if (std::strncmp(de->d_name, prefix, std::strlen(prefix)) == 0) names.push_back(de->d_name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// The lock file, opened and flocked; -1 when a live holder has it.
// Retries while the file it locked was unlinked by its last holder.
int OpenLocked(const std::string& file) {
  for (;;) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw SysError("open", file, errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) return -1 - fd;  // the caller reads who holds it
      ::close(fd);
      throw SysError("flock", file, err);
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::lstat(file.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
      return fd;
    }
    ::close(fd);  // removed (or replaced) after we opened it: again
  }
}

// nlohmann's value() throws on a field of another type: a planted or
// damaged file must not.
int IntField(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<int>() : 0;
}
std::string TextField(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string TuneRefusal(const std::string& why) { return fmt::format("option 'tune': {}", why); }

}  // namespace

std::string StateDir() {
  const char* env = std::getenv("IOMIMIC_STATE_DIR");
  return env != nullptr && *env != '\0' ? env : "/run/iomimic";
}

std::string EnsureStateDir() {
  const std::string dir = StateDir();
  if (dir[0] != '/') {
    throw UsageError(TuneRefusal(fmt::format(
        "IOMIMIC_STATE_DIR='{}' must be an absolute path (`iomimic clean` looks there from "
        "any directory)",
        dir)));
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    throw UsageError(TuneRefusal(fmt::format("cannot create the state directory '{}' (where "
                                             "the journal of the changes is kept): {}",
                                             dir, std::strerror(errno))));
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    throw UsageError(TuneRefusal(fmt::format(
        "the state directory '{}' must be a directory of the user running iomimic that nobody "
        "else can write to (set IOMIMIC_STATE_DIR to use another)",
        dir)));
  }
  return dir;
}

TuningsJournal::~TuningsJournal() {
  if (journal_fd_ >= 0) ::close(journal_fd_);
  ReleaseLocks(/*remove=*/false);
}

void TuningsJournal::Lock(const std::string& setting, const std::string& shown) {
  const std::string file = dir_ + "/" + LockName(setting);
  const int got = OpenLocked(file);
  const int fd = got >= 0 ? got : -1 - got;
  const nlohmann::json holder =
      nlohmann::json::parse(ReadAll(fd), nullptr, /*allow_exceptions=*/false);
  const int pid = IntField(holder, "pid");
  const std::string journal = TextField(holder, "journal");
  if (got < 0) {
    ::close(fd);
    throw UsageError(TuneRefusal(fmt::format(
        "{} is being changed by another iomimic run (pid {}); two runs changing one setting "
        "would put back each other's values. Wait for it, or tune something else",
        shown, pid)));
  }
  if (!journal.empty() && journal.find('/') == std::string::npos &&
      Exists(dir_ + "/" + journal)) {
    ::close(fd);
    throw UsageError(TuneRefusal(fmt::format(
        "{} was changed by an iomimic run that was killed (pid {}) and is not put back yet: "
        "run 'iomimic clean' first",
        shown, pid)));
  }
  const nlohmann::json mine = {{"pid", static_cast<int>(::getpid())},
                               {"boot_id", BootId()},
                               {"setting", setting},
                               {"journal", journal_.substr(dir_.size() + 1)}};
  if (!WriteAllAt(fd, mine.dump() + "\n")) {
    const int err = errno;
    ::close(fd);
    throw SysError("write", file, err);
  }
  locks_.push_back({file, fd});
}

void TuningsJournal::Begin(const nlohmann::json& entries, const std::vector<std::string>& paths) {
  dir_ = EnsureStateDir();
  journal_ = fmt::format("{}/{}{}-{}.json", dir_, kJournalPrefix, ::getpid(), RandomSuffix());
  try {
    std::vector<std::string> unique = paths;
    std::sort(unique.begin(), unique.end());  // one order for every run: no lock cycles
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    for (const std::string& p : unique) {
      if (p.empty()) continue;
      // Named as --tune names it where the journal says so, for messages.
      std::string shown = p;
      for (const nlohmann::json& e : entries) {
        if (TextField(e, "path") == p) shown = TextField(e, "name") + " (" + p + ")";
      }
      Lock(p, shown);
    }
    const nlohmann::json doc = {{"pid", static_cast<int>(::getpid())},
                                {"boot_id", BootId()},
                                {"entries", entries}};
    // Named only once whole and locked: `clean` never sees it half written
    // or unlocked while this run lives (O_TMPFILE; where the filesystem
    // has none, created under its final name and locked at once).
    int fd = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    const bool unnamed = fd >= 0;
    if (!unnamed) {
      fd = ::open(journal_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    }
    if (fd < 0) throw SysError("open", journal_, errno);
    journal_fd_ = fd;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) throw SysError("flock", journal_, errno);
    if (!WriteAllAt(fd, doc.dump(1) + "\n")) throw SysError("write", journal_, errno);
    if (unnamed) {
      const std::string self = fmt::format("/proc/self/fd/{}", fd);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, journal_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
        throw SysError("linkat", journal_, errno);
      }
    }
    FsyncParentDir(journal_);
  } catch (const SysError& e) {
    End();
    throw UsageError(TuneRefusal(
        fmt::format("cannot write the journal of the changes in '{}': {}", dir_, e.what())));
  } catch (...) {
    End();
    throw;
  }
}

void TuningsJournal::End() noexcept {
  if (journal_fd_ >= 0) {
    ::unlink(journal_.c_str());
    try {
      FsyncParentDir(journal_);
    } catch (const SysError&) {
      // The journal is gone from the directory; a crash before the fsync
      // would bring back one whose settings read as before: clean removes it.
    }
    ::close(journal_fd_);
    journal_fd_ = -1;
  }
  ReleaseLocks(/*remove=*/true);
}

void TuningsJournal::Keep() noexcept {
  if (journal_fd_ >= 0) ::close(journal_fd_);
  journal_fd_ = -1;
  ReleaseLocks(/*remove=*/false);
}

void TuningsJournal::ReleaseLocks(bool remove) noexcept {
  for (const HeldLock& l : locks_) {
    if (remove) ::unlink(l.file.c_str());  // while still locked: see OpenLocked
    ::close(l.fd);
  }
  locks_.clear();
}

std::vector<FoundJournal> FindJournals() {
  std::vector<FoundJournal> found;
  const std::string dir = StateDir();
  for (const std::string& name : NamesWithPrefix(dir, kJournalPrefix)) {
    FoundJournal j;
    j.file = dir + "/" + name;
    const int fd = ::open(j.file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st {}, dir_st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      if (fd >= 0) ::close(fd);
      j.refused = "not a regular file";
      found.push_back(std::move(j));
      continue;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      j.alive = true;
    } else {
      j.fd = fd;
      j.doc = nlohmann::json::parse(ReadAll(fd), nullptr, /*allow_exceptions=*/false);
      if (!j.doc.is_object()) j.doc = nullptr;
    }
    // Acting as root on a journal someone else could have written would
    // let them choose what is written to /sys.
    if (::stat(dir.c_str(), &dir_st) != 0 || st.st_uid != ::geteuid() ||
        dir_st.st_uid != ::geteuid() || (dir_st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      j.refused = "the journal or the state directory is not the user's own, or others can "
                  "write to the state directory";
    }
    found.push_back(std::move(j));
  }
  return found;
}

void RemoveJournal(FoundJournal& j) noexcept {
  const size_t slash = j.file.rfind('/');
  const std::string dir = j.file.substr(0, slash), name = j.file.substr(slash + 1);
  ::unlink(j.file.c_str());
  try {
    FsyncParentDir(j.file);
  } catch (const SysError&) {
    // As in TuningsJournal::End.
  }
  if (j.fd >= 0) ::close(j.fd);
  j.fd = -1;
  for (const std::string& lock : NamesWithPrefix(dir, kLockPrefix)) {
    const std::string file = dir + "/" + lock;
    const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    const nlohmann::json holder =
        nlohmann::json::parse(ReadAll(fd), nullptr, /*allow_exceptions=*/false);
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && TextField(holder, "journal") == name) {
      ::unlink(file.c_str());
    }
    ::close(fd);
  }
}

int RemoveStaleLocks() noexcept {
  const std::string dir = StateDir();
  int removed = 0;
  for (const std::string& lock : NamesWithPrefix(dir, kLockPrefix)) {
    const std::string file = dir + "/" + lock;
    const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      const nlohmann::json holder =
          nlohmann::json::parse(ReadAll(fd), nullptr, /*allow_exceptions=*/false);
      const std::string journal = TextField(holder, "journal");
      if (journal.empty() || journal.find('/') != std::string::npos ||
          !Exists(dir + "/" + journal)) {
        removed += ::unlink(file.c_str()) == 0;
      }
    }
    ::close(fd);
  }
  return removed;
}

}  // namespace iomimic::engine
