#include "engine/tunings.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "iomimic/status.h"
#include "platform/block_device.h"
#include "platform/sysfs.h"
#include "probes/probes.h"
#include "util/stderr_line.h"

namespace iomimic::engine {
namespace {

enum class Scope { kQueue, kVm, kThp };

struct Tunable {
  const char* name;
  Scope scope;
  bool selector;         // "a [b] c": the value is one of the words offered
  const char* partner;   // the setting the kernel zeroes when this one is written
};

// The settings the stories turn. Each can be read back and written back
// exactly; anything else (queue/write_cache's "write back" text, the many
// read-only queue limits) is left out on purpose.
constexpr Tunable kTunables[] = {
    {"queue.scheduler", Scope::kQueue, true, nullptr},
    {"queue.nr_requests", Scope::kQueue, false, nullptr},
    {"queue.read_ahead_kb", Scope::kQueue, false, nullptr},
    {"queue.max_sectors_kb", Scope::kQueue, false, nullptr},
    {"queue.nomerges", Scope::kQueue, false, nullptr},
    {"queue.rq_affinity", Scope::kQueue, false, nullptr},
    {"queue.wbt_lat_usec", Scope::kQueue, false, nullptr},
    {"queue.rotational", Scope::kQueue, false, nullptr},
    {"queue.add_random", Scope::kQueue, false, nullptr},
    {"queue.iostats", Scope::kQueue, false, nullptr},
    {"vm.dirty_ratio", Scope::kVm, false, "vm.dirty_bytes"},
    {"vm.dirty_bytes", Scope::kVm, false, "vm.dirty_ratio"},
    {"vm.dirty_background_ratio", Scope::kVm, false, "vm.dirty_background_bytes"},
    {"vm.dirty_background_bytes", Scope::kVm, false, "vm.dirty_background_ratio"},
    {"vm.dirty_expire_centisecs", Scope::kVm, false, nullptr},
    {"vm.dirty_writeback_centisecs", Scope::kVm, false, nullptr},
    {"thp.enabled", Scope::kThp, true, nullptr},
    {"thp.defrag", Scope::kThp, true, nullptr},
};

const Tunable* FindTunable(const std::string& name) {
  for (const Tunable& t : kTunables) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

bool IsWord(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '+';
  });
}

std::string FileOf(const Tunable& t, const std::string& disk) {
  const std::string leaf = std::strchr(t.name, '.') + 1;
  switch (t.scope) {
    case Scope::kQueue:
      return platform::SysBlockDir(disk) + "/queue/" + leaf;
    case Scope::kVm:
      return "/proc/sys/vm/" + leaf;
    case Scope::kThp:
      return "/sys/kernel/mm/transparent_hugepage/" + leaf;
  }
  return "";
}

// The value of a settings file as it would be written back.
std::optional<std::string> ReadValue(const std::string& path, bool selector) {
  const std::optional<std::string> text = platform::ReadFileTrimmed(path);
  if (!text) return std::nullopt;
  return selector ? platform::ActiveChoice(*text) : text;
}

// 0 or the errno of the failed open or write.
int WriteValue(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const std::string line = value + "\n";
  const ssize_t n = ::write(fd, line.data(), line.size());
  const int err = n == static_cast<ssize_t>(line.size()) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

std::string TuneError(const std::string& why) { return fmt::format("option 'tune': {}", why); }

// Two readings of a setting are the same value: numbers compare as numbers
// ("064" is 64), words as words.
bool Same(const std::string& a, const std::string& b) {
  const std::optional<uint64_t> x = platform::ParseUint(a), y = platform::ParseUint(b);
  return x && y ? *x == *y : a == b;
}

// Settings a scheduler switch resets: put back after the scheduler.
bool FollowsScheduler(const std::string& name) {
  return name == "queue.nr_requests" || name.rfind("queue.iosched/", 0) == 0;
}

}  // namespace

bool IsTunable(const std::string& name) { return FindTunable(name) != nullptr; }

std::string TunableNames() {
  std::string out;
  for (const Tunable& t : kTunables) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

std::string ParseTunings(const std::string& text, std::vector<TuningRequest>* out) {
  std::vector<TuningRequest> parsed;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = Trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      if (text.empty()) break;  // --tune= with nothing: no tunings
      return "an empty item (write NAME=VALUE[,NAME=VALUE...])";
    }
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return fmt::format("'{}' is not NAME=VALUE", item);
    TuningRequest r{Trim(item.substr(0, eq)), Trim(item.substr(eq + 1))};
    const Tunable* t = FindTunable(r.name);
    if (t == nullptr) {
      return fmt::format("unknown setting '{}' (known: {})", r.name, TunableNames());
    }
    if (t->selector ? !IsWord(r.value) : !platform::ParseUint(r.value)) {
      return fmt::format("'{}' is not a valid value for {} ({})", r.value, r.name,
                         t->selector ? "one word the kernel offers" : "an unsigned integer");
    }
    for (const TuningRequest& earlier : parsed) {
      if (earlier.name == r.name) return fmt::format("{} is given twice", r.name);
      if (t->partner != nullptr && earlier.name == t->partner) {
        return fmt::format("{} and {} exclude each other (writing one zeroes the other)",
                           earlier.name, r.name);
      }
    }
    parsed.push_back(std::move(r));
  }
  *out = std::move(parsed);
  return "";
}

