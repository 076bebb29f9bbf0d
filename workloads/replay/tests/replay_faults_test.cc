// replay through the faults every module meets (support/module_faults.h),
// with traces recorded here from dd (workloads/replay/traces/).
#include "support/module_faults.h"

namespace iomimic::test {
namespace {
const std::string kTraces = std::string(IOMIMIC_SOURCE_DIR) + "/workloads/replay/traces/";
}

INSTANTIATE_TEST_SUITE_P(
    Replay, ModuleFaults,
    ::testing::Values(ModuleFaultCase{
        .module = "replay",
        // dd reading a 100 MiB file: prepare lays it out and overflows.
        .fill_prepare = {"--replay.trace=" + kTraces + "dd_read.strace"},
        .fill_prepare_op = "write",
        // dd writing 100 MiB.
        .fill_measure = {"--replay.trace=" + kTraces + "dd_write.strace"},
        .fill_measure_op = "write",
        // tar extracting 800 files, looped until signalled.
        .long_run = {"--replay.trace=" + kTraces + "tar.strace"},
        .eio_fault = FaultyFs::Fault::kWrites,
        .eio_run = {"--replay.trace=" + kTraces + "dd_write.strace"},
        .eio_ops = {"write", "fsync", "close"},
        .audit_run = {"--replay.trace=" + kTraces + "sqlite3.strace"}}),
    ModuleFaultName);

}  // namespace iomimic::test
