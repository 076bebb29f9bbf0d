// log_writers: a multi-threaded gateway writing many log files at once.
//
// Each thread writes records to its own logs (files_per_thread, round
// robin) or to logs shared by all threads (shared_files, one mutex per log
// held for a whole record). A record is record_size bytes cut into
// writes_per_record write() calls, with lseek(fd, 0, SEEK_CUR) and
// clock_gettime(CLOCK_REALTIME) calls spread between them, as the real
// gateway's strace showed (~100 writes, 15 lseeks, 33 clock reads per
// 1 KiB record). The flush policy decides when data is made durable or,
// with a user-space buffer, when write() is called at all; rotation and
// preallocation shape the files. The unit of work (--ops, --rate) is one
// record. See README.md.
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "flush_policy.h"
#include "iomimic/options.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "iomimic/workload.h"
#include "log_file.h"
#include "log_report.h"
#include "op_table.h"
#include "record_plan.h"

namespace iomimic::log_writers {
namespace {

struct LogWritersConfig {
  // Logs each thread writes, round robin by record. Default: 1.
  // REQUIRES: 1 when shared_files > 0.
  int64_t files_per_thread = 1;
  // 0: every thread has its own logs. N > 0: N logs shared by all threads,
  // one mutex per log held for a whole record. Default: 0.
  int64_t shared_files = 0;
  // Bytes per record. Default: 1 KiB. REQUIRES: >= writes_per_record.
  uint64_t record_size = 1024;
  // write() calls per record (copies into the buffer with flush=buffer).
  // Default: 100.
  int64_t writes_per_record = 100;
  // lseek(fd, 0, SEEK_CUR) calls per record. Default: 15.
  int64_t lseeks_per_record = 15;
  // clock_gettime(CLOCK_REALTIME) calls per record. Default: 33.
  int64_t clock_reads_per_record = 33;
  // Record each clock read as a "clock" op (false: issue them untimed, to
  // measure what recording them costs). Default: true.
  bool time_clock_reads = true;
  // none | fdatasync:N | fsync:N | odsync | buffer:SIZE. Default: none.
  std::string flush = "none";
  // none | fallocate:SIZE (FALLOC_FL_KEEP_SIZE, at creation and after
  // each rotation). Default: none.
  std::string prealloc = "none";
  // Rotate a log once it holds this many bytes; 0 = never. Default: 0.
  uint64_t rotate_size = 0;
  // Sleep after each record (not part of the record). Default: 0.
  uint64_t think_time_ns = 0;
};

// Aligned so threads' counters never share a cache line.
struct alignas(64) ThreadTotals {
  uint64_t clock_reads = 0;  // in the measured phase
  bool measuring = false;
  uint64_t clock_sink = 0;  // keeps the reads' results alive
};

// The footprint bound of a run limited only by --duration: above the
// fastest a thread appended 1 KiB records here (buffered, no think time:
// 170-220 MiB/s, README). An estimate, not a guarantee: much larger
// records copy faster, and ENOSPC then stops the run cleanly.
constexpr double kMaxAppendBytesPerThreadPerS = 256.0 * (1 << 20);
// What the space check assumes of a run with neither --ops nor --duration.
constexpr double kUnboundedRunS = 60;
// All logs' buffers together.
constexpr uint64_t kMaxBufferMemory = 1ull << 30;
// Allocation slack per file beyond its data (a partial last block,
// speculative preallocation trimmed on close).
constexpr uint64_t kSlackPerFile = 64ull << 10;

class LogWriters final : public Workload {
 public:
  void DeclareOptions(OptionSet& o) override {
    o.Integer("files_per_thread", &c_.files_per_thread,
              "logs each thread writes (round robin by record); logs/t<T>_f<F>.log", 1, 1024);
    o.Integer("shared_files", &c_.shared_files,
              "0 = each thread its own logs; N = N logs shared by all threads (a mutex per log "
              "held for a whole record); logs/shared_f<F>.log",
              0, 4096);
    o.Size("record_size", &c_.record_size, "bytes per record", 1, 64ull << 20);
    o.Integer("writes_per_record", &c_.writes_per_record,
              "write() calls per record, of near-equal size (with flush=buffer: copies into the "
              "buffer)",
              1, 1'000'000);
    o.Integer("lseeks_per_record", &c_.lseeks_per_record,
              "lseek(fd, 0, SEEK_CUR) calls per record, spread between the writes", 0, 1'000'000);
    o.Integer("clock_reads_per_record", &c_.clock_reads_per_record,
              "clock_gettime(CLOCK_REALTIME) calls per record, spread between the writes", 0,
              1'000'000);
    o.Flag("time_clock_reads", &c_.time_clock_reads,
           "record each clock read as a 'clock' op; false = issue them untimed (to measure what "
           "timing them costs)");
    // The check parses into the policy the workers use: a value that gets
    // past it is known good.
    o.Text("flush", &c_.flush,
           "none | fdatasync:N | fsync:N (after every N-th record of a log) | odsync (O_DSYNC) | "
           "buffer:SIZE (records copied into a SIZE buffer per log, one write() when full)",
           [this](const std::string& v) { return ParseFlushPolicy(v, &log_settings_.flush); });
    o.Text("prealloc", &c_.prealloc,
           "none | fallocate:SIZE (FALLOC_FL_KEEP_SIZE at creation and after each rotation)",
           [this](const std::string& v) {
             return ParsePrealloc(v, &log_settings_.prealloc_bytes);
           });
    o.Size("rotate_size", &c_.rotate_size,
           "rotate a log holding this many bytes before its next record: close, rename to "
           "NAME.k (k = 1, 2, ...; .1 oldest), create NAME again; 0 = never");
    o.Duration("think_time", &c_.think_time_ns,
               "sleep after each record, outside it (closed loop: lowers the rate); the count "
               "of records is the engine's --ops, as in the profiles (ops = 56000, duration = 0)",
               0, 60'000'000'000);
  }

  std::string Validate(const RunSettings& s) override {
    if (static_cast<uint64_t>(c_.writes_per_record) > c_.record_size) {
      return "option 'log_writers.writes_per_record' (" + std::to_string(c_.writes_per_record) +
             ") must not exceed 'log_writers.record_size' (" + std::to_string(c_.record_size) +
             " bytes): each write carries at least one byte";
    }
    if (c_.shared_files > 0 && c_.files_per_thread != 1) {
      return "options 'log_writers.shared_files' (" + std::to_string(c_.shared_files) +
             ") and 'log_writers.files_per_thread' (" + std::to_string(c_.files_per_thread) +
             ") exclude each other: shared logs are written by every thread";
    }
    const uint64_t logs = Logs(s.threads);
    if (log_settings_.flush.buffered() &&
        logs * log_settings_.flush.buffer_bytes > kMaxBufferMemory) {
      return "option 'log_writers.flush' (" + c_.flush + "): " + std::to_string(logs) +
             " logs x the buffer size exceed 1 GiB of buffers";
    }
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY &&
        logs + 64 > files.rlim_cur) {
      return std::to_string(logs) + " logs open at once (threads x 'log_writers.files_per_thread'" +
             " or 'log_writers.shared_files') exceed the open-file limit (ulimit -n " +
             std::to_string(files.rlim_cur) + ") less 64 for the rest of the run";
    }
    return {};
  }

