// Messages to the user on stderr that can never stop a run: with stderr a
// closed pipe (`iomimic run ... 2>&1 | head`), a closed terminal or closed
// outright, the message is lost, but iomimic still restores the settings
// it changed, removes its files and writes its report. (fmt::print throws
// on a failed write; SIGPIPE is ignored, see cli::Main.)
//
// Text from the user (paths above all) may hold newlines and control
// characters: a path with a newline would forge a second message line, an
// escape sequence would drive the terminal. Printable() escapes it where
// it is put into a message; PrintErr() also escapes, in the whole message,
// every control character but newline, tab and carriage return.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace iomimic {

// `text` with \\, \n, \t, \r and other control bytes as \xNN: one
// printable line.
std::string Printable(std::string_view text);

void PrintErr(std::string_view text) noexcept;

template <typename... T>
void PrintErr(fmt::format_string<T...> format, T&&... args) noexcept {
  try {
    PrintErr(std::string_view(fmt::format(format, std::forward<T>(args)...)));
  } catch (...) {
    // Out of memory while formatting a message: nothing to say it with.
  }
}

}  // namespace iomimic
