// The set of RRD files of a run: their names, their creation, and the page
// cache control between passes.
//
// File i is run_dir/DDD/NNNNN.rrd with DDD = i / 1000: at most 1,000 files
// a directory, as a monitoring server spreads its RRDs over host folders.
// Names are derived from the index, never stored: 100,000 files cost no
// memory until Files() asks for the list.
//
// Thread-safety: FileNames is immutable and shared; each thread formats
// into its own PathBuffer. The other functions run on one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iomimic/workload.h"
#include "rrd_layout.h"

namespace iomimic::rrd_update {

inline constexpr uint64_t kFilesPerDir = 1000;

class FileNames {
 public:
  FileNames() = default;
  explicit FileNames(std::string run_dir) : run_dir_(std::move(run_dir)) {}
  const std::string& run_dir() const { return run_dir_; }
  std::string Dir(uint64_t d) const;
  std::string Path(uint64_t i) const;
  // Every path, in index order (for the layout probe and cache control).
  std::vector<std::string> All(uint64_t files) const;

 private:
  std::string run_dir_;
};

// A per-thread buffer that holds one path at a time without allocating.
class PathBuffer {
 public:
  explicit PathBuffer(const FileNames& names);
  // File i's path, valid until the next call. Allocates only on the
  // first call (the string keeps its capacity).
  const std::string& Format(uint64_t i);

 private:
  const FileNames* names_;
  std::vector<char> buf_;
  std::string path_;
};

struct CreateSpec {
  uint64_t files = 0;
  uint64_t step = 300;
  uint64_t last_up = 0;  // one step before the first pass
  uint64_t seed = 1;
};

// Creates every file (header as rrdtool create writes it, NaN data, a
// random-looking starting row per archive), then syncfs() once so all of
// it is allocated and on disk before the first pass. Progress goes to
// stderr when it takes more than 2 s. Returns early (false) when the run
// is stopped.
bool CreateFiles(PrepareContext& ctx, const FileNames& names, const Layout& layout,
                 const CreateSpec& spec);

// syncfs() on the run directory's filesystem: every dirty page written back.
void SyncRunDir(const FileNames& names);

// cache=cold: SyncRunDir (dirty pages cannot be dropped), then
// posix_fadvise(DONTNEED) on each file. Only this run's files are dropped;
// no root needed.
void EvictFiles(const FileNames& names, uint64_t files);


}  // namespace iomimic::rrd_update
