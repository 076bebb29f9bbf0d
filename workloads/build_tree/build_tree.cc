// build_tree: a compile (make -jN buildkernel) as a filesystem sees it.
//
// The source tree is generated into the run directory (TreeShape: dirs x
// files_per_dir sources, headers spread over an include path) or is a
// user's directory (source_dir), walked and read, never written. The
// engine's --threads is make's -jN: each worker takes the next source in
// tree order from a shared index and compiles it (Compiler: stat, read the
// source and the headers it includes, probing the include path, burn CPU,
// mkdir, write the object); with processes = true each compile runs in a
// forked child. The worker that finishes the last compile links. Objects go
// to the run directory's obj/, or to obj_target (another filesystem: the
// /usr/obj move). One unit of work (--ops) is one compiled source; the run
// ends when the build is done. See README.md.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "build_ops.h"
#include "build_options.h"
#include "child_job.h"
#include "compile_job.h"
#include "cpu_burner.h"
#include "iomimic/options.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "iomimic/workload.h"
#include "source_tree.h"
#include "tree_shape.h"
#include "tree_writer.h"

namespace iomimic::build_tree {
namespace {

constexpr uint64_t kBlock = 4096;  // allocation unit assumed by the footprint
uint64_t RoundUp(uint64_t v) { return (v + kBlock - 1) / kBlock * kBlock; }

// Each worker's totals, on its own cache line; read after the workers joined.
struct alignas(64) Slot {
  JobCounters counters;
};

// VmRSS of this process from /proc/self/status, in KiB (0 if unreadable).
uint64_t ResidentKib() {
  std::FILE* f = std::fopen("/proc/self/status", "re");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %" SCNu64 " kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib;
}

class BuildTree final : public Workload {
 public:
  void DeclareOptions(OptionSet& o) override { DeclareBuildOptions(o, &c_); }

  std::string Validate(const RunSettings& settings) override {
    seed_ = settings.seed;
    return ValidateBuildOptions(c_);
  }

  std::vector<ExtraTarget> ExtraTargets() const override {
    std::vector<ExtraTarget> out;
    if (!c_.source_dir.empty()) out.push_back({"source_dir", c_.source_dir, false, 0});
    if (!c_.obj_target.empty()) {
      out.push_back({"obj_target", c_.obj_target, true, Estimate().object_bytes});
    }
    return out;
  }

  uint64_t Footprint(const RunSettings&) const override {
    const Estimates& e = Estimate();
    return e.tree_bytes + (c_.obj_target.empty() ? e.object_bytes : 0);
  }

  std::vector<std::string> OpNames() const override { return build_tree::OpNames(); }
  bool RunsToCompletion() const override { return true; }
  std::string WorkUnit() const override { return "compiles"; }
  std::vector<std::string> AppReadOps() const override { return {"read"}; }
  std::vector<std::string> AppWriteOps() const override { return {"write"}; }

