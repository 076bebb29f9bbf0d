// One update of one RRD file, by access method, issuing the system calls
// rrdtool issues and recording each one.
//
//   pread        open(O_RDWR), fcntl(F_SETLK, F_WRLCK), pread(header at 0),
//                per due archive pread(row) then pwrite(row), pwrite of
//                live_head, pdp_prep, cdp_prep, rra_ptr (rrdtool's
//                write_changes_to_disk), close. rrdtool built without mmap.
//   mmap         open, fcntl lock, fstat, mmap(whole file, MAP_SHARED) with
//                default advice, header and rows loaded and stored through
//                the mapping, munmap, close. No msync.
//   mmap_random  as mmap, the way rrdtool 1.7's rrd_open() does it on Linux:
//                madvise(MADV_RANDOM) on the whole mapping before the header
//                is read, then madvise(MADV_NORMAL) and madvise(MADV_WILLNEED)
//                on its first page.
//
// The file's own header is the state: cur_row of each archive is read from
// it, advanced (wrapping) and written back, as rrdtool does. An Updater
// holds one header and one row; memory does not grow with the files.
//
// Thread-safety: one Updater per thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iomimic/recorder.h"
#include "rrd_layout.h"

namespace iomimic::rrd_update {

enum class Access { kPread, kMmap, kMmapRandom };

// What every update of one pass does.
struct PassPlan {
  const std::vector<uint32_t>* due = nullptr;  // archives that get a row
  uint64_t time = 0;                           // the pass's time: the new last_up
  bool read_rows = true;                       // read each due row before writing it
};

// What the application asked for, summed over updates.
struct UpdateTally {
  uint64_t app_read_bytes = 0;
  uint64_t app_write_bytes = 0;
  uint64_t syscalls = 0;
};

class Updater {
 public:
  Updater(Access access, const Layout& layout);

  // Updates the file at `path`. Records every op into `rec` and adds to
  // `tally`. Throws SysError (the file is closed and unmapped first).
  void Update(const std::string& path, const PassPlan& plan, Recorder& rec, UpdateTally* tally);

 private:
  int OpenAndLock(const std::string& path, Recorder& rec, UpdateTally* tally);
  void ViaPread(int fd, const std::string& path, const PassPlan& plan, Recorder& rec,
                UpdateTally* tally);
  void ViaMmap(int fd, const std::string& path, const PassPlan& plan, Recorder& rec,
               UpdateTally* tally);
  // Moves archive a's cur_row in header_ one row on; returns its offset.
  uint64_t AdvanceRow(uint32_t a, const std::string& path);
  void CheckHeader(const std::string& path) const;

  Access access_;
  const Layout& layout_;
  size_t page_;
  std::vector<char> header_;
  std::vector<char> row_;
};

}  // namespace iomimic::rrd_update
