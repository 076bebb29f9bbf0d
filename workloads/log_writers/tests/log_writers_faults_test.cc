// log_writers through the faults every module meets (support/module_faults.h).
#include "support/module_faults.h"

namespace iomimic::test {

INSTANTIATE_TEST_SUITE_P(
    LogWriters, ModuleFaults,
    ::testing::Values(ModuleFaultCase{
        .module = "log_writers",
        .fill_prepare = {"--threads=2", "--log_writers.prealloc=fallocate:48MiB", "--duration=1s"},
        .fill_prepare_op = "fallocate",
        .fill_measure = {"--threads=2", "--duration=0", "--ops=3000",
                         "--log_writers.record_size=64KiB"},  // ~190 MiB of records
        .fill_measure_op = "write",
        // 4,096 logs: a prepare and a cleanup long enough to be signalled in.
        .long_run = {"--threads=4", "--log_writers.files_per_thread=1024",
                     "--log_writers.prealloc=fallocate:16KiB", "--rate=500"},
        .eio_fault = FaultyFs::Fault::kWrites,
        .eio_run = {"--threads=2", "--log_writers.flush=fdatasync:1"},
        .eio_ops = {"fdatasync", "write"},
        .audit_run = {"--threads=2", "--duration=0", "--ops=200",
                      "--log_writers.rotate_size=64KiB", "--log_writers.flush=fdatasync:16"}}),
    ModuleFaultName);

}  // namespace iomimic::test
