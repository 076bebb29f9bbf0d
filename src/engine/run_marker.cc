#include "engine/run_marker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "iomimic/status.h"
#include "platform/sysfs.h"

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
  const std::string path = run_dir + "/" + kRunMarkerName;
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw SysError("open", tmp, errno);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      const int err = errno;
      ::close(fd);
      throw SysError("write", tmp, err);
    }
    done += static_cast<size_t>(w);
  }
  if (::close(fd) != 0) throw SysError("close", tmp, errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw SysError("rename", path, errno);
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
