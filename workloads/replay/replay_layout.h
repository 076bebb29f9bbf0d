// Lays out, under one copy's root, what the trace implies existed before
// the program ran: its directories, and its files with their implied
// sizes, filled with synthetic data (written, not sparse: the replay's
// reads must reach the disk as the program's did).
#pragma once

#include <cstdint>
#include <string>

#include "trace/file_table.h"

namespace iomimic::replay {

// Returns the bytes written. Throws SysError. stop() true: return early.
// under: only what is below this traced directory ("" = all).
template <typename Stop>
uint64_t LayOut(const trace::FileTable& files, const std::string& root, const std::string& under,
                Stop stop);

uint64_t LayOutFile(const std::string& path, uint64_t size);
void MakeDir(const std::string& path);
// root, then each directory of `under` below it.
void MakeDirs(const std::string& root, const std::string& under);

template <typename Stop>
uint64_t LayOut(const trace::FileTable& files, const std::string& root, const std::string& under,
                Stop stop) {
  uint64_t bytes = 0;
  MakeDirs(root, under);
  // Parents come before their children in the table (FileTable::Id).
  for (const trace::FileInfo& f : files.files()) {
    if (stop()) break;
    if (f.path == "/" || !trace::PathUnder(f.path, under)) continue;
    if (f.initial == trace::Initial::kDir) MakeDir(root + f.path);
    if (f.initial == trace::Initial::kFile) bytes += LayOutFile(root + f.path, f.initial_size);
  }
  return bytes;
}

}  // namespace iomimic::replay
