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
#include "cli/output_checks.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "util/profile_text.h"

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

namespace {

// Every option of the engine, the command and every registered module, as
// Boost.Program_options descriptions for the command line and for profiles.
struct Parser {
  OptionSet engine_options{""};
  OptionSet cli_options{""};
  std::map<std::string, ModuleOptions> modules;
  po::options_description file_desc, cli_desc;

  explicit Parser(RunPlan* plan) {
    engine::DeclareEngineOptions(engine_options, &plan->engine);
    DeclareCliOptions(cli_options, &plan->cli);
    for (const WorkloadInfo* info : Registry::Get().All()) {
      ModuleOptions m{info->make(), std::make_unique<OptionSet>(info->name)};
      m.workload->DeclareOptions(*m.options);
      modules.emplace(info->name, std::move(m));
    }
    po::options_description desc;
    AddToDescription(engine_options, &desc);
    AddToDescription(cli_options, &desc);
    for (const auto& [name, m] : modules) AddToDescription(*m.options, &desc);
    file_desc.add(desc);
    file_desc.add_options()("module", po::value<std::string>(), "the module a profile runs");
    cli_desc.add(desc);
    cli_desc.add_options()("workload", po::value<std::string>(), "module or profile")(
        "help,h", "this help");
  }

  po::variables_map ParseCommandLine(const std::vector<std::string>& args) const;
  void LoadProfile(const std::string& workload_arg, RunPlan* plan, po::variables_map* vm) const;
  const ModuleOptions& ResolveModule(const std::string& workload_arg, const po::variables_map& vm,
                                     RunPlan* plan) const;
  void ApplyValues(const po::variables_map& vm, const OptionSet& module_options,
                   RunPlan* plan) const;
};

po::variables_map Parser::ParseCommandLine(const std::vector<std::string>& args) const {
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
  return vm;
}

// The built-in default profile without a workload, the profile file when
// the workload names one; the command line's values, stored first, win.
void Parser::LoadProfile(const std::string& workload_arg, RunPlan* plan,
                         po::variables_map* vm) const {
  try {
    if (workload_arg.empty()) {
      plan->default_run = true;
      std::istringstream in(kDefaultProfile);
      po::store(po::parse_config_file(in, file_desc, false), *vm);
    } else if (LooksLikeProfile(workload_arg)) {
      plan->profile = workload_arg;
      std::istringstream in(Encode(ReadProfileText(plan->profile), "the profile"));
      po::store(po::parse_config_file(in, file_desc, false), *vm);
    }
  } catch (const po::error& e) {
    throw UsageError(fmt::format("profile '{}': {}",
                                 plan->default_run ? "built-in default" : plan->profile,
                                 Decode(e.what())));
  }
}

const ModuleOptions& Parser::ResolveModule(const std::string& workload_arg,
                                           const po::variables_map& vm, RunPlan* plan) const {
  plan->module_name = workload_arg;
  if (plan->default_run || !plan->profile.empty()) {
    if (!vm.count("module")) {
      throw UsageError(fmt::format("profile '{}' does not say which module it runs (module = NAME)",
                                   plan->profile));
    }
    plan->module_name = Decode(vm["module"].as<std::string>());
  }
  auto found = modules.find(plan->module_name);
  if (found == modules.end()) {
    throw UsageError(fmt::format("unknown module '{}' (see 'iomimic list')", plan->module_name));
  }
  return found->second;
}

// Each value to the OptionSet that owns it; another module's option is
// refused by name.
void Parser::ApplyValues(const po::variables_map& vm, const OptionSet& module_options,
                         RunPlan* plan) const {
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
    if (section != plan->module_name) {
      throw UsageError(fmt::format("option '{}' belongs to module {}, but this run is {}", key,
                                   section, plan->module_name));
    }
    module_options.Apply(key.substr(dot + 1), text);
    plan->module_values.emplace_back(key.substr(dot + 1), text);
  }
}

}  // namespace

RunPlan ParseRunArgs(const std::vector<std::string>& args) {
  RunPlan plan;
  const Parser parser(&plan);
  po::variables_map vm = parser.ParseCommandLine(args);
  if (vm.count("help")) {
    plan.help = true;
    return plan;
  }
  const std::string workload_arg =
      vm.count("workload") ? Decode(vm["workload"].as<std::string>()) : "";
  parser.LoadProfile(workload_arg, &plan, &vm);
  const ModuleOptions& module = parser.ResolveModule(workload_arg, vm, &plan);
  parser.ApplyValues(vm, *module.options, &plan);
  CheckReportPaths(plan);
  CheckOutputs(plan);

  // A module whose work has an end (passes, a build) runs to it unless the
  // user bounded the run.
  if (module.workload->RunsToCompletion() && !vm.count("duration")) {
    plan.engine.duration_ns = 0;
  }
  plan.config.sections = {Resolved("run", parser.engine_options),
                          Resolved("report", parser.cli_options),
                          Resolved(plan.module_name, *module.options)};
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
