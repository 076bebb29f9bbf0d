// rrd_update: a monitoring server updating thousands of round-robin
// database (RRD) files every period.
//
// Prepare creates `files` files laid out as rrdtool lays them out
// (rrd_layout.h). A run is `passes` passes; a pass updates every file once,
// in index order, file i by thread i % threads. One update (rrd_access.h)
// opens the file, locks it, reads its header, reads and writes the current
// row of each archive due on this pass (rrd_schedule.h), writes the live
// header back and closes. Between passes, untimed, the page cache is left
// warm, or the files are evicted (cold), or the machine's caches dropped
// (drop); with a period, the next pass starts `period` after the previous
// one started. The evidence is per pass (rrd_passes.h): its time, and per
// update the device's reads, KiB read and written, and device bytes per
// application byte. See README.md.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iomimic/options.h"
#include "iomimic/page_cache.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "iomimic/workload.h"
#include "rrd_access.h"
#include "rrd_files.h"
#include "rrd_image.h"
#include "rrd_layout.h"
#include "rrd_ops.h"
#include "rrd_passes.h"
#include "rrd_schedule.h"

namespace iomimic::rrd_update {
namespace {

constexpr uint64_t kSecondNs = 1'000'000'000;

struct RrdUpdateConfig {
  // RRD files updated by each pass. Default: 2,500 (the story's server).
  // REQUIRES: >= threads.
  int64_t files = 2500;
  // Data sources per file (values per row). Default: 1, which with the
  // default archives gives the classic ~94 KiB file; Cacti keeps most
  // data sources one per file, interface traffic as 2 (traffic_in/out).
  int64_t data_sources = 1;
  // Archives, "CF:STEPS:ROWS,..." (or rrdtool's RRA:CF:XFF:STEPS:ROWS).
  // Default: the Cacti/MRTG set (kCactiArchives).
  std::string archives = kCactiArchives;
  // Seconds per primary data point (rrdtool --step); passes are one step
  // apart in data time. Default: 300 s. REQUIRES: whole seconds.
  uint64_t step_ns = 300 * kSecondNs;
  // pread | mmap | mmap_random (see rrd_access.h). Default: pread.
  std::string access = "pread";
  // Passes over all files. Default: 1.
  int64_t passes = 1;
  // Wall-clock time from one pass's start to the next; 0 = back to back.
  // Default: 0.
  uint64_t period_ns = 0;
  // Data time of the first pass, unix seconds (UTC). Default: 1700000100
  // (2023-11-14 22:15 UTC: an ordinary pass, only the 1-step archives are
  // due). REQUIRES: >= step.
  int64_t start_time = 1700000100;
  // Page cache before each pass: warm | cold | drop. Default: warm.
  std::string cache = "warm";
  // Read each due row before writing it. Default: true.
  bool read_rows = true;
};

// One worker's figures, cumulative and for the pass under way. Aligned so
// threads never share a cache line; read by the pass leader at the gate.
struct alignas(64) ThreadSlot {
  UpdateTally pass_tally;
  uint64_t pass_updates = 0;
  uint64_t total_updates = 0;
};

Access AccessOf(const std::string& name) {
  if (name == "mmap") return Access::kMmap;
  if (name == "mmap_random") return Access::kMmapRandom;
  return Access::kPread;
}

class RrdUpdate final : public Workload {
 public:
  void DeclareOptions(OptionSet& o) override {
    o.Integer("files", &c_.files, "RRD files updated by each pass", 1, 10'000'000);
    o.Integer("data_sources", &c_.data_sources,
              "data sources per file (8-byte values per row); 1 with the default archives = "
              "the classic ~94 KiB Cacti/MRTG file",
              1, 1000);
    o.Text("archives", &c_.archives,
           "archives as CF:STEPS:ROWS,... (CF = AVERAGE|MIN|MAX|LAST; rrdtool's "
           "RRA:CF:XFF:STEPS:ROWS also accepted); default: Cacti's 1:600, 6:700, 24:775, "
           "288:797 for each CF",
           [](const std::string& v) {
             std::vector<Archive> parsed;
             return ParseArchives(v, &parsed);
           });
    o.Duration("step", &c_.step_ns,
               "seconds per primary data point (rrdtool --step); passes are one step apart in "
               "data time",
               kSecondNs, 366ull * 24 * 3600 * kSecondNs);
    o.Enum("access", &c_.access,
           "how an update reaches the file: pread (read/write syscalls), mmap (MAP_SHARED, "
           "default advice), mmap_random (rrdtool 1.7 on Linux: MADV_RANDOM, then "
           "MADV_NORMAL + MADV_WILLNEED on the header page)",
           {"pread", "mmap", "mmap_random"});
    o.Integer("passes", &c_.passes, "passes over all files", 1, 1'000'000);
    o.Duration("period", &c_.period_ns,
               "wall-clock time from one pass's start to the next; 0 = back to back");
    o.Integer("start_time", &c_.start_time,
              "data time of the first pass, unix seconds UTC: a multiple of 7200 is a pass on a "
              "2-hour boundary (more archives due); default 1700000100 = an ordinary pass",
              1, 1ll << 40);
    o.Enum("cache", &c_.cache,
           "page cache before each pass: warm (as the last pass left it), cold (fdatasync + "
           "posix_fadvise DONTNEED of every file, untimed), drop (sync + drop_caches, root "
           "only, whole machine)",
           {"warm", "cold", "drop"});
    o.Flag("read_rows", &c_.read_rows,
           "read each due row before writing it (false: write only, as rrdtool itself does)");
  }

