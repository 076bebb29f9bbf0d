// The walk of a source tree, and the work queue it fills for a user's tree.
//
// WalkTree() visits a directory tree depth first in "tree order": within a
// directory the names are sorted (strcmp), its files come before its
// subdirectories. Symbolic links are never followed. It only reads:
// directories are opened O_RDONLY|O_NOATIME where permitted, and never
// written. With a Recorder each call is recorded (open, getdents, stat for
// DT_UNKNOWN entries, close); without one the walk is untimed (prepare,
// footprint estimates, the list of files for the page-cache control).
//
// SourceList stores the sources of a user's tree compactly (one directory
// string per directory, names in one arena): this is the work queue, the only
// memory that grows with the tree. Not thread-safe while it is filled; read
// concurrently afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "iomimic/recorder.h"

namespace iomimic::build_tree {

struct WalkStats {
  uint64_t dirs = 0;     // directories read
  uint64_t entries = 0;  // entries seen, "." and ".." excluded
  uint64_t files = 0;    // regular files
};

// on_file(rel_dir, name, dirfd): a regular file `name` of directory
// `rel_dir` ("" for the root; no leading or trailing slash); dirfd is open
// on that directory for fstatat(). Errors of the calls throw SysError.
using FileVisitor =
    std::function<void(const std::string& rel_dir, const std::string& name, int dirfd)>;
WalkStats WalkTree(const std::string& root, Recorder* rec, const FileVisitor& on_file);

// "a.c" matches ".c"; the list is comma-separated (".c,.cc,.S").
std::vector<std::string> SplitList(const std::string& text);
bool HasSuffix(std::string_view name, const std::vector<std::string>& suffixes);

class SourceList {
 public:
  // Files of one directory must be added together (as WalkTree visits them).
  void Add(const std::string& rel_dir, std::string_view name);
  size_t size() const { return sources_.size(); }
  uint32_t DirOf(size_t i) const { return sources_[i].dir; }
  const std::string& DirPath(uint32_t dir) const { return dirs_[dir]; }
  std::string_view Name(size_t i) const;
  // "rel_dir/name", or "name" at the root.
  std::string RelPath(size_t i) const;
  // The object's path: the source's with ".o" appended (as CMake names
  // them: foo.c and foo.S of one directory do not collide).
  std::string ObjectRelPath(size_t i) const;
  // Approximate bytes held (for the report).
  uint64_t MemoryBytes() const;

 private:
  struct Entry {
    uint32_t dir;
    uint32_t name_len;
    uint64_t name_off;
  };
  std::vector<std::string> dirs_;
  std::vector<Entry> sources_;
  std::string names_;
};

}  // namespace iomimic::build_tree