  void Prepare(PrepareContext& ctx) override {
    size_t extra = 0;
    src_root_ = c_.source_dir.empty() ? ctx.run_dir() + "/src" : ctx.extra_dirs()[extra++];
    if (!c_.source_dir.empty() && IsInside(ctx.run_dir(), src_root_)) {
      throw UsageError("the target '" + ctx.run_dir() + "' is inside 'build_tree.source_dir' (" +
                       src_root_ + "): iomimic never writes into a user's tree");
    }
    obj_root_ = c_.obj_target.empty() ? ctx.run_dir() + "/obj" : ctx.extra_dirs()[extra++];
    if (c_.obj_target.empty()) CheckSys(::mkdir(obj_root_.c_str(), 0755), "mkdir", obj_root_);
    link_output_ = obj_root_ + "/linked.out";
    walk_mode_ = c_.walk != "auto" ? c_.walk : (c_.source_dir.empty() ? "none" : "measure");

    settings_.include_dirs.clear();
    if (c_.source_dir.empty()) {
      shape_.emplace(TreeParamsOf(c_, ctx.settings().seed));
      prepared_ = WriteTree(*shape_, src_root_, [&] { return ctx.StopRequested(); }, &written_);
      for (int64_t k = 0; k < c_.include_path; ++k) {
        settings_.include_dirs.push_back(src_root_ + "/" +
                                         TreeShape::IncludeDirRelPath(static_cast<uint64_t>(k)));
      }
    } else {
      for (const std::string& d : SplitList(c_.include_dirs)) {
        settings_.include_dirs.push_back(src_root_ + "/" + d);
      }
    }
    suffixes_ = SplitList(c_.source_suffixes);
    if (walk_mode_ == "prepare") Walk(nullptr);
    burner_.Calibrate();
    settings_.obj_root = obj_root_;
    settings_.probe_with_stat = c_.probe == "stat";
    settings_.read_size = c_.read_size;
    settings_.cpu_per_kib_ns = c_.cpu_per_kib_ns;
    settings_.obj_ratio = c_.obj_ratio;
    settings_.burner = &burner_;
    slots_ = std::vector<Slot>(static_cast<size_t>(ctx.settings().threads));
    threads_ = ctx.settings().threads;
    phase_.store(kPrepared);
  }

  void RunWorker(WorkerContext& ctx) override {
    phase_.store(kBuilding);
    Recorder& rec = ctx.recorder();
    // The engine forgets what a worker recorded before its first
    // KeepRunning() (the warmup's ops), so the timed walk comes after one:
    // that first unit is job 0's first compile (the others wait for the
    // walk, so job 0 takes source 0).
    bool granted = false;
    if (walk_mode_ == "measure") {
      if (ctx.thread_index() == 0) {
        granted = ctx.KeepRunning();
        if (!WalkForAll(granted, rec)) return;
      } else if (!AwaitWalk()) {
        return;
      }
    }
    Slot& slot = slots_[static_cast<size_t>(ctx.thread_index())];
    const uint64_t total = TotalSources();
    std::optional<Compiler> compiler;
    if (!c_.processes) compiler.emplace(settings_, rec);
    int64_t ready_dir = -1;  // the object directory this worker made last
    for (;;) {
      // Take a source first: KeepRunning() counts a unit each time it says yes.
      const uint64_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= total) break;
      if (!granted && !ctx.KeepRunning()) break;
      granted = false;
      const uint64_t start = NowNs();
      const SourceJob job = MakeJob(i);
      JobCounters done;
      if (c_.processes) {
        const ChildOutcome o = RunInChild(rec, job.source, [&](Recorder& child_rec) {
          Compiler child(settings_, child_rec);
          ChildOutcome out;
          out.ready_dir = ready_dir;
          out.counters = child.Compile(job, &out.ready_dir);
          return out;
        });
        done = o.counters;
        ready_dir = o.ready_dir;
      } else {
        done = compiler->Compile(job, &ready_dir);
      }
      const uint64_t bytes = done.source_bytes + done.header_bytes;
      ctx.RecordUnit(kCompile, start, NowNs(), bytes);
      slot.counters.Add(done);
      // The last compile to finish, whichever worker ran it, starts the link.
      if (compiled_.fetch_add(1, std::memory_order_acq_rel) + 1 == total && c_.link) {
        Link(rec, compiler ? &*compiler : nullptr, total, &slot);
      }
    }
    // Memory as the build ends (before the engine's layout probe and report
    // add theirs): what the work queue and the workers cost.
    const uint64_t rss = ResidentKib();
    for (uint64_t seen = rss_at_end_kib_.load(); seen < rss;) {
      if (rss_at_end_kib_.compare_exchange_weak(seen, rss)) break;
    }
  }

