// Reading strace's printed values: top-level argument lists, numbers,
// quoted strings, flag sets and the -yy decoration of file descriptors
// (`3</var/lib/x.db>`, `0</dev/null<char 1:3>>`, `4<pipe:[1234]>`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iomimic::trace {

// Splits "a, {b, c}, \"d,e\", 3</p, q>" at top-level commas. Returns false
// when brackets or quotes do not balance (a line cut short).
bool SplitArgs(std::string_view text, std::vector<std::string_view>* out);

// A number as strace prints it: decimal, 0x hex, 0 octal; a leading '-'.
std::optional<int64_t> ParseInt(std::string_view s);

// "3</path>" → fd 3, decoration "/path"; "AT_FDCWD</cwd>" → -100, "/cwd".
struct FdArg {
  int64_t fd = -1;
  std::string deco;  // unescaped; "" without -yy
  bool ok = false;
};
FdArg ParseFd(std::string_view s);

// A quoted string, unescaped ("\x41" → 'A'). nullopt when not a string.
std::optional<std::string> ParseString(std::string_view s);

// O_RDWR|O_CREAT|0x8000 → the value, from the names the table knows;
// unknown names are collected into *unknown.
struct FlagName {
  const char* name;
  int64_t value;
};
int64_t ParseFlags(std::string_view s, const FlagName* table, size_t n,
                   std::string* unknown = nullptr);

// The value of `key=` inside a printed struct ("st_size=35615"), or nullopt.
std::optional<std::string_view> StructField(std::string_view s, std::string_view key);

// What a -yy decoration names: a path on a filesystem, or something that
// is not a file (a pipe, a socket, a device, an anonymous inode).
bool DecoIsRegularPath(std::string_view deco);

}  // namespace iomimic::trace
