#include "engine/run_marker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "iomimic/status.h"
#include "platform/sysfs.h"
#include "util/atomic_file.h"

namespace iomimic::engine {
namespace {

std::string BootId() {
  return platform::ReadFileTrimmed("/proc/sys/kernel/random/boot_id").value_or("");
}

}  // namespace

RunMarker MarkerOfThisProcess() {
  RunMarker m;
  m.pid = static_cast<int>(::getpid());
  m.boot_id = BootId();
  return m;
}

void WriteRunMarker(const std::string& run_dir, const RunMarker& marker) {
  const nlohmann::json j = {{"pid", marker.pid},
                            {"boot_id", marker.boot_id},
                            {"started_at", marker.started_at},
                            {"module", marker.module},
                            {"tunings", marker.tunings},
                            {"kept", marker.kept}};
  const std::string text = j.dump(1) + "\n";
  // Whole or absent, fsynced with its directory (a marker found empty
  // after a crash would make clean leave the directory), and never through
  // a name planted in advance.
  WriteFileAtomically(run_dir + "/" + kRunMarkerName, text, 0600);
}

std::optional<RunMarker> ReadRunMarker(const std::string& run_dir) {
  const std::string path = run_dir + "/" + kRunMarkerName;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const std::optional<std::string> text = platform::ReadFileTrimmed(path);
  if (!text) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer()) return std::nullopt;
  RunMarker m;
  m.pid = j["pid"].get<int>();
  m.boot_id = j.value("boot_id", "");
  m.started_at = j.value("started_at", "");
  m.module = j.value("module", "");
  m.kept = j.value("kept", false);
  if (j.contains("tunings") && j["tunings"].is_array()) m.tunings = j["tunings"];
  m.owner_uid = st.st_uid;
  return m;
}

bool RunIsAlive(const RunMarker& marker) {
  if (marker.pid <= 0 || marker.boot_id != BootId()) return false;
  const std::optional<std::string> comm =
      platform::ReadFileTrimmed("/proc/" + std::to_string(marker.pid) + "/comm");
  return comm && comm->rfind("iomimic", 0) == 0;
}

}  // namespace iomimic::engine
