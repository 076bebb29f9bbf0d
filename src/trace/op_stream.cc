#include "trace/op_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace iomimic::trace {
namespace {

constexpr size_t kBufOps = 64 * 1024 / sizeof(Op);

constexpr std::string_view kNames[] = {
#define IOMIMIC_TRACE_NAME(n) #n,
    IOMIMIC_TRACE_SYSCALLS(IOMIMIC_TRACE_NAME)
#undef IOMIMIC_TRACE_NAME
};
static_assert(std::size(kNames) == kSysCount);

void WriteAll(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw std::system_error(errno, std::generic_category(), "write " + path);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace

std::string_view SysName(Sys s) { return kNames[static_cast<int>(s)]; }

Sys SysFromName(std::string_view name) {
  for (int i = 0; i < kSysCount; ++i) {
    if (kNames[i] == name) return static_cast<Sys>(i);
  }
  return Sys::kCount;
}

std::string OpStreamWriter::PathOf(const std::string& dir, uint32_t thread) {
  return dir + "/t" + std::to_string(thread) + ".ops";
}

OpStreamWriter::~OpStreamWriter() {
  for (auto& o : outs_) {
    if (o && o->fd >= 0) ::close(o->fd);
  }
}

void OpStreamWriter::OnOp(const Op& op, uint32_t thread, uint64_t) {
  while (outs_.size() <= thread) {
    auto o = std::make_unique<Out>();
    o->path = PathOf(dir_, static_cast<uint32_t>(outs_.size()));
    o->fd = ::open(o->path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (o->fd < 0) throw std::system_error(errno, std::generic_category(), "open " + o->path);
    o->buf.reserve(kBufOps);
    outs_.push_back(std::move(o));
    counts_.push_back(0);
  }
  Out& o = *outs_[thread];
  o.buf.push_back(op);
  ++counts_[thread];
  if (o.buf.size() == kBufOps) {
    WriteAll(o.fd, reinterpret_cast<const char*>(o.buf.data()), o.buf.size() * sizeof(Op), o.path);
    o.buf.clear();
  }
}

void OpStreamWriter::Close() {
  for (auto& o : outs_) {
    WriteAll(o->fd, reinterpret_cast<const char*>(o->buf.data()), o->buf.size() * sizeof(Op),
             o->path);
    o->buf.clear();
    if (::close(o->fd) != 0) {
      o->fd = -1;
      throw std::system_error(errno, std::generic_category(), "close " + o->path);
    }
    o->fd = -1;
  }
}

OpStreamReader::OpStreamReader(const std::string& dir, uint32_t thread)
    : path_(OpStreamWriter::PathOf(dir, thread)), buf_(kBufOps) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  // A thread that issued no replayable op has no file: an empty stream.
  if (fd_ < 0 && errno != ENOENT) {
    throw std::system_error(errno, std::generic_category(), "open " + path_);
  }
}

OpStreamReader::~OpStreamReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool OpStreamReader::Next(Op* op) {
  if (pos_ == end_) {
    if (fd_ < 0) return false;
    ssize_t n;
    do {
      n = ::read(fd_, buf_.data(), buf_.size() * sizeof(Op));
    } while (n < 0 && errno == EINTR);
    if (n < 0) throw std::system_error(errno, std::generic_category(), "read " + path_);
    pos_ = 0;
    end_ = static_cast<size_t>(n) / sizeof(Op);
    if (end_ == 0) return false;
  }
  *op = buf_[pos_++];
  return true;
}

void OpStreamReader::Rewind() {
  pos_ = end_ = 0;
  if (fd_ >= 0 && ::lseek(fd_, 0, SEEK_SET) < 0) {
    throw std::system_error(errno, std::generic_category(), "lseek " + path_);
  }
}

}  // namespace iomimic::trace
