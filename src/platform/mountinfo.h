// The mount table of this process (/proc/self/mountinfo) and the lookup of
// the mount that holds a path.
//
// Best-effort like every /proc reader: an unreadable table is an empty
// vector, a malformed line is skipped. Thread-safe: no shared state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iomimic::platform {

// One line of mountinfo (proc(5)):
//   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
// Paths have their octal escapes (\040 for a space, ...) decoded.
struct MountEntry {
  int mount_id = 0;
  int parent_id = 0;
  // st_dev of files on this mount. For btrfs and other filesystems without
  // a single block device this is an anonymous 0:N, not the disk.
  unsigned major = 0;
  unsigned minor = 0;
  std::string root;           // the directory of the filesystem mounted here
  std::string mount_point;
  std::string options;        // per-mount: rw,nosuid,relatime
  std::string fs_type;        // ext4, xfs, btrfs, tmpfs; "fuse.sshfs" keeps its subtype
  std::string source;         // /dev/loop0, tmpfs, ... ("none" when the fs has none)
  std::string super_options;  // per-superblock: rw,seclabel,data=ordered
};

// Parses one mountinfo line; nullopt when it is not in the documented form.
std::optional<MountEntry> ParseMountInfoLine(std::string_view line);

// All mounts, in file order (a later entry on the same mount point is
// mounted over an earlier one). Empty when the file cannot be read.
std::vector<MountEntry> ReadMountInfo(const std::string& path = "/proc/self/mountinfo");

// The entry whose mount point is the longest path-component-wise prefix of
// `absolute_path` ("/mnt/a" holds "/mnt/a/x" but not "/mnt/ab"); on a tie
// the last one, which is the one on top. `absolute_path` should be resolved
// (realpath) by the caller. nullptr when nothing matches.
const MountEntry* FindMountFor(const std::vector<MountEntry>& mounts,
                               const std::string& absolute_path);

// Decodes the \ooo octal escapes the kernel writes for space, tab, newline
// and backslash in mountinfo paths.
std::string UnescapeMountPath(std::string_view text);

// Comma-separated options of `a`, then those of `b` not already present,
// e.g. MergeOptions("rw,relatime", "rw,discard") == "rw,relatime,discard".
std::string MergeOptions(std::string_view a, std::string_view b);

}  // namespace iomimic::platform
