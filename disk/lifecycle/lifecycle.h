// Bringing an emulated disk up and down (docs/emulated-disk.md):
//   up:   state record -> sparse backing file -> daemon (FUSE) -> loop
//         device with direct I/O over the served file -> mkfs -> mount
//   down: unmount -> detach the loop device -> stop the daemon -> unmount
//         the FUSE directory -> remove the backing file and the record
// Down works from whatever state a kill left (each step checks the system,
// not the record). Needs root.
// Thread-safety: none (a command-line operation).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lifecycle/state.h"

namespace iomimic::disk {

struct UpOptions {
  std::string model = "hdd-7200";  // a shipped model's name or an .ini path
  std::vector<std::pair<std::string, std::string>> overrides;  // --set key=value
  uint64_t size = 4ull << 30;
  std::string fs = "xfs";          // ext4 | xfs | btrfs
  std::string mkfs_opts;           // split on spaces, passed to mkfs
  std::string mount;               // "" = DIR/mnt in the state directory
  std::string backing_dir = "/var/tmp";  // a real filesystem, never the emulated one
  pid_t owner_pid = 0;             // a run --disk: the disk goes when it does
};

// Throws UsageError for bad input (nothing left behind), SysError or
// std::runtime_error when building it failed (what was made is removed).
DiskRecord Up(const UpOptions& options);

// Takes the disk apart. `force`: a busy filesystem is unmounted lazily.
// Returns the problems met ("" when all went); the record is kept when
// anything is left, so down can be run again.
std::string Down(const DiskRecord& record, bool force,
                 const std::function<void(const std::string&)>& say = {});

// The record of the disk mounted at `mount` (a path, resolved).
std::optional<DiskRecord> FindByMount(const std::string& mount);

// The record of the emulated disk that holds `path` (same st_dev as its
// mount point), nullopt when none.
std::optional<DiskRecord> FindHolding(const std::string& path);

// "up", "starting", "broken: daemon gone", "orphaned: its run is gone".
std::string Health(const DiskRecord& record);

// Takes down every disk that nothing stands behind any more (its run or
// its `up` was killed, its daemon died). For `iomimic clean`. Returns
// false when one could not be taken down.
bool CleanStaleDisks(bool dry_run, const std::function<void(const std::string&)>& say);

}  // namespace iomimic::disk
