#include "trace/summary.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <map>
#include <vector>

#include "trace/compiler.h"
#include "trace/strace_reader.h"

namespace iomimic::trace {
namespace {

using nlohmann::json;

bool IsFlush(Sys s) {
  return s == Sys::k_fsync || s == Sys::k_fdatasync || s == Sys::k_sync_file_range ||
         s == Sys::k_syncfs || s == Sys::k_msync;
}
bool IsRead(Sys s) {
  return s == Sys::k_read || s == Sys::k_pread64 || s == Sys::k_readv || s == Sys::k_preadv ||
         s == Sys::k_preadv2;
}
bool IsWrite(Sys s) {
  return s == Sys::k_write || s == Sys::k_pwrite64 || s == Sys::k_writev ||
         s == Sys::k_pwritev || s == Sys::k_pwritev2;
}

// Power-of-two size classes: bucket k holds sizes in (2^(k-1), 2^k].
struct SizeHist {
  std::array<uint64_t, 48> n{};
  void Add(uint64_t bytes) { ++n[bytes <= 1 ? 0 : std::bit_width(bytes - 1)]; }
  json ToJson() const {
    json j = json::array();
    for (size_t k = 0; k < n.size(); ++k) {
      if (n[k] != 0) j.push_back({{"max_bytes", uint64_t{1} << k}, {"count", n[k]}});
    }
    return j;
  }
};

struct Flushes {
  uint64_t count = 0, last_ts = 0, gaps = 0, gap_sum = 0, gap_min = ~0ull, gap_max = 0;
  void Add(uint64_t ts) {
    if (count++ > 0) {
      const uint64_t g = ts - last_ts;
      ++gaps;
      gap_sum += g;
      gap_min = std::min(gap_min, g);
      gap_max = std::max(gap_max, g);
    }
    last_ts = ts;
  }
  json ToJson() const {
    json j = {{"count", count}};
    if (gaps > 0) {
      j["period_s"] = {{"mean", gap_sum / 1e9 / static_cast<double>(gaps)},
                       {"min", gap_min / 1e9}, {"max", gap_max / 1e9}};
    }
    return j;
  }
};

struct ThreadStats {
  int32_t pid = 0;
  uint64_t first = ~0ull, last_end = 0, syscalls = 0, in_syscalls_ns = 0;
  std::map<std::string, std::array<uint64_t, 4>> ops;  // count, errors, bytes, ns
  Flushes flushes;
};

class SummarySink : public OpSink {
 public:
  explicit SummarySink(const SummaryOptions& o) : o_(o) {}
  void OnEvent(const Event& ev, uint32_t t) override {
    ThreadStats& s = Thread(t);
    s.pid = ev.pid;
    s.first = std::min(s.first, ev.ts_ns);
    s.last_end = std::max(s.last_end, ev.ts_ns + ev.dur_ns);
    ++s.syscalls;
    s.in_syscalls_ns += ev.dur_ns;
  }
  void OnOp(const Op& op, uint32_t t, uint64_t) override {
    if (!o_.under.empty() && !Under(op)) {
      ++outside_;
      return;
    }
    ThreadStats& s = Thread(t);
    auto& c = s.ops[std::string(SysName(op.sys))];
    ++c[0];
    if (op.err != 0) ++c[1];
    const uint64_t done = op.err == 0 && op.ret > 0 ? static_cast<uint64_t>(op.ret) : 0;
    if (IsRead(op.sys) || IsWrite(op.sys)) c[2] += done;
    c[3] += op.dur_ns;
    if (IsRead(op.sys) && op.err == 0) reads_.Add(done);
    if (IsWrite(op.sys) && op.err == 0) writes_.Add(done);
    if (IsFlush(op.sys)) {
      s.flushes.Add(op.ts_ns);
      all_flushes_.Add(op.ts_ns);
    }
  }
  bool Under(const Op& op) const {
    // Calls on descriptors are attributed by the file they were opened on.
    uint32_t f = op.file;
    if (f == kNoId && op.slot != kNoId && op.slot < slot_file_.size()) f = slot_file_[op.slot];
    return f != kNoId && files_->at(f).path.compare(0, o_.under.size(), o_.under) == 0;
  }
  ThreadStats& Thread(uint32_t t) {
    if (threads_.size() <= t) threads_.resize(t + 1);
    return threads_[t];
  }

  const SummaryOptions& o_;
  const FileTable* files_ = nullptr;
  std::vector<uint32_t> slot_file_;  // slot -> file it was last opened on
  std::vector<ThreadStats> threads_;
  SizeHist reads_, writes_;
  Flushes all_flushes_;
  uint64_t outside_ = 0;
};

// Slots change meaning as descriptors are reused; the summary needs the file
// of each op, so it watches the opens go by.
class SlotTracker : public OpSink {
 public:
  explicit SlotTracker(SummarySink* inner) : inner_(inner) {}
  void OnEvent(const Event& ev, uint32_t t) override { inner_->OnEvent(ev, t); }
  void OnOp(const Op& op, uint32_t t, uint64_t off) override {
    if (op.new_slot != kNoId && op.sys != Sys::k_mmap) {
      auto& v = inner_->slot_file_;
      if (v.size() <= op.new_slot) v.resize(op.new_slot + 1, kNoId);
      uint32_t f = op.file;
      if (f == kNoId && op.slot < v.size()) f = v[op.slot];  // dup: the source's file
      v[op.new_slot] = f;
    }
    inner_->OnOp(op, t, off);
  }

