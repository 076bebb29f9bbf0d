// The compiled op list on disk: one file of fixed-size Op records per
// traced thread (`t<N>.ops` in a directory), written as the compiler goes
// and read back sequentially by that thread's replaying worker. Each
// writer and reader buffers 64 KiB: memory O(threads), not O(ops).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/compiler.h"
#include "trace/op.h"

namespace iomimic::trace {

class OpStreamWriter : public OpSink {
 public:
  explicit OpStreamWriter(std::string dir) : dir_(std::move(dir)) {}
  ~OpStreamWriter() override;
  void OnOp(const Op& op, uint32_t thread, uint64_t file_offset) override;
  // Flushes and closes every file; throws std::system_error.
  void Close();
  // Ops written per thread.
  const std::vector<uint64_t>& counts() const { return counts_; }

  static std::string PathOf(const std::string& dir, uint32_t thread);

 private:
  struct Out {
    int fd = -1;
    std::string path;
    std::vector<Op> buf;
  };
  std::string dir_;
  std::vector<std::unique_ptr<Out>> outs_;
  std::vector<uint64_t> counts_;
};

class OpStreamReader {
 public:
  OpStreamReader(const std::string& dir, uint32_t thread);
  ~OpStreamReader();
  OpStreamReader(const OpStreamReader&) = delete;
  OpStreamReader& operator=(const OpStreamReader&) = delete;
  // The next op; false at the end.
  bool Next(Op* op);
  // Back to the first op (--duration loops the trace).
  void Rewind();

 private:
  int fd_ = -1;
  std::string path_;
  std::vector<Op> buf_;
  size_t pos_ = 0, end_ = 0;
};

}  // namespace iomimic::trace
