// The engine in-process, driving the docs' skeleton module on a temporary
// directory: op limits, warmup, the run directory's life, errors.
#include "engine/engine.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "iomimic/registry.h"
#include "iomimic/status.h"

namespace iomimic::engine {
namespace {

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/iomimic-engine-test-XXXXXX";
    dir_ = ::mkdtemp(templ);
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  int Entries() const {
    int n = 0;
    DIR* d = ::opendir(dir_.c_str());
    while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
    return n;
  }

  RunResult Run(EngineConfig config, const std::vector<std::pair<std::string, std::string>>&
                                         options = {}) {
    config.target = dir_;
    auto workload = Registry::Get().Find("skeleton")->make();
    OptionSet set("skeleton");
    workload->DeclareOptions(set);
    for (const auto& [k, v] : options) set.Apply(k, v);
    Engine engine(config, &stop_);
    return engine.Run("skeleton", *workload);
  }

  std::string dir_;
  StopSource stop_;
};

const stats::OpSummary& Op(const RunResult& r, const std::string& name) {
  for (const auto& op : r.ops) {
    if (op.name == name) return op;
  }
  throw std::runtime_error("no op " + name);
}

TEST_F(EngineTest, OpLimitCountsExactlyAcrossThreads) {
  EngineConfig c;
  c.threads = 3;
  c.duration_ns = 0;
  c.ops = 100;
  RunResult r = Run(c, {{"block_size", "512"}});
  EXPECT_EQ(r.status, engine::RunStatus::kComplete);
  EXPECT_EQ(r.work_units, 100u);
  EXPECT_EQ(Op(r, "write").count, 100u);
  EXPECT_EQ(Op(r, "write").bytes, 100u * 512);
  EXPECT_EQ(Op(r, "fsync").count, 0u);
  EXPECT_EQ(r.app_write_bytes, 100u * 512);
  EXPECT_GT(r.duration_s, 0.0);
  EXPECT_EQ(Entries(), 0) << "run directory not removed";
}

// Paced threads sleep toward their next slot holding a claim on the op
// limit; the thread that finds the limit reached must not cut their sleep
// short (it once did: 99 units of 100).
TEST_F(EngineTest, OpLimitCountsExactlyWhenPacedThreadsSleep) {
  EngineConfig c;
  c.threads = 3;
  c.duration_ns = 0;
  c.ops = 60;
  c.rate = 200;  // 5 ms apart per thread: most claims are held while sleeping
  RunResult r = Run(c, {{"block_size", "512"}});
  EXPECT_EQ(r.status, engine::RunStatus::kComplete);
  EXPECT_EQ(r.work_units, 60u);
  EXPECT_EQ(Op(r, "write").count, 60u);
}

TEST_F(EngineTest, WarmupIsNotMeasured) {
  EngineConfig c;
  c.threads = 2;
  c.warmup_ns = 50'000'000;
  c.duration_ns = 0;
  c.ops = 40;
  RunResult r = Run(c, {{"sync", "true"}});
  EXPECT_EQ(r.status, engine::RunStatus::kComplete);
  EXPECT_EQ(r.work_units, 40u);
  // Warmup wrote too, but only the measured 40 units are in the ops.
  EXPECT_EQ(Op(r, "fsync").count, 40u);
  EXPECT_EQ(Op(r, "unit").count, 40u);
}

TEST_F(EngineTest, KeepLeavesTheRunDirectory) {
  EngineConfig c;
  c.duration_ns = 0;
  c.ops = 3;
  c.keep = true;
  RunResult r = Run(c);
  EXPECT_TRUE(r.run_dir_kept);
  struct stat st {};
  EXPECT_EQ(::stat((r.run_dir + "/data").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 3 * 4096);
}

TEST_F(EngineTest, SignalBeforeStartIsInterruptedWithNothingLeft) {
  stop_.RequestStopBySignal(SIGTERM);
  EngineConfig c;
  c.duration_ns = 0;
  c.ops = 10;
  RunResult r = Run(c);
  EXPECT_EQ(r.status, engine::RunStatus::kInterrupted);
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(r.interrupted_in, "start");
  EXPECT_EQ(r.work_units, 0u);
  EXPECT_EQ(Entries(), 0);
}

TEST_F(EngineTest, RefusedTargetThrowsBeforeWriting) {
  EngineConfig c;
  c.min_free = 1ull << 60;  // more than any disk has
  EXPECT_THROW(Run(c), UsageError);
  EXPECT_EQ(Entries(), 0);
}

}  // namespace
}  // namespace iomimic::engine