 private:
  SummarySink* inner_;
};

json ThreadsJson(const SummarySink& sink) {
  json threads = json::array();
  for (size_t t = 0; t < sink.threads_.size(); ++t) {
    const ThreadStats& s = sink.threads_[t];
    const uint64_t span = s.last_end > s.first ? s.last_end - s.first : 0;
    json ops = json::object();
    for (const auto& [name, c] : s.ops) {
      ops[name] = {{"count", c[0]}, {"errors", c[1]}, {"bytes", c[2]}, {"time_s", c[3] / 1e9}};
    }
    threads.push_back({{"index", t}, {"pid", s.pid}, {"syscalls", s.syscalls},
                       {"span_s", span / 1e9}, {"in_syscalls_s", s.in_syscalls_ns / 1e9},
                       {"between_syscalls_s", (span - std::min(span, s.in_syscalls_ns)) / 1e9},
                       {"ops", ops}, {"flush", s.flushes.ToJson()}});
  }
  return threads;
}

json FileJson(const FileInfo& f) {
  static constexpr const char* kInitial[] = {"unknown", "absent", "file", "dir"};
  const uint64_t rw = f.sequential + f.random;
  json j = {{"path", f.path}, {"before", kInitial[static_cast<int>(f.initial)]},
            {"size_before", f.initial_size}, {"size_max", std::max(f.max_size, f.initial_size)},
            {"reads", f.reads}, {"writes", f.writes}, {"read_bytes", f.read_bytes},
            {"write_bytes", f.write_bytes}, {"created", f.created}, {"deleted", f.deleted},
            {"mmapped", f.mmapped}, {"enoent", f.enoent}};
  if (rw > 0) j["sequential_share"] = static_cast<double>(f.sequential) / static_cast<double>(rw);
  return j;
}

json FilesJson(const SummarySink& sink, const FileTable& table) {
  json list = json::array();
  uint64_t touched = 0, existed = 0, created = 0, deleted = 0, mmapped = 0, enoent = 0;
  uint64_t before_bytes = 0, max_bytes = 0;
  json probes = json::array();
  for (const FileInfo& f : table.files()) {
    const bool under = sink.o_.under.empty() || f.path.compare(0, sink.o_.under.size(), sink.o_.under) == 0;
    const bool io = f.reads + f.writes > 0 || f.created || f.deleted || f.mmapped || f.enoent > 0 ||
                    f.initial == Initial::kFile;
    if (!under || !io || f.is_dir) continue;
    ++touched;
    existed += f.initial == Initial::kFile;
    created += f.created;
    deleted += f.deleted;
    mmapped += f.mmapped;
    enoent += f.enoent;
    before_bytes += f.initial_size;
    max_bytes += std::max(f.max_size, f.initial_size);
    list.push_back(FileJson(f));
  }
  std::stable_sort(list.begin(), list.end(), [](const json& a, const json& b) {
    return a["read_bytes"].get<uint64_t>() + a["write_bytes"].get<uint64_t>() >
           b["read_bytes"].get<uint64_t>() + b["write_bytes"].get<uint64_t>();
  });
  return {{"touched", touched}, {"existed_before", existed}, {"created", created},
          {"deleted", deleted}, {"mmapped", mmapped}, {"enoent_probes", enoent},
          {"bytes_before", before_bytes}, {"bytes_max", max_bytes}, {"list", list}};
}

}  // namespace

json Summarize(const std::string& path, const SummaryOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  SummarySink sink(options);
  SlotTracker tracker(&sink);
  Compiler compiler(&tracker);
  sink.files_ = &compiler.files();
  StraceReader reader(path);
  Event ev;
  while (reader.Next(&ev)) compiler.Add(ev);
  compiler.Finish();
  const double parse_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::map<std::string, std::array<uint64_t, 4>> totals;
  for (const ThreadStats& t : sink.threads_) {
    for (const auto& [name, c] : t.ops) {
      for (size_t k = 0; k < 4; ++k) totals[name][k] += c[k];
    }
  }
  json ops = json::object();
  for (const auto& [name, c] : totals) {
    ops[name] = {{"count", c[0]}, {"errors", c[1]}, {"bytes", c[2]}, {"time_s", c[3] / 1e9}};
  }
  json unreplayed = json::array();
  for (const auto& [key, n] : compiler.unreplayed()) {
    unreplayed.push_back({{"syscall", key.first}, {"reason", key.second}, {"count", n}});
  }
  const uint64_t span = compiler.last_end() > compiler.first_ts() ? compiler.last_end() - compiler.first_ts() : 0;
  json j = {
      {"trace", {{"path", path}, {"lines", reader.lines()}, {"bytes", reader.bytes_read()},
                 {"syscalls", compiler.syscalls()}, {"signals", compiler.signals()},
                 {"exits", compiler.exits()}, {"unfinished_at_end", reader.unfinished_at_end()},
                 {"span_s", span / 1e9}, {"parse_s", parse_s}}},
      {"threads", ThreadsJson(sink)},
      {"ops", ops},
      {"sizes", {{"read", sink.reads_.ToJson()}, {"write", sink.writes_.ToJson()}}},
      {"flush", sink.all_flushes_.ToJson()},
      {"files", FilesJson(sink, compiler.files())},
      {"unreplayed", unreplayed}};
  if (!options.under.empty()) {
    j["trace"]["under"] = options.under;
    j["trace"]["ops_outside"] = sink.outside_;
  }
  return j;
}

}  // namespace iomimic::trace
