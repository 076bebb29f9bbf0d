// Every path a trace names, and what the trace implies about it: did it
// exist before the program ran (and as a file or a directory), how large
// was it then, how large did it grow, did the program create or delete it.
// Prepare lays out exactly the "existed before" set with those sizes, so
// the replay's opens, stats and ENOENT probes meet the same outcomes.
// Memory: O(paths). Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace iomimic::trace {

enum class Initial : uint8_t { kUnknown, kAbsent, kFile, kDir };

struct FileInfo {
  std::string path;        // absolute, normalised, as traced
  Initial initial = Initial::kUnknown;
  bool touched_by_trace = false;  // the trace wrote, truncated, created or removed it
  uint64_t initial_size = 0;      // the bytes it must hold before the replay
  uint64_t size = 0;              // its size as the trace goes on
  uint64_t max_size = 0;          // the largest it became
  uint32_t parent = 0xffffffffu;  // the directory holding it (kNoId at "/")
  bool created = false, deleted = false, mmapped = false, is_dir = false;
  // Opened with O_CREAT (no O_EXCL, no O_TRUNC) before anything else: it
  // existed if it shows data before the trace writes to it.
  bool maybe_existed = false;
  uint64_t enoent = 0;            // failed lookups (ENOENT) of this path
  uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
  uint64_t sequential = 0, random = 0;  // reads+writes at / away from the last end
  uint64_t last_end = ~0ull;
};

class FileTable {
 public:
  // The id of `path` (absolute, normalised), added when new.
  uint32_t Id(const std::string& path);
  FileInfo& at(uint32_t id) { return files_[id]; }
  const FileInfo& at(uint32_t id) const { return files_[id]; }
  size_t size() const { return files_.size(); }
  const std::vector<FileInfo>& files() const { return files_; }

  // The first thing the trace shows about a path fixes what it was before.
  void Saw(uint32_t id, Initial what);
  // The size a file shows while its content is still the original one.
  void SawSize(uint32_t id, uint64_t size);
  // A maybe_existed file showed data before the trace wrote: it existed.
  void ConfirmExisted(uint32_t id);
  void Grew(uint32_t id, uint64_t end);  // a write or extension to `end`
  void SetSize(uint32_t id, uint64_t size);  // ftruncate, O_TRUNC
  // After the last event: the directories that must exist for the files
  // that did (and for those the trace created in a directory it did not).
  void Finish();

  // Bytes the files take at their largest (each rounded up to 4 KiB, a
  // directory as one block): what one copy of the replay can allocate.
  // under: only the paths below this directory ("" = all).
  uint64_t Footprint(const std::string& under = {}) const;

 private:
  std::vector<FileInfo> files_;
  std::unordered_map<std::string, uint32_t> ids_;
};

// True when path is dir or below it ("" holds everything).
bool PathUnder(const std::string& path, const std::string& dir);

// "/a/./b//c/../d" → "/a/b/d". `base` is the directory a relative path
// starts at ("" = unknown: the path is taken from "/").
std::string NormalisePath(std::string_view base, std::string_view path);

}  // namespace iomimic::trace