  std::vector<std::string> Files() const override {
    std::vector<std::string> files;
    const int phase = phase_.load();
    if (phase == kPrepared) {  // the tree: what --cache cold evicts
      if (shape_) {
        for (uint64_t h = 0; h < shape_->headers(); ++h) {
          files.push_back(src_root_ + "/" + shape_->HeaderRelPath(h));
        }
        for (uint64_t i = 0; i < shape_->sources(); ++i) {
          files.push_back(src_root_ + "/" + shape_->SourceRelPath(i));
        }
      } else {
        WalkTree(src_root_, nullptr, [&](const std::string& rel, const std::string& name, int) {
          files.push_back(src_root_ + "/" + (rel.empty() ? name : rel + "/" + name));
        });
      }
    } else if (phase == kBuilding) {  // what the build wrote: the layout probe
      const uint64_t taken = std::min<uint64_t>(next_.load(), TotalSources());
      for (uint64_t i = 0; i < taken; ++i) {
        std::string path = obj_root_ + "/" + ObjectRel(i);
        if (::access(path.c_str(), F_OK) == 0) files.push_back(std::move(path));
      }
      if (link_done_.load()) files.push_back(link_output_);
    }
    return files;
  }

  nlohmann::json Report() const override;

 private:
  nlohmann::json TreeReport() const;

  enum Phase { kNew, kPrepared, kBuilding };
  enum WalkState { kWalkPending, kWalkDone, kWalkFailed };
  struct Estimates {
    uint64_t tree_bytes = 0;    // the generated tree on the target
    uint64_t object_bytes = 0;  // objects + link output + object directories
  };


  // Exact for a generated tree (its shape is a function of the seed); a
  // user's tree is walked untimed to sum the sizes of its sources.
  const Estimates& Estimate() const {
    if (estimates_) return *estimates_;
    Estimates e;
    uint64_t objects = 0, object_total = 0, dirs = 0;
    if (c_.source_dir.empty()) {
      const TreeShape shape(TreeParamsOf(c_, seed_));
      for (uint64_t h = 0; h < shape.headers(); ++h) e.tree_bytes += RoundUp(shape.HeaderSize(h));
      for (uint64_t i = 0; i < shape.sources(); ++i) {
        const uint64_t size = shape.SourceSize(i);
        e.tree_bytes += RoundUp(size);
        const uint64_t obj = ObjectBytes(size, c_.obj_ratio);
        objects += RoundUp(obj);
        object_total += obj;
      }
      dirs = static_cast<uint64_t>(c_.dirs);
      e.tree_bytes += (dirs + static_cast<uint64_t>(c_.include_path) + 2) * kBlock;
    } else {
      const std::vector<std::string> suffixes = SplitList(c_.source_suffixes);
      try {
        std::string last_dir = "\n";
        const auto add = [&](const std::string& rel, const std::string& name, int fd) {
          if (!HasSuffix(name, suffixes)) return;
          struct stat st {};
          if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
          const uint64_t obj = ObjectBytes(static_cast<uint64_t>(st.st_size), c_.obj_ratio);
          objects += RoundUp(obj);
          object_total += obj;
          if (rel != last_dir) ++dirs;
          last_dir = rel;
        };
        WalkTree(c_.source_dir, nullptr, add);
      } catch (const SysError&) {
        // Unreadable: the engine reports source_dir itself.
      }
    }
    e.object_bytes = objects + (c_.link ? RoundUp(object_total) : 0) + dirs * kBlock;
    estimates_ = e;
    return *estimates_;
  }

  void Walk(Recorder* rec) {
    if (shape_) {
      walk_stats_ = WalkTree(src_root_, rec, [&](const std::string&, const std::string& name, int) {
        if (HasSuffix(name, {".c"})) ++walk_sources_found_;
      });
    } else {
      const auto add = [&](const std::string& rel, const std::string& name, int) {
        if (HasSuffix(name, suffixes_)) user_.Add(rel, name);
      };
      walk_stats_ = WalkTree(src_root_, rec, add);
      walk_sources_found_ = user_.size();
    }
    walked_ = true;
  }

