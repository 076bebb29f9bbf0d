// The report's `disk_model` section: when a run's target is on an emulated
// disk, the model, its parameters and the daemon's counters over the
// measured phase (docs/emulated-disk.md, "In a run's report").
//
// The disk is found from the target itself, not from iomimic's records:
// the target's block device is a loop device whose backing file is an
// iomimic-diskd's served disk.img, next to which the daemon serves `stats`.
// Thread-safety: pure functions over files; call from one thread.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace iomimic::disk {

// The daemon's stats document for the emulated disk holding `path`;
// nullopt when `path` is not on one (or its daemon is gone).
std::optional<nlohmann::json> ReadDiskStats(const std::string& path);

// {model, parameters, counters: after - before, derived figures}; null
// when either snapshot is missing.
nlohmann::json DiskModelSection(const std::optional<nlohmann::json>& before,
                                const std::optional<nlohmann::json>& after);

}  // namespace iomimic::disk