  std::string Validate(const RunSettings& s) override {
    std::vector<Archive> parsed;
    if (std::string why = ParseArchives(c_.archives, &parsed); !why.empty()) {
      return "invalid value for option 'rrd_update.archives': " + why;
    }
    if (!CheckedFootprint()) {
      return "options 'rrd_update.files' (" + std::to_string(c_.files) +
             "), 'rrd_update.data_sources' (" + std::to_string(c_.data_sources) +
             ") and 'rrd_update.archives' give more than 2^64 bytes of files: no filesystem "
             "holds that";
    }
    if (c_.step_ns % kSecondNs != 0) {
      return "option 'rrd_update.step' must be whole seconds, got " +
             std::to_string(c_.step_ns) + " ns";
    }
    if (static_cast<uint64_t>(c_.start_time) < StepSeconds()) {
      return "option 'rrd_update.start_time' (" + std::to_string(c_.start_time) +
             ") must be at least one step (" + std::to_string(StepSeconds()) + " s)";
    }
    if (s.threads > c_.files) {
      return "option 'threads' (" + std::to_string(s.threads) +
             ") must not exceed 'rrd_update.files' (" + std::to_string(c_.files) + ")";
    }
    if (c_.cache == "drop" && ::geteuid() != 0) {
      return "option 'rrd_update.cache' = drop writes /proc/sys/vm/drop_caches and needs root; "
             "use cache = cold to evict only this run's files";
    }
    return {};
  }

  uint64_t Footprint(const RunSettings&) const override {
    return CheckedFootprint().value_or(UINT64_MAX);  // Validate refused an overflow already
  }

  std::vector<std::string> OpNames() const override { return OpNameList(); }
  bool RunsToCompletion() const override { return true; }
  std::string WorkUnit() const override { return "updates"; }
  std::vector<std::string> AppReadOps() const override { return AppReadOpList(); }
  std::vector<std::string> AppWriteOps() const override { return AppWriteOpList(); }

  void Prepare(PrepareContext& ctx) override {
    layout_ = BuildLayout();
    names_ = FileNames(ctx.run_dir());
    threads_ = ctx.settings().threads;
    slots_ = std::vector<ThreadSlot>(static_cast<size_t>(threads_));
    gate_ = std::make_unique<PassGate>(threads_);
    duration_ns_ = ctx.settings().duration_ns;
    CreateSpec spec;
    spec.files = Files64();
    spec.step = StepSeconds();
    spec.last_up = static_cast<uint64_t>(c_.start_time) - spec.step;
    spec.seed = ctx.settings().seed;
    if (!CreateFiles(ctx, names_, layout_, spec)) return;
    prepared_ = true;
    if (c_.cache == "drop") {
      ctx.Info(
          "rrd_update: cache=drop: sync; echo 3 > /proc/sys/vm/drop_caches before each pass "
          "(the whole machine's page cache, dentries and inodes)");
    }
    EmptyCache();
  }

