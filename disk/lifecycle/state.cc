#include "lifecycle/state.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "iomimic/status.h"
#include "util/atomic_file.h"

namespace iomimic::disk {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// /proc/self/mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* de = ::readdir(d)) {
    if (de->d_name[0] != '.') names.push_back(de->d_name);
  }
  ::closedir(d);
  return names;
}

}  // namespace

std::string StateRoot() {
  const char* env = std::getenv("IOMIMIC_DISK_STATE");
  return env != nullptr && *env != '\0' ? env : "/run/iomimic/disks";
}

void WriteRecord(const DiskRecord& r) {
  const nlohmann::json j = {{"id", r.id},
                            {"mount", r.mount},
                            {"created_mount", r.created_mount},
                            {"fs", r.fs},
                            {"mkfs_opts", r.mkfs_opts},
                            {"model", r.model},
                            {"size", r.size},
                            {"backing", r.backing},
                            {"phase", r.phase},
                            {"creator_pid", r.creator_pid},
                            {"creator_start", r.creator_start},
                            {"owner_pid", r.owner_pid},
                            {"owner_start", r.owner_start},
                            {"created_at", r.created_at}};
  WriteFileAtomically(r.dir + "/state.json", j.dump(1) + "\n", 0644);
}

std::optional<DiskRecord> ReadRecord(const std::string& dir) {
  const nlohmann::json j = nlohmann::json::parse(ReadText(dir + "/state.json"), nullptr, false);
  if (!j.is_object()) return std::nullopt;
  DiskRecord r;
  r.dir = dir;
  try {
    r.id = j.at("id");
    r.mount = j.at("mount");
    r.created_mount = j.at("created_mount");
    r.fs = j.at("fs");
    r.mkfs_opts = j.at("mkfs_opts");
    r.model = j.at("model");
    r.size = j.at("size");
    r.backing = j.at("backing");
    r.phase = j.at("phase");
    r.creator_pid = j.at("creator_pid");
    r.creator_start = j.at("creator_start");
    r.owner_pid = j.at("owner_pid");
    r.owner_start = j.at("owner_start");
    r.created_at = j.at("created_at");
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return r;
}

std::vector<DiskRecord> AllRecords() {
  std::vector<DiskRecord> out;
  for (const std::string& name : ListDir(StateRoot())) {
    if (name.rfind("disk-", 0) != 0) continue;
    if (auto r = ReadRecord(StateRoot() + "/" + name)) out.push_back(*r);
  }
  return out;
}

uint64_t ProcessStart(pid_t pid) {
  if (pid <= 0) return 0;
  const std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream in(stat.substr(paren + 2));
  std::string field;
  // Fields after the command: state is 3, start time is 22.
  for (int i = 3; i <= 22 && in >> field; ++i) {
    if (i == 3 && (field == "Z" || field == "X")) return 0;
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

bool ProcessAlive(pid_t pid, uint64_t start) {
  return pid > 0 && ProcessStart(pid) == start && start != 0;
}

std::vector<pid_t> DaemonPids(const std::string& id) {
  std::vector<pid_t> pids;
  for (const std::string& name : ListDir("/proc")) {
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmd = ReadText("/proc/" + name + "/cmdline");
    if (cmd.find("iomimic-diskd") == std::string::npos) continue;
    if (cmd.find(std::string("--id") + '\0' + id + '\0') == std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stoi(name));
    if (ProcessStart(pid) != 0) pids.push_back(pid);
  }
  return pids;
}

std::vector<std::string> LoopsOver(const std::string& file, const std::string& mount) {
  std::vector<std::string> loops;
  const std::string source = MountSource(mount);
  for (const std::string& name : ListDir("/sys/block")) {
    if (name.rfind("loop", 0) != 0) continue;
    std::string backing = ReadText("/sys/block/" + name + "/loop/backing_file");
    while (!backing.empty() && backing.back() == '\n') backing.pop_back();
    // Once the FUSE directory is gone (unmounted lazily, daemon killed)
    // the kernel names the file "/disk.img (deleted)": then the loop device
    // is ours only if it is the source of our mount.
    const bool orphan = backing == "/disk.img (deleted)" && source == "/dev/" + name;
    if (backing == file || orphan) loops.push_back("/dev/" + name);
  }
  return loops;
}

std::string MountSource(const std::string& path) {
  std::istringstream in(ReadText("/proc/self/mountinfo"));
  std::string line, source;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, devno, root, mount_point;
    f >> id >> parent >> devno >> root >> mount_point;
    const size_t dash = line.find(" - ");
    if (Unescape(mount_point) != path || dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string fstype;
    tail >> fstype >> source;
  }
  return source;
}

bool IsMountPoint(const std::string& path) {
  std::istringstream in(ReadText("/proc/self/mountinfo"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, devno, root, mount_point;
    f >> id >> parent >> devno >> root >> mount_point;
    if (Unescape(mount_point) == path) return true;
  }
  return false;
}

}  // namespace iomimic::disk
