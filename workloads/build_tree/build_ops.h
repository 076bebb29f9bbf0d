// The op classes build_tree records (OpId = index in kOpNames) and the
// calls a compile job shares with the walk and the link.
#pragma once

#include <fcntl.h>

#include <cerrno>

#include <string>
#include <vector>

#include "iomimic/recorder.h"

namespace iomimic::build_tree {

enum Op : OpId {
  kStat,         // stat() of a source (make's prerequisite check); stat probes that hit
  kOpen,         // open() of a source, a header found, an object, a walked directory
  kProbeEnoent,  // a failed include probe: ENOENT (or ENOTDIR) in one include directory
  kRead,         // read() of a source, header or (at link) object chunk
  kGetdents,     // getdents64() of the walk
  kMkdir,        // mkdir() of an object directory (EEXIST counts as done)
  kWrite,        // write() of an object or link output chunk
  kClose,        // close()
  kCpu,          // the calibrated burn for the bytes one compile read
  kCompile,      // one whole source: stat .. close of its object
  kLink,         // the link step: read every object, write one output
  kWalk,         // the whole walk of a source tree
  kFork,         // fork() of a job's child process (processes = true)
};

inline std::vector<std::string> OpNames() {
  return {"stat",  "open",    "probe_enoent", "read", "getdents", "mkdir", "write",
          "close", "cpu",     "compile",      "link", "walk",     "fork"};
}

// open() for reading that never updates the access time where permitted:
// O_NOATIME needs ownership or CAP_FOWNER; without it (EPERM) the open is
// retried plainly. Returns the fd or -1 with errno set.
inline int OpenForReading(const char* path, int extra_flags = 0) {
  const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | extra_flags;
  const int fd = ::open(path, flags | O_NOATIME);
  if (fd >= 0 || errno != EPERM) return fd;
  return ::open(path, flags);
}

}  // namespace iomimic::build_tree
