#include "rrd_access.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "iomimic/fault_guard.h"
#include "iomimic/status.h"
#include "rrd_image.h"
#include "rrd_ops.h"

namespace iomimic::rrd_update {
namespace {

// A file this module did not write, or one truncated under it.
constexpr int kCorrupt = EBADMSG;

// pread/pwrite of exactly len bytes; a short transfer is an error (the
// files are ours and never shorter than the layout).
void PreadExact(int fd, char* buf, size_t len, uint64_t off, const char* op,
                const std::string& path) {
  const ssize_t n = CheckSys(::pread(fd, buf, len, static_cast<off_t>(off)), op, path);
  if (static_cast<size_t>(n) != len) throw SysError(std::string(op) + " (short)", path, kCorrupt);
}

void PwriteExact(int fd, const char* buf, size_t len, uint64_t off, const char* op,
                 const std::string& path) {
  const ssize_t n = CheckSys(::pwrite(fd, buf, len, static_cast<off_t>(off)), op, path);
  if (static_cast<size_t>(n) != len) throw SysError(std::string(op) + " (short)", path, EIO);
}

// Closes (and unmaps) on the way out of a failed update, unrecorded.
struct Cleanup {
  int fd = -1;
  void* map = nullptr;
  size_t len = 0;
  ~Cleanup() {
    if (map != nullptr) ::munmap(map, len);
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Updater::Updater(Access access, const Layout& layout)
    : access_(access),
      layout_(layout),
      page_(static_cast<size_t>(::sysconf(_SC_PAGESIZE))),
      header_(layout.header_bytes()),
      row_(layout.row_bytes()) {}

int Updater::OpenAndLock(const std::string& path, Recorder& rec, UpdateTally* tally) {
  int fd = -1;
  Timed(rec, kOpen, 0,
        [&] { fd = CheckSys(::open(path.c_str(), O_RDWR | O_CLOEXEC), "open", path); });
  ++tally->syscalls;
  try {
    // rrdtool's default lock: try, whole file, exclusive (rrd_lock()).
    Timed(rec, kFcntlLock, 0, [&] {
      struct flock lock {};
      lock.l_type = F_WRLCK;
      lock.l_whence = SEEK_SET;
      CheckSys(::fcntl(fd, F_SETLK, &lock), "fcntl_lock", path);
    });
    ++tally->syscalls;
  } catch (...) {
    ::close(fd);
    throw;
  }
  return fd;
}

void Updater::CheckHeader(const std::string& path) const {
  if (!HasRrdCookie(header_.data()) ||
      LoadU64(header_.data(), kStatDsCntAt) != layout_.data_sources() ||
      LoadU64(header_.data(), kStatRraCntAt) != layout_.archive_count()) {
    throw SysError("header (not this run's RRD layout)", path, kCorrupt);
  }
}

uint64_t Updater::AdvanceRow(uint32_t a, const std::string& path) {
  const uint64_t rows = layout_.archive(a).rows;
  const uint64_t at = CurRowOffset(layout_, a);
  const uint64_t cur = LoadU64(header_.data(), at);
  if (cur >= rows) throw SysError("header (cur_row out of range)", path, kCorrupt);
  const uint64_t next = cur + 1 == rows ? 0 : cur + 1;
  StoreU64(header_.data(), at, next);
  return layout_.row_offset(a, next);
}

void Updater::Update(const std::string& path, const PassPlan& plan, Recorder& rec,
                     UpdateTally* tally) {
  const int fd = OpenAndLock(path, rec, tally);
  Cleanup guard{fd};
  if (access_ == Access::kPread) {
    ViaPread(fd, path, plan, rec, tally);
  } else {
    ViaMmap(fd, path, plan, rec, tally);
  }
  guard.fd = -1;
  Timed(rec, kClose, 0, [&] { CheckSys(::close(fd), "close", path); });
  ++tally->syscalls;
}

void Updater::ViaPread(int fd, const std::string& path, const PassPlan& plan, Recorder& rec,
                       UpdateTally* tally) {
  const Layout& l = layout_;
  Timed(rec, kPreadHeader, header_.size(),
        [&] { PreadExact(fd, header_.data(), header_.size(), 0, "pread_header", path); });
  tally->app_read_bytes += header_.size();
  ++tally->syscalls;
  CheckHeader(path);
  for (uint32_t a : *plan.due) {
    const uint64_t off = AdvanceRow(a, path);
    if (plan.read_rows) {
      Timed(rec, kPreadRow, row_.size(),
            [&] { PreadExact(fd, row_.data(), row_.size(), off, "pread_row", path); });
      tally->app_read_bytes += row_.size();
      ++tally->syscalls;
    }
    for (uint64_t d = 0; d < l.data_sources(); ++d) {
      StoreDouble(row_.data(), d * kValueBytes, static_cast<double>(plan.time));
    }
    Timed(rec, kPwriteRow, row_.size(),
          [&] { PwriteExact(fd, row_.data(), row_.size(), off, "pwrite_row", path); });
    tally->app_write_bytes += row_.size();
    ++tally->syscalls;
  }
  StoreU64(header_.data(), l.live_head_offset(), plan.time);
  // write_changes_to_disk(): the four live sections, one write each.
  const uint64_t sections[4][2] = {{l.live_head_offset(), kLiveHeadBytes},
                                   {l.pdp_prep_offset(), l.pdp_prep_bytes()},
                                   {l.cdp_prep_offset(), l.cdp_prep_bytes()},
                                   {l.rra_ptr_offset(), l.rra_ptr_bytes()}};
  for (const auto& section : sections) {
    // Plain locals: clang 14 (the fuzz build) cannot capture a structured binding.
    const uint64_t off = section[0], len = section[1];
    Timed(rec, kPwriteHeader, len, [&] {
      PwriteExact(fd, header_.data() + off, len, off, "pwrite_header", path);
    });
    tally->app_write_bytes += len;
    ++tally->syscalls;
  }
}

void Updater::ViaMmap(int fd, const std::string& path, const PassPlan& plan, Recorder& rec,
                      UpdateTally* tally) {
  const Layout& l = layout_;
  struct stat st {};
  Timed(rec, kFstat, 0, [&] { CheckSys(::fstat(fd, &st), "fstat", path); });
  ++tally->syscalls;
  const size_t len = static_cast<size_t>(st.st_size);
  if (len < l.file_bytes()) throw SysError("fstat (file shorter than its layout)", path, kCorrupt);

  char* map = nullptr;
  Timed(rec, kMmap, 0, [&] {
    void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) throw SysError("mmap", path, errno);
    map = static_cast<char*>(p);
  });
  ++tally->syscalls;
  Cleanup unmap{-1, map, len};
  auto advise = [&](size_t bytes, int advice) {
    Timed(rec, kMadvise, 0, [&] { CheckSys(::madvise(map, bytes, advice), "madvise", path); });
    ++tally->syscalls;
  };
  const bool random = access_ == Access::kMmapRandom;
  if (random) advise(len, MADV_RANDOM);  // "we do not need to read anything in for the moment"

  Timed(rec, kTouchReadHeader, header_.size(), [&] {
    CatchSigbus("touch_read_header", path,
                [&] { std::memcpy(header_.data(), map, header_.size()); });
  });
  tally->app_read_bytes += header_.size();
  CheckHeader(path);
  if (random) {
    // rrd_open() after reading the header: undo RANDOM for the header page.
    advise(page_, MADV_NORMAL);
    advise(page_, MADV_WILLNEED);
  }

  for (uint32_t a : *plan.due) {
    const uint64_t off = AdvanceRow(a, path);
    if (plan.read_rows) {
      Timed(rec, kTouchReadRow, row_.size(), [&] {
        CatchSigbus("touch_read_row", path,
                    [&] { std::memcpy(row_.data(), map + off, row_.size()); });
      });
      tally->app_read_bytes += row_.size();
    }
    for (uint64_t d = 0; d < l.data_sources(); ++d) {
      StoreDouble(row_.data(), d * kValueBytes, static_cast<double>(plan.time));
    }
    Timed(rec, kTouchWriteRow, row_.size(), [&] {
      CatchSigbus("touch_write_row", path,
                  [&] { std::memcpy(map + off, row_.data(), row_.size()); });
    });
    tally->app_write_bytes += row_.size();
  }
  StoreU64(header_.data(), l.live_head_offset(), plan.time);
  // rrdtool updates live_head, pdp_prep, cdp_prep and rra_ptr in place.
  Timed(rec, kTouchWriteHeader, l.live_bytes(), [&] {
    CatchSigbus("touch_write_header", path, [&] {
      std::memcpy(map + l.live_offset(), header_.data() + l.live_offset(), l.live_bytes());
    });
  });
  tally->app_write_bytes += l.live_bytes();

  unmap.map = nullptr;
  Timed(rec, kMunmap, 0, [&] { CheckSys(::munmap(map, len), "munmap", path); });
  ++tally->syscalls;
}

}  // namespace iomimic::rrd_update
