#include "replay_layout.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "iomimic/io.h"
#include "iomimic/status.h"

namespace iomimic::replay {

void MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) throw SysError("mkdir", path, errno);
}

void MakeDirs(const std::string& root, const std::string& under) {
  MakeDir(root);
  for (size_t at = 1; at < under.size(); ++at) {
    at = under.find('/', at);
    if (at == std::string::npos) at = under.size();
    MakeDir(root + under.substr(0, at));
  }
}

uint64_t LayOutFile(const std::string& path, uint64_t size) {
  const int fd = CheckSys(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644),
                          "open", path);
  std::vector<char> chunk(std::min<uint64_t>(size, 1 << 20));
  for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>('A' + i % 26);
  uint64_t done = 0;
  try {
    while (done < size) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), size - done));
      WriteAll(fd, chunk.data(), n, path);
      done += n;
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  CheckSys(::close(fd), "close", path);
  return done;
}

}  // namespace iomimic::replay
