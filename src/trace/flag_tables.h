// The flag names strace prints, with this system's values.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>

#include "trace/args.h"

namespace iomimic::trace {

inline constexpr FlagName kOpenFlags[] = {
    {"O_RDONLY", O_RDONLY}, {"O_WRONLY", O_WRONLY}, {"O_RDWR", O_RDWR},
    {"O_CREAT", O_CREAT}, {"O_EXCL", O_EXCL}, {"O_NOCTTY", O_NOCTTY},
    {"O_TRUNC", O_TRUNC}, {"O_APPEND", O_APPEND}, {"O_NONBLOCK", O_NONBLOCK},
    {"O_NDELAY", O_NDELAY}, {"O_DSYNC", O_DSYNC}, {"O_SYNC", O_SYNC}, {"O_ASYNC", O_ASYNC},
    {"O_DIRECT", O_DIRECT}, {"O_LARGEFILE", O_LARGEFILE}, {"O_DIRECTORY", O_DIRECTORY},
    {"O_NOFOLLOW", O_NOFOLLOW}, {"O_NOATIME", O_NOATIME}, {"O_CLOEXEC", O_CLOEXEC},
    {"O_PATH", O_PATH}, {"O_TMPFILE", O_TMPFILE}};
inline constexpr size_t kOpenFlagsCount = std::size(kOpenFlags);

inline constexpr FlagName kCloneFlags[] = {
    {"CLONE_VM", CLONE_VM}, {"CLONE_FS", CLONE_FS}, {"CLONE_FILES", CLONE_FILES},
    {"CLONE_SIGHAND", CLONE_SIGHAND}, {"CLONE_THREAD", CLONE_THREAD},
    {"CLONE_VFORK", CLONE_VFORK}, {"CLONE_SYSVSEM", CLONE_SYSVSEM},
    {"CLONE_SETTLS", CLONE_SETTLS}, {"CLONE_PARENT_SETTID", CLONE_PARENT_SETTID},
    {"CLONE_CHILD_CLEARTID", CLONE_CHILD_CLEARTID}, {"CLONE_CHILD_SETTID", CLONE_CHILD_SETTID},
    {"SIGCHLD", 17}};
inline constexpr size_t kCloneFlagsCount = std::size(kCloneFlags);

inline constexpr FlagName kMisc[] = {
    // mmap
    {"PROT_NONE", PROT_NONE}, {"PROT_READ", PROT_READ}, {"PROT_WRITE", PROT_WRITE},
    {"PROT_EXEC", PROT_EXEC}, {"MAP_SHARED", MAP_SHARED}, {"MAP_PRIVATE", MAP_PRIVATE},
    {"MAP_SHARED_VALIDATE", MAP_SHARED_VALIDATE}, {"MAP_FIXED", MAP_FIXED},
    {"MAP_ANONYMOUS", MAP_ANONYMOUS}, {"MAP_DENYWRITE", MAP_DENYWRITE},
    {"MAP_POPULATE", MAP_POPULATE}, {"MAP_NORESERVE", MAP_NORESERVE},
    {"MAP_STACK", MAP_STACK}, {"MAP_FIXED_NOREPLACE", MAP_FIXED_NOREPLACE},
    {"MS_ASYNC", MS_ASYNC}, {"MS_SYNC", MS_SYNC}, {"MS_INVALIDATE", MS_INVALIDATE},
    {"MADV_NORMAL", MADV_NORMAL}, {"MADV_RANDOM", MADV_RANDOM},
    {"MADV_SEQUENTIAL", MADV_SEQUENTIAL}, {"MADV_WILLNEED", MADV_WILLNEED},
    {"MADV_DONTNEED", MADV_DONTNEED}, {"MADV_HUGEPAGE", MADV_HUGEPAGE},
    // *at flags
    {"AT_SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW}, {"AT_REMOVEDIR", AT_REMOVEDIR},
    {"AT_EMPTY_PATH", AT_EMPTY_PATH}, {"AT_NO_AUTOMOUNT", AT_NO_AUTOMOUNT},
    {"AT_EACCESS", AT_EACCESS}, {"AT_STATX_SYNC_AS_STAT", 0},
    // access modes
    {"F_OK", F_OK}, {"R_OK", R_OK}, {"W_OK", W_OK}, {"X_OK", X_OK},
    // fallocate, sync_file_range, flock, rename
    {"FALLOC_FL_KEEP_SIZE", 1}, {"FALLOC_FL_PUNCH_HOLE", 2}, {"FALLOC_FL_ZERO_RANGE", 0x10},
    {"FALLOC_FL_COLLAPSE_RANGE", 8}, {"FALLOC_FL_INSERT_RANGE", 0x20},
    {"SYNC_FILE_RANGE_WAIT_BEFORE", 1}, {"SYNC_FILE_RANGE_WRITE", 2},
    {"SYNC_FILE_RANGE_WAIT_AFTER", 4}, {"LOCK_SH", LOCK_SH}, {"LOCK_EX", LOCK_EX},
    {"LOCK_NB", LOCK_NB}, {"LOCK_UN", LOCK_UN}, {"RENAME_NOREPLACE", 1},
    {"RENAME_EXCHANGE", 2}, {"RENAME_WHITEOUT", 4},
    // lseek, fadvise, fcntl
    {"SEEK_SET", SEEK_SET}, {"SEEK_CUR", SEEK_CUR}, {"SEEK_END", SEEK_END},
    {"SEEK_DATA", SEEK_DATA}, {"SEEK_HOLE", SEEK_HOLE}, {"POSIX_FADV_NORMAL", 0},
    {"POSIX_FADV_RANDOM", 1}, {"POSIX_FADV_SEQUENTIAL", 2}, {"POSIX_FADV_WILLNEED", 3},
    {"POSIX_FADV_DONTNEED", 4}, {"POSIX_FADV_NOREUSE", 5}, {"F_RDLCK", F_RDLCK},
    {"F_WRLCK", F_WRLCK}, {"F_UNLCK", F_UNLCK}, {"FD_CLOEXEC", FD_CLOEXEC},
    {"F_DUPFD", F_DUPFD}, {"F_GETFD", F_GETFD}, {"F_SETFD", F_SETFD}, {"F_GETFL", F_GETFL},
    {"F_SETFL", F_SETFL}, {"F_GETLK", F_GETLK}, {"F_SETLK", F_SETLK}, {"F_SETLKW", F_SETLKW},
    {"F_OFD_GETLK", F_OFD_GETLK}, {"F_OFD_SETLK", F_OFD_SETLK},
    {"F_OFD_SETLKW", F_OFD_SETLKW}, {"F_DUPFD_CLOEXEC", F_DUPFD_CLOEXEC}};
inline constexpr size_t kMiscCount = std::size(kMisc);

inline int64_t Flags(std::string_view s) { return ParseFlags(s, kMisc, kMiscCount); }
inline int64_t OpenFlags(std::string_view s) {
  return ParseFlags(s, kOpenFlags, kOpenFlagsCount);
}

}  // namespace iomimic::trace
