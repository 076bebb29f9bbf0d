// replay: an application's I/O, from its strace, issued again under the
// run directory. Each traced thread (or process) becomes a worker issuing
// the same syscalls in the same order, with the same sizes, offsets and
// flags, on the same files remapped under run_dir/copy<K>/ (the traced
// "/"), which prepare lays out as the trace implies they were. The unit of
// work (--ops) is one syscall. See README.md and docs/replay.md.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "iomimic/options.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "iomimic/workload.h"
#include "replay_exec.h"
#include "replay_layout.h"
#include "trace/compiler.h"
#include "trace/op_stream.h"
#include "trace/strace_reader.h"
#include "trace/trace_file.h"

namespace iomimic::replay {
namespace {

using trace::kSysCount;
using trace::Sys;

struct ReplayConfig {
  // The strace log (strace -f -tt -T -yy -s 0). REQUIRES: given.
  std::string trace;
  // asap | original | a factor (2 = twice as fast as traced). Default: asap.
  std::string speed = "asap";
  // Independent copies, each with its own files. Default: 1.
  int64_t copies = 1;
  // The op list is held in memory up to this size, else streamed from
  // run_dir/ops (its reads then reach the target's disk). Default: 256 MiB.
  uint64_t op_memory = 256ull << 20;
  // Replay only the calls on paths under this traced directory. Default: all.
  std::string only_under;
  // The last worker of a copy calls syncfs at the end, inside the measured
  // phase, so the device counters include the writeback. Default: false.
  bool syncfs_at_end = false;
};

// Per worker, on its own cache lines.
struct alignas(64) WorkerTotals {
  std::array<uint64_t, kSysCount> count{}, bytes{}, time_ns{}, mismatches{}, skipped{};
  uint64_t passes = 0;
  bool idle = false;  // its traced thread issued no replayable call
};

// Ops collected per traced thread (an op list that fits op_memory).
class MemorySink : public trace::OpSink {
 public:
  explicit MemorySink(std::vector<std::vector<trace::Op>>* out) : out_(out) {}
  void OnOp(const trace::Op& op, uint32_t thread, uint64_t) override {
    if (out_->size() <= thread) out_->resize(thread + 1);
    (*out_)[thread].push_back(op);
  }

 private:
  std::vector<std::vector<trace::Op>>* out_;
};

// A thread's ops from memory or from its file.
class OpSource {
 public:
  OpSource(const std::vector<trace::Op>* mem, const std::string& dir, uint32_t thread)
      : mem_(mem) {
    if (mem_ == nullptr) file_ = std::make_unique<trace::OpStreamReader>(dir, thread);
  }
  bool Next(trace::Op* op) {
    if (file_) return file_->Next(op);
    if (pos_ == mem_->size()) return false;
    *op = (*mem_)[pos_++];
    return true;
  }
  void Rewind() {
    pos_ = 0;
    if (file_) file_->Rewind();
  }

