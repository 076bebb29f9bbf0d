// Boost.Program_options sees every option of the engine, of the command and
// of every registered module (so --other_module.x is recognised and refused
// with a clear message rather than "unknown option"); each value is then
// handed to the OptionSet that owns it.
#include "cli/run_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/cli.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"

namespace po = boost::program_options;

namespace iomimic::cli {
namespace {

void DeclareCliOptions(OptionSet& set, CliConfig* config) {
  set.Text("output", &config->output,
           "write the report to this file (JSON; CSV when the name ends in .csv), atomically");
  set.Enum("format", &config->format, "what is printed on stdout", {"text", "json", "csv", "none"});
  set.Flag("quiet", &config->quiet, "no context or progress lines on stderr");
  set.Integer("repeat", &config->repeat,
              "run the workload N times (fresh files each time); the report adds the median and "
              "spread of the headline figures",
              1, 1000);
  set.Text("series_output", &config->series_output,
           "write the --interval time series to this CSV file, atomically");
  set.Text("sweep", &config->sweep,
           "NAME=V1,V2,...: run once (or --repeat times) per value of one setting: a --tune "
           "name (queue.read_ahead_kb), an engine option (threads) or a module option "
           "(log_writers.flush); the report compares the medians");
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool LooksLikeProfile(const std::string& arg) {
  return IsFile(arg) || (arg.size() > 4 && arg.compare(arg.size() - 4, 4, ".ini") == 0);
}

struct ModuleOptions {
  std::unique_ptr<Workload> workload;
  std::unique_ptr<OptionSet> options;
};

void AddToDescription(const OptionSet& set, po::options_description* desc) {
  for (const OptionSpec& spec : set.specs()) {
    auto* value = po::value<std::string>();
    // A bare --keep / --quiet means true, as people expect of a flag.
    if (spec.kind == "flag") value->implicit_value("true");
    desc->add_options()(set.QualifiedName(spec.name).c_str(), value, spec.help.c_str());
  }
}

// Boost.Program_options 1.74 loops forever in error::what() when the text it
// puts into a message (an unknown option, a bad profile line) contains one
// of its own placeholders ("%canonical_option%"): it finds the placeholder
// again in what it inserted (found by fuzz/, kept in tests/fuzz_regressions).
// No '%' ever reaches it: it is swapped for an unused control character on
// the way in and back on the way out.
constexpr char kPercentStandIn = '\x1f';

std::string Encode(std::string s, const char* what) {
  if (s.find(kPercentStandIn) != std::string::npos) {
    throw UsageError(fmt::format("{} contains the control character 0x1f", what));
  }
  std::replace(s.begin(), s.end(), '%', kPercentStandIn);
  return s;
}

std::string Decode(std::string s) {
  std::replace(s.begin(), s.end(), kPercentStandIn, '%');
  return s;
}

// Profiles are small; a huge file is a mistake, not a profile.
constexpr size_t kMaxProfileBytes = 1 << 20;

std::string ReadProfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read profile '{}'", path));
  std::string text(kMaxProfileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxProfileBytes) {
    throw UsageError(fmt::format("profile '{}' is larger than 1 MiB", path));
  }
  return text;
}

result::ResolvedConfig::Section Resolved(const std::string& name, const OptionSet& set) {
  result::ResolvedConfig::Section section{name, {}};
  for (const OptionSpec& spec : set.specs()) section.options.emplace_back(spec.name, spec.current());
  return section;
}

}  // namespace

std::string RunHelpText() {
  engine::EngineConfig engine_config;
  OptionSet engine_options("");
  engine::DeclareEngineOptions(engine_options, &engine_config);
  CliConfig cli_config;
  OptionSet cli_options("");
  DeclareCliOptions(cli_options, &cli_config);
  std::string out = "usage: iomimic run [MODULE|PROFILE.ini] [options]\n\n";
  for (const OptionSet* set : {&engine_options, &cli_options}) {
    for (const OptionSpec& spec : set->specs()) {
      out += fmt::format("  --{:<14} {} (default: {})\n", spec.name, spec.help,
                         spec.default_text.empty() ? "\"\"" : spec.default_text);
    }
  }
  out += "  --MODULE.OPTION=VALUE  a module option (iomimic describe MODULE)\n";
  return out;
}

RunPlan ParseRunArgs(const std::vector<std::string>& args) {
  RunPlan plan;
  OptionSet engine_options("");
  engine::DeclareEngineOptions(engine_options, &plan.engine);
  OptionSet cli_options("");
  DeclareCliOptions(cli_options, &plan.cli);

  std::map<std::string, ModuleOptions> modules;
  for (const WorkloadInfo* info : Registry::Get().All()) {
    ModuleOptions m{info->make(), std::make_unique<OptionSet>(info->name)};
    m.workload->DeclareOptions(*m.options);
    modules.emplace(info->name, std::move(m));
  }

  po::options_description desc;
  AddToDescription(engine_options, &desc);
  AddToDescription(cli_options, &desc);
  for (const auto& [name, m] : modules) AddToDescription(*m.options, &desc);
  po::options_description file_desc = desc;
  file_desc.add_options()("module", po::value<std::string>(), "the module a profile runs");
  po::options_description cli_desc = desc;
  cli_desc.add_options()("workload", po::value<std::string>(), "module or profile")(
      "help,h", "this help");
  po::positional_options_description positional;
  positional.add("workload", 1);

  std::vector<std::string> encoded_args;
  for (const auto& a : args) encoded_args.push_back(Encode(a, "an argument"));
  po::variables_map vm;
  try {
    const int style =
        po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(encoded_args)
                  .options(cli_desc)
                  .positional(positional)
                  .style(style)
                  .run(),
              vm);
  } catch (const po::error& e) {
    throw UsageError(Decode(e.what()));
  }
  if (vm.count("help")) {
    plan.help = true;
    return plan;
  }

