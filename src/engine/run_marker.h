// A run directory says whose it is: RUN_DIR/.iomimic-run, a small JSON file
// written when the run begins (the process, the boot, the module, and the
// settings --tune changed with their values before).
//
// A run ended by kill -9 or a crash cannot clean up after itself; `iomimic
// clean` reads the marker to tell such a run from a live one, puts the
// settings back and removes the directory. The marker is inside the run
// directory, so writing it keeps the promise of never writing outside it.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace iomimic::engine {

inline constexpr const char* kRunMarkerName = ".iomimic-run";

struct RunMarker {
  int pid = 0;
  std::string boot_id;  // /proc/sys/kernel/random/boot_id: a pid means nothing after a reboot
  std::string started_at;
  std::string module;
  nlohmann::json tunings = nlohmann::json::array();  // Tunings::Journal()
  // The run ended and --keep left the directory on purpose: clean leaves it.
  bool kept = false;
  // Read back only: the owner of the marker file (restoring settings from a
  // marker needs it to be root's).
  unsigned owner_uid = 0;
};

// This process's marker (pid, boot id), to fill in.
RunMarker MarkerOfThisProcess();

// Writes RUN_DIR/.iomimic-run atomically (util/atomic_file.h: whole or
// absent, fsynced with its directory, mode 0600). Throws SysError.
void WriteRunMarker(const std::string& run_dir, const RunMarker& marker);

// nullopt when the directory has no marker or it cannot be parsed.
std::optional<RunMarker> ReadRunMarker(const std::string& run_dir);

// True when the process that wrote the marker still runs: the same boot,
// the pid exists, and it is an iomimic.
bool RunIsAlive(const RunMarker& marker);

}  // namespace iomimic::engine
