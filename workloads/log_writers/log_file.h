// One log of the gateway: an append-only file, its optional user-space
// buffer, its flush policy and its rotation.
//
// A log is a stream of records written to <dir>/<name>. When rotation is on
// and the file has reached rotate_bytes, the next record first rotates it:
// the buffer is written out, the file closed, renamed to <name>.<k> (k = 1
// for the first rotation, 2 for the next: .1 is the oldest) and <name> is
// created again (and fallocated when preallocating). A log that never
// reaches the size is never rotated, and a rotation happens only when a
// record is about to be written, so no empty file is left behind.
//
// Every call is recorded into the Recorder passed in, under the OpTable's
// ids. Failures throw SysError naming the call and the file.
//
// Thread-safety: none inside. A log owned by one thread needs nothing; a
// log shared by threads is used only under mu(), held for whole records.
// counters() and Paths() are read after the workers joined.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "flush_policy.h"
#include "iomimic/recorder.h"
#include "op_table.h"

namespace iomimic::log_writers {

// What every log of a run shares.
struct LogSettings {
  FlushPolicy flush;
  uint64_t prealloc_bytes = 0;  // 0: no fallocate
  uint64_t rotate_bytes = 0;    // 0: never rotate
};

// What one log did, over all its files.
struct LogCounters {
  uint64_t records = 0;
  uint64_t bytes = 0;          // record bytes appended (written or buffered)
  uint64_t write_calls = 0;    // write() system calls
  uint64_t lseeks = 0;
  uint64_t flushes = 0;        // fdatasync/fsync calls, buffer write-outs, O_DSYNC writes
  uint64_t flushed_bytes = 0;  // bytes each flush made durable or wrote out
  uint64_t rotations = 0;
};

class LogFile {
 public:
  LogFile(std::string dir, std::string name, const LogSettings* settings, const OpTable* ops);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // Prepare, untimed: creates the file (O_EXCL) and preallocates it.
  void Create();

  // Rotates first when the file has reached the rotation size. The first
  // record with `measuring` true starts the counts counters() reports:
  // what warmup did is not counted, as in the ops table.
  void BeginRecord(Recorder& rec, bool measuring);
  // One piece of a record: a write() (O_APPEND), or a copy into the buffer
  // that writes the buffer out each time it fills.
  void Append(Recorder& rec, const char* data, uint64_t n);
  // lseek(fd, 0, SEEK_CUR), as the gateway asked where it was.
  void Seek(Recorder& rec);
  // Counts the record; fdatasync/fsync after every N-th record of this log.
  void EndRecord(Recorder& rec);
  // End of the run: writes out what the buffer still holds.
  void Finish(Recorder& rec);

  std::mutex& mu() { return mu_; }
  const std::string& name() const { return name_; }
  // What the log did from its first measured record on.
  LogCounters counters() const;
  // Files the log created, rotated ones included (warmup's too).
  uint64_t files() const { return counters_.rotations + 1; }
  // Every file this log created, rotated ones first (oldest first).
  std::vector<std::string> Paths() const;

 private:
  void Open(Recorder* rec);
  void Rotate(Recorder& rec);
  // write()s until all n bytes are in the file; each call is one write op.
  void WriteAll(Recorder& rec, const char* data, uint64_t n);
  void WriteOutBuffer(Recorder& rec);
  void Sync(Recorder& rec);
  std::string Path() const { return dir_ + "/" + name_; }
  std::string RotatedPath(uint64_t k) const { return Path() + "." + std::to_string(k); }

  const std::string dir_;
  const std::string name_;
  const LogSettings& settings_;
  const OpTable& ops_;
  std::mutex mu_;
  int fd_ = -1;
  uint64_t file_bytes_ = 0;         // in the current file, buffered bytes included
  uint64_t unsynced_bytes_ = 0;     // since the last fdatasync/fsync of the current file
  std::vector<char> buffer_;        // flush=buffer: capacity buffer_bytes
  uint64_t buffered_ = 0;
  LogCounters counters_;  // since Create(): rotation names and the sync cadence use these
  LogCounters at_measure_start_;
  bool measured_ = false;
};

}  // namespace iomimic::log_writers