  void RunWorker(WorkerContext& ctx) override {
    if (!prepared_) return;
    try {
      Work(ctx);
    } catch (...) {
      gate_->Abort();
      throw;
    }
  }

  std::vector<std::string> Files() const override {
    return prepared_ ? names_.All(Files64()) : std::vector<std::string>{};
  }

  nlohmann::json Report() const override {
    const Layout& l = layout_;
    nlohmann::json archives = nlohmann::json::array();
    for (size_t i = 0; i < l.archive_count(); ++i) {
      const Archive& a = l.archive(i);
      archives.push_back({{"cf", a.cf},
                          {"pdp_cnt", a.pdp_cnt},
                          {"rows", a.rows},
                          {"offset", l.archive_offset(i)},
                          {"bytes", a.rows * l.row_bytes()}});
    }
    uint64_t updates = 0;
    for (const ThreadSlot& s : slots_) updates += s.total_updates;
    nlohmann::json j = {
        {"files", Files64()},
        {"file_bytes", l.file_bytes()},
        {"header_bytes", l.header_bytes()},
        {"data_sources", l.data_sources()},
        {"step_s", StepSeconds()},
        {"access", c_.access},
        {"cache", c_.cache},
        {"read_rows", c_.read_rows},
        {"start_time", c_.start_time},
        {"start_time_utc", UtcText(static_cast<uint64_t>(c_.start_time))},
        {"sections",
         {{"stat_head", 0},
          {"ds_def", l.ds_def_offset()},
          {"rra_def", l.rra_def_offset()},
          {"live_head", l.live_head_offset()},
          {"pdp_prep", l.pdp_prep_offset()},
          {"cdp_prep", l.cdp_prep_offset()},
          {"rra_ptr", l.rra_ptr_offset()},
          {"data", l.header_bytes()}}},
        {"archives", std::move(archives)},
        {"updates", updates},
        {"rss_kib",
         {{"first_pass_start", rss_start_.now},
          {"last_pass_end", rss_end_.now},
          {"peak_at_last_pass_end", rss_end_.peak}}},
    };
    j.update(log_.ToJson());
    return j;
  }

 private:
  uint64_t StepSeconds() const { return c_.step_ns / kSecondNs; }
  uint64_t Files64() const { return static_cast<uint64_t>(c_.files); }

  // Each file rounded up to 4 KiB blocks plus a block of metadata margin
  // (inode, extent tree); a directory block per 1,000 files. nullopt when
  // that does not fit in 64 bits (files=9999399 with huge archives once
  // wrapped around to a small number and passed the space check).
  std::optional<uint64_t> CheckedFootprint() const {
    const Layout l = BuildLayout();
    const uint64_t files = Files64();
    uint64_t per_file = 0, all = 0, total = 0;
    if (__builtin_add_overflow(l.file_bytes(), 4095 + 4096, &per_file)) return std::nullopt;
    per_file = per_file / 4096 * 4096;
    if (__builtin_mul_overflow(files, per_file, &all) ||
        __builtin_add_overflow(all, (files / kFilesPerDir + 1) * 4096, &total)) {
      return std::nullopt;
    }
    return total;
  }

  Layout BuildLayout() const {
    std::vector<Archive> parsed;
    ParseArchives(c_.archives, &parsed);  // validated already
    return Layout(static_cast<uint64_t>(c_.data_sources), std::move(parsed));
  }

  void EmptyCache() {
    if (c_.cache == "cold") EvictFiles(names_, Files64());
    if (c_.cache == "drop") DropAllCaches();
  }

  void Work(WorkerContext& ctx) {
    Recorder& rec = ctx.recorder();
    const uint64_t t = static_cast<uint64_t>(ctx.thread_index());
    const uint64_t stride = static_cast<uint64_t>(threads_);
    const uint64_t passes = static_cast<uint64_t>(c_.passes);
    ThreadSlot& slot = slots_[t];
    Updater updater(AccessOf(c_.access), layout_);
    PathBuffer paths(names_);

    if (!gate_->Arrive([&] { return BeginPass(ctx, 0); })) return;
    for (uint64_t p = 0; p < passes; ++p) {
      for (uint64_t i = t; i < Files64(); i += stride) {
        if (!ctx.KeepRunning()) {
          gate_->Abort();
          return;
        }
        const UpdateTally before = slot.pass_tally;
        const uint64_t start = NowNs();
        try {
          updater.Update(paths.Format(i), plan_, rec, &slot.pass_tally);
        } catch (...) {
          rec.RecordError(kUpdate, start, NowNs());
          throw;
        }
        const uint64_t end = NowNs();
        const uint64_t bytes = slot.pass_tally.app_read_bytes - before.app_read_bytes +
                               slot.pass_tally.app_write_bytes - before.app_write_bytes;
        ctx.RecordUnit(kUpdate, start, end, bytes);
        ++slot.pass_updates;
        ++slot.total_updates;
      }
      const bool more = p + 1 < passes;
      if (!gate_->Arrive([&] {
            EndPass(ctx, more);
            return !more || BeginPass(ctx, p + 1);
          })) {
        return;
      }
    }
  }

