// FileLayout: where each file lies on its device (FIEMAP), and a summary.
//
// A file the filesystem cannot map (tmpfs has no FIEMAP, a file may have
// been removed) gets an "error" string and null figures; it never fails
// the report, because the layout is evidence, not the run.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <linux/fiemap.h>
#include <optional>

#include "iomimic/status.h"
#include "platform/fiemap.h"
#include "platform/path.h"
#include "probes/probes.h"

namespace iomimic::probes {
namespace {

struct FileStats {
  uint64_t size_bytes = 0;
  uint64_t extents = 0;
  uint64_t contiguous_runs = 0;
  uint64_t unwritten = 0;
  std::optional<uint64_t> min_extent, max_extent;
};

FileStats Analyse(const std::vector<platform::Extent>& extents) {
  FileStats s;
  s.extents = extents.size();
  const platform::Extent* prev = nullptr;
  for (const platform::Extent& e : extents) {
    if (e.flags & FIEMAP_EXTENT_UNWRITTEN) ++s.unwritten;
    s.min_extent = std::min(s.min_extent.value_or(e.length), e.length);
    s.max_extent = std::max(s.max_extent.value_or(e.length), e.length);
    // Adjacent both in the file and on the device: a sequential reader
    // crosses from one to the next without a seek. Filesystems split long
    // runs (ext4 at 128 MiB, unwritten/written boundaries), which this undoes.
    const bool continues = prev != nullptr && e.logical == prev->logical + prev->length &&
                           e.physical == prev->physical + prev->length;
    if (!continues) ++s.contiguous_runs;
    prev = &e;
  }
  return s;
}

std::string Describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace

result::Layout FileLayout(const std::vector<std::string>& files, const std::string& base,
                          size_t max_listed) {
  result::Layout out;
  uint64_t mapped = 0, extents_total = 0, extents_max = 0, runs_total = 0;
  std::optional<uint64_t> min_extent;
  for (const std::string& path : files) {
    result::FileLayoutEntry f;
    f.path = platform::RelativeTo(path, base);
    std::exception_ptr error;
    FileStats s;
    try {
      const int fd = CheckSys(::open(path.c_str(), O_RDONLY | O_CLOEXEC), "open", path);
      try {
        struct stat st {};
        CheckSys(::fstat(fd, &st), "fstat", path);
        s = Analyse(platform::ReadExtents(fd, path));
        s.size_bytes = static_cast<uint64_t>(st.st_size);
      } catch (...) {
        ::close(fd);
        throw;
      }
      ::close(fd);
    } catch (...) {
      error = std::current_exception();
    }
    if (error) {
      ++out.summary.errors;
      f.error = Describe(error);
    } else {
      ++mapped;
      extents_total += s.extents;
      extents_max = std::max(extents_max, s.extents);
      runs_total += s.contiguous_runs;
      if (s.min_extent) min_extent = std::min(min_extent.value_or(*s.min_extent), *s.min_extent);
      f.size_bytes = s.size_bytes;
      f.extents = s.extents;
      f.contiguous_runs = s.contiguous_runs;
      f.min_extent_bytes = s.min_extent;
      f.max_extent_bytes = s.max_extent;
      f.unwritten_extents = s.unwritten;
    }
    if (out.files.size() < max_listed) out.files.push_back(std::move(f));
  }
  // Figures over the files that could be mapped; "errors" says how many could not.
  out.summary.files = files.size();
  if (mapped) {
    out.summary.extents_total = extents_total;
    out.summary.extents_mean = static_cast<double>(extents_total) / static_cast<double>(mapped);
    out.summary.extents_max = extents_max;
    out.summary.contiguous_runs_total = runs_total;
  }
  out.summary.min_extent_bytes = min_extent;
  out.files_omitted = files.size() - out.files.size();
  return out;
}

}  // namespace iomimic::probes