  const std::string workload_arg =
      vm.count("workload") ? Decode(vm["workload"].as<std::string>()) : "";
  try {
    if (workload_arg.empty()) {
      plan.default_run = true;
      std::istringstream in(kDefaultProfile);
      po::store(po::parse_config_file(in, file_desc, false), vm);
    } else if (LooksLikeProfile(workload_arg)) {
      plan.profile = workload_arg;
      std::istringstream in(Encode(ReadProfile(plan.profile), "the profile"));
      po::store(po::parse_config_file(in, file_desc, false), vm);
    }
  } catch (const po::error& e) {
    throw UsageError(fmt::format("profile '{}': {}",
                                 plan.default_run ? "built-in default" : plan.profile,
                                 Decode(e.what())));
  }

  plan.module_name = workload_arg;
  if (plan.default_run || !plan.profile.empty()) {
    if (!vm.count("module")) {
      throw UsageError(fmt::format("profile '{}' does not say which module it runs (module = NAME)",
                                   plan.profile));
    }
    plan.module_name = Decode(vm["module"].as<std::string>());
  }
  auto found = modules.find(plan.module_name);
  if (found == modules.end()) {
    throw UsageError(fmt::format("unknown module '{}' (see 'iomimic list')", plan.module_name));
  }
  const OptionSet& module_options = *found->second.options;

  for (const auto& [key, value] : vm) {
    if (key == "workload" || key == "module") continue;
    const std::string text = Decode(value.as<std::string>());
    const size_t dot = key.find('.');
    if (dot == std::string::npos) {
      if (engine_options.Find(key)) {
        engine_options.Apply(key, text);
      } else {
        cli_options.Apply(key, text);
      }
      continue;
    }
    const std::string section = key.substr(0, dot);
    if (section != plan.module_name) {
      throw UsageError(fmt::format("option '{}' belongs to module {}, but this run is {}", key,
                                   section, plan.module_name));
    }
    module_options.Apply(key.substr(dot + 1), text);
    plan.module_values.emplace_back(key.substr(dot + 1), text);
  }

  // A report that could not be written at the end would lose the run.
  for (const auto& [name, path] : {std::pair<const char*, const std::string&>{"output", plan.cli.output},
                                   {"series_output", plan.cli.series_output}}) {
    if (path.empty()) continue;
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      throw UsageError(fmt::format("invalid value '{}' for option '{}': directory '{}' is not "
                                   "writable: {}",
                                   path, name, dir, std::strerror(errno)));
    }
    // The report is renamed into place: that would replace a device
    // (/dev/null), a symbolic link (/dev/stdout) or fail on a directory
    // after the whole run.
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      throw UsageError(fmt::format(
          "invalid value '{}' for option '{}': it exists and is not a regular file (a {}); the "
          "report is written to a new file and renamed over it. Give a file name, or "
          "--format=json for standard output",
          path, name,
          S_ISDIR(st.st_mode)   ? "directory"
          : S_ISLNK(st.st_mode) ? "symbolic link"
                                : "device, pipe or socket"));
    }
  }
  if (!plan.cli.output.empty() && plan.cli.output == plan.cli.series_output) {
    throw UsageError(fmt::format("invalid value '{}' for option 'series_output': it is also "
                                 "--output; the series would overwrite the report",
                                 plan.cli.series_output));
  }

  // A module whose work has an end (passes, a build) runs to it unless the
  // user bounded the run.
  if (found->second.workload->RunsToCompletion() && !vm.count("duration")) {
    plan.engine.duration_ns = 0;
  }
  plan.config.sections = {Resolved("run", engine_options), Resolved("report", cli_options),
                          Resolved(plan.module_name, module_options)};
  plan.config.profile = plan.profile;
  return plan;
}

std::unique_ptr<Workload> MakeWorkload(const RunPlan& plan) {
  const WorkloadInfo* info = Registry::Get().Find(plan.module_name);
  auto workload = info->make();
  OptionSet set(plan.module_name);
  workload->DeclareOptions(set);
  for (const auto& [name, text] : plan.module_values) set.Apply(name, text);
  return workload;
}

}  // namespace iomimic::cli