Tunings::~Tunings() { Restore(/*quiet=*/true); }

void TrySweepPoint(const std::vector<TuningRequest>& requests, const std::string& target,
                   const std::string& name, std::map<std::string, std::string>* seen) {
  std::string asked;
  for (const TuningRequest& r : requests) {
    if (r.name == name) asked = r.value;
  }
  Tunings trial;
  trial.Resolve(requests, target);
  // Printed like any change: the trial writes the setting for a moment.
  trial.Apply(/*quiet=*/false);  // refuses a value the kernel does not keep
  trial.Restore(/*quiet=*/false);
  if (trial.restore_failed()) {
    throw UsageError(TuneError(fmt::format("{} could not be put back after a trial", name)));
  }
  const std::optional<uint64_t> number = platform::ParseUint(asked);
  const std::string kept = number ? std::to_string(*number) : asked;
  const auto [it, fresh] = seen->emplace(kept, asked);
  if (!fresh) {
    throw UsageError(fmt::format("invalid value '{}' for option 'sweep': the kernel keeps {}={} "
                                 "for it as for '{}': two points would run at one value",
                                 asked, name, kept, it->second));
  }
}

void Tunings::Resolve(const std::vector<TuningRequest>& requests, const std::string& target) {
  if (requests.empty()) return;
  if (::geteuid() != 0) {
    throw UsageError(TuneError("changes /sys and /proc/sys settings and needs root"));
  }
  std::vector<TuningRequest> ordered = requests;
  // The scheduler first: switching it resets nr_requests and the
  // scheduler's own settings.
  std::stable_partition(ordered.begin(), ordered.end(),
                        [](const TuningRequest& r) { return r.name == "queue.scheduler"; });
  for (const TuningRequest& r : ordered) {
    const Tunable& t = *FindTunable(r.name);
    if (t.scope == Scope::kQueue && device_.empty()) {
      device_ = probes::BlockDeviceOf(target);
      if (device_.empty()) {
        throw UsageError(TuneError(fmt::format(
            "{} is a block device queue setting, but target '{}' is not on a block device", r.name,
            target)));
      }
    }
    Entry e;
    e.name = r.name;
    e.path = FileOf(t, device_);
    e.selector = t.selector;
    e.value = r.value;
    const std::optional<std::string> text = platform::ReadFileTrimmed(e.path);
    const std::optional<std::string> before = ReadValue(e.path, e.selector);
    if (!text || !before || ::access(e.path.c_str(), W_OK) != 0) {
      throw UsageError(TuneError(fmt::format("{} is not available here ({} cannot be read and "
                                             "written)",
                                             r.name, e.path)));
    }
    if (e.selector) {
      const std::vector<std::string> offered = platform::AllChoices(*text);
      if (std::find(offered.begin(), offered.end(), r.value) == offered.end()) {
        throw UsageError(fmt::format("invalid value '{}' for option 'tune': {} offers {}", r.value,
                                     e.path, *text));
      }
    }
    e.before = *before;
    if (t.partner != nullptr) {
      e.partner_path = FileOf(*FindTunable(t.partner), device_);
      e.partner_before = ReadValue(e.partner_path, false).value_or("");
    }
    entries_.push_back(std::move(e));

    if (r.name == "queue.scheduler") {
      // Restored after the scheduler whether or not they are tuned: the
      // switch back would otherwise leave them at the kernel's defaults.
      std::vector<std::string> linked = {"nr_requests"};
      const std::string iosched = platform::SysBlockDir(device_) + "/queue/iosched";
      if (DIR* d = ::opendir(iosched.c_str())) {
        while (dirent* de = ::readdir(d)) {
          if (de->d_name[0] != '.') linked.push_back(std::string("iosched/") + de->d_name);
        }
        ::closedir(d);
      }
      std::sort(linked.begin() + 1, linked.end());
      for (const std::string& leaf : linked) {
        if (leaf == "nr_requests" &&
            std::any_of(requests.begin(), requests.end(),
                        [](const TuningRequest& q) { return q.name == "queue.nr_requests"; })) {
          continue;  // tuned itself, later in the order
        }
        Entry linked_entry;
        linked_entry.name = "queue." + leaf;
        linked_entry.path = platform::SysBlockDir(device_) + "/queue/" + leaf;
        const std::optional<std::string> v = ReadValue(linked_entry.path, false);
        if (!v || ::access(linked_entry.path.c_str(), W_OK) != 0) continue;  // read-only ones
        linked_entry.before = *v;
        entries_.push_back(std::move(linked_entry));
      }
    }
  }
}