  // walk = measure: job 0 walks (timed) while the others wait for the list.
  // False when the walk did not happen or failed (job 0 reports the error).
  bool WalkForAll(bool measuring, Recorder& rec) {
    try {
      if (measuring) Timed(rec, kWalk, 0, [&] { Walk(&rec); });
    } catch (...) {
      walk_state_.store(kWalkFailed);
      walk_state_.notify_all();
      throw;
    }
    walk_state_.store(measuring ? kWalkDone : kWalkFailed);
    walk_state_.notify_all();
    return measuring;
  }
  bool AwaitWalk() {
    walk_state_.wait(kWalkPending);
    return walk_state_.load() == kWalkDone;
  }

  uint64_t TotalSources() const { return shape_ ? shape_->sources() : user_.size(); }

  std::string ObjectRel(uint64_t i) const {
    return shape_ ? shape_->ObjectRelPath(i) : user_.ObjectRelPath(i);
  }

  SourceJob MakeJob(uint64_t i) const {
    SourceJob job;
    if (shape_) {
      const uint64_t d = i / static_cast<uint64_t>(c_.files_per_dir);
      job.source = src_root_ + "/" + shape_->SourceRelPath(i);
      job.object_dir = obj_root_ + "/" + shape_->SourceDirName(d);
      job.object_dir_key = static_cast<int64_t>(d);
    } else {
      const std::string& dir = user_.DirPath(user_.DirOf(i));
      job.source = src_root_ + "/" + user_.RelPath(i);
      job.object_dir = dir.empty() ? obj_root_ : obj_root_ + "/" + dir;
      job.object_dir_key = user_.DirOf(i);
    }
    job.object = obj_root_ + "/" + ObjectRel(i);
    return job;
  }

  void Link(Recorder& rec, Compiler* compiler, uint64_t total, Slot* slot) {
    const uint64_t start = NowNs();
    const auto object_path = [this](size_t i) { return obj_root_ + "/" + ObjectRel(i); };
    JobCounters done;
    if (compiler != nullptr) {
      done = compiler->Link(total, object_path, link_output_);
    } else {
      done = RunInChild(rec, link_output_, [&](Recorder& child_rec) {
               Compiler child(settings_, child_rec);
               ChildOutcome out;
               out.counters = child.Link(total, object_path, link_output_);
               return out;
             }).counters;
    }
    rec.Record(kLink, start, NowNs(), done.link_bytes);
    slot->counters.Add(done);
    link_done_.store(true);
  }

