// A real filesystem on a disk that fails on demand: ext4 on a loop device
// over the disk.img file of faulty_fuse (tests/support/faulty_fuse.cc), a
// FUSE filesystem of the tests backed by a sparse file. SetFault() makes
// the "disk" fail reads and/or writes (and cache flushes) with EIO, so the
// kernel's filesystem, and through it the module under test, sees a real
// EIO: from msync/fsync after failed writeback, SIGBUS on a page-in, EROFS
// once ext4 aborts its journal. (This kernel has no device-mapper and no
// fault injection; a loop device over a FUSE file is the mechanism left.)
//
// Create() makes a fresh mkdtemp directory (under $TMPDIR, else /var/tmp)
// holding backing.img, fuse/ (faulty_fuse's mount) and mnt/ (the ext4).
// The destructor undoes everything, also after faults or a failed
// Create(): clears the fault so unmounting can write, unmounts ext4
// (lazily as a last resort), detaches the loop device, unmounts the FUSE
// filesystem, stops the daemon, removes the files.
// Needs root, /dev/fuse, and the helper (FaultyFsUnavailableReason()).
// Thread-safety: one FaultyFs per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace iomimic::test {

class FaultyFs {
 public:
  enum class Fault { kNone, kReads, kWrites, kAll };

  struct Counters {
    std::string mode;  // "ok", "fail-reads", "fail-writes", "fail-all"
    uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
    uint64_t failed_reads = 0, failed_writes = 0, failed_fsyncs = 0;
  };

  // ext4 (4 KiB blocks, no discard) of `size_bytes` on the faulty disk,
  // mounted with `mount_opts` when not empty. Throws std::runtime_error
  // naming the failed step; what was set up by then is torn down first.
  static std::unique_ptr<FaultyFs> Create(uint64_t size_bytes = 128ull << 20,
                                          const std::string& mount_opts = "");

  FaultyFs(const FaultyFs&) = delete;
  FaultyFs& operator=(const FaultyFs&) = delete;
  ~FaultyFs();

  const std::string& mount_point() const { return mount_point_; }
  const std::string& device() const { return device_; }  // "/dev/loop3"

  // From the next request on, the disk fails as told; `after_bytes` more
  // bytes of the failing kind succeed first. Throws std::runtime_error.
  void SetFault(Fault fault, uint64_t after_bytes = 0) const;

  // What the disk has seen so far. Throws std::runtime_error.
  Counters ReadCounters() const;

  // syncfs() on the mounted filesystem: 0, or the errno it failed with.
  int SyncFs() const;

 private:
  FaultyFs() = default;
  void TearDown() noexcept;

  std::string dir_;
  std::string backing_;
  std::string fuse_dir_;
  std::string disk_;  // fuse_dir_/disk.img
  std::string mount_point_;
  std::string device_;
  std::unique_ptr<SpawnedProcess> daemon_;
  bool fuse_mounted_ = false;
  bool mounted_ = false;
};

// Path of the faulty_fuse helper ("" when it was not built: no libfuse3).
std::string FaultyFuseBinary();

// Why a FaultyFs cannot be made here ("" when it can).
std::string FaultyFsUnavailableReason();

}  // namespace iomimic::test

// In a test body: skips the test, with the reason, when no FaultyFs can be made.
#define IOMIMIC_REQUIRE_FAULTY_FS()                                                       \
  do {                                                                                    \
    const std::string iomimic_skip_reason = ::iomimic::test::FaultyFsUnavailableReason(); \
    if (!iomimic_skip_reason.empty()) GTEST_SKIP() << iomimic_skip_reason;                \
  } while (0)