  // Pass leader only (inside the gate).
  bool BeginPass(WorkerContext& ctx, uint64_t p) {
    const uint64_t step = StepSeconds();
    due_ = DueArchives(layout_, static_cast<uint64_t>(c_.start_time), step, p);
    plan_.due = &due_;
    plan_.time = PassTime(static_cast<uint64_t>(c_.start_time), step, p);
    plan_.read_rows = c_.read_rows;
    if (p == 0) {
      rss_start_ = ReadRssKib();
      first_start_ns_ = NowNs();
      intended_ns_ = first_start_ns_;
    } else if (c_.period_ns != 0) {
      intended_ns_ = first_start_ns_ + p * c_.period_ns;
      if (!ctx.SleepUntil(intended_ns_)) return false;  // a stop ends the wait
    }
    current_ = PassRecord{};
    current_.index = p;
    current_.time = plan_.time;
    current_.due_archives = static_cast<uint32_t>(due_.size());
    current_.before = ctx.SampleDevice(names_.run_dir());
    current_.start_ns = NowNs();
    if (c_.period_ns == 0) intended_ns_ = current_.start_ns;
    return true;
  }

  // Pass leader only (inside the gate): closes the current pass; with more
  // passes to come, empties the cache as asked (untimed, outside the pass).
  void EndPass(WorkerContext& ctx, bool more) {
    current_.end_ns = NowNs();
    current_.after = ctx.SampleDevice(names_.run_dir());
    for (ThreadSlot& s : slots_) {
      current_.updates += s.pass_updates;
      current_.tally.app_read_bytes += s.pass_tally.app_read_bytes;
      current_.tally.app_write_bytes += s.pass_tally.app_write_bytes;
      current_.tally.syscalls += s.pass_tally.syscalls;
      s.pass_updates = 0;
      s.pass_tally = UpdateTally{};
    }
    if (c_.period_ns != 0) {
      ctx.recorder().RecordPaced(kPass, intended_ns_, current_.start_ns, current_.end_ns, 0);
    } else {
      ctx.recorder().Record(kPass, current_.start_ns, current_.end_ns, 0);
    }
    if (more && c_.cache != "warm") {
      current_.evicted = true;
      current_.evict_before = current_.after;
      const uint64_t t0 = NowNs();
      EmptyCache();
      current_.evict_ns = NowNs() - t0;
      current_.evict_after = ctx.SampleDevice(names_.run_dir());
    }
    log_.Add(current_);
    // Memory through the passes, before the engine's end-of-run probes
    // (whose per-file layout list grows with the files) add theirs.
    rss_end_ = ReadRssKib();
  }


  RrdUpdateConfig c_;
  Layout layout_;
  FileNames names_;
  int threads_ = 1;
  uint64_t duration_ns_ = 0;
  bool prepared_ = false;
  std::vector<ThreadSlot> slots_;
  std::unique_ptr<PassGate> gate_;
  // Written by the pass leader inside the gate, read by all workers after it.
  std::vector<uint32_t> due_;
  PassPlan plan_;
  PassRecord current_;
  uint64_t first_start_ns_ = 0;
  uint64_t intended_ns_ = 0;
  RssKib rss_start_, rss_end_;
  PassLog log_;
};

}  // namespace
}  // namespace iomimic::rrd_update

IOMIMIC_REGISTER_WORKLOAD(iomimic::rrd_update::RrdUpdate, "rrd_update",
                          "monitoring server updating thousands of small RRD files per pass: "
                          "open, lock, read header, read+write one row per due archive, close");
