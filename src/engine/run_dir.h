// The run directory: the only place iomimic writes.
//
// Created fresh (mkdtemp) under the target; removed afterwards with
// everything in it, and nothing else: removal never follows symbolic links
// and never crosses into another filesystem mounted inside it.
#pragma once

#include <cstdint>
#include <string>

namespace iomimic::engine {

// The pseudo filesystem `path` is on ("proc", "sysfs", "cgroup2", ...), ""
// for a filesystem that holds data (or when it cannot be told).
std::string PseudoFilesystemOf(const std::string& path);

// Refuses (UsageError, exit 2) a target that is missing, not a directory, a
// block device, on a pseudo filesystem (/proc, /sys), "/", read-only, or without room for footprint + min_free.
// Returns the target's canonical path.
std::string CheckTarget(const std::string& target, uint64_t footprint, uint64_t min_free);

// For a directory a module only reads (never writes): it must exist and be
// a directory. Returns the canonical path.
std::string CheckReadable(const std::string& path);

// Creates <target>/iomimic-<module>-XXXXXX. Throws SysError.
std::string CreateRunDir(const std::string& target, const std::string& module);

// Removes the run directory tree, its marker (run_marker.h) and the
// directory itself last: a kill -9 at any point leaves a directory `clean`
// still knows, or an empty one. Throws SysError on the first failure.
void RemoveRunDir(const std::string& run_dir);

}  // namespace iomimic::engine
