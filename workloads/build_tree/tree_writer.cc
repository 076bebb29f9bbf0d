#include "tree_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "iomimic/status.h"

namespace iomimic::build_tree {
namespace {

// 64-byte lines of C that no include scanner mistakes for a directive.
constexpr char kFillerLine[] =
    "static int iomimic_filler; /* build_tree: bytes to compile */  \n";
static_assert(sizeof(kFillerLine) - 1 == 64);

void MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) throw SysError("mkdir", path, errno);
}

void WriteFile(const std::string& path, const std::string& content) {
  const int fd = CheckSys(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644),
                          "open", path);
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0) {
      const int err = errno;
      ::close(fd);
      throw SysError("write", path, err);
    }
    done += static_cast<size_t>(w);
  }
  CheckSys(::close(fd), "close", path);
}

void AppendFiller(std::string* content, uint64_t size) {
  while (content->size() < size) {
    const size_t n = std::min<size_t>(sizeof(kFillerLine) - 1, size - content->size());
    content->append(kFillerLine, n);
  }
}

}  // namespace

bool WriteTree(const TreeShape& shape, const std::string& root, const std::function<bool()>& stop,
               TreeBytes* written) {
  MakeDir(root);
  MakeDir(root + "/include");
  for (uint64_t k = 0; k < shape.params().include_path; ++k) {
    MakeDir(root + "/" + TreeShape::IncludeDirRelPath(k));
  }
  std::string content;
  for (uint64_t h = 0; h < shape.headers(); ++h) {
    if (h % 1024 == 0 && stop()) return false;
    content.clear();
    AppendFiller(&content, shape.HeaderSize(h));
    WriteFile(root + "/" + shape.HeaderRelPath(h), content);
    ++written->files;
    written->bytes += content.size();
  }
  const uint64_t per_dir = shape.params().files_per_dir;
  for (uint64_t i = 0; i < shape.sources(); ++i) {
    if (i % per_dir == 0) {
      if (stop()) return false;
      MakeDir(root + "/" + shape.SourceDirName(i / per_dir));
    }
    content.clear();
    for (uint64_t j = 0; j < shape.params().includes_per_source; ++j) {
      content += shape.IncludeLine(shape.Include(i, j));
    }
    AppendFiller(&content, shape.SourceSize(i));
    WriteFile(root + "/" + shape.SourceRelPath(i), content);
    ++written->files;
    written->bytes += content.size();
  }
  return true;
}

}  // namespace iomimic::build_tree
