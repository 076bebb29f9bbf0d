// The JSON report of every module keeps its shape across refactorings
// (schema_version 1): every field's path, its JSON type (integer, float,
// string, bool, null, object, array) and, for arrays, the distinct shapes
// of their elements, compared with tests/golden/<module>.shape.json.
//
// The goldens were made by the code before the typed-result redesign
// (issue 14), which left them unchanged; fields added since (stop_reason,
// process, writeback, scope: issue 13) were added to them on purpose. To
// accept an intended schema change, run the test with
// IOMIMIC_UPDATE_GOLDEN=1 and review the diff of tests/golden/: within
// schema_version 1 a field may be added, never renamed or removed.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using nlohmann::json;

// Keys that name things rather than fields (ops, counters, files): their
// shapes are kept, their names too, since op names are part of a module's
// contract. Values are replaced by their types.
json Shape(const json& j) {
  switch (j.type()) {
    case json::value_t::object: {
      json out = json::object();
      for (const auto& [k, v] : j.items()) out[k] = Shape(v);
      return out;
    }
    case json::value_t::array: {
      std::set<std::string> seen;
      json distinct = json::array();
      for (const json& e : j) {
        json s = Shape(e);
        if (seen.insert(s.dump()).second) distinct.push_back(std::move(s));
      }
      return json{{"[]", distinct}};
    }
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "int";
    case json::value_t::number_float:
      return "float";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::null:
      return "null";
    default:
      return "other";
  }
}

struct GoldenCase {
  std::string name;  // the golden file's name
  std::string module;
  std::vector<std::string> args;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

class ReportGolden : public ::testing::TestWithParam<GoldenCase> {};

json RunAndRead(const std::string& target, const GoldenCase& c) {
  const std::string report =
      "/tmp/iomimic-golden-" + c.name + "-" + std::to_string(::getpid()) + ".json";
  std::vector<std::string> args = {"run", c.module, "--target=" + target, "--format=none",
                                   "--output=" + report};
  args.insert(args.end(), c.args.begin(), c.args.end());
  const RunResult r = RunIomimic(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(report);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  ::unlink(report.c_str());
  return j;
}

TEST_P(ReportGolden, JsonShapeIsUnchanged) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  const GoldenCase& c = GetParam();
  auto fs = LoopFs::Create("ext4", 256ull << 20);
  const json report = RunAndRead(fs->mount_point(), c);
  ASSERT_TRUE(report.is_object());
  const json shape = Shape(report);
  const std::string golden_path =
      std::string(IOMIMIC_SOURCE_DIR) + "/tests/golden/" + c.name + ".shape.json";
  if (const char* update = std::getenv("IOMIMIC_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(golden_path) << shape.dump(1) << "\n";
    GTEST_SKIP() << "golden written: " << golden_path;
  }
  std::ifstream in(golden_path);
  ASSERT_TRUE(in) << "no golden file " << golden_path;
  const json golden = json::parse(in);
  // A readable difference: the JSON patch from the golden to what we got.
  EXPECT_EQ(shape, golden) << json::diff(golden, shape).dump(1);
}

// Short runs that still fill every section: --interval gives the series,
// --repeat the repeats, --sweep the sweep, --tune (on the test's own loop device) the tunings.
INSTANTIATE_TEST_SUITE_P(
    AllModules, ReportGolden,
    ::testing::Values(
        GoldenCase{"mmap_msync", "mmap_msync",
                   {"--threads=2", "--duration=600ms", "--interval=200ms", "--repeat=2",
                    "--mmap_msync.region_size=1MiB", "--tune=queue.read_ahead_kb=64"}},
        GoldenCase{"rrd_update", "rrd_update",
                   {"--rrd_update.files=1000", "--rrd_update.passes=2", "--interval=200ms",
                    "--cache=cold"}},
        GoldenCase{"log_writers", "log_writers",
                   {"--threads=2", "--duration=600ms", "--rate=200", "--interval=200ms"}},
        GoldenCase{"mmap_msync_sweep", "mmap_msync",
                   {"--duration=300ms", "--mmap_msync.region_size=1MiB", "--repeat=2",
                    "--sweep=threads=1,2"}},
        GoldenCase{"build_tree", "build_tree",
                   {"--threads=2", "--build_tree.dirs=4", "--build_tree.headers=40",
                    "--build_tree.cpu_per_kib=1ms"}}),
    [](const ::testing::TestParamInfo<GoldenCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace iomimic::test
