#include "source_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "build_ops.h"
#include "iomimic/status.h"

namespace iomimic::build_tree {
namespace {

// The kernel's record for getdents64 (glibc's struct dirent64 has the same
// layout, but declaring it here keeps the parsing explicit).
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

struct Entry {
  std::string name;
  unsigned char type;
};

// Runs call() and records it as op when rec is set.
template <typename F>
void MaybeTimed(Recorder* rec, OpId op, uint64_t bytes, F&& call) {
  if (rec != nullptr) {
    Timed(*rec, op, bytes, call);
  } else {
    call();
  }
}

std::vector<Entry> ReadDirectory(int fd, const std::string& path, Recorder* rec) {
  std::vector<Entry> entries;
  alignas(8) char buf[32 << 10];
  for (;;) {
    long n = 0;
    MaybeTimed(rec, kGetdents, 0, [&] {
      n = CheckSys(::getdents64(fd, buf, sizeof(buf)), "getdents64", path);
    });
    if (n == 0) break;
    for (long off = 0; off < n;) {
      const auto* d = reinterpret_cast<const LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      const char* name = d->d_name;
      if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      entries.push_back({name, d->d_type});
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return entries;
}

}  // namespace

WalkStats WalkTree(const std::string& root, Recorder* rec, const FileVisitor& on_file) {
  WalkStats stats;
  // Pending directories, relative to root; popped from the back, pushed in
  // reverse name order, so the walk is depth first in name order.
  std::vector<std::string> pending = {""};
  while (!pending.empty()) {
    const std::string rel = std::move(pending.back());
    pending.pop_back();
    const std::string path = rel.empty() ? root : root + "/" + rel;
    int fd = -1;
    MaybeTimed(rec, kOpen, 0, [&] {
      fd = CheckSys(OpenForReading(path.c_str(), O_DIRECTORY), "open", path);
    });
    std::vector<std::string> subdirs;
    try {
      const std::vector<Entry> entries = ReadDirectory(fd, path, rec);
      ++stats.dirs;
      stats.entries += entries.size();
      for (const Entry& e : entries) {
        unsigned char type = e.type;
        if (type == DT_UNKNOWN) {  // some filesystems do not fill d_type
          struct stat st {};
          MaybeTimed(rec, kStat, 0, [&] {
            CheckSys(::fstatat(fd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW), "stat",
                     path + "/" + e.name);
          });
          type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
        }
        if (type == DT_DIR) {
          subdirs.push_back(rel.empty() ? e.name : rel + "/" + e.name);
        } else if (type == DT_REG) {
          ++stats.files;
          on_file(rel, e.name, fd);
        }
      }
    } catch (...) {
      ::close(fd);
      throw;
    }
    MaybeTimed(rec, kClose, 0, [&] { CheckSys(::close(fd), "close", path); });
    for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) pending.push_back(std::move(*it));
  }
  return stats;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

bool HasSuffix(std::string_view name, const std::vector<std::string>& suffixes) {
  for (const std::string& s : suffixes) {
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      return true;
    }
  }
  return false;
}

void SourceList::Add(const std::string& rel_dir, std::string_view name) {
  if (dirs_.empty() || dirs_.back() != rel_dir) dirs_.push_back(rel_dir);
  sources_.push_back({static_cast<uint32_t>(dirs_.size() - 1), static_cast<uint32_t>(name.size()),
                      names_.size()});
  names_.append(name);
}

std::string_view SourceList::Name(size_t i) const {
  return std::string_view(names_).substr(sources_[i].name_off, sources_[i].name_len);
}

std::string SourceList::RelPath(size_t i) const {
  const std::string& dir = dirs_[sources_[i].dir];
  std::string out = dir.empty() ? std::string() : dir + "/";
  out.append(Name(i));
  return out;
}

std::string SourceList::ObjectRelPath(size_t i) const { return RelPath(i) + ".o"; }

uint64_t SourceList::MemoryBytes() const {
  uint64_t n = names_.capacity() + sources_.capacity() * sizeof(Entry);
  for (const std::string& d : dirs_) n += sizeof(std::string) + d.capacity();
  return n;
}

}  // namespace iomimic::build_tree
