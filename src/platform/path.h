// Path resolution for the probes.
// Thread-safe: no shared state.
#pragma once

#include <optional>
#include <string>

namespace iomimic::platform {

// realpath(3) of `path`, or nullopt when it cannot be resolved.
std::optional<std::string> RealPath(const std::string& path);

// realpath(3) of `path` or, when it does not exist yet, of its nearest
// existing ancestor with the missing tail appended: the mount that will
// hold a directory about to be created is the one holding its parent.
// nullopt only when nothing, not even "/", resolves.
std::optional<std::string> ResolveExistingPrefix(const std::string& path);

// `path` relative to `base` when it lies under it ("/a/b/c" under "/a" is
// "b/c"), else `path` unchanged. Purely textual: no symlinks are resolved.
std::string RelativeTo(const std::string& path, const std::string& base);

}  // namespace iomimic::platform
