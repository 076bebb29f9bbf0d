// The event a Compiler handler is turning into an Op (compiler internals).
#pragma once

#include "trace/args.h"
#include "trace/compiler.h"

namespace iomimic::trace {

struct Compiler::Ctx {
  const Event& ev;
  uint32_t thread;
  Op op{};
  FdEntry* fd = nullptr;
  bool ok() const { return ev.ret >= 0 && ev.err == 0; }
  std::string_view arg(size_t i) const { return i < ev.args.size() ? ev.args[i] : ""; }
  int64_t num(size_t i) const { return ParseInt(arg(i)).value_or(0); }
};

}  // namespace iomimic::trace
