// log_writers: how a record is cut into calls (record_plan.h, pure
// arithmetic), option validation through the binary (exit 2, the option
// and the value named, nothing written), and a paced run's report.
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../record_plan.h"
#include "log_writers_test_util.h"

namespace iomimic::test::log_writers {
namespace {

using ::iomimic::log_writers::RecordPlan;

TEST(LogWritersRecordPlan, PiecesAndCallsAddUpExactly) {
  for (const RecordPlan p : {RecordPlan{1024, 100, 15, 33}, RecordPlan{1024, 7, 3, 5},
                             RecordPlan{10, 10, 0, 1}, RecordPlan{1000, 3, 1000, 7}}) {
    uint64_t bytes = 0, clocks = 0, lseeks = 0, smallest = p.bytes, largest = 0;
    for (uint64_t j = 0; j < p.writes; ++j) {
      bytes += p.PieceBytes(j);
      smallest = std::min(smallest, p.PieceBytes(j));
      largest = std::max(largest, p.PieceBytes(j));
      clocks += p.ClocksBefore(j);
      lseeks += p.LseeksAfter(j);
    }
    EXPECT_EQ(bytes, p.bytes);
    EXPECT_LE(largest - smallest, 1u) << "pieces are of near-equal size";
    EXPECT_GE(smallest, 1u);
    EXPECT_EQ(clocks, p.clocks);
    EXPECT_EQ(lseeks, p.lseeks);
  }
}

struct BadValue {
  std::vector<std::string> args;
  std::string message;  // a part of the error that must be there
};

TEST(LogWritersOptions, BadValuesAreRefusedNamingTheOptionAndValue) {
  const std::vector<BadValue> cases = {
      {{"--log_writers.writes_per_record=2000"}, "'log_writers.writes_per_record' (2000)"},
      {{"--log_writers.flush=sometimes"}, "invalid value 'sometimes' for option 'log_writers.flush'"},
      {{"--log_writers.flush=fdatasync:0"}, "'fdatasync:0' for option 'log_writers.flush'"},
      {{"--log_writers.flush=fsync"}, "expected none, fdatasync:N"},
      {{"--log_writers.flush=buffer:lots"}, "'buffer:lots' for option 'log_writers.flush'"},
      {{"--log_writers.flush=odsync:3"}, "'odsync:3'"},
      {{"--log_writers.prealloc=fallocate:"}, "option 'log_writers.prealloc'"},
      {{"--log_writers.prealloc=posix"}, "expected none or fallocate:SIZE"},
      {{"--log_writers.shared_files=2", "--log_writers.files_per_thread=3"},
       "'log_writers.shared_files' (2) and 'log_writers.files_per_thread' (3)"},
      {{"--log_writers.think_time=2m"}, "'log_writers.think_time'"},
  };
  // A target that does not exist and one record: a value wrongly accepted
  // fails the test on its message and still writes nothing anywhere.
  const std::string target = "/nonexistent-iomimic-log_writers-target";
  for (const BadValue& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back("--ops=1");
    const LwRun r = RunLogWriters(target, args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args[0] << "\n" << r.err;
    EXPECT_TRUE(r.report.is_null()) << "nothing is written on bad usage";
  }
}

TEST(LogWritersOptions, PacedRecordsReportIntendedStartAndServiceTime) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  const LwRun r = RunLogWriters(SharedFs("ext4").mount_point(),
                              // Two threads at 500/s each: 1000 records/s.
                              {"--threads=2", "--duration=0", "--ops=100", "--rate=500",
                               "--log_writers.writes_per_record=10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto& record = r.report["ops"]["record"];
  EXPECT_EQ(record["count"], 100);
  ASSERT_TRUE(record.contains("intended_latency_ns")) << record.dump();
  EXPECT_GE(record["intended_latency_ns"]["max"].get<uint64_t>(),
            record["latency_ns"]["min"].get<uint64_t>());
  // 100 records at 1000/s: about 100 ms, not as fast as possible.
  EXPECT_GE(r.report["duration_s"].get<double>(), 0.09);
}

}  // namespace
}  // namespace iomimic::test::log_writers
