// Issues one compiled op (trace/op.h) as the real syscall, on the files of
// one copy of the replay. One Executor per worker thread; the descriptor
// and mapping tables of a copy are shared by its workers (a traced
// process's threads share descriptors), so their entries are atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/file_table.h"
#include "trace/op.h"

namespace iomimic::replay {

// What one copy of the traced program's state is at replay time.
struct CopyState {
  std::string root;  // run_dir/copy<K>: the traced "/" of this copy
  // slot -> binding number << 24 | real fd (0xffffff: closed or failed).
  std::unique_ptr<std::atomic<uint64_t>[]> fds;
  std::unique_ptr<std::atomic<uint32_t>[]> slot_files;  // slot -> file it holds (for errors)
  std::unique_ptr<std::atomic<char*>[]> maps;  // map slot -> address
  std::unique_ptr<std::atomic<uint64_t>[]> map_lens;
  CopyState(std::string r, size_t slots, size_t map_slots);
  // Unmaps what the trace left mapped: once every worker of the copy is
  // done (a worker may still act on another's mapping until then).
  void ReleaseAll(size_t slots, size_t map_slots);
};

struct Outcome {
  bool issued = false;  // false: skipped (its descriptor or mapping is not there)
  int64_t ret = 0;
  int err = 0;
  uint64_t bytes = 0;  // read or written
};

class Executor {
 public:
  Executor(CopyState* copy, const trace::FileTable* files) : copy_(copy), files_(files) {}
  ~Executor();
  // Where the descriptor an op uses stands: its open happened here
  // (kReady), has not yet (kNotYet: another worker will open it), or is
  // over (kGone: it failed here or was closed again).
  enum class Slot { kReady, kNotYet, kGone };
  Slot State(const trace::Op& op) const;
  // Pass k of a looped trace numbers its bindings after pass k-1's.
  void SetPassBase(uint64_t base) { base_ = base; }
  Outcome Run(const trace::Op& op);
  // Closes the descriptors and unmaps the mappings this worker made that
  // the trace left open (end of a pass of a looped trace, once the copy's
  // other workers are past it).
  void Release();
  std::string PathOf(uint32_t file) const;
  // The file an op acts on: its path argument, else its descriptor's file.
  std::string PathOf(const trace::Op& op) const;

 private:
  char* Buffer(uint64_t bytes);
  int Fd(const trace::Op& op) const;
  void Publish(uint32_t slot, uint32_t gen, long fd, uint32_t file = trace::kNoId);
  Outcome Data(const trace::Op& op, int fd);
  Outcome Meta(const trace::Op& op);
  Outcome Mapping(const trace::Op& op);
  Outcome Fcntl(const trace::Op& op, int fd);

  CopyState* copy_;
  const trace::FileTable* files_;
  uint64_t base_ = 0;
  char* buf_ = nullptr;
  uint64_t buf_size_ = 0;
  std::vector<std::pair<uint32_t, uint64_t>> opened_;  // slot, binding (with the pass base)
  std::vector<uint32_t> mapped_;
};

}  // namespace iomimic::replay
