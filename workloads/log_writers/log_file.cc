#include "log_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "iomimic/status.h"

namespace iomimic::log_writers {

LogFile::LogFile(std::string dir, std::string name, const LogSettings* settings,
                 const OpTable* ops)
    : dir_(std::move(dir)), name_(std::move(name)), settings_(*settings), ops_(*ops) {
  if (settings_.flush.buffered()) buffer_.resize(settings_.flush.buffer_bytes);
}

LogFile::~LogFile() {
  if (fd_ >= 0) ::close(fd_);
}

void LogFile::Create() { Open(nullptr); }

// rec == nullptr: at prepare, untimed. Otherwise a rotation's open and
// fallocate, recorded.
void LogFile::Open(Recorder* rec) {
  const std::string path = Path();
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC;
  if (settings_.flush.kind == FlushPolicy::Kind::kOdsync) flags |= O_DSYNC;
  auto open_file = [&] { fd_ = CheckSys(::open(path.c_str(), flags, 0644), "open", path); };
  // KEEP_SIZE: the file's size stays what was written, so O_APPEND writes
  // land at the start of the reserved space, as a logger preallocating
  // ahead of its writes.
  auto reserve = [&] {
    CheckSys(::fallocate(fd_, FALLOC_FL_KEEP_SIZE, 0,
                         static_cast<off_t>(settings_.prealloc_bytes)),
             "fallocate", path);
  };
  if (rec == nullptr) {
    open_file();
    if (settings_.prealloc_bytes != 0) reserve();
  } else {
    Timed(*rec, ops_[OpKind::kOpen], 0, open_file);
    if (settings_.prealloc_bytes != 0) {
      Timed(*rec, ops_[OpKind::kFallocate], settings_.prealloc_bytes, reserve);
    }
  }
  file_bytes_ = 0;
  unsynced_bytes_ = 0;
}

void LogFile::BeginRecord(Recorder& rec, bool measuring) {
  if (measuring && !measured_) {
    measured_ = true;
    at_measure_start_ = counters_;
  }
  if (settings_.rotate_bytes != 0 && file_bytes_ >= settings_.rotate_bytes) Rotate(rec);
}

void LogFile::Rotate(Recorder& rec) {
  WriteOutBuffer(rec);
  const std::string path = Path();
  Timed(rec, ops_[OpKind::kClose], 0, [&] {
    const int fd = fd_;
    fd_ = -1;  // closed even when close() reports an error
    CheckSys(::close(fd), "close", path);
  });
  const std::string rotated = RotatedPath(counters_.rotations + 1);
  Timed(rec, ops_[OpKind::kRename], 0,
        [&] { CheckSys(::rename(path.c_str(), rotated.c_str()), "rename", path); });
  ++counters_.rotations;
  Open(&rec);
}

void LogFile::Append(Recorder& rec, const char* data, uint64_t n) {
  counters_.bytes += n;
  file_bytes_ += n;
  unsynced_bytes_ += n;
  if (!settings_.flush.buffered()) {
    WriteAll(rec, data, n);
    return;
  }
  // As stdio's full buffering: fill to the brim, write the whole buffer.
  while (n > 0) {
    const uint64_t k = std::min<uint64_t>(n, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, data, k);
    buffered_ += k;
    data += k;
    n -= k;
    if (buffered_ == buffer_.size()) WriteOutBuffer(rec);
  }
}

void LogFile::WriteAll(Recorder& rec, const char* data, uint64_t n) {
  const OpId op = ops_[OpKind::kWrite];
  const bool dsync = settings_.flush.kind == FlushPolicy::Kind::kOdsync;
  while (n > 0) {
    const uint64_t start = NowNs();
    const ssize_t w = ::write(fd_, data, n);
    const uint64_t end = NowNs();
    if (w <= 0) {
      rec.RecordError(op, start, end);
      // A regular file returns 0 only when it cannot take more: say so.
      throw SysError("write", Path(), w < 0 ? errno : ENOSPC);
    }
    rec.Record(op, start, end, static_cast<uint64_t>(w));
    ++counters_.write_calls;
    if (dsync) {
      ++counters_.flushes;
      counters_.flushed_bytes += static_cast<uint64_t>(w);
    }
    data += w;
    n -= static_cast<uint64_t>(w);
  }
}

void LogFile::WriteOutBuffer(Recorder& rec) {
  if (buffered_ == 0) return;
  WriteAll(rec, buffer_.data(), buffered_);
  ++counters_.flushes;
  counters_.flushed_bytes += buffered_;
  buffered_ = 0;
}

void LogFile::Seek(Recorder& rec) {
  Timed(rec, ops_[OpKind::kLseek], 0,
        [&] { CheckSys(::lseek(fd_, 0, SEEK_CUR), "lseek", Path()); });
  ++counters_.lseeks;
}

void LogFile::EndRecord(Recorder& rec) {
  ++counters_.records;
  if (settings_.flush.syncs_every_n() && counters_.records % settings_.flush.every == 0) {
    Sync(rec);
  }
}

void LogFile::Sync(Recorder& rec) {
  const std::string path = Path();
  if (settings_.flush.kind == FlushPolicy::Kind::kFsync) {
    Timed(rec, ops_[OpKind::kFsync], unsynced_bytes_,
          [&] { CheckSys(::fsync(fd_), "fsync", path); });
  } else {
    Timed(rec, ops_[OpKind::kFdatasync], unsynced_bytes_,
          [&] { CheckSys(::fdatasync(fd_), "fdatasync", path); });
  }
  ++counters_.flushes;
  counters_.flushed_bytes += unsynced_bytes_;
  unsynced_bytes_ = 0;
}

void LogFile::Finish(Recorder& rec) { WriteOutBuffer(rec); }

LogCounters LogFile::counters() const {
  const LogCounters& a = counters_;
  const LogCounters& b = at_measure_start_;
  return {a.records - b.records,         a.bytes - b.bytes,
          a.write_calls - b.write_calls, a.lseeks - b.lseeks,
          a.flushes - b.flushes,         a.flushed_bytes - b.flushed_bytes,
          a.rotations - b.rotations};
}

std::vector<std::string> LogFile::Paths() const {
  std::vector<std::string> paths;
  for (uint64_t k = 1; k <= counters_.rotations; ++k) paths.push_back(RotatedPath(k));
  paths.push_back(Path());
  return paths;
}

}  // namespace iomimic::log_writers
