// Filesystem geometry that statvfs does not give, read the way the
// filesystems' own tools read it:
//   xfs:  the XFS_IOC_FSGEOMETRY ioctl (what xfs_info prints): allocation
//         groups, log, stripe unit/width, inode size.
//   ext4: `dumpe2fs -h` on the mount's block device, read only (what
//         tune2fs -l prints): features, block and inode size, flex_bg.
// Best effort: whatever cannot be read is left out, never guessed.
#include <fcntl.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xfs/xfs.h>

#include <cstring>
#include <sstream>
#include <string>

#include "probes/fs_geometry.h"

extern char** environ;

namespace iomimic::probes {
namespace {


// Runs argv (no shell) and returns its stdout, or "" on any failure.
std::string Capture(const std::vector<std::string>& argv) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipefd[1]);
  std::string out;
  if (rc == 0) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(pipefd[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out.clear();
  }
  ::close(pipefd[0]);
  return out;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  const size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

std::optional<result::XfsGeometry> ReadXfsGeometry(const std::string& mount_point) {
  const int fd = ::open(mount_point.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  xfs_fsop_geom g{};
  const int rc = ::ioctl(fd, XFS_IOC_FSGEOMETRY, &g);
  ::close(fd);
  if (rc != 0) return std::nullopt;
  result::XfsGeometry x;
  x.block_size = g.blocksize;
  x.ag_count = g.agcount;
  x.ag_blocks = g.agblocks;
  x.ag_bytes = static_cast<uint64_t>(g.agblocks) * g.blocksize;
  x.data_blocks = g.datablocks;
  x.log_blocks = g.logblocks;
  x.sector_size = g.sectsize;
  x.inode_size = g.inodesize;
  x.dir_block_size = g.dirblocksize;
  x.stripe_unit_blocks = g.sunit;
  x.stripe_width_blocks = g.swidth;
  x.realtime_blocks = g.rtblocks;
  return x;
}

std::optional<result::Ext4Superblock> ReadExt4Superblock(const std::string& device_node) {
  if (device_node.empty() || device_node[0] != '/') return std::nullopt;
  const std::string text = Capture({"dumpe2fs", "-h", device_node});
  if (text.empty()) return std::nullopt;
  result::Ext4Superblock ext4;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    const std::string value = Trim(line.substr(colon + 1));
    if (key == "Filesystem features") {
      std::vector<std::string> features;
      std::istringstream words(value);
      for (std::string w; words >> w;) features.push_back(w);
      ext4.features = std::move(features);
    } else if (key == "Block size" || key == "Inode size" || key == "Flex block group size" ||
               key == "Blocks per group" || key == "Inodes per group" ||
               key == "Reserved block count" || key == "Cluster size") {
      std::string name;
      for (char c : key) name += c == ' ' ? '_' : static_cast<char>(std::tolower(c));
      try {
        ext4.numbers.emplace_back(name, std::stoull(value));
      } catch (...) {
        ext4.texts.emplace_back(name, value);
      }
    } else if (key == "Journal size" || key == "Default mount options" ||
               key == "Filesystem flags") {
      std::string name;
      for (char c : key) name += c == ' ' ? '_' : static_cast<char>(std::tolower(c));
      ext4.texts.emplace_back(name, value);
    }
  }
  if (ext4.empty()) return std::nullopt;
  return ext4;
}

}  // namespace iomimic::probes
