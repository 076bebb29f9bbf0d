// `iomimic run`: resolve options from the command line and a profile with
// Boost.Program_options, run the engine, render the reports.
//
// Precedence: command line over profile over defaults. Every value goes
// through the OptionSet that owns it, so every error names the option and
// the value. Nothing is written before all options are valid.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/cli.h"
#include "engine/engine.h"
#include "engine/signal_watcher.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"
#include "report/reporters.h"

namespace po = boost::program_options;

namespace iomimic::cli {
namespace {

struct ReportConfig {
  std::string output;         // JSON (or CSV when it ends in .csv), written atomically
  std::string format = "text";  // what goes to stdout
  bool quiet = false;
  int64_t repeat = 1;          // runs of the same workload, each with fresh files
  std::string series_output;  // the --interval series as CSV
};

void DeclareReportOptions(OptionSet& set, ReportConfig* config) {
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
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool LooksLikeProfile(const std::string& arg) {
  return IsFile(arg) || (arg.size() > 4 && arg.compare(arg.size() - 4, 4, ".ini") == 0);
}

// Every module's options, so that --other_module.x is recognised and
// refused with a clear message instead of "unknown option".
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

nlohmann::json Resolved(const OptionSet& set) {
  nlohmann::json j = nlohmann::json::object();
  for (const OptionSpec& spec : set.specs()) j[spec.name] = spec.current();
  return j;
}

void PrintRunHelp(const OptionSet& engine_options, const OptionSet& report_options) {
  fmt::print("usage: iomimic run [MODULE|PROFILE.ini] [options]\n\n");
  for (const OptionSet* set : {&engine_options, &report_options}) {
    for (const OptionSpec& spec : set->specs()) {
      fmt::print("  --{:<12} {} (default: {})\n", spec.name, spec.help,
                 spec.default_text.empty() ? "\"\"" : spec.default_text);
    }
  }
  fmt::print("  --MODULE.OPTION=VALUE  a module option (iomimic describe MODULE)\n");
}

}  // namespace

int RunCommand(const std::vector<std::string>& args, const std::string& command_line) {
  engine::EngineConfig engine_config;
  OptionSet engine_options("");
  engine::DeclareEngineOptions(engine_options, &engine_config);
  ReportConfig report_config;
  OptionSet report_options("");
  DeclareReportOptions(report_options, &report_config);

  std::map<std::string, ModuleOptions> modules;
  for (const WorkloadInfo* info : Registry::Get().All()) {
    ModuleOptions m{info->make(), std::make_unique<OptionSet>(info->name)};
    m.workload->DeclareOptions(*m.options);
    modules.emplace(info->name, std::move(m));
  }

  po::options_description desc;
  AddToDescription(engine_options, &desc);
  AddToDescription(report_options, &desc);
  for (const auto& [name, m] : modules) AddToDescription(*m.options, &desc);
  po::options_description file_desc = desc;
  file_desc.add_options()("module", po::value<std::string>(), "the module a profile runs");
  po::options_description cli_desc = desc;
  cli_desc.add_options()("workload", po::value<std::string>(), "module or profile")(
      "help,h", "this help");
  po::positional_options_description positional;
  positional.add("workload", 1);

  po::variables_map vm;
  std::string profile;
  try {
    const int style = po::command_line_style::default_style &
                      ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args)
                  .options(cli_desc)
                  .positional(positional)
                  .style(style)
                  .run(),
              vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("help")) {
    PrintRunHelp(engine_options, report_options);
    return 0;
  }

  std::string workload_arg = vm.count("workload") ? vm["workload"].as<std::string>() : "";
  bool default_run = false;
  try {
    if (workload_arg.empty()) {
      default_run = true;
      std::istringstream in(kDefaultProfile);
      po::store(po::parse_config_file(in, file_desc, false), vm);
    } else if (LooksLikeProfile(workload_arg)) {
      profile = workload_arg;
      std::ifstream in(profile);
      if (!in) throw UsageError(fmt::format("cannot read profile '{}'", profile));
      po::store(po::parse_config_file(in, file_desc, false), vm);
    }
  } catch (const po::error& e) {
    throw UsageError(fmt::format("profile '{}': {}", default_run ? "built-in default" : profile,
                                 e.what()));
  }

