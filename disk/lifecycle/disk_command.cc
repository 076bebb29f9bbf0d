#include "lifecycle/disk_command.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "iomimic/status.h"
#include "lifecycle/lifecycle.h"
#include "model/model.h"
#include "iomimic/units.h"

namespace iomimic::disk {
namespace {

constexpr const char* kUsage =
    "usage: iomimic disk up --mount DIR [--model hdd-7200] [--size 4G] [--fs xfs]\n"
    "                       [--mkfs-opts '...'] [--backing-dir /var/tmp] [--set KEY=VALUE]...\n"
    "       iomimic disk down DIR [--force]\n"
    "       iomimic disk list\n"
    "       iomimic disk models\n"
    "  An emulated slow disk: a loop device (direct I/O) over a file served by a\n"
    "  FUSE daemon that applies the model's service time to every request.\n"
    "  --model NAME|FILE.ini  a shipped model (iomimic disk models) or an INI file\n"
    "  --set KEY=VALUE        override one model parameter (docs/emulated-disk.md)\n"
    "  --size SIZE            the disk's size (sparse backing file)\n"
    "  --fs ext4|xfs|btrfs    filesystem made on it; --mkfs-opts passed to mkfs\n"
    "  --backing-dir DIR      where the backing file lives (a real filesystem)\n"
    "  --force (down)         unmount lazily when the filesystem is busy\n"
    "  Needs root. docs/emulated-disk.md says more.\n";

// "--name=value" or "--name value"; dashes and underscores alike.
struct ArgReader {
  explicit ArgReader(const std::vector<std::string>& a) : args(a) {}
  const std::vector<std::string>& args;
  size_t i = 0;
  std::string name, value;
  bool has_value = false;

  bool Next() {
    if (i >= args.size()) return false;
    const std::string& a = args[i++];
    has_value = false;
    if (a.rfind("--", 0) != 0) {
      name.clear();
      value = a;
      return true;
    }
    const size_t eq = a.find('=');
    name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    for (char& c : name) c = c == '-' ? '_' : c;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      has_value = true;
    }
    return true;
  }
  std::string Value() {
    if (has_value) return value;
    if (i >= args.size()) throw UsageError(fmt::format("option '{}' needs a value", name));
    return args[i++];
  }
};

uint64_t SizeArg(const std::string& v) {
  std::string err;
  const auto s = ParseSize(v, &err);
  if (!s) throw UsageError(fmt::format("invalid value '{}' for option 'size': {}", v, err));
  return *s;
}

int Up(const std::vector<std::string>& args) {
  UpOptions o;
  ArgReader r(args);
  while (r.Next()) {
    if (r.name == "model") o.model = r.Value();
    else if (r.name == "size") o.size = SizeArg(r.Value());
    else if (r.name == "fs") o.fs = r.Value();
    else if (r.name == "mount") o.mount = r.Value();
    else if (r.name == "mkfs_opts") o.mkfs_opts = r.Value();
    else if (r.name == "backing_dir") o.backing_dir = r.Value();
    else if (r.name == "set") {
      const std::string kv = r.Value();
      const size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        throw UsageError(fmt::format("invalid value '{}' for option 'set': expected KEY=VALUE", kv));
      }
      o.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else {
      throw UsageError(fmt::format("unknown argument '{}' for disk up\n{}", args[r.i - 1], kUsage));
    }
  }
  if (o.mount.empty()) throw UsageError(fmt::format("option 'mount' is required\n{}", kUsage));
  const DiskRecord d = Up(o);
  fmt::print("iomimic: disk: {} up: model {}, {} {}, backing file {}\n", d.mount, d.model, d.fs,
             FormatSize(d.size), d.backing);
  return 0;
}

int DownCommand(const std::vector<std::string>& args) {
  std::string mount;
  bool force = false;
  ArgReader r(args);
  while (r.Next()) {
    if (r.name == "force") force = true;
    else if (r.name.empty() && mount.empty()) mount = r.value;
    else throw UsageError(fmt::format("unknown argument '{}' for disk down\n{}", args[r.i - 1], kUsage));
  }
  if (mount.empty()) throw UsageError(fmt::format("disk down needs the mount point\n{}", kUsage));
  if (::geteuid() != 0) throw UsageError("iomimic disk needs root (it unmounts and detaches)");
  const auto d = FindByMount(mount);
  if (!d) {
    throw UsageError(fmt::format("invalid value '{}' for disk down: no emulated disk is mounted there "
                                 "(iomimic disk list)", mount));
  }
  const std::string problems =
      Down(*d, force, [](const std::string& s) { fmt::print("iomimic: disk: {}\n", s); });
  if (!problems.empty()) {
    std::fprintf(stderr, "iomimic: disk: %s: %s%s\n", d->mount.c_str(), problems.c_str(),
                 force ? "" : " (--force unmounts lazily)");
    return 1;
  }
  fmt::print("iomimic: disk: {} down\n", d->mount);
  return 0;
}

int List() {
  const auto records = AllRecords();
  if (records.empty()) {
    fmt::print("no emulated disks\n");
    return 0;
  }
  fmt::print("{:<40} {:<10} {:<6} {:>8} {:<10} {}\n", "MOUNT", "MODEL", "FS", "SIZE", "LOOP", "STATE");
  for (const DiskRecord& d : records) {
    const auto loops = LoopsOver(d.served_file(), d.mount);
    fmt::print("{:<40} {:<10} {:<6} {:>8} {:<10} {}{}\n", d.mount, d.model, d.fs, FormatSize(d.size),
               loops.empty() ? "-" : loops[0], Health(d),
               d.owner_pid != 0 ? fmt::format(" (run pid {})", d.owner_pid) : "");
  }
  return 0;
}

int Models() {
  for (const std::string& n : ModelNames()) {
    fmt::print("{:<10} {}\n", n, LoadModel(n).description);
  }
  return 0;
}

}  // namespace

int DiskCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "up") return Up(rest);
  if (args[0] == "down") return DownCommand(rest);
  if (args[0] == "list") return List();
  if (args[0] == "models") return Models();
  throw UsageError(fmt::format("unknown disk command '{}'\n{}", args[0], kUsage));
}

}  // namespace iomimic::disk