  // Record bytes (from --ops, or bounded from --duration), plus per file
  // its preallocation and some slack. Rotation adds at most one file per
  // rotate_size bytes.
  uint64_t Footprint(const RunSettings& s) const override {
    const uint64_t data = static_cast<uint64_t>(MaxRecords(s) * c_.record_size);
    uint64_t files = Logs(s.threads);
    if (c_.rotate_size != 0) files += data / c_.rotate_size;
    return data + files * (log_settings_.prealloc_bytes + kSlackPerFile);
  }
  // The logs made in prepare; records appended while measuring are guarded
  // by the engine instead of estimated (a worst case refused ordinary runs).
  std::optional<uint64_t> KnownFootprint(const RunSettings& s) const override {
    return Logs(s.threads) * (log_settings_.prealloc_bytes + kSlackPerFile);
  }

  std::vector<std::string> OpNames() const override { return Ops().names(); }
  std::string WorkUnit() const override { return "records"; }
  std::vector<std::string> AppWriteOps() const override { return {"write"}; }

  void Prepare(PrepareContext& ctx) override {
    const RunSettings& s = ctx.settings();
    ops_ = Ops();
    plan_ = {c_.record_size, static_cast<uint64_t>(c_.writes_per_record),
             static_cast<uint64_t>(c_.lseeks_per_record),
             static_cast<uint64_t>(c_.clock_reads_per_record)};
    log_settings_.rotate_bytes = c_.rotate_size;
    totals_ = std::vector<ThreadTotals>(static_cast<size_t>(s.threads));
    active_workers_.store(s.threads);
    dir_ = ctx.run_dir() + "/logs";
    CheckSys(::mkdir(dir_.c_str(), 0755), "mkdir", dir_);
    for (uint64_t i = 0; i < Logs(s.threads) && !ctx.StopRequested(); ++i) {
      logs_.push_back(std::make_unique<LogFile>(dir_, LogName(i), &log_settings_, &ops_));
      logs_.back()->Create();
    }
    // The record's bytes: printable, one line per record.
    record_.assign(c_.record_size, '\0');
    for (uint64_t i = 0; i < record_.size(); ++i) record_[i] = static_cast<char>('a' + i % 26);
    record_.back() = '\n';
  }

