// A real filesystem (ext4, xfs or btrfs) on a loop device, for tests that
// need the kernel's own allocation, writeback and block-device counters.
//
// Create() makes a sparse image in a fresh mkdtemp directory (under $TMPDIR,
// else /var/tmp), binds it to a free loop device, runs mkfs and mounts it.
// The destructor undoes all of it: unmount (retried with sync, lazily as a
// last resort), detach the loop device, remove the image and directories.
// Needs root (CanMountLoop()). Thread-safety: one LoopFs per thread; the
// kernel hands each a different loop device.
#pragma once

#include <chrono>

#include <cstdint>
#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace iomimic::test {

// Default image size in tests: above xfs's ~300 MiB minimum (btrfs needs
// ~114 MiB, ext4 much less).
inline constexpr uint64_t kLoopFsDefaultBytes = 320ull << 20;

class LoopFs {
 public:
  // `fs_type` is "ext4", "xfs" or "btrfs". `mkfs_extra` is split on
  // whitespace and passed to mkfs before the device (no quoting).
  // `mount_opts` goes to `mount -o` when not empty. ext4 gets 4 KiB blocks
  // unless `mkfs_extra` has -b: mke2fs.conf's "small" type would give an
  // image under 512 MiB 1 KiB blocks, which no real data disk has.
  // Throws std::runtime_error naming the failed command and its output;
  // whatever was set up by then is torn down first.
  static std::unique_ptr<LoopFs> Create(const std::string& fs_type,
                                        uint64_t size_bytes = kLoopFsDefaultBytes,
                                        const std::string& mkfs_extra = "",
                                        const std::string& mount_opts = "");

  // As Create(), but the image gets an MBR partition table with one
  // partition from 1 MiB to the end, and the filesystem goes on that
  // partition (/dev/loopNp1): what a disk with partitions looks like.
  static std::unique_ptr<LoopFs> CreatePartitioned(const std::string& fs_type,
                                                   uint64_t size_bytes = kLoopFsDefaultBytes,
                                                   const std::string& mkfs_extra = "",
                                                   const std::string& mount_opts = "");

  LoopFs(const LoopFs&) = delete;
  LoopFs& operator=(const LoopFs&) = delete;
  ~LoopFs();

  const std::string& fs_type() const { return fs_type_; }
  const std::string& mount_point() const { return mount_point_; }
  const std::string& device() const { return device_; }  // "/dev/loop3", the whole disk
  std::string device_name() const;                      // "loop3"
  // The partition holding the filesystem ("/dev/loop3p1"), "" when none.
  const std::string& partition() const { return partition_; }
  const std::string& image() const { return image_; }    // the backing file
  const std::string& dir() const { return dir_; }        // holds image and mount point

  // Writes dirty data of the whole filesystem (syncfs), so device counters
  // read next include it. Throws std::runtime_error on failure.
  void Sync() const;

 private:
  LoopFs() = default;
  static std::unique_ptr<LoopFs> CreateImpl(const std::string& fs_type, uint64_t size_bytes,
                                            const std::string& mkfs_extra,
                                            const std::string& mount_opts, bool partitioned);
  // Best-effort teardown of whatever has been set up; never throws.
  void TearDown() noexcept;

  std::string fs_type_;
  std::string dir_;
  std::string image_;
  std::string mount_point_;
  std::string device_;
  std::string partition_;
  bool mounted_ = false;
};

// Why loop filesystems cannot be used here ("" when they can): not root,
// no /dev/loop-control, losetup or mount missing.
std::string LoopUnavailableReason();

// Detaches the loop device `device` ("/dev/loop3") when it is still bound
// to `backing_file` (a number detached behind our back may belong to
// someone else by now), retrying while it is busy. While the device is
// still open (a lazily unmounted filesystem) the kernel marks it autoclear
// and detaches it on the last close: the call waits up to `wait_for_detach`
// for that (someone else's brief open, udev probing after an unmount), so
// that the device is free when it returns. Never throws.
void DetachLoopIfBoundTo(const std::string& device, const std::string& backing_file,
                         std::chrono::milliseconds wait_for_detach = std::chrono::seconds(10)) noexcept;

// Entries of `dir` except ".", ".." and lost+found; -1 when it cannot be
// read. "The run directory is gone" is CountEntries(target) == 0.
int CountEntries(const std::string& dir);
inline bool CanMountLoop() { return LoopUnavailableReason().empty(); }

// As LoopUnavailableReason(), and also "" only when mkfs for `fs_type` exists.
std::string LoopFsUnavailableReason(const std::string& fs_type);

}  // namespace iomimic::test

// In a test body: skips the test, with the reason, when a loop-mounted
// `fs_type` cannot be created here.
#define IOMIMIC_REQUIRE_LOOP_FS(fs_type)                                                  \
  do {                                                                                     \
    const std::string iomimic_skip_reason = ::iomimic::test::LoopFsUnavailableReason(fs_type); \
    if (!iomimic_skip_reason.empty()) GTEST_SKIP() << iomimic_skip_reason;                 \
  } while (0)
