// Files written whole or not at all, where nobody can plant anything.
//
// A file is written into an unnamed inode (O_TMPFILE) of the destination's
// directory, fsynced, then given its name: linked directly when the name
// is free, else linked under a random temporary name and renamed over the
// old file. Where the filesystem has no O_TMPFILE, the temporary is created
// under a random name with O_CREAT|O_EXCL|O_NOFOLLOW. Either way no name
// that another user could predict is ever opened, a symbolic link planted
// anywhere is never followed, the data is mode 0600 until it has its final
// name, and the directory is fsynced after the rename, so a crash leaves
// the old file or the new one, never half of one.
//
// A temporary name that exists for a moment is published through
// PendingTempFile() so that a process ending at once on a second signal can
// unlink it (the signal watcher reads it; report/ and engine/ both write
// through here without knowing about each other).
//
// Thread-safety: WriteFileAtomically may be called from any thread; only
// one temporary name is published at a time (the last one).
#pragma once

#include <sys/types.h>

#include <string>

namespace iomimic {

// Writes `content` to `path`; the file ends with `mode` (less the umask).
// Throws SysError naming the call and the path.
void WriteFileAtomically(const std::string& path, const std::string& content, mode_t mode);

// fsync of the directory holding `path` (a rename or unlink in it made
// durable). Throws SysError.
void FsyncParentDir(const std::string& path);

// The temporary file being renamed into place right now, or nullptr.
const char* PendingTempFile();

// A random name component: 16 lowercase hex digits from getrandom().
std::string RandomSuffix();

}  // namespace iomimic
