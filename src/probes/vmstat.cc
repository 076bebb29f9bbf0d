// ReadVmStat and VmStatDelta: /proc/vmstat before and after.
#include <algorithm>
#include <optional>
#include <string_view>

#include "platform/sysfs.h"
#include "probes/probes.h"

namespace iomimic::probes {
namespace {

// Event counters whose deltas explain page-cache and memory behaviour, in
// report order. pgpgin/pgpgout count KiB, the others pages or events.
constexpr std::string_view kCounters[] = {
    "pgfault",        "pgmajfault",      "pgpgin",      "pgpgout",
    "pswpin",         "pswpout",         "thp_file_alloc", "thp_file_mapped",
    "thp_fault_alloc", "nr_dirtied",     "nr_written",  "workingset_refault_file",
};
// Every counter with one of these prefixes (pgscan_kswapd, pgsteal_direct,
// ...): reclaim activity, which the kernel splits differently by version.
constexpr std::string_view kCounterPrefixes[] = {"pgscan_", "pgsteal_"};
// Gauges: a delta means nothing, the value at the end does.
constexpr std::string_view kGauges[] = {"nr_dirty", "nr_writeback"};

std::optional<uint64_t> Find(const VmStat& s, std::string_view name) {
  for (const auto& [key, value] : s.values) {
    if (key == name) return value;
  }
  return std::nullopt;
}

void AddDelta(const VmStat& before, const VmStat& after, std::string_view name,
              result::VmStatDelta* out) {
  const std::optional<uint64_t> b = Find(before, name);
  const std::optional<uint64_t> a = Find(after, name);
  if (!a || !b) return;
  // Event counters only grow; a decrease would be a wrapped or reset counter.
  out->counters.emplace_back(std::string(name),
                             *a >= *b ? std::optional<uint64_t>(*a - *b) : std::nullopt);
}

}  // namespace

VmStat ReadVmStat() {
  VmStat s;
  const std::optional<std::string> text = platform::ReadFile("/proc/vmstat");
  if (!text) return s;
  const std::vector<std::string> words = platform::SplitWords(*text);
  for (size_t i = 0; i + 1 < words.size(); i += 2) {
    // A value that does not parse is skipped, not zeroed.
    if (std::optional<uint64_t> v = platform::ParseUint(words[i + 1])) {
      s.values.emplace_back(words[i], *v);
    }
  }
  s.valid = !s.values.empty();
  return s;
}

result::VmStatDelta VmStatDelta(const VmStat& before, const VmStat& after) {
  result::VmStatDelta out;
  if (!before.valid || !after.valid) return out;
  for (std::string_view name : kCounters) AddDelta(before, after, name, &out);
  for (std::string_view prefix : kCounterPrefixes) {
    for (const auto& [key, value] : after.values) {
      if (std::string_view(key).substr(0, prefix.size()) == prefix) {
        AddDelta(before, after, key, &out);
      }
    }
  }
  for (std::string_view name : kGauges) {
    if (std::optional<uint64_t> v = Find(after, name)) {
      out.gauges.emplace_back(std::string(name) + "_end", *v);
    }
  }
  return out;
}

}  // namespace iomimic::probes
