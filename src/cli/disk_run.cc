#include "cli/disk_run.h"

#include <unistd.h>

#include <optional>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/memory_balloon.h"
#include "iomimic/status.h"
#include "lifecycle/lifecycle.h"
#include "util/stderr_line.h"
#include "iomimic/units.h"

namespace iomimic::cli {
namespace {

constexpr const char* kDiskHelp =
    "\nEmulated disk (docs/emulated-disk.md):\n"
    "  --disk MODEL              run on a scratch emulated disk of this model (hdd-7200,\n"
    "                            hdd-2006, san-2ms, cloud-gp3, fast, or an .ini); made\n"
    "                            before the run, removed after; it is the run's target\n"
    "  --disk_fs ext4|xfs|btrfs  its filesystem (default: xfs)\n"
    "  --disk_size SIZE          its size (default: 4G)\n"
    "  --disk_mkfs_opts '...'    passed to mkfs\n"
    "  --disk_set KEY=VALUE      override a model parameter (repeatable)\n"
    "  --disk_backing_dir DIR    where its sparse backing file lives (default: /var/tmp)\n"
    "\nSmall-memory server:\n"
    "  --memory_balloon SIZE     hold SIZE of anonymous memory locked (mlock) for the run, so\n"
    "                            the page cache is smaller; refused when it would leave less\n"
    "                            than max(512MiB, 5% of memory) available\n";

// Takes "--name=value" or "--name value" out of `args`; nullopt when absent.
std::optional<std::string> TakeOption(std::vector<std::string>* args, const std::string& name) {
  std::optional<std::string> value;
  for (size_t i = 0; i < args->size();) {
    const std::string& a = (*args)[i];
    if (a == "--" + name) {
      if (i + 1 == args->size()) throw UsageError(fmt::format("option '{}' needs a value", name));
      value = (*args)[i + 1];
      args->erase(args->begin() + static_cast<long>(i), args->begin() + static_cast<long>(i) + 2);
    } else if (a.rfind("--" + name + "=", 0) == 0) {
      value = a.substr(name.size() + 3);
      args->erase(args->begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  return value;
}

bool Has(const std::vector<std::string>& args, const std::string& name) {
  for (const std::string& a : args) {
    if (a == "--" + name || a.rfind("--" + name + "=", 0) == 0) return true;
  }
  return false;
}

disk::UpOptions DiskOptions(std::vector<std::string>* args, const std::string& model) {
  disk::UpOptions o;
  o.model = model;
  o.owner_pid = ::getpid();
  if (auto fs = TakeOption(args, "disk_fs")) o.fs = *fs;
  if (auto opts = TakeOption(args, "disk_mkfs_opts")) o.mkfs_opts = *opts;
  if (auto dir = TakeOption(args, "disk_backing_dir")) o.backing_dir = *dir;
  if (auto size = TakeOption(args, "disk_size")) {
    std::string err;
    const auto bytes = ParseSize(*size, &err);
    if (!bytes) throw UsageError(fmt::format("invalid value '{}' for option 'disk_size': {}", *size, err));
    o.size = *bytes;
  }
  while (auto kv = TakeOption(args, "disk_set")) {
    const size_t eq = kv->find('=');
    if (eq == std::string::npos) {
      throw UsageError(fmt::format("invalid value '{}' for option 'disk_set': expected KEY=VALUE", *kv));
    }
    o.overrides.emplace_back(kv->substr(0, eq), kv->substr(eq + 1));
  }
  return o;
}

}  // namespace

int RunWithDisk(const std::vector<std::string>& in_args, const std::string& command_line) {
  std::vector<std::string> args = in_args;
  // Held from before the disk is made until after it is gone.
  std::optional<MemoryBalloon> balloon;
  if (auto size = TakeOption(&args, "memory_balloon")) balloon.emplace(*size, "memory_balloon");
  const std::optional<std::string> model = TakeOption(&args, "disk");
  if (!model) {
    for (const char* o : {"disk_fs", "disk_size", "disk_mkfs_opts", "disk_set", "disk_backing_dir"}) {
      if (Has(args, o)) throw UsageError(fmt::format("option '{}' needs --disk MODEL", o));
    }
    const int rc = RunCommand(args, command_line);
    if (Has(args, "help")) fmt::print("{}", kDiskHelp);
    return rc;
  }
  if (Has(args, "target")) {
    throw UsageError("options 'target' and 'disk' exclude each other: --disk makes the target");
  }
  const disk::UpOptions options = DiskOptions(&args, *model);
  const disk::DiskRecord d = disk::Up(options);
  PrintErr("iomimic: emulated disk {} ({} {}) at {}\n", d.model, d.fs, FormatSize(d.size), d.mount);
  args.push_back("--target=" + d.mount);
  int rc = 1;
  try {
    rc = RunCommand(args, command_line);
  } catch (...) {
    disk::Down(d, /*force=*/true);
    throw;
  }
  const std::string problems = disk::Down(d, /*force=*/true);
  if (!problems.empty()) {
    PrintErr("iomimic: error: the emulated disk at {} was not taken down: {} (iomimic clean)\n",
             d.mount, problems);
    return rc == 0 ? 1 : rc;
  }
  return rc;
}

}  // namespace iomimic::cli
