// skeleton: the starting point of a new module. Copy this folder to
// workloads/<name>/, rename, and fill in the hooks. Each hook says whether
// it is required, when the engine calls it and on which thread.
//
// This file is compiled into the unit tests (tests/CMakeLists.txt), so it
// stays in step with the API; it is not part of the iomimic binary.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

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
  // Bytes written per unit of work. Default: 4 KiB. REQUIRES: >= 1.
  uint64_t block_size = 4096;
  // fsync after each write. Default: false.
  bool sync = false;
};

class Skeleton final : public Workload {
 public:
  ~Skeleton() override {
    if (fd_ >= 0) ::close(fd_);
  }

  // REQUIRED. Main thread, once, before any option is parsed: bind each
  // option to a field with its limits; the CLI does the rest.
  void DeclareOptions(OptionSet& o) override {
    o.Size("block_size", &c_.block_size, "bytes written per unit of work", 1, 1ull << 30);
    o.Flag("sync", &c_.sync, "fsync after each write");
  }

  // OPTIONAL. Main thread, after all options are applied: checks across
  // options. Return "" or a message naming the options.
  std::string Validate(const RunSettings&) override { return {}; }

  // REQUIRED. Main thread: bytes the run may allocate on the target. The
  // engine refuses a target without that much room (plus --min_free).
  uint64_t Footprint(const RunSettings& s) const override {
    return s.ops != 0 ? s.ops * c_.block_size : 64ull << 20;
  }

  // REQUIRED. The op classes recorded, and the name of one unit of work.
  std::vector<std::string> OpNames() const override { return {"write", "fsync", "unit"}; }
  std::string WorkUnit() const override { return "units"; }
  // OPTIONAL. Which ops' bytes are the application's writes / reads.
  std::vector<std::string> AppWriteOps() const override { return {"write"}; }

  // REQUIRED. Main thread, untimed, before the workers start: lay out the
  // files, inside ctx.run_dir() only. Throw SysError on failure (CheckSys).
  void Prepare(PrepareContext& ctx) override {
    path_ = ctx.run_dir() + "/data";
    fd_ = CheckSys(::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), "open",
                   path_);
    ctx.Info("skeleton: one file, " + std::to_string(c_.block_size) + "-byte writes");
  }

  // REQUIRED. Once per worker thread, concurrently. Loop while
  // ctx.KeepRunning(); record every op; throw SysError on failure (the
  // engine records it, stops the other workers and reports it). Never
  // exit(), never swallow an error.
  void RunWorker(WorkerContext& ctx) override {
    Recorder& rec = ctx.recorder();
    std::vector<char> block(c_.block_size, 'x');
    while (ctx.KeepRunning()) {
      const uint64_t start = NowNs();
      Timed(rec, kWrite, block.size(), [&] {
        const off_t offset = static_cast<off_t>(next_.fetch_add(block.size()));
        CheckSys(::pwrite(fd_, block.data(), block.size(), offset), "pwrite", path_);
      });
      if (c_.sync) Timed(rec, kFsync, 0, [&] { CheckSys(::fsync(fd_), "fsync", path_); });
      // The unit: under --rate, its latency also counts from the intended
      // start (coordinated omission).
      ctx.RecordUnit(kUnit, start, NowNs(), block.size());
      // Module counters count only while measuring, as the ops table does.
      if (ctx.Measuring()) measured_bytes_.fetch_add(block.size(), std::memory_order_relaxed);
    }
  }

  // OPTIONAL. Main thread, after the workers joined: the files whose layout
  // (FIEMAP) and page-cache state the report shows.
  std::vector<std::string> Files() const override { return {path_}; }

  // OPTIONAL. Main thread, last: the module's own figures ("module_report").
  nlohmann::json Report() const override {
    return {{"bytes_written", next_.load()}, {"bytes_written_measured", measured_bytes_.load()}};
  }

 private:
  SkeletonConfig c_;
  std::string path_;
  int fd_ = -1;
  std::atomic<uint64_t> next_{0};
  std::atomic<uint64_t> measured_bytes_{0};
};

}  // namespace
}  // namespace iomimic

IOMIMIC_REGISTER_WORKLOAD(iomimic::Skeleton, "skeleton",
                          "a template module: one file, a write (and fsync) per unit");