  void RunWorker(WorkerContext& ctx) override {
    Recorder& rec = ctx.recorder();
    const int t = ctx.thread_index();
    const bool shared = c_.shared_files > 0;
    const uint64_t per_thread = static_cast<uint64_t>(c_.files_per_thread);
    const uint64_t n_shared = static_cast<uint64_t>(c_.shared_files);
    ThreadTotals& mine = totals_[static_cast<size_t>(t)];
    for (uint64_t k = 0; ctx.KeepRunning(); ++k) {
      const uint64_t start = NowNs();
      if (ctx.Measuring() && !mine.measuring) {
        mine.measuring = true;
        mine.clock_reads = 0;  // warmup's
      }
      LogFile& log = shared ? *logs_[(static_cast<uint64_t>(t) + k) % n_shared]
                            : *logs_[static_cast<uint64_t>(t) * per_thread + k % per_thread];
      if (shared) {
        const uint64_t wait_start = NowNs();
        std::lock_guard<std::mutex> lock(log.mu());
        rec.Record(ops_[OpKind::kLockWait], wait_start, NowNs(), 0);
        WriteRecord(rec, log, &mine);
      } else {
        WriteRecord(rec, log, &mine);
      }
      const uint64_t end = NowNs();
      ctx.RecordUnit(ops_[OpKind::kRecord], start, end, c_.record_size);
      // Stop-aware: a stop during the sleep ends the run at KeepRunning().
      if (c_.think_time_ns != 0) ctx.SleepUntil(NowNs() + c_.think_time_ns);
    }
    // What the buffers hold reaches the files within the measured phase:
    // a thread's own logs when it stops, shared logs when the last one does.
    if (!shared) {
      for (uint64_t f = 0; f < per_thread; ++f) {
        logs_[static_cast<uint64_t>(t) * per_thread + f]->Finish(rec);
      }
    } else if (active_workers_.fetch_sub(1) == 1) {
      for (auto& log : logs_) log->Finish(rec);
    }
  }

  std::vector<std::string> Files() const override {
    std::vector<std::string> files;
    for (const auto& log : logs_) {
      for (std::string& p : log->Paths()) files.push_back(std::move(p));
    }
    return files;
  }

  nlohmann::json Report() const override {
    ReportFacts facts;
    facts.record_size = c_.record_size;
    facts.flush = c_.flush;
    facts.prealloc = c_.prealloc;
    facts.rotate_size = c_.rotate_size;
    facts.writes_per_record = static_cast<uint64_t>(c_.writes_per_record);
    facts.buffered = log_settings_.flush.buffered();
    for (const ThreadTotals& t : totals_) facts.clock_reads += t.clock_reads;
    std::vector<const LogFile*> logs;
    for (const auto& log : logs_) logs.push_back(log.get());
    return LogsReport(logs, facts);
  }

 private:
  uint64_t Logs(int threads) const {
    return c_.shared_files > 0
               ? static_cast<uint64_t>(c_.shared_files)
               : static_cast<uint64_t>(threads) * static_cast<uint64_t>(c_.files_per_thread);
  }