void Tunings::Apply(bool quiet) {
  std::unique_lock<std::mutex> lock(mu_);
  if (entries_.empty()) return;
  std::vector<std::string> paths;
  for (const Entry& e : entries_) {
    paths.push_back(e.path);
    paths.push_back(e.partner_path);  // written at the restore: "" when none
  }
  // Before the first write: a kill -9 from here on leaves a journal.
  journal_.Begin(JournalLocked(), paths);
  for (Entry& e : entries_) {
    e.applied = true;  // from here on it is restored, written or not
    if (e.value.empty()) continue;
    if (!quiet) {
      PrintErr("iomimic: tune {}: {} -> {} ({}; restored afterwards)\n", e.name,
                 e.before, e.value, e.path);
    }
    if (const int err = WriteValue(e.path, e.value); err != 0) {
      lock.unlock();
      Restore(quiet);
      throw UsageError(fmt::format("invalid value '{}' for option 'tune': the kernel refused "
                                   "{}={} ({}): {}",
                                   e.value, e.name, e.value, e.path, std::strerror(err)));
    }
    e.written = true;
    // The kernel may clamp or round what it accepts (max_sectors_kb above
    // the hardware limit, rotational=2): a run at another value than asked
    // would be reported as the one asked.
    e.kept = ReadValue(e.path, e.selector).value_or("?");
    if (!Same(e.kept, e.value)) {
      lock.unlock();
      Restore(quiet);
      throw UsageError(fmt::format("invalid value '{}' for option 'tune': the kernel kept "
                                   "{}={} ({}) instead; the run would not be at the value asked",
                                   e.value, e.name, e.kept, e.path));
    }
  }
}

Tunings::Action Tunings::Decide(const Entry& e, bool follows_scheduler,
                                std::string* found) const {
  const std::optional<std::string> now = ReadValue(e.path, e.selector);
  *found = now.value_or("?");
  if (!now) return Action::kRestore;  // the write says why it cannot be
  if (Same(*now, e.before)) return Action::kNone;
  // Reset by the scheduler iomimic just put back: its own value is gone.
  if (follows_scheduler) return Action::kRestore;
  if (e.value.empty()) return Action::kLeft;  // its scheduler was not iomimic's to restore
  return Same(*now, e.written ? e.kept : e.value) ? Action::kRestore : Action::kLeft;
}

void Tunings::RestoreEntry(Entry& e, bool follows_scheduler) noexcept {
  switch (Decide(e, follows_scheduler, &e.found)) {
    case Action::kNone:
      e.restored = true;
      return;
    case Action::kLeft:
      e.reason = "changed by someone else";
      return;
    case Action::kRestore:
      break;
  }
  // Of a linked pair, the one that was in force is written: it zeroes the
  // other, which is then also as it was.
  const bool via_partner = !e.partner_path.empty() && e.before == "0" && e.partner_before != "0";
  const std::string& path = via_partner ? e.partner_path : e.path;
  const std::string& value = via_partner ? e.partner_before : e.before;
  if (const int err = WriteValue(path, value); err != 0) {
    e.error = fmt::format("writing '{}' to {}: {}", value, path, std::strerror(err));
    e.err = err;
    return;
  }
  const std::optional<std::string> now = ReadValue(e.path, e.selector);
  if (!now || !Same(*now, e.before)) {
    e.error = fmt::format("{} reads '{}' after the restore, not '{}'", e.path, now.value_or("?"),
                          e.before);
    return;
  }
  e.restored = true;
  e.wrote_back = true;
}

void Tunings::Restore(bool quiet) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  if (restore_done_) return;
  restore_done_ = true;
  bool scheduler_back = false, failed = false;
  for (Entry& e : entries_) {
    if (!e.applied) continue;
    RestoreEntry(e, scheduler_back && FollowsScheduler(e.name));
    if (e.name == "queue.scheduler") scheduler_back = e.wrote_back;
    if (!e.error.empty()) {
      failed = true;
      PrintErr("iomimic: error: could not restore {}: {}\n", e.name, e.error);
    } else if (!e.reason.empty()) {
      PrintErr("iomimic: warning: {} left at '{}': changed by someone else during the run "
               "(iomimic wrote '{}'; it was '{}' before)\n",
               e.name, e.found, e.written ? e.kept : e.value, e.before);
    } else if (!quiet && e.wrote_back && !e.value.empty()) {
      PrintErr("iomimic: restored {} to {}\n", e.name, e.before);
    }
  }
  // Only once every setting is back (or left on purpose): otherwise the
  // journal stays for `iomimic clean`.
  if (failed) {
    journal_.Keep();
  } else {
    journal_.End();
  }
}

