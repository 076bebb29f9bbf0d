// CachedBytes: how much of a file is in the page cache, by mincore() over a
// read-only mapping (the mapping faults nothing in; mincore only looks).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "probes/probes.h"

namespace iomimic::probes {

std::optional<uint64_t> CachedBytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOATIME);
  const int fd2 = fd >= 0 ? fd : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd2 < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd2, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd2);
    return std::nullopt;
  }
  if (st.st_size == 0) {
    ::close(fd2);
    return 0;
  }
  const size_t len = static_cast<size_t>(st.st_size);
  void* map = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd2, 0);
  ::close(fd2);
  if (map == MAP_FAILED) return std::nullopt;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec((len + page - 1) / page);
  std::optional<uint64_t> cached;
  if (::mincore(map, len, vec.data()) == 0) {
    uint64_t pages = 0;
    for (unsigned char v : vec) pages += v & 1;
    cached = pages * page;
  }
  ::munmap(map, len);
  return cached;
}

}  // namespace iomimic::probes
