// mmap_msync: an in-memory database that saves its samples through mmap.
//
// The data file is created empty and ftruncate()d to threads x
// regions_per_thread x region_size: nothing is allocated. Each thread owns
// its regions and loops: mmap(region, MAP_SHARED) -> fill (stores to every
// byte) -> msync(MS_SYNC) -> munmap. With ftruncate only, every store into a
// hole allocates on write, concurrently with the other threads: the file
// fragments, and writeback turns each thread's sequential region into small
// scattered device writes. Pre-writing the file (prealloc=write, the
// customer's dd fix) or fallocate() allocate up front. See README.md.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "iomimic/fault_guard.h"
#include "iomimic/io.h"
#include "iomimic/options.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "iomimic/workload.h"

namespace iomimic {
namespace {

enum Op : OpId { kMmap, kFill, kMsync, kMunmap, kCycle };

enum class Prealloc { kNone, kFallocate, kWrite };
enum class CacheAfterPrepare { kKeep, kDrop };
enum class Msync { kSync, kAsync, kNone };
enum class Pattern { kCycle, kRandom, kZero };

struct MmapMsyncConfig {
  // Bytes each mmap() maps and each cycle fills. Default: 4 MiB.
  // REQUIRES: a multiple of the page size.
  uint64_t region_size = 4ull << 20;
  // Regions each thread owns; after each cycle it moves to its next one.
  // Default: 1 (the same region again).
  int64_t regions_per_thread = 1;
  // How the file is laid out before measuring: none (ftruncate only),
  // fallocate, write (zeros written with write(), then fsync: the dd fix).
  Prealloc prealloc = Prealloc::kNone;
  // keep: leave the prepared file's pages in the page cache; drop: fsync then
  // posix_fadvise(DONTNEED) so the first touches fault from disk.
  CacheAfterPrepare cache_after_prepare = CacheAfterPrepare::kKeep;
  // sync: msync(MS_SYNC); async: msync(MS_ASYNC); none: no msync (writeback
  // happens when the kernel decides).
  Msync msync = Msync::kSync;
  // What the fill stores: cycle (memset with a byte that changes every
  // cycle), random (64-bit pseudo-random words), zero (memset 0).
  Pattern pattern = Pattern::kCycle;
};

class MmapMsync final : public Workload {
 public:
  ~MmapMsync() override {
    if (fd_ >= 0) ::close(fd_);
  }

  void DeclareOptions(OptionSet& o) override {
    o.Size("region_size", &c_.region_size, "bytes each mapping covers and each cycle fills",
           4096, 1ull << 30);
    o.Integer("regions_per_thread", &c_.regions_per_thread,
              "regions each thread owns; it moves to its next one after each cycle", 1, 65536);
    o.Enum("prealloc", &c_.prealloc,
           "file layout before measuring: none = ftruncate only (holes), fallocate, write = "
           "zeros written then fsync (the dd fix)",
           {{"none", Prealloc::kNone}, {"fallocate", Prealloc::kFallocate},
            {"write", Prealloc::kWrite}});
    o.Enum("cache_after_prepare", &c_.cache_after_prepare,
           "keep the prepared file cached, or drop it (fsync + posix_fadvise DONTNEED)",
           {{"keep", CacheAfterPrepare::kKeep}, {"drop", CacheAfterPrepare::kDrop}});
    o.Enum("msync", &c_.msync, "msync after each fill: sync (MS_SYNC), async (MS_ASYNC), none",
           {{"sync", Msync::kSync}, {"async", Msync::kAsync}, {"none", Msync::kNone}});
    o.Enum("pattern", &c_.pattern,
           "what a fill stores: cycle (a byte changing every cycle), random, zero",
           {{"cycle", Pattern::kCycle}, {"random", Pattern::kRandom}, {"zero", Pattern::kZero}});
  }

  std::string Validate(const RunSettings&) override {
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    if (c_.region_size % page != 0) {
      return "option 'mmap_msync.region_size' must be a multiple of the page size (" +
             std::to_string(page) + " bytes), got " + std::to_string(c_.region_size);
    }
    return {};
  }

  uint64_t Footprint(const RunSettings& s) const override { return FileBytes(s.threads); }
  std::vector<std::string> OpNames() const override {
    return {"mmap", "fill", "msync", "munmap", "cycle"};
  }
  std::string WorkUnit() const override { return "cycles"; }
  std::vector<std::string> AppWriteOps() const override { return {"fill"}; }
  std::vector<std::string> Files() const override { return {path_}; }

