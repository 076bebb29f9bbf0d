#include "iomimic/options.h"

#include <gtest/gtest.h>

#include "iomimic/registry.h"
#include "iomimic/status.h"

namespace iomimic {
namespace {

std::string ErrorOf(const OptionSet& set, const std::string& name, const std::string& value) {
  try {
    set.Apply(name, value);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << name << "=" << value << " was accepted";
  return {};
}

TEST(Options, ApplyStoresParsedValues) {
  uint64_t size = 4096, ns = 0;
  int64_t n = 1;
  std::string mode = "a", text;
  bool flag = false;
  OptionSet set("mod");
  set.Size("size", &size, "h", 512, 1 << 30);
  set.Duration("time", &ns, "h");
  set.Integer("n", &n, "h", 1, 8);
  set.Enum("mode", &mode, "h", {"a", "b"});
  set.Flag("flag", &flag, "h");
  set.Text("text", &text, "h");
  EXPECT_EQ(set.Find("size")->default_text, "4KiB");
  set.Apply("size", "8k");
  set.Apply("time", "2ms");
  set.Apply("n", "8");
  set.Apply("mode", "b");
  set.Apply("flag", "true");
  set.Apply("text", "hello");
  EXPECT_EQ(size, 8192u);
  EXPECT_EQ(ns, 2000000u);
  EXPECT_EQ(n, 8);
  EXPECT_EQ(mode, "b");
  EXPECT_TRUE(flag);
  EXPECT_EQ(text, "hello");
  EXPECT_EQ(set.Find("size")->current(), "8KiB");
}

TEST(Options, ErrorsNameOptionAndValueAndKeepTheOldValue) {
  uint64_t size = 4096;
  int64_t n = 1;
  std::string mode = "a";
  OptionSet set("mod");
  set.Size("size", &size, "h", 512, 1 << 20);
  set.Integer("n", &n, "h", 1, 8);
  set.Enum("mode", &mode, "h", {"a", "b"});

  std::string e = ErrorOf(set, "size", "4X");
  EXPECT_NE(e.find("mod.size"), std::string::npos) << e;
  EXPECT_NE(e.find("'4X'"), std::string::npos) << e;
  e = ErrorOf(set, "size", "2M");
  EXPECT_NE(e.find("between 512B and 1MiB"), std::string::npos) << e;
  e = ErrorOf(set, "n", "9");
  EXPECT_NE(e.find("between 1 and 8"), std::string::npos) << e;
  e = ErrorOf(set, "mode", "c");
  EXPECT_NE(e.find("one of: a, b"), std::string::npos) << e;
  e = ErrorOf(set, "nope", "1");
  EXPECT_NE(e.find("mod.nope"), std::string::npos) << e;
  EXPECT_EQ(size, 4096u);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(mode, "a");
}

TEST(Options, EngineOptionsHaveNoSection) {
  int64_t n = 1;
  OptionSet set("");
  set.Integer("threads", &n, "h", 1, 4);
  EXPECT_NE(ErrorOf(set, "threads", "0").find("'threads'"), std::string::npos);
}

TEST(Registry, EveryModuleHasOptionsWithDefaultsThatValidate) {
  const auto all = Registry::Get().All();
  ASSERT_FALSE(all.empty());
  for (const WorkloadInfo* info : all) {
    EXPECT_EQ(Registry::Get().Find(info->name), info);
    auto workload = info->make();
    OptionSet set(info->name);
    workload->DeclareOptions(set);
    EXPECT_FALSE(workload->OpNames().empty()) << info->name;
    EXPECT_FALSE(workload->WorkUnit().empty()) << info->name;
    for (const OptionSpec& spec : set.specs()) {
      EXPECT_FALSE(spec.help.empty()) << info->name << "." << spec.name;
      // The default, fed back in as text, must be accepted unchanged.
      EXPECT_EQ(spec.apply(spec.default_text), "") << info->name << "." << spec.name;
      EXPECT_EQ(spec.current(), spec.default_text) << info->name << "." << spec.name;
    }
    // Defaults validate, unless the module has a required option (replay's
    // trace): then the message names it as required.
    const std::string why = workload->Validate(RunSettings{});
    if (!why.empty()) {
      EXPECT_NE(why.find("option '" + info->name + "."), std::string::npos) << why;
      EXPECT_NE(why.find("is required"), std::string::npos) << why;
    }
  }
  EXPECT_EQ(Registry::Get().Find("no_such_module"), nullptr);
}

}  // namespace
}  // namespace iomimic
