// The ops rrd_update records: one per system call, one per access through
// a mapping, and the update and the pass as wholes. OpId = index in
// OpNames(), so the enum and the list change together.
#pragma once

#include <string>
#include <vector>

#include "iomimic/recorder.h"

namespace iomimic::rrd_update {

enum Op : OpId {
  kOpen,
  kFcntlLock,
  kFstat,
  kPreadHeader,    // pread of the whole header at offset 0
  kPreadRow,       // pread of one due row
  kPwriteRow,      // pwrite of that row
  kPwriteHeader,   // pwrite of live_head, pdp_prep, cdp_prep, rra_ptr (one each)
  kMmap,
  kMadvise,
  kTouchReadHeader,   // loads of the header through the mapping
  kTouchReadRow,      // loads of one due row through the mapping
  kTouchWriteRow,     // stores of that row
  kTouchWriteHeader,  // stores of live_head .. rra_ptr
  kMunmap,
  kClose,
  kUpdate,  // one file's whole update, open to close: the unit of work
  kPass,    // one pass over all files (recorded once per pass)
};

inline std::vector<std::string> OpNameList() {
  return {"open",           "fcntl_lock",        "fstat",          "pread_header",
          "pread_row",      "pwrite_row",        "pwrite_header",  "mmap",
          "madvise",        "touch_read_header", "touch_read_row", "touch_write_row",
          "touch_write_header", "munmap",        "close",          "update",
          "pass"};
}

// The application's bytes: what it asked the kernel (or the mapping) for.
inline std::vector<std::string> AppReadOpList() {
  return {"pread_header", "pread_row", "touch_read_header", "touch_read_row"};
}
inline std::vector<std::string> AppWriteOpList() {
  return {"pwrite_row", "pwrite_header", "touch_write_row", "touch_write_header"};
}

}  // namespace iomimic::rrd_update
