#include "rrd_passes.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace iomimic::rrd_update {

bool PassGate::Arrive(const std::function<bool()>& between) {
  std::unique_lock<std::mutex> lock(mu_);
  if (aborted_) return false;
  if (++waiting_ < threads_) {
    const uint64_t gen = generation_;
    cv_.wait(lock, [&] { return aborted_ || generation_ != gen; });
    return generation_ != gen;
  }
  // Last to arrive: the others wait until generation_ moves or an abort.
  lock.unlock();
  bool go = false;
  try {
    go = between();
  } catch (...) {
    Abort();
    throw;
  }
  lock.lock();
  if (!go || aborted_) {
    aborted_ = true;
    cv_.notify_all();
    return false;
  }
  waiting_ = 0;
  ++generation_;
  cv_.notify_all();
  return true;
}

void PassGate::Abort() {
  std::lock_guard<std::mutex> lock(mu_);
  aborted_ = true;
  cv_.notify_all();
}

bool PassGate::aborted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

std::string UtcText(uint64_t unix_seconds) {
  const time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

RssKib ReadRssKib() {
  RssKib r;
  FILE* f = std::fopen("/proc/self/status", "re");
  if (f == nullptr) return r;
  char line[256];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long long kib = 0;
    if (std::strncmp(line, "VmRSS:", 6) == 0 && std::sscanf(line + 6, "%llu", &kib) == 1) {
      r.now = kib;
    } else if (std::strncmp(line, "VmHWM:", 6) == 0 && std::sscanf(line + 6, "%llu", &kib) == 1) {
      r.peak = kib;
    }
  }
  std::fclose(f);
  return r;
}

namespace {

double PerUpdate(double v, uint64_t updates) {
  return updates == 0 ? 0.0 : v / static_cast<double>(updates);
}

nlohmann::json DeviceDelta(const DeviceSample& a, const DeviceSample& b) {
  if (!a.valid || !b.valid || a.device != b.device || b.read_bytes < a.read_bytes ||
      b.write_bytes < a.write_bytes) {
    return nullptr;
  }
  return {{"reads", b.reads - a.reads},
          {"writes", b.writes - a.writes},
          {"read_bytes", b.read_bytes - a.read_bytes},
          {"write_bytes", b.write_bytes - a.write_bytes},
          {"flushes", b.flushes - a.flushes}};
}

nlohmann::json PassJson(const PassRecord& r) {
  const double seconds = static_cast<double>(r.end_ns - r.start_ns) / 1e9;
  nlohmann::json j = {
      {"pass", r.index},
      {"time", r.time},
      {"time_utc", UtcText(r.time)},
      {"due_archives", r.due_archives},
      {"seconds", seconds},
      {"updates", r.updates},
      {"updates_per_s", seconds > 0 ? static_cast<double>(r.updates) / seconds : 0.0},
      {"app_read_bytes", r.tally.app_read_bytes},
      {"app_write_bytes", r.tally.app_write_bytes},
      {"syscalls_per_update", PerUpdate(static_cast<double>(r.tally.syscalls), r.updates)},
  };
  const nlohmann::json dev = DeviceDelta(r.before, r.after);
  j["device"] = dev;
  if (dev.is_object()) {
    const double read_bytes = dev["read_bytes"].get<double>();
    j["device_reads_per_update"] = PerUpdate(dev["reads"].get<double>(), r.updates);
    j["device_read_kib_per_update"] = PerUpdate(read_bytes / 1024, r.updates);
    j["device_write_kib_per_update"] =
        PerUpdate(dev["write_bytes"].get<double>() / 1024, r.updates);
    j["device_bytes_per_app_byte_read"] =
        r.tally.app_read_bytes == 0
            ? nlohmann::json(nullptr)
            : nlohmann::json(read_bytes / static_cast<double>(r.tally.app_read_bytes));
  } else {
    j["device_reads_per_update"] = nullptr;
    j["device_read_kib_per_update"] = nullptr;
    j["device_write_kib_per_update"] = nullptr;
    j["device_bytes_per_app_byte_read"] = nullptr;
  }
  if (r.evicted) {
    j["after_pass"] = {{"seconds", static_cast<double>(r.evict_ns) / 1e9},
                       {"device", DeviceDelta(r.evict_before, r.evict_after)}};
  } else {
    j["after_pass"] = nullptr;
  }
  return j;
}

nlohmann::json Spread(std::vector<double> v) {
  if (v.empty()) return nullptr;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {{"median", median}, {"min", v.front()}, {"max", v.back()}};
}

}  // namespace

nlohmann::json PassLog::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  std::vector<double> seconds, read_kib, reads;
  for (const PassRecord& r : passes_) {
    nlohmann::json j = PassJson(r);
    seconds.push_back(j["seconds"].get<double>());
    if (j["device_read_kib_per_update"].is_number()) {
      read_kib.push_back(j["device_read_kib_per_update"].get<double>());
      reads.push_back(j["device_reads_per_update"].get<double>());
    }
    list.push_back(std::move(j));
  }
  return {{"passes", std::move(list)},
          {"summary",
           {{"passes_completed", passes_.size()},
            {"pass_seconds", Spread(seconds)},
            {"device_read_kib_per_update", Spread(read_kib)},
            {"device_reads_per_update", Spread(reads)}}}};
}

}  // namespace iomimic::rrd_update
