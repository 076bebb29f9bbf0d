// Every path a run of the iomimic binary writes, creates or removes, from a
// system-call trace (strace -f), and the ones outside where it may write.
//
// Counted as a write of a path, whether the call succeeded or not (an
// attempt outside the run directory is already a broken promise):
//   open/openat/openat2 with O_WRONLY, O_RDWR, O_CREAT or O_TRUNC; creat;
//   mkdir(at), mknod(at), rmdir, unlink(at), rename(at/at2) (both names),
//   link(at) and symlink(at) (the new name), truncate;
//   on a file descriptor: write, pwrite64, writev, pwritev(2), ftruncate,
//   fallocate, copy_file_range and sendfile and splice (the output),
//   mmap with PROT_WRITE and MAP_SHARED (stores reach the file);
//   metadata: chmod, chown, utimes, xattrs, by path or descriptor.
// Descriptors that are not files (pipes, sockets: the test's stdout and
// stderr) and /dev/null are not paths and are ignored.
//
// Paths come from strace -y (descriptors and dirfds annotated with their
// path) and are made absolute and lexically normalised ("." and ".."); a
// relative path with no dirfd resolves against the tracee's working
// directory (its chdir()s are followed). Symbolic links are not resolved:
// give the allowed paths in canonical form (iomimic canonicalises --target).
// Not seen: writes through ioctl, io_uring, or memory already mapped before
// exec. Thread-safety: none needed; each call traces its own child.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "support/run_binary.h"

namespace iomimic::test {

struct TracedWrite {
  int pid = 0;
  std::string call;  // "openat", "mkdir", "mmap", ...
  std::string path;  // absolute, normalised
  bool succeeded = false;
  std::string line;  // the strace line, for messages
};

void PrintTo(const TracedWrite& w, std::ostream* os);
std::string Describe(const std::vector<TracedWrite>& writes);

struct WriteAudit {
  RunResult run;                        // the traced iomimic's exit code and output
  std::vector<TracedWrite> writes;      // every write, in trace order
  std::vector<TracedWrite> violations;  // those outside `allowed`
};

// "" when strace can be used here, else why not.
std::string StraceUnavailableReason();

// Runs the iomimic binary with `args` under strace and returns what it
// wrote and which of those writes fall outside `allowed`. An allowed entry
// ending in '*' is a prefix ("/mnt/iomimic-mmap_msync-*" covers every run
// directory of that module and what is inside); any other entry is a file
// or directory, covering itself and everything below it. /dev/null and the
// ThreadSanitizer runtime's /tmp/tsan.rodata.PID are always allowed. Throws std::runtime_error when
// strace cannot run.
WriteAudit AuditWrites(const std::vector<std::string>& args,
                       const std::vector<std::string>& allowed);

// The parts of AuditWrites, for unit tests and for re-checking a trace
// against a narrower list once the run directory is known.
// `cwd` is the tracee's working directory at the start.
std::vector<TracedWrite> ParseStraceWrites(std::istream& trace, const std::string& cwd);
std::vector<TracedWrite> WritesOutside(const std::vector<TracedWrite>& writes,
                                       const std::vector<std::string>& allowed);

// Lexical normalisation: "/a/./b/../c//" -> "/a/c". `path` must be absolute.
std::string NormalizePath(const std::string& path);

}  // namespace iomimic::test

// In a test body: skips the test, with the reason, when strace is missing.
#define IOMIMIC_REQUIRE_STRACE()                                                        \
  do {                                                                                  \
    const std::string iomimic_skip_reason = ::iomimic::test::StraceUnavailableReason(); \
    if (!iomimic_skip_reason.empty()) GTEST_SKIP() << iomimic_skip_reason;              \
  } while (0)