 private:
  const std::vector<trace::Op>* mem_;
  std::unique_ptr<trace::OpStreamReader> file_;
  size_t pos_ = 0;
};

class Counter : public trace::OpSink {
 public:
  void OnOp(const trace::Op& op, uint32_t, uint64_t) override {
    ++ops;
    max_io = std::max<uint64_t>(max_io, static_cast<uint64_t>(std::max<int64_t>(op.b, 0)));
  }
  uint64_t ops = 0, max_io = 0;
};

// The option's value as a factor; 0 = asap; -1 = not valid.
double SpeedFactor(const std::string& v) {
  if (v == "asap") return 0;
  if (v == "original") return 1;
  try {
    size_t used = 0;
    const double f = std::stod(v, &used);
    return used == v.size() && f > 0 ? f : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

class Replay final : public Workload {
 public:
  ~Replay() override {
    if (root_fd_ >= 0) ::close(root_fd_);
  }
  void DeclareOptions(OptionSet& o) override {
    o.Text("trace", &c_.trace,
           "the strace log to replay (strace -f -tt -T -yy -s 0 -o FILE CMD); --threads must be "
           "its threads x copies");
    o.Text("speed", &c_.speed,
           "asap (back to back) | original (the traced gaps between syscalls) | a factor "
           "(2 = twice as fast as traced)",
           [](const std::string& v) {
             return SpeedFactor(v) < 0 ? "not asap, original or a positive factor" : "";
           });
    o.Integer("copies", &c_.copies, "independent copies of the traced program, each with its "
              "own files (run_dir/copy<K>/)", 1, 256);
    o.Text("only_under", &c_.only_under,
           "replay only the calls on paths under this traced directory (e.g. the application's "
           "data directory); empty = every file the trace touches",
           [](const std::string& v) {
             return v.empty() || v[0] == '/' ? "" : "not an absolute path";
           });
    o.Size("op_memory", &c_.op_memory,
           "the compiled op list (88 bytes a syscall) is held in memory up to this size, else "
           "streamed from run_dir/ops, whose reads then reach the target's disk");
    o.Flag("syncfs_at_end", &c_.syncfs_at_end,
           "the last worker of each copy calls syncfs() when the trace ends, inside the measured "
           "phase, so that the device counters include the writeback (op 'syncfs_at_end')");
  }

  std::string Validate(const RunSettings& s) override;
  uint64_t Footprint(const RunSettings&) const override {
    return compiler_->files().Footprint(c_.only_under) * static_cast<uint64_t>(c_.copies) +
           (counter_.ops * sizeof(trace::Op) > c_.op_memory ? counter_.ops * sizeof(trace::Op) : 0) +
           (1 << 20);
  }
  std::vector<std::string> OpNames() const override {
    std::vector<std::string> names;
    for (int i = 0; i < kSysCount; ++i) names.emplace_back(trace::SysName(static_cast<Sys>(i)));
    names.emplace_back("syncfs_at_end");  // OpId kSysCount
    return names;
  }
  bool RunsToCompletion() const override { return true; }
  std::string WorkUnit() const override { return "syscalls"; }
  std::vector<std::string> AppReadOps() const override {
    return {"read", "pread64", "readv", "preadv", "preadv2"};
  }
  std::vector<std::string> AppWriteOps() const override {
    return {"write", "pwrite64", "writev", "pwritev", "pwritev2"};
  }
  void Prepare(PrepareContext& ctx) override;
  void RunWorker(WorkerContext& ctx) override;
  std::vector<std::string> Files() const override;
  nlohmann::json Report() const override;

 private:
  void Replayed(WorkerTotals& t, const trace::Op& op, const Outcome& o, uint64_t ns);
  bool WaitForSlot(WorkerContext& ctx, const Executor& exec, const trace::Op& op, uint32_t copy);
  void Step(WorkerContext& ctx, Executor& exec, const trace::Op& op, uint32_t copy,
            uint32_t thread, uint64_t seq, WorkerTotals& t);
  void WaitForOthers(WorkerContext& ctx, uint32_t copy, uint32_t self, uint64_t seq);
  std::atomic<uint64_t>& Progress(uint32_t copy, uint32_t thread) {
    return progress_[copy * threads_ + thread].value;
  }
  bool Passes(WorkerContext& ctx, Executor& exec, uint32_t copy, uint32_t thread,
              WorkerTotals& t);

  ReplayConfig c_;
  std::unique_ptr<trace::Compiler> compiler_;
  Counter counter_;
  uint32_t threads_ = 0;
  std::string ops_dir_;
  std::vector<std::vector<trace::Op>> mem_ops_;  // per thread, when they fit op_memory
  std::vector<std::unique_ptr<CopyState>> copies_;
  std::vector<WorkerTotals> totals_;
  std::vector<std::atomic<uint32_t>> running_;  // per copy: workers still replaying
  int root_fd_ = -1;  // the run directory, for syncfs_at_end
  // Per worker: the seq of the op it does next (~0 once done).
  struct alignas(64) Slot64 {
    std::atomic<uint64_t> value{0};
  };
  std::vector<Slot64> progress_;
  uint64_t seq_stride_ = 1;  // ops per pass + 1
  size_t slots_ = 0, map_slots_ = 0;
  uint64_t laid_out_bytes_ = 0;
  double factor_ = 0;
  bool loop_ = false;
};

// Reads the whole trace once (streaming): its threads, files and size. A
// trace that cannot be read is bad input, named with its line.
std::string Replay::Validate(const RunSettings& s) {
  if (c_.trace.empty()) return "option 'replay.trace' is required: the strace log to replay";
  if (const std::string why = trace::CheckTraceFile(c_.trace); !why.empty()) {
    return "option 'replay.trace' (" + c_.trace + "): " + why;
  }
  counter_ = Counter();
  compiler_ = std::make_unique<trace::Compiler>(&counter_, c_.only_under);
  try {
    trace::StraceReader reader(c_.trace);
    trace::Event ev;
    while (reader.Next(&ev)) compiler_->Add(ev);
  } catch (const trace::TraceError& e) {
    return "option 'replay.trace': " + std::string(e.what());
  } catch (const std::system_error& e) {
    return "option 'replay.trace' (" + c_.trace + "): " + e.what();
  }
  compiler_->Finish();
  threads_ = compiler_->tables().threads();
  if (threads_ == 0) return "option 'replay.trace' (" + c_.trace + "): no syscalls in the trace";
  const int64_t need = static_cast<int64_t>(threads_) * c_.copies;
  if (s.threads != need) {
    return "option 'threads' (" + std::to_string(s.threads) + ") must be " +
           std::to_string(need) + " for this trace: its " + std::to_string(threads_) +
           " threads x 'replay.copies' (" + std::to_string(c_.copies) + ")";
  }
  factor_ = SpeedFactor(c_.speed);
  loop_ = s.duration_ns > 0;
  return {};
}

void Replay::Prepare(PrepareContext& ctx) {
  // Second pass: the op list, in memory or one file per traced thread.
  const bool in_memory = counter_.ops * sizeof(trace::Op) <= c_.op_memory;
  ops_dir_ = ctx.run_dir() + "/ops";
  std::unique_ptr<trace::OpSink> sink;
  trace::OpStreamWriter* writer = nullptr;
  if (in_memory) {
    mem_ops_.assign(threads_, {});
    sink = std::make_unique<MemorySink>(&mem_ops_);
  } else {
    CheckSys(::mkdir(ops_dir_.c_str(), 0755), "mkdir", ops_dir_);
    sink = std::make_unique<trace::OpStreamWriter>(ops_dir_);
    writer = static_cast<trace::OpStreamWriter*>(sink.get());
  }
  trace::Compiler again(sink.get(), c_.only_under);
  trace::StraceReader reader(c_.trace);
  trace::Event ev;
  while (reader.Next(&ev) && !ctx.StopRequested()) again.Add(ev);
  try {
    if (writer != nullptr) writer->Close();
  } catch (const std::system_error& e) {
    throw SysError("write", ops_dir_, e.code().value());
  }
  const auto& tables = compiler_->tables();
  for (int64_t k = 0; k < c_.copies && !ctx.StopRequested(); ++k) {
    const std::string root = ctx.run_dir() + "/copy" + std::to_string(k);
    laid_out_bytes_ +=
        LayOut(compiler_->files(), root, c_.only_under, [&ctx] { return ctx.StopRequested(); });
    copies_.push_back(std::make_unique<CopyState>(root, tables.slots(), tables.map_slots()));
  }
  totals_ = std::vector<WorkerTotals>(threads_ * static_cast<size_t>(c_.copies));
  running_ = std::vector<std::atomic<uint32_t>>(static_cast<size_t>(c_.copies));
  for (auto& r : running_) r.store(threads_);
  progress_ = std::vector<Slot64>(totals_.size());
  seq_stride_ = compiler_->ops() + 1;
  slots_ = compiler_->tables().slots();
  map_slots_ = compiler_->tables().map_slots();
  // Opened here, not by a worker: the replay's workers issue only the
  // trace's calls (and syncfs_at_end's one syncfs per copy).
  root_fd_ = CheckSys(::open(ctx.run_dir().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), "open",
                      ctx.run_dir());
}


void Replay::Replayed(WorkerTotals& t, const trace::Op& op, const Outcome& o, uint64_t ns) {
  const auto i = static_cast<size_t>(op.sys);
  if (!o.issued) {
    ++t.skipped[i];
    return;
  }
  ++t.count[i];
  t.bytes[i] += o.bytes;
  t.time_ns[i] += ns;
  if (o.err != op.err) ++t.mismatches[i];
}

// Waits until the descriptor an op uses has been opened by the worker
// whose thread opened it in the trace. False: it never will be here (that
// open failed or is over, the others finished, or the run stops).
bool Replay::WaitForSlot(WorkerContext& ctx, const Executor& exec, const trace::Op& op,
                         uint32_t copy) {
  for (int spins = 0;; ++spins) {
    const Executor::Slot s = exec.State(op);
    if (s != Executor::Slot::kNotYet) return s == Executor::Slot::kReady;
    if (running_[copy].load(std::memory_order_acquire) <= 1 || ctx.StopRequested()) return false;
    if (spins < 100) {
      std::this_thread::yield();
    } else if (!ctx.SleepUntil(NowNs() + 20'000)) {
      return false;
    }
  }
}

// A close waits until the copy's other workers are past every op the
// trace shows before it (a thread's descriptor is often closed by another
// thread, after the users). Waits are only ever for earlier ops: no cycle.
void Replay::WaitForOthers(WorkerContext& ctx, uint32_t copy, uint32_t self, uint64_t seq) {
  for (uint32_t t = 0; t < threads_; ++t) {
    if (t == self) continue;
    for (int spins = 0; Progress(copy, t).load(std::memory_order_acquire) < seq; ++spins) {
      if (ctx.StopRequested()) return;
      if (spins < 100) {
        std::this_thread::yield();
      } else if (!ctx.SleepUntil(NowNs() + 20'000)) {
        return;
      }
    }
  }
}

// One op: wait for its descriptor, pace, issue, record. Throws SysError
// when the disk is full or failing (and the trace's call was not).
void Replay::Step(WorkerContext& ctx, Executor& exec, const trace::Op& op, uint32_t copy,
                  uint32_t thread, uint64_t seq, WorkerTotals& t) {
  Progress(copy, thread).store(seq, std::memory_order_release);
  Outcome o;
  uint64_t start = 0, end = 0;
  if (op.sys == Sys::k_close || op.sys == Sys::k_munmap) WaitForOthers(ctx, copy, thread, seq);
  if (WaitForSlot(ctx, exec, op, copy)) {
    start = NowNs();
    o = exec.Run(op);
    end = NowNs();
  }
  if (!o.issued) {
    if (ctx.Measuring()) Replayed(t, op, o, 0);
    return;
  }
  Recorder& rec = ctx.recorder();
  if ((o.err == ENOSPC || o.err == EIO || o.err == EDQUOT) && o.err != op.err) {
    rec.RecordError(static_cast<OpId>(op.sys), start, end);
    throw SysError(std::string(trace::SysName(op.sys)), exec.PathOf(op), o.err);
  }
  if (o.err != 0) {
    rec.RecordError(static_cast<OpId>(op.sys), start, end);
  } else {
    rec.Record(static_cast<OpId>(op.sys), start, end, o.bytes);
  }
  if (ctx.Measuring()) Replayed(t, op, o, end - start);
}

// The thread's ops, once or (with --duration) in a loop. True when the
// trace's end was reached (not stopped).
bool Replay::Passes(WorkerContext& ctx, Executor& exec, uint32_t copy, uint32_t thread,
                    WorkerTotals& t) {
  OpSource ops(mem_ops_.empty() ? nullptr : &mem_ops_[thread], ops_dir_, thread);
  uint64_t pass = 0, pass_start = NowNs();
  trace::Op op;
  while (ctx.KeepRunning()) {
    if (!ops.Next(&op)) {
      if (ctx.Measuring()) ++t.passes;
      if (!loop_) return true;
      // What this thread left open is closed once every worker of the copy
      // has finished the pass: none can be using it any more.
      Progress(copy, thread).store(++pass * seq_stride_, std::memory_order_release);
      WaitForOthers(ctx, copy, thread, pass * seq_stride_);
      exec.Release();
      ops.Rewind();
      exec.SetPassBase(pass * (compiler_->tables().binds() + 1));
      pass_start = NowNs();
      if (!ops.Next(&op)) {
        t.idle = true;
        return true;
      }
    }
    if (factor_ > 0 && !ctx.SleepUntil(pass_start + static_cast<uint64_t>(
                                                        static_cast<double>(op.ts_ns) / factor_))) {
      return false;
    }
    Step(ctx, exec, op, copy, thread, pass * seq_stride_ + op.seq, t);
  }
  return false;
}

void Replay::RunWorker(WorkerContext& ctx) {
  const auto w = static_cast<uint32_t>(ctx.thread_index());
  const uint32_t copy = w / threads_, thread = w % threads_;
  Executor exec(copies_[copy].get(), &compiler_->files());
  bool completed = false;
  try {
    completed = Passes(ctx, exec, copy, thread, totals_[w]);
    Progress(copy, thread).store(~0ull, std::memory_order_release);
  } catch (...) {
    Progress(copy, thread).store(~0ull, std::memory_order_release);
    if (running_[copy].fetch_sub(1) == 1) copies_[copy]->ReleaseAll(slots_, map_slots_);
    throw;
  }
  // What the trace left open is released by the copy's last worker: until
  // then another worker may use it.
  const bool last = running_[copy].fetch_sub(1) == 1;
  if (last) copies_[copy]->ReleaseAll(slots_, map_slots_);
  if (completed && last && c_.syncfs_at_end) {
    // The copy's writeback inside the measured phase (its one syncfs).
    const uint64_t start = NowNs();
    if (::syncfs(root_fd_) != 0) throw SysError("syncfs", copies_[copy]->root, errno);
    ctx.recorder().Record(static_cast<OpId>(kSysCount), start, NowNs(), 0);
  }
}

std::vector<std::string> Replay::Files() const {
  std::vector<std::string> out;
  for (const auto& copy : copies_) {
    for (const trace::FileInfo& f : compiler_->files().files()) {
      if (f.initial != trace::Initial::kFile && !f.created) continue;
      const std::string p = copy->root + f.path;
      struct stat st{};
      if (::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(p);
    }
  }
  return out;
}

nlohmann::json Replay::Report() const {
  nlohmann::json table = nlohmann::json::object();
  const auto& traced = compiler_->traced();
  uint64_t passes = ~0ull;
  for (const WorkerTotals& t : totals_) {
    if (!t.idle) passes = std::min(passes, t.passes);
  }
  if (passes == ~0ull) passes = 0;
  for (int i = 0; i < kSysCount; ++i) {
    uint64_t n = 0, bytes = 0, ns = 0, mism = 0, skipped = 0;
    for (const WorkerTotals& t : totals_) {
      n += t.count[static_cast<size_t>(i)];
      bytes += t.bytes[static_cast<size_t>(i)];
      ns += t.time_ns[static_cast<size_t>(i)];
      mism += t.mismatches[static_cast<size_t>(i)];
      skipped += t.skipped[static_cast<size_t>(i)];
    }
    const trace::SysTotals& tr = traced[static_cast<size_t>(i)];
    if (tr.count == 0 && n == 0) continue;
    table[std::string(trace::SysName(static_cast<Sys>(i)))] = {
        {"traced_count", tr.count}, {"replayed_count", n}, {"traced_bytes", tr.bytes},
        {"replayed_bytes", bytes}, {"traced_time_s", tr.time_ns / 1e9},
        {"replayed_time_s", ns / 1e9}, {"outcome_mismatches", mism}, {"skipped", skipped}};
  }
  nlohmann::json unreplayed = nlohmann::json::array();
  for (const auto& [key, n] : compiler_->unreplayed()) {
    unreplayed.push_back({{"syscall", key.first}, {"reason", key.second}, {"count", n}});
  }
  return {{"trace", c_.trace}, {"traced_threads", threads_}, {"copies", c_.copies},
          {"only_under", c_.only_under},
          {"passes_completed", totals_.empty() ? 0 : passes},
          {"laid_out_bytes", laid_out_bytes_}, {"syscalls", table}, {"unreplayed", unreplayed}};
}

}  // namespace

IOMIMIC_REGISTER_WORKLOAD(Replay, "replay",
                          "an application's I/O replayed from its strace (strace -f -tt -T -yy)");

}  // namespace iomimic::replay
