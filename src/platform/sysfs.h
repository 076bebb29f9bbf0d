// Best-effort readers of small /sys and /proc files.
//
// Every function returns std::nullopt (or an empty value) when the file is
// missing, unreadable or not in the expected form: a probe that cannot read
// a tunable reports it as unknown, it never fails the run and never guesses.
// Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iomimic::platform {

// The whole file, as is. Reads until EOF (sysfs and procfs files report a
// size of 4096 or 0, so the size from stat() cannot be trusted).
std::optional<std::string> ReadFile(const std::string& path);

// The file with leading and trailing whitespace (including the final
// newline) removed.
std::optional<std::string> ReadFileTrimmed(const std::string& path);

// The file parsed as one unsigned decimal integer ("128\n" -> 128).
// Anything else (empty, negative, trailing words) is nullopt.
std::optional<uint64_t> ReadUint(const std::string& path);

// The target of a symbolic link, or nullopt.
std::optional<std::string> ReadLink(const std::string& path);

// Whitespace-separated words of `text`.
std::vector<std::string> SplitWords(std::string_view text);

// The active choice of a sysfs selector such as
// "none [mq-deadline] kyber bfq" -> "mq-deadline". When no word is
// bracketed (a file with a single value), the whole trimmed text; nullopt
// for an empty text.
std::optional<std::string> ActiveChoice(std::string_view text);

// All choices of such a selector, brackets removed, in file order.
std::vector<std::string> AllChoices(std::string_view text);

// Parses an unsigned decimal integer that spans all of `text`.
std::optional<uint64_t> ParseUint(std::string_view text);

}  // namespace iomimic::platform