  // An upper bound of the records of a run: --ops, else what --duration
  // allows at --rate, one record per think_time, or the fastest append
  // rate measured here, whichever is lowest. A run with neither (until
  // interrupted) cannot be bounded: the check assumes it lasts
  // kUnboundedRunS, and ENOSPC stops it cleanly if it outlasts that.
  double MaxRecords(const RunSettings& s) const {
    if (s.ops != 0) return static_cast<double>(s.ops);
    const double seconds =
        s.duration_ns != 0 ? static_cast<double>(s.duration_ns) / 1e9 : kUnboundedRunS;
    double per_thread = seconds * kMaxAppendBytesPerThreadPerS / static_cast<double>(c_.record_size);
    if (s.rate_per_thread > 0) per_thread = std::min(per_thread, seconds * s.rate_per_thread + 1);
    if (c_.think_time_ns != 0) {
      per_thread = std::min(per_thread, seconds * 1e9 / static_cast<double>(c_.think_time_ns) + 1);
    }
    return std::ceil(per_thread) * s.threads;
  }

  // logs/t<thread>_f<file>.log, or logs/shared_f<file>.log. (Appends, not
  // operator+: GCC 12 -O3 warns falsely on the chained form, -Wrestrict.)
  std::string LogName(uint64_t i) const {
    std::string name;
    if (c_.shared_files > 0) {
      name.append("shared_f").append(std::to_string(i));
    } else {
      const uint64_t per_thread = static_cast<uint64_t>(c_.files_per_thread);
      name.append("t").append(std::to_string(i / per_thread));
      name.append("_f").append(std::to_string(i % per_thread));
    }
    return name.append(".log");
  }

  OpTable Ops() const {
    const FlushPolicy& f = log_settings_.flush;
    const bool rotates = c_.rotate_size != 0;
    OpTable t;
    if (c_.shared_files > 0) t.Add(OpKind::kLockWait);
    if (c_.clock_reads_per_record > 0 && c_.time_clock_reads) t.Add(OpKind::kClock);
    t.Add(OpKind::kWrite);
    if (c_.lseeks_per_record > 0) t.Add(OpKind::kLseek);
    if (f.kind == FlushPolicy::Kind::kFdatasync) t.Add(OpKind::kFdatasync);
    if (f.kind == FlushPolicy::Kind::kFsync) t.Add(OpKind::kFsync);
    if (rotates) {
      t.Add(OpKind::kClose);
      t.Add(OpKind::kRename);
      t.Add(OpKind::kOpen);
      if (log_settings_.prealloc_bytes != 0) t.Add(OpKind::kFallocate);
    }
    t.Add(OpKind::kRecord);
    return t;
  }

  // One record into `log` (its lock held when shared).
  void WriteRecord(Recorder& rec, LogFile& log, ThreadTotals* mine) {
    log.BeginRecord(rec, mine->measuring);
    const char* data = record_.data();
    for (uint64_t j = 0; j < plan_.writes; ++j) {
      for (uint64_t i = plan_.ClocksBefore(j); i > 0; --i) ReadClock(rec, mine);
      const uint64_t n = plan_.PieceBytes(j);
      log.Append(rec, data, n);
      data += n;
      for (uint64_t i = plan_.LseeksAfter(j); i > 0; --i) log.Seek(rec);
    }
    log.EndRecord(rec);
  }

  void ReadClock(Recorder& rec, ThreadTotals* mine) {
    timespec ts{};
    if (c_.time_clock_reads) {
      Timed(rec, ops_[OpKind::kClock], 0, [&] {
        CheckSys(::clock_gettime(CLOCK_REALTIME, &ts), "clock_gettime", "CLOCK_REALTIME");
      });
    } else {
      CheckSys(::clock_gettime(CLOCK_REALTIME, &ts), "clock_gettime", "CLOCK_REALTIME");
    }
    ++mine->clock_reads;
    mine->clock_sink += static_cast<uint64_t>(ts.tv_nsec);
  }

  LogWritersConfig c_;
  LogSettings log_settings_;
  OpTable ops_;
  RecordPlan plan_;
  std::string dir_;
  std::string record_;
  std::vector<std::unique_ptr<LogFile>> logs_;
  std::vector<ThreadTotals> totals_;
  std::atomic<int> active_workers_{0};
};

}  // namespace
}  // namespace iomimic::log_writers

IOMIMIC_REGISTER_WORKLOAD(iomimic::log_writers::LogWriters, "log_writers",
                          "gateway writing many logs at once: ~100 small writes, lseeks and "
                          "clock reads per record; flush policy, rotation, preallocation");