  void Prepare(PrepareContext& ctx) override {
    threads_ = ctx.settings().threads;
    path_ = ctx.run_dir() + "/data.db";
    const uint64_t size = FileBytes(threads_);
    fd_ = CheckSys(::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644), "open",
                   path_);
    CheckSys(::ftruncate(fd_, static_cast<off_t>(size)), "ftruncate", path_);
    if (c_.prealloc == Prealloc::kFallocate) {
      CheckSys(::fallocate(fd_, 0, 0, static_cast<off_t>(size)), "fallocate", path_);
      CheckSys(::fsync(fd_), "fsync", path_);
    } else if (c_.prealloc == Prealloc::kWrite) {
      WriteZeros(ctx, size);
    }
    if (c_.cache_after_prepare == CacheAfterPrepare::kDrop) {
      CheckSys(::fsync(fd_), "fsync", path_);
      // posix_fadvise returns the error instead of setting errno.
      if (int rc = ::posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED); rc != 0) {
        throw SysError("posix_fadvise", path_, rc);
      }
    }
  }

  void RunWorker(WorkerContext& ctx) override {
    Recorder& rec = ctx.recorder();
    const int t = ctx.thread_index();
    const size_t len = c_.region_size;
    const int msync_flags = c_.msync == Msync::kSync ? MS_SYNC : MS_ASYNC;
    const bool do_msync = c_.msync != Msync::kNone;
    uint64_t state = ctx.settings().seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(t) + 1;
    uint64_t cycle = 0;
    int64_t k = 0;
    while (ctx.KeepRunning()) {
      const uint64_t cycle_start = NowNs();
      // Regions interleave across threads (thread t's k-th region is
      // k * threads + t), as a database handing out the next free region
      // to whichever thread asks: neighbours are written concurrently.
      const uint64_t region = static_cast<uint64_t>(k) * threads_ + t;
      const off_t offset = static_cast<off_t>(region * len);
      void* map = nullptr;
      Timed(rec, kMmap, 0, [&] {
        map = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, offset);
        if (map == MAP_FAILED) throw SysError("mmap", path_, errno);
      });
      try {
        Timed(rec, kFill, len, [&] { Fill(map, len, ++cycle, &state); });
        if (do_msync) {
          Timed(rec, kMsync, len,
                [&] { CheckSys(::msync(map, len, msync_flags), "msync", path_); });
        }
      } catch (...) {
        ::munmap(map, len);
        throw;
      }
      Timed(rec, kMunmap, 0, [&] { CheckSys(::munmap(map, len), "munmap", path_); });
      ctx.RecordUnit(kCycle, cycle_start, NowNs(), len);
      if (do_msync && ctx.Measuring()) bytes_synced_.fetch_add(len, std::memory_order_relaxed);
      k = (k + 1) % c_.regions_per_thread;
    }
  }

  nlohmann::json Report() const override {
    nlohmann::json j = {{"file", "data.db"},
                        {"file_bytes", FileBytes(threads_)},
                        {"regions", static_cast<uint64_t>(threads_) * c_.regions_per_thread},
                        {"bytes_msynced", bytes_synced_.load()}};
    struct stat st {};
    if (fd_ >= 0 && ::fstat(fd_, &st) == 0) {
      // Holes left: a file that was ftruncate()d and never fully written has
      // fewer allocated bytes than its size.
      j["allocated_bytes"] = static_cast<uint64_t>(st.st_blocks) * 512;
    }
    return j;
  }

 private:
  uint64_t FileBytes(int threads) const {
    return static_cast<uint64_t>(threads) * static_cast<uint64_t>(c_.regions_per_thread) *
           c_.region_size;
  }

  void WriteZeros(PrepareContext& ctx, uint64_t size) {
    std::vector<char> zeros(1 << 20, 0);  // 1 MiB writes, like dd bs=1M
    uint64_t done = 0;
    while (done < size && !ctx.StopRequested()) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(zeros.size(), size - done));
      PwriteAll(fd_, zeros.data(), n, static_cast<off_t>(done), path_);
      done += n;
    }
    CheckSys(::fsync(fd_), "fsync", path_);
  }

  void Fill(void* map, size_t len, uint64_t cycle, uint64_t* state) {
    CatchSigbus("fill", path_, [&] {
      if (c_.pattern == Pattern::kZero) {
        std::memset(map, 0, len);
      } else if (c_.pattern == Pattern::kCycle) {
        // Never 0: a store of the byte already there must still change it.
        std::memset(map, static_cast<int>(1 + cycle % 255), len);
      } else {
        uint64_t x = *state;
        auto* words = static_cast<uint64_t*>(map);
        for (size_t i = 0; i < len / sizeof(uint64_t); ++i) {
          x ^= x << 13;  // xorshift64: cheap enough not to hide the page faults
          x ^= x >> 7;
          x ^= x << 17;
          words[i] = x;
        }
        *state = x;
      }
    });
  }

  MmapMsyncConfig c_;
  int threads_ = 0;
  std::string path_;
  int fd_ = -1;
  std::atomic<uint64_t> bytes_synced_{0};
};

}  // namespace
}  // namespace iomimic

IOMIMIC_REGISTER_WORKLOAD(iomimic::MmapMsync, "mmap_msync",
                          "database saving through mmap: mmap, fill, msync, munmap per region "
                          "of one ftruncate()d file");
