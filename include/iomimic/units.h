// Sizes and durations as people write them in profiles and on the command
// line, and back as people read them.
//
// Sizes: a number with an optional binary suffix k/K, m/M, g/G, t/T, also
// KiB/MiB/GiB/TiB and KB/MB/GB/TB (binary, as fio's default kb_base=1024);
// a bare number is bytes. Durations: ns, us, ms, s, m, h; a bare number is
// seconds (as fio). Decimals are allowed when the result is whole ("1.5k").
// Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace iomimic {

// Returns the value, or sets *error to a reason that names what was wrong.
std::optional<uint64_t> ParseSize(const std::string& text, std::string* error);
std::optional<uint64_t> ParseDurationNs(const std::string& text, std::string* error);
std::optional<int64_t> ParseInteger(const std::string& text, std::string* error);
std::optional<bool> ParseBool(const std::string& text, std::string* error);

// "4MiB", "1.50GiB", "512B": exact when a whole number of the unit.
std::string FormatSize(uint64_t bytes);
// For tables: 3 significant digits in the largest unit that fits: "2.61GiB".
std::string FormatBytesHuman(uint64_t bytes);
// "250ms", "20s", "1.5us"; a whole unit when exact.
std::string FormatDuration(uint64_t ns);
// For tables: latency in the unit people read, 3 significant digits: "812ns",
// "23.4us", "2.21ms", "1.20s".
std::string FormatLatency(uint64_t ns);

}  // namespace iomimic
