#include "flush_policy.h"

#include <cerrno>
#include <cstdlib>

#include "iomimic/options.h"

namespace iomimic::log_writers {
namespace {

// Splits "kind:arg"; *arg is empty (and has_arg false) without a colon.
void Split(const std::string& text, std::string* kind, std::string* arg, bool* has_arg) {
  const size_t colon = text.find(':');
  *has_arg = colon != std::string::npos;
  *kind = text.substr(0, colon);
  *arg = *has_arg ? text.substr(colon + 1) : std::string();
}

// A size, read by the same parser as every size option (through a scratch
// OptionSet: the core exposes its parser only there).
std::string ParseSizeArg(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
  OptionSet scratch("");
  scratch.Size("size", out, "", min, max);
  return scratch.specs().front().apply(text);
}

std::string ParseCount(const std::string& text, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    return "'" + text + "' is not a whole number";
  }
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < 1 || v > 1'000'000'000ull) {
    return "the record count must be between 1 and 1000000000";
  }
  *out = v;
  return {};
}

}  // namespace

std::string ParseFlushPolicy(const std::string& text, FlushPolicy* out) {
  static const char* kExpected =
      "expected none, fdatasync:N, fsync:N (every N records), odsync or buffer:SIZE";
  std::string kind, arg;
  bool has_arg = false;
  Split(text, &kind, &arg, &has_arg);
  FlushPolicy p;
  std::string why;
  if ((kind == "none" || kind == "odsync") && !has_arg) {
    p.kind = kind == "none" ? FlushPolicy::Kind::kNone : FlushPolicy::Kind::kOdsync;
  } else if ((kind == "fdatasync" || kind == "fsync") && has_arg) {
    p.kind = kind == "fsync" ? FlushPolicy::Kind::kFsync : FlushPolicy::Kind::kFdatasync;
    why = ParseCount(arg, &p.every);
  } else if (kind == "buffer" && has_arg) {
    p.kind = FlushPolicy::Kind::kBuffer;
    why = ParseSizeArg(arg, 1, kMaxBufferBytes, &p.buffer_bytes);
    if (!why.empty()) why = "buffer size: " + why;
  } else {
    return kExpected;
  }
  if (!why.empty()) return why;
  *out = p;
  return {};
}

std::string ParsePrealloc(const std::string& text, uint64_t* bytes) {
  std::string kind, arg;
  bool has_arg = false;
  Split(text, &kind, &arg, &has_arg);
  if (kind == "none" && !has_arg) {
    *bytes = 0;
    return {};
  }
  if (kind != "fallocate" || !has_arg) return "expected none or fallocate:SIZE";
  uint64_t v = 0;
  if (std::string why = ParseSizeArg(arg, 1, kMaxPreallocBytes, &v); !why.empty()) {
    return "fallocate size: " + why;
  }
  *bytes = v;
  return {};
}

}  // namespace iomimic::log_writers
