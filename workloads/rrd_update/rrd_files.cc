#include "rrd_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "iomimic/io.h"
#include "iomimic/recorder.h"
#include "iomimic/status.h"
#include "rrd_image.h"

namespace iomimic::rrd_update {
namespace {

// Prints "rrd_update: <what> N/M" on stderr every 2 s once 2 s have passed,
// unless --quiet.
class Progress {
 public:
  Progress(const char* what, uint64_t total, bool quiet)
      : what_(what), total_(total), next_(quiet ? UINT64_MAX : NowNs() + kEvery) {}
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\n");
  }
  void Tick(uint64_t done) {
    if ((done & 63) != 0) return;  // a clock read per 64 files is plenty
    const uint64_t now = NowNs();
    if (now < next_) return;
    next_ = now + kEvery;
    shown_ = true;
    std::fprintf(stderr, "\rrrd_update: %s %llu/%llu", what_,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_));
  }

 private:
  static constexpr uint64_t kEvery = 2'000'000'000;
  const char* what_;
  uint64_t total_;
  uint64_t next_;
  bool shown_ = false;
};

}  // namespace

std::string FileNames::Dir(uint64_t d) const {
  char name[32];
  std::snprintf(name, sizeof name, "/%03llu", static_cast<unsigned long long>(d));
  return run_dir_ + name;
}

std::string FileNames::Path(uint64_t i) const {
  char name[48];
  std::snprintf(name, sizeof name, "/%03llu/%05llu.rrd",
                static_cast<unsigned long long>(i / kFilesPerDir),
                static_cast<unsigned long long>(i));
  return run_dir_ + name;
}

std::vector<std::string> FileNames::All(uint64_t files) const {
  std::vector<std::string> all;
  all.reserve(files);
  for (uint64_t i = 0; i < files; ++i) all.push_back(Path(i));
  return all;
}

PathBuffer::PathBuffer(const FileNames& names)
    : names_(&names), buf_(names.run_dir().size() + 64) {
  path_.reserve(buf_.size());
}

const std::string& PathBuffer::Format(uint64_t i) {
  const int n = std::snprintf(buf_.data(), buf_.size(), "%s/%03llu/%05llu.rrd",
                              names_->run_dir().c_str(),
                              static_cast<unsigned long long>(i / kFilesPerDir),
                              static_cast<unsigned long long>(i));
  path_.assign(buf_.data(), static_cast<size_t>(n));
  return path_;
}

namespace {

// Files up to this size are written from one image in one write; larger
// ones as their header, then their data (all unknown values) streamed from
// a buffer of this size: memory stays small whatever the archives.
constexpr uint64_t kStreamChunk = 1 << 20;

// The data part after the header: NaN after NaN, `total` bytes.
void WriteUnknownValues(int fd, const std::vector<char>& chunk, uint64_t from, uint64_t to,
                        const std::string& path) {
  for (uint64_t done = from; done < to;) {
    const uint64_t n = std::min<uint64_t>(chunk.size(), to - done);
    PwriteAll(fd, chunk.data(), n, static_cast<off_t>(done), path);
    done += n;
  }
}

}  // namespace

bool CreateFiles(PrepareContext& ctx, const FileNames& names, const Layout& layout,
                 const CreateSpec& spec) {
  const bool stream = layout.file_bytes() > kStreamChunk;
  // Whole (small files), or the header only.
  std::vector<char> image =
      FreshImage(layout, spec.step, spec.last_up, stream ? layout.header_bytes() : UINT64_MAX);
  // A chunk of the data part (8-byte values from an 8-byte aligned offset).
  std::vector<char> unknown(stream ? kStreamChunk : 0);
  for (uint64_t at = 0; at + kValueBytes <= unknown.size(); at += kValueBytes) {
    StoreDouble(unknown.data(), at, std::numeric_limits<double>::quiet_NaN());
  }
  Progress progress("creating files", spec.files, ctx.settings().quiet);
  for (uint64_t i = 0; i < spec.files; ++i) {
    if (ctx.StopRequested()) return false;
    if (i % kFilesPerDir == 0) {
      const std::string dir = names.Dir(i / kFilesPerDir);
      CheckSys(::mkdir(dir.c_str(), 0755), "mkdir", dir);
    }
    const std::string path = names.Path(i);
    SetInitialRows(layout, spec.seed, i, image.data());
    const int fd = CheckSys(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644),
                            "open", path);
    try {
      PwriteAll(fd, image.data(), image.size(), 0, path);
      if (stream) WriteUnknownValues(fd, unknown, image.size(), layout.file_bytes(), path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    CheckSys(::close(fd), "close", path);
    progress.Tick(i + 1);
  }
  // One flush for all files instead of one fsync each: the same blocks end
  // up allocated and written, 100,000 journal commits fewer.
  SyncRunDir(names);
  return true;
}

void SyncRunDir(const FileNames& names) {
  const int dfd = CheckSys(::open(names.run_dir().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC),
                           "open", names.run_dir());
  const int rc = ::syncfs(dfd);
  const int err = errno;
  ::close(dfd);
  if (rc != 0) throw SysError("syncfs", names.run_dir(), err);
}

void EvictFiles(const FileNames& names, uint64_t files) {
  // Dirty pages cannot be dropped: write them all back first, in one
  // syncfs() rather than one fdatasync (and journal commit) per file.
  SyncRunDir(names);
  for (uint64_t i = 0; i < files; ++i) {
    const std::string path = names.Path(i);
    const int fd = CheckSys(::open(path.c_str(), O_RDONLY | O_CLOEXEC), "open", path);
    // posix_fadvise returns the error instead of setting errno.
    const int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
    if (rc != 0) throw SysError("posix_fadvise", path, rc);
  }
}


}  // namespace iomimic::rrd_update
