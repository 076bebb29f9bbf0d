// build_tree's options: the plain config struct, its option table and the
// checks across options. Main thread, before a run (see options.h).
#pragma once

#include <cstdint>
#include <string>

#include "iomimic/options.h"
#include "tree_shape.h"

namespace iomimic::build_tree {

struct BuildTreeConfig {
  // --- a generated tree (source_dir empty) ---
  // Source directories. Default: 100.
  int64_t dirs = 100;
  // Sources per directory. Default: 20. REQUIRES: dirs x files_per_dir <= 10M.
  int64_t files_per_dir = 20;
  // Mean source size, and the lognormal shape (0: every source this size).
  uint64_t source_size = 16 << 10;
  double source_size_sigma = 0.8;
  // Headers, spread over the include path. Default: 1000.
  int64_t headers = 1000;
  uint64_t header_size = 8 << 10;
  double header_size_sigma = 0.8;
  // Distinct headers each source includes. REQUIRES: <= headers.
  int64_t includes_per_source = 30;
  // Include directories searched in order, and the share of the headers in
  // the first (each next one holds that share of the rest). Defaults 4 and
  // 0.58 make ~40 % of the probes fail, as in a kernel build.
  int64_t include_path = 4;
  double first_dir_share = 0.58;
  // --- a user's tree ---
  // Walked and read, never written. Default: "" (generate a tree).
  std::string source_dir;
  // Comma-separated include directories relative to source_dir, in order.
  std::string include_dirs;
  // Which files are compiled (comma-separated suffixes).
  std::string source_suffixes = ".c,.cc,.cpp,.cxx,.S";
  // --- the build ---
  // When the tree is walked: auto (none for a generated tree, measure for a
  // user's), none, prepare (untimed), measure (timed, by job 0 while the
  // others wait, as make reading the tree before it can start jobs).
  std::string walk = "auto";
  // How an include directory is probed: open (as cpp does) or stat then open.
  std::string probe = "open";
  // CPU time burned per KiB a compile read (calibrated spin). Default 20us.
  uint64_t cpu_per_kib_ns = 20'000;
  // Object size = obj_ratio x the source's size.
  double obj_ratio = 1.0;
  // Bytes per read() and write().
  uint64_t read_size = 64 << 10;
  // Another directory for the object tree (a run directory is made in it).
  std::string obj_target;
  // Link after the last compile.
  bool link = true;
  // Fork one child process per job instead of compiling on the thread.
  bool processes = false;
};

void DeclareBuildOptions(OptionSet& o, BuildTreeConfig* c);
// "" or a message naming the options and the bad value.
std::string ValidateBuildOptions(const BuildTreeConfig& c);
// The generated tree's shape for a seed.
TreeParams TreeParamsOf(const BuildTreeConfig& c, uint64_t seed);

// realpath(), or "" when it cannot be resolved.
std::string Canonical(const std::string& path);
// path is dir or below it (both canonical).
bool IsInside(const std::string& path, const std::string& dir);

}  // namespace iomimic::build_tree
