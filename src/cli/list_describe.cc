#include <fmt/format.h>

#include "cli/cli.h"
#include "engine/engine.h"
#include "iomimic/registry.h"
#include "iomimic/status.h"

namespace iomimic::cli {
namespace {

void PrintOptions(const OptionSet& set) {
  for (const OptionSpec& spec : set.specs()) {
    std::string kind = spec.kind;
    if (spec.kind == "enum") kind = fmt::format("{}", fmt::join(spec.choices, "|"));
    fmt::print("  --{:<28} {} (default: {}; {})\n", set.QualifiedName(spec.name), spec.help,
               spec.default_text.empty() ? "\"\"" : spec.default_text, kind);
  }
}

}  // namespace

int ListCommand() {
  for (const WorkloadInfo* info : Registry::Get().All()) {
    fmt::print("{:<16} {}\n", info->name, info->summary);
  }
  return 0;
}

int DescribeCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) throw UsageError("describe takes one module name (see 'iomimic list')");
  const WorkloadInfo* info = Registry::Get().Find(args[0]);
  if (info == nullptr) {
    throw UsageError(fmt::format("unknown module '{}' (see 'iomimic list')", args[0]));
  }
  auto workload = info->make();
  OptionSet module_options(info->name);
  workload->DeclareOptions(module_options);
  fmt::print("{}: {}\n\n", info->name, info->summary);
  fmt::print("Module options (command line --{0}.NAME=VALUE, profile section [{0}]):\n",
             info->name);
  PrintOptions(module_options);
  fmt::print("\nOps recorded: {}\nUnit of work: {}\n", fmt::join(workload->OpNames(), ", "),
             workload->WorkUnit());
  engine::EngineConfig config;
  OptionSet engine_options("");
  engine::DeclareEngineOptions(engine_options, &config);
  fmt::print("\nRun options (command line --NAME=VALUE, profile top level):\n");
  PrintOptions(engine_options);
  fmt::print("\nThe story, the profiles and what to look at: workloads/{}/README.md\n",
             info->name);
  return 0;
}

}  // namespace iomimic::cli
