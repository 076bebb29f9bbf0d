// What an emulated disk is made of, recorded before each part is created,
// so that whatever was killed (`disk up` half-way, the daemon, a run with
// --disk) `iomimic disk down` or `iomimic clean` can take it apart.
//
// One directory per disk under the state root (/run/iomimic/disks, or
// $IOMIMIC_DISK_STATE): state.json (this record, written atomically),
// model.ini (+ model.ini.name) for the daemon, daemon.log, fuse/ (the
// daemon's FUSE mount, serving fuse/disk.img and fuse/stats).
// The loop device and the daemon are found again from the system itself
// (/sys/block/loop*/loop/backing_file, /proc/*/cmdline), never trusted from
// the record alone: a number recorded before a kill may belong to another.
// Thread-safety: none needed (one command at a time per disk).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iomimic::disk {

struct DiskRecord {
  std::string id;            // "disk-<12 hex>", also the daemon's --id
  std::string dir;           // state directory of this disk
  std::string mount;         // absolute mount point of the emulated filesystem
  bool created_mount = false;  // the mount point was made by up: down removes it
  std::string fs;            // ext4 | xfs | btrfs
  std::string mkfs_opts;
  std::string model;         // model name
  uint64_t size = 0;
  std::string backing;       // the sparse file on a real filesystem
  std::string phase;         // "starting" until mounted, then "up"
  pid_t creator_pid = 0;     // the process that ran `up`
  uint64_t creator_start = 0;
  pid_t owner_pid = 0;       // a run --disk that owns it (0: until `disk down`)
  uint64_t owner_start = 0;
  std::string created_at;

  std::string fuse_dir() const { return dir + "/fuse"; }
  std::string served_file() const { return fuse_dir() + "/disk.img"; }
  std::string stats_file() const { return fuse_dir() + "/stats"; }
};

std::string StateRoot();
void WriteRecord(const DiskRecord& r);  // throws SysError
std::optional<DiskRecord> ReadRecord(const std::string& dir);
std::vector<DiskRecord> AllRecords();

// Process start time (/proc/PID/stat field 22), 0 when the process is gone.
uint64_t ProcessStart(pid_t pid);
bool ProcessAlive(pid_t pid, uint64_t start);

// Pids of running iomimic-diskd processes with `--id id`.
std::vector<pid_t> DaemonPids(const std::string& id);
// Loop devices ("/dev/loop3") whose backing file is `file`, or that are
// the source of `mount` with a backing file the kernel calls deleted.
std::vector<std::string> LoopsOver(const std::string& file, const std::string& mount = "");
// The source of the last filesystem mounted at `path` ("" when none).
std::string MountSource(const std::string& path);
// True when `path` is a mount point (in /proc/self/mountinfo).
bool IsMountPoint(const std::string& path);

}  // namespace iomimic::disk
