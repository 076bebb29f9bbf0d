#include "trace/file_table.h"

#include <algorithm>

namespace iomimic::trace {

std::string NormalisePath(std::string_view base, std::string_view path) {
  std::vector<std::string_view> parts;
  auto add = [&parts](std::string_view p) {
    while (!p.empty()) {
      const size_t slash = p.find('/');
      std::string_view part = p.substr(0, slash);
      p = slash == std::string_view::npos ? std::string_view() : p.substr(slash + 1);
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (!parts.empty()) parts.pop_back();
        continue;
      }
      parts.push_back(part);
    }
  };
  if (path.empty() || path.front() != '/') add(base);
  add(path);
  std::string r;
  for (std::string_view p : parts) {
    r += '/';
    r.append(p);
  }
  return r.empty() ? "/" : r;
}

uint32_t FileTable::Id(const std::string& path) {
  auto it = ids_.find(path);
  if (it != ids_.end()) return it->second;
  // The parent first, so that a directory always comes before what it holds.
  uint32_t parent = 0xffffffffu;
  if (path != "/") {
    const size_t slash = path.rfind('/');
    parent = Id(slash == 0 ? "/" : path.substr(0, slash));
  }
  const uint32_t id = static_cast<uint32_t>(files_.size());
  ids_.emplace(path, id);
  files_.push_back(FileInfo{.path = path, .parent = parent});
  return id;
}

void FileTable::Saw(uint32_t id, Initial what) {
  FileInfo& f = files_[id];
  if (what == Initial::kDir) f.is_dir = true;
  if (f.initial == Initial::kUnknown) f.initial = what;
}

void FileTable::SawSize(uint32_t id, uint64_t size) {
  FileInfo& f = files_[id];
  if (!f.touched_by_trace && f.initial == Initial::kFile) {
    f.initial_size = std::max(f.initial_size, size);
  }
  f.size = std::max(f.size, size);
  f.max_size = std::max(f.max_size, size);
}

void FileTable::ConfirmExisted(uint32_t id) {
  FileInfo& f = files_[id];
  if (!f.maybe_existed || f.touched_by_trace) return;
  f.initial = Initial::kFile;
  f.created = f.maybe_existed = false;
}

void FileTable::Grew(uint32_t id, uint64_t end) {
  FileInfo& f = files_[id];
  f.touched_by_trace = true;
  f.size = std::max(f.size, end);
  f.max_size = std::max(f.max_size, f.size);
}

void FileTable::SetSize(uint32_t id, uint64_t size) {
  FileInfo& f = files_[id];
  f.touched_by_trace = true;
  f.size = size;
  f.max_size = std::max(f.max_size, size);
}

void FileTable::Finish() {
  // Children come after their parents in files_ (Id adds the parent
  // first), so one backward sweep carries "must exist" up the tree.
  std::vector<bool> needed(files_.size(), false);
  for (size_t i = files_.size(); i-- > 0;) {
    FileInfo& f = files_[i];
    const bool existed = f.initial == Initial::kFile || f.initial == Initial::kDir;
    if (needed[i] && f.initial == Initial::kUnknown) f.initial = Initial::kDir;
    if (needed[i] && f.initial == Initial::kFile) f.initial = Initial::kDir;  // held a child
    const bool used = existed || needed[i] || f.created;
    if (used && f.parent != 0xffffffffu && files_[f.parent].initial != Initial::kAbsent) {
      needed[f.parent] = true;
    }
  }
}

bool PathUnder(const std::string& path, const std::string& dir) {
  if (dir.empty() || dir == "/") return true;
  return path.compare(0, dir.size(), dir) == 0 &&
         (path.size() == dir.size() || path[dir.size()] == '/' || dir.back() == '/');
}

uint64_t FileTable::Footprint(const std::string& under) const {
  uint64_t total = 0;
  for (const FileInfo& f : files_) {
    if (!PathUnder(f.path, under)) continue;
    if (f.initial == Initial::kDir || f.is_dir) {
      total += 4096;
      continue;
    }
    const uint64_t bytes = std::max(f.initial_size, f.max_size);
    total += (bytes + 4095) / 4096 * 4096;
  }
  return total;
}

}  // namespace iomimic::trace
