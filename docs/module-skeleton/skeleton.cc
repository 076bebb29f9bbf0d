// skeleton: the starting point of a new module, and a complete one. Copy
// this folder to workloads/<name>/ and change what docs/writing-a-module.md
// lists. Each hook says whether it is required, when the engine calls it and
// on which thread.
//
// The story it imitates: an application that keeps its data in one file of
// fixed size and overwrites it a block at a time (a page file, a ring
// buffer), with or without fsync after each write.
//
// Here in docs/ it is built into a test-only binary (build/<preset>/
// iomimic_skeleton) and its tests run in CI; it is not in `iomimic list`.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "iomimic/io.h"
#include "iomimic/options.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "iomimic/workload.h"

namespace iomimic {
namespace {

// The ops this module records. OpId = index in OpNames().
enum Op : OpId { kWrite, kFsync, kUnit };

// Options are a plain struct with in-class defaults; a comment per field
// says the default and what it requires.
struct SkeletonConfig {
  // Size of the data file, written in full by Prepare. Default: 8 MiB.
  // REQUIRES: >= block_size.
  uint64_t file_size = 8ull << 20;
  // Bytes overwritten per unit of work. Default: 4 KiB. REQUIRES: >= 1.
  uint64_t block_size = 4096;
  // fsync after each write. Default: false.
  bool sync = false;
};

// Prepare writes the file in chunks of this size.
constexpr size_t kPrepareChunk = 1 << 20;

class Skeleton final : public Workload {
 public:
  ~Skeleton() override {
    if (fd_ >= 0) ::close(fd_);
  }

  // REQUIRED. Main thread, once, before any option is parsed: bind each
  // option to a field with its limits; the CLI does the rest (parsing,
  // `describe`, errors naming the option, exit 2).
  void DeclareOptions(OptionSet& o) override {
    o.Size("file_size", &c_.file_size, "size of the data file, written in full before measuring", 1,
           1ull << 40);
    o.Size("block_size", &c_.block_size, "bytes overwritten per unit of work", 1, 1ull << 30);
    o.Flag("sync", &c_.sync, "fsync after each write");
  }

  // OPTIONAL. Main thread, after all options are applied: checks across
  // options. Return "" or a message naming the options and their values.
  std::string Validate(const RunSettings&) override {
    if (c_.block_size > c_.file_size) {
      return "--skeleton.block_size (" + std::to_string(c_.block_size) +
             ") must not exceed --skeleton.file_size (" + std::to_string(c_.file_size) + ")";
    }
    return {};
  }

  // REQUIRED. Main thread, after Validate: bytes the run may allocate on the
  // target. The engine refuses a target without that much room (plus
  // --min_free); --space_check=false skips the check.
  uint64_t Footprint(const RunSettings&) const override { return c_.file_size; }

  // REQUIRED. Main thread: the op classes recorded (the rows of the ops
  // table) and the name of one unit of work.
  std::vector<std::string> OpNames() const override { return {"write", "fsync", "unit"}; }
  std::string WorkUnit() const override { return "units"; }
  // OPTIONAL. Which ops' bytes are the application's writes / reads, for
  // device bytes per application byte.
  std::vector<std::string> AppWriteOps() const override { return {"write"}; }

  // REQUIRED. Main thread, untimed, before the workers start: lay out the
  // files, inside ctx.run_dir() only. Throw SysError on failure (CheckSys,
  // WriteAll); the engine reports it with phase "prepare".
  void Prepare(PrepareContext& ctx) override {
    path_ = ctx.run_dir() + "/data";
    fd_ =
        CheckSys(::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644), "open", path_);
    const std::vector<char> chunk(kPrepareChunk, 'p');
    for (uint64_t done = 0; done < c_.file_size && !ctx.StopRequested();) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), c_.file_size - done));
      WriteAll(fd_, chunk.data(), n, path_);
      done += n;
    }
    CheckSys(::fsync(fd_), "fsync", path_);
    blocks_ = c_.file_size / c_.block_size;
    ctx.Info("skeleton: " + std::to_string(c_.file_size) + "-byte file, " +
             std::to_string(c_.block_size) + "-byte overwrites" + (c_.sync ? " + fsync" : ""));
  }

  // REQUIRED. Once per worker thread (--threads), concurrently, after
  // Prepare. Loop while ctx.KeepRunning() (one unit of work per call);
  // record every op; throw SysError on failure (the engine records it,
  // stops the other workers and reports it). Never exit(), never swallow an
  // error.
  void RunWorker(WorkerContext& ctx) override {
    Recorder& rec = ctx.recorder();
    const std::vector<char> block(c_.block_size, 'x');
    while (ctx.KeepRunning()) {
      const uint64_t start = NowNs();
      // The threads share one cursor: block after block, wrapping at the end.
      const off_t offset = static_cast<off_t>((next_.fetch_add(1) % blocks_) * c_.block_size);
      Timed(rec, kWrite, block.size(),
            [&] { PwriteAll(fd_, block.data(), block.size(), offset, path_); });
      if (c_.sync) Timed(rec, kFsync, 0, [&] { CheckSys(::fsync(fd_), "fsync", path_); });
      // The unit: under --rate, its latency also counts from the intended
      // start (coordinated omission).
      ctx.RecordUnit(kUnit, start, NowNs(), block.size());
      // Module counters count only while measuring, as the ops table does.
      if (ctx.Measuring()) measured_blocks_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // OPTIONAL. Main thread, after the workers joined: the files whose layout
  // (FIEMAP) and page-cache state the report shows.
  std::vector<std::string> Files() const override { return {path_}; }

  // OPTIONAL. Main thread, last: the module's own figures ("module_report"
  // in the JSON). Document each in the README.
  nlohmann::json Report() const override {
    return {{"file_bytes", c_.file_size},
            {"blocks_written", next_.load()},
            {"blocks_written_measured", measured_blocks_.load()}};
  }

 private:
  SkeletonConfig c_;
  std::string path_;
  int fd_ = -1;
  uint64_t blocks_ = 1;  // blocks in the file; set by Prepare
  std::atomic<uint64_t> next_{0};
  std::atomic<uint64_t> measured_blocks_{0};
};

}  // namespace
}  // namespace iomimic

IOMIMIC_REGISTER_WORKLOAD(iomimic::Skeleton, "skeleton",
                          "a template module: one file overwritten block by block (and fsynced)");
