// skeleton through the faults every module meets (tests/support/
// module_faults.h): a full filesystem, SIGINT/SIGTERM in each phase, a disk
// that fails, and an audit of every path written. Its file does not grow
// while measuring (blocks are overwritten in place), so a full filesystem
// can only happen while Prepare writes it.
#include "support/module_faults.h"

namespace iomimic::test {

INSTANTIATE_TEST_SUITE_P(
    Skeleton, ModuleFaults,
    ::testing::Values(ModuleFaultCase{
        .module = "skeleton",
        // A 128 MiB file on a 64 MiB filesystem: WriteAll fails with ENOSPC.
        .fill_prepare = {"--skeleton.file_size=128MiB", "--duration=0", "--ops=2"},
        .fill_prepare_op = "write",
        .long_run = {"--threads=2", "--skeleton.file_size=128MiB"},
        // With fsync after each write, the failing writes reach the disk
        // while measuring; the error is the write or the fsync.
        .eio_fault = FaultyFs::Fault::kWrites,
        .eio_run = {"--skeleton.file_size=16MiB", "--skeleton.sync=true"},
        .eio_ops = {"write", "fsync"},
        .audit_run = {"--duration=0", "--ops=4", "--skeleton.file_size=1MiB"}}),
    ModuleFaultName);

}  // namespace iomimic::test