  std::string module_name = workload_arg;
  if (default_run || !profile.empty()) {
    if (!vm.count("module")) {
      throw UsageError(fmt::format("profile '{}' does not say which module it runs (module = NAME)",
                                   profile));
    }
    module_name = vm["module"].as<std::string>();
  }
  auto found = modules.find(module_name);
  if (found == modules.end()) {
    throw UsageError(fmt::format("unknown module '{}' (see 'iomimic list')", module_name));
  }
  const OptionSet& module_options = *found->second.options;

  // Module values are applied to each fresh instance (one per repeat).
  std::vector<std::pair<std::string, std::string>> module_values;
  for (const auto& [key, value] : vm) {
    if (key == "workload" || key == "module") continue;
    const std::string text = value.as<std::string>();
    const size_t dot = key.find('.');
    if (dot == std::string::npos) {
      if (engine_options.Find(key)) {
        engine_options.Apply(key, text);
      } else {
        report_options.Apply(key, text);
      }
      continue;
    }
    const std::string section = key.substr(0, dot);
    if (section != module_name) {
      throw UsageError(fmt::format("option '{}' belongs to module {}, but this run is {}", key,
                                   section, module_name));
    }
    module_options.Apply(key.substr(dot + 1), text);
    module_values.emplace_back(key.substr(dot + 1), text);
  }
  const WorkloadInfo* info = Registry::Get().Find(module_name);
  auto fresh_workload = [&]() {
    auto w = info->make();
    OptionSet set(module_name);
    w->DeclareOptions(set);
    for (const auto& [name, text] : module_values) set.Apply(name, text);
    return w;
  };

  // A module whose work has an end (passes, a build) runs to it unless the
  // user bounded the run.
  if (found->second.workload->RunsToCompletion() && !vm.count("duration")) {
    engine_config.duration_ns = 0;
  }
  engine_config.quiet = report_config.quiet;
  engine_config.progress = !report_config.quiet && ::isatty(STDERR_FILENO);

  engine::StopSource stop;
  engine::SignalWatcher signals(&stop);
  engine::Engine engine(engine_config, &stop);
  if (!report_config.quiet) {
    fmt::print(stderr, "iomimic: running {}{} under {}{}\n", module_name,
               default_run ? " (the built-in default workload)" : "", engine_config.target,
               report_config.repeat > 1 ? fmt::format(", {} times", report_config.repeat) : "");
  }
  std::vector<engine::RunResult> results;
  for (int64_t i = 0; i < report_config.repeat; ++i) {
    if (i > 0) {
      if (stop.signal() != 0) break;
      stop.ResetForNextRun();
    }
    std::unique_ptr<Workload> workload = fresh_workload();
    results.push_back(engine.Run(module_name, *workload));
    engine::RunResult& result = results.back();
    result.command_line = command_line;
    result.config = {{"run", Resolved(engine_options)},
                     {"report", Resolved(report_options)},
                     {module_name, Resolved(module_options)}};
    if (!profile.empty()) result.config["profile"] = profile;
    if (result.status != "complete") break;
    if (report_config.repeat > 1 && !report_config.quiet) {
      fmt::print(stderr, "iomimic: repeat {}/{}: {}\n", i + 1, report_config.repeat,
                 report::OneLine(result));
    }
  }
  const engine::RunResult& last = results.back();
  nlohmann::json json = report::ToJson(last);
  if (results.size() > 1 || report_config.repeat > 1) json["repeats"] = report::SummarizeRepeats(results);

  if (!report_config.output.empty()) {
    const std::string& out = report_config.output;
    const bool csv = out.size() > 4 && out.compare(out.size() - 4, 4, ".csv") == 0;
    try {
      report::WriteFileAtomically(out, csv ? report::RenderCsv(last) : json.dump(2) + "\n");
    } catch (const SysError& e) {
      fmt::print(stderr, "iomimic: error: cannot write the report: {}\n", e.what());
      return 1;
    }
  }
  if (!report_config.series_output.empty()) {
    try {
      report::WriteFileAtomically(report_config.series_output, report::RenderSeriesCsv(last));
    } catch (const SysError& e) {
      fmt::print(stderr, "iomimic: error: cannot write the series: {}\n", e.what());
      return 1;
    }
  }
  if (report_config.format == "text") {
    fmt::print("{}", report::RenderText(last));
    if (json.contains("repeats")) fmt::print("{}", report::RenderRepeatsText(json["repeats"]));
  } else if (report_config.format == "json") {
    fmt::print("{}\n", json.dump(2));
  } else if (report_config.format == "csv") {
    fmt::print("{}", report::RenderCsv(last));
  }
  std::fflush(stdout);
  return last.status == "complete" ? 0 : 1;
}

}  // namespace iomimic::cli
