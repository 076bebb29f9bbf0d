// Models: the shipped INI files, parsing, overrides and validation.
#include "model/model.h"

#include <gtest/gtest.h>

#include "iomimic/status.h"

namespace iomimic::disk {
namespace {

TEST(Models, EveryShippedModelLoadsAndValidates) {
  const std::vector<std::string> names = ModelNames();
  for (const char* want : {"cloud-gp3", "fast", "hdd-2006", "hdd-7200", "san-2ms"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  for (const std::string& n : names) {
    const Model m = LoadModel(n);
    EXPECT_EQ(m.name, n);
    EXPECT_FALSE(m.description.empty()) << n;
  }
}

TEST(Models, Hdd7200HasTheIssueFigures) {
  const Model m = LoadModel("hdd-7200");
  EXPECT_EQ(m.kind, ModelKind::kHdd);
  EXPECT_EQ(m.rpm, 7200u);
  EXPECT_EQ(m.average_seek_ns, 8'500'000u);
  EXPECT_EQ(m.full_stroke_ns, 15'000'000u);
  EXPECT_EQ(m.outer_mb_s, 150);
  EXPECT_EQ(m.inner_mb_s, 70);
  EXPECT_EQ(m.parallel, 1u);
}

TEST(Models, UnknownModelNamesTheKnownOnes) {
  try {
    LoadModel("hdd-9999");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'hdd-9999'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hdd-7200"), std::string::npos) << e.what();
  }
}

TEST(Parse, OverridesApplyInOrderAndAreValidated) {
  const Model m = LoadModel("hdd-7200", {{"rpm", "5400"}, {"write_cache", "off"}});
  EXPECT_EQ(m.rpm, 5400u);
  EXPECT_FALSE(m.write_cache);
  EXPECT_THROW(LoadModel("hdd-7200", {{"rpm", "fast"}}), UsageError);
  EXPECT_THROW(LoadModel("hdd-7200", {{"no_such_key", "1"}}), UsageError);
  EXPECT_THROW(LoadModel("hdd-7200", {{"inner_mb_s", "200"}}), UsageError);
  EXPECT_THROW(LoadModel("hdd-7200", {{"parallel", "0"}}), UsageError);
  EXPECT_THROW(LoadModel("hdd-7200", {{"latency", "-1ms"}}), UsageError);
}

TEST(Parse, ErrorNamesTheKeyAndValue) {
  try {
    ParseModel("[model]\nlatency = soon\n", "x", "x.ini");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'latency'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'soon'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParseModel("[other]\n", "x", "x.ini"), UsageError);
  EXPECT_THROW(ParseModel("just words\n", "x", "x.ini"), UsageError);
}

TEST(Parse, IniRoundTripKeepsEveryParameter) {
  for (const std::string& n : ModelNames()) {
    const Model m = LoadModel(n);
    const Model back = ParseModel(ModelToIni(m), n, "roundtrip");
    EXPECT_EQ(ModelToJson(back), ModelToJson(m)) << n;
  }
}

}  // namespace
}  // namespace iomimic::disk