nlohmann::json Tunings::Journal() const {
  std::lock_guard<std::mutex> lock(mu_);
  return JournalLocked();
}

nlohmann::json Tunings::JournalLocked() const {
  nlohmann::json out = nlohmann::json::array();
  for (const Entry& e : entries_) {
    out.push_back({{"name", e.name},
                   {"path", e.path},
                   {"selector", e.selector},
                   {"before", e.before},
                   {"value", e.value},
                   {"partner_path", e.partner_path},
                   {"partner_before", e.partner_before}});
  }
  return out;
}

namespace {

// The file a journal entry may name: the one its setting lives in, on some
// disk for queue settings. Anything else is refused: `clean` runs as root
// and must not write where a planted file tells it to.
bool IsFileOf(const std::string& name, const std::string& path) {
  if (name.rfind("queue.", 0) == 0) {
    // /sys/block/DISK/queue/LEAF, LEAF a queue setting --tune knows, or
    // one a scheduler switch links (nr_requests, iosched/WORD).
    const std::string leaf = name.substr(6);
    const bool known = IsTunable(name) || leaf == "nr_requests" ||
                       (leaf.rfind("iosched/", 0) == 0 && IsWord(leaf.substr(8)));
    const std::string prefix = "/sys/block/", suffix = "/queue/" + leaf;
    if (!known || path.size() <= prefix.size() + suffix.size() || path.rfind(prefix, 0) != 0 ||
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) {
      return false;
    }
    return IsWord(path.substr(prefix.size(), path.size() - prefix.size() - suffix.size()));
  }
  const Tunable* t = FindTunable(name);
  return t != nullptr && path == FileOf(*t, "");
}

}  // namespace

void Tunings::Adopt(const nlohmann::json& journal) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  if (!journal.is_array()) throw UsageError("the journal has no list of settings");
  for (const nlohmann::json& j : journal) {
    const auto text = [&j](const char* key) {
      return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                     : std::string();
    };
    Entry e;
    e.name = text("name");
    e.path = text("path");
    e.selector = j.is_object() && j.contains("selector") && j["selector"].is_boolean() &&
                 j["selector"].get<bool>();
    e.before = text("before");
    e.value = text("value");
    e.partner_path = text("partner_path");
    e.partner_before = text("partner_before");
    const Tunable* t = FindTunable(e.name);
    const bool partner_ok = e.partner_path.empty() ||
                            (t != nullptr && t->partner != nullptr &&
                             e.partner_path == FileOf(*FindTunable(t->partner), ""));
    if (!IsFileOf(e.name, e.path) || !partner_ok || e.before.empty() ||
        e.before.find('\n') != std::string::npos || e.value.find('\n') != std::string::npos ||
        e.partner_before.find('\n') != std::string::npos) {
      throw UsageError(fmt::format("the journal names a file iomimic does not tune: {} ({})",
                                   e.name, e.path));
    }
    e.applied = true;
    entries_.push_back(std::move(e));
  }
  restore_done_ = false;
}

nlohmann::json Tunings::Plan() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json out = nlohmann::json::array();
  bool scheduler_back = false;
  for (const Entry& e : entries_) {
    if (!e.applied) continue;
    std::string found;
    const Action a = Decide(e, scheduler_back && FollowsScheduler(e.name), &found);
    if (e.name == "queue.scheduler") scheduler_back = a == Action::kRestore;
    out.push_back({{"name", e.name},
                   {"before", e.before},
                   {"value", e.value},
                   {"found", found},
                   {"action", a == Action::kRestore ? "restore"
                              : a == Action::kNone  ? "unchanged"
                                                    : "left"}});
  }
  return out;
}

void Tunings::Disarm() {
  std::lock_guard<std::mutex> lock(mu_);
  restore_done_ = true;
}

bool Tunings::restore_failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::any_of(entries_.begin(), entries_.end(),
                     [](const Entry& e) { return !e.error.empty(); });
}

std::vector<result::TuningOutcome> Tunings::Report() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<result::TuningOutcome> out;
  for (const Entry& e : entries_) {
    result::TuningOutcome t;
    t.name = e.name;
    t.path = e.path;
    t.before = e.before;
    if (!e.value.empty()) t.value = e.value;
    t.applied = e.applied;
    t.restored = e.restored;
    if (!e.reason.empty()) {
      t.reason = e.reason;
      t.found = e.found;
    }
    if (!e.error.empty()) {
      t.error = e.error;
      t.err = e.err;
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace iomimic::engine