  BuildTreeConfig c_;
  uint64_t seed_ = 1;
  mutable std::optional<Estimates> estimates_;
  std::optional<TreeShape> shape_;  // a generated tree
  SourceList user_;                 // a user's tree: the work queue
  std::vector<std::string> suffixes_;
  std::string src_root_, obj_root_, link_output_;
  std::string walk_mode_;
  BuildSettings settings_;
  CpuBurner burner_;
  TreeBytes written_;
  bool prepared_ = false;
  bool walked_ = false;
  WalkStats walk_stats_;
  uint64_t walk_sources_found_ = 0;
  int threads_ = 1;
  std::vector<Slot> slots_;
  std::atomic<int> phase_{kNew};
  std::atomic<int> walk_state_{kWalkPending};
  std::atomic<uint64_t> next_{0};      // the shared work queue: next source index
  std::atomic<uint64_t> compiled_{0};
  std::atomic<bool> link_done_{false};
  std::atomic<uint64_t> rss_at_end_kib_{0};
};

// What the tree is: generated (with what the include-path arithmetic
// promises) or the user's.
nlohmann::json BuildTree::TreeReport() const {
  const auto share = [](uint64_t part, uint64_t whole) {
    return whole == 0 ? nlohmann::json(nullptr)
                      : nlohmann::json(static_cast<double>(part) / static_cast<double>(whole));
  };
  nlohmann::json tree;
  if (shape_) {
    tree = {{"kind", "generated"},
            {"root", "src"},
            {"sources", shape_->sources()},
            {"dirs", c_.dirs},
            {"headers", shape_->headers()},
            {"include_path", c_.include_path},
            {"headers_per_include_dir", nlohmann::json::array()},
            {"files_written", written_.files},
            {"bytes_written", written_.bytes},
            {"complete", prepared_}};
    for (int64_t k = 0; k < c_.include_path; ++k) {
      tree["headers_per_include_dir"].push_back(shape_->HeadersInDir(static_cast<uint64_t>(k)));
    }
    const uint64_t misses = shape_->ExpectedProbeEnoent();
    const uint64_t hits = shape_->sources() * static_cast<uint64_t>(c_.includes_per_source);
    tree["probe_enoent_expected"] = misses;
    tree["enoent_share_expected"] = share(misses, misses + hits);
  } else {
    tree = {{"kind", "user"},
            {"root", src_root_},
            {"sources", TotalSources()},
            {"source_dirs", user_.size() == 0 ? 0 : user_.DirOf(user_.size() - 1) + 1},
            {"include_dirs", SplitList(c_.include_dirs)},
            {"work_queue_bytes", user_.MemoryBytes()}};
  }
  return tree;
}

nlohmann::json BuildTree::Report() const {
  JobCounters t;
  for (const Slot& s : slots_) t.Add(s.counters);
  const uint64_t total = TotalSources();
  const auto share = [](uint64_t part, uint64_t whole) {
    return whole == 0 ? nlohmann::json(nullptr)
                      : nlohmann::json(static_cast<double>(part) / static_cast<double>(whole));
  };
  const nlohmann::json tree = TreeReport();
  nlohmann::json walk = {{"when", walk_mode_}};
  if (walked_) {
    walk["dirs"] = walk_stats_.dirs;
    walk["entries"] = walk_stats_.entries;
    walk["files"] = walk_stats_.files;
    walk["sources_found"] = walk_sources_found_;
  }
  rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return {
      {"tree", tree},
      {"walk", walk},
      {"jobs", threads_},
      {"job_mode", c_.processes ? "processes" : "threads"},
      {"objects_in", c_.obj_target.empty() ? "target" : "obj_target"},
      {"obj_root", obj_root_},
      {"sources_compiled", t.compiled},
      {"build_complete", total > 0 && t.compiled == total},
      {"headers_read", t.headers_read},
      {"includes", t.includes},
      {"includes_cached", t.includes_cached},
      {"includes_skipped", t.includes_skipped},
      {"unresolved_includes", t.unresolved},
      {"max_include_depth", t.max_depth},
      {"probes", t.probes},
      {"probe_enoent", t.probe_enoent},
      {"enoent_share", share(t.probe_enoent, t.probes)},
      {"bytes",
       {{"source_read", t.source_bytes},
        {"header_read", t.header_bytes},
        {"object_written", t.object_bytes},
        {"link_read", t.link_bytes},
        {"link_written", t.link_bytes}}},
      {"objects", t.objects},
      {"mkdir", {{"calls", t.mkdirs}, {"eexist", t.mkdir_eexist}}},
      {"link",
       {{"done", link_done_.load()}, {"objects", t.link_objects}, {"output_bytes", t.link_bytes}}},
      {"cpu",
       {{"cpu_per_kib_ns", c_.cpu_per_kib_ns},
        {"burned_s", static_cast<double>(t.cpu_ns) / 1e9},
        {"spin_iterations_per_us", burner_.iterations_per_us()}}},
      {"makespan", "duration_s: from the start of the measured phase to the end of the link"},
      {"rss_at_build_end_kib", rss_at_end_kib_.load()},
      {"max_rss_kib", ru.ru_maxrss},
  };
}

}  // namespace
}  // namespace iomimic::build_tree

IOMIMIC_REGISTER_WORKLOAD(iomimic::build_tree::BuildTree, "build_tree",
                          "a compile (make -jN): walk a source tree, read sources and probe the "
                          "include path, burn CPU, write objects, link");
