// mmap_msync through the faults every module meets (support/module_faults.h).
// Its EIO cases (failed writeback, failed page-in, a dead journal) are in
// tests/e2e/eio_test.cc.
#include "support/module_faults.h"

namespace iomimic::test {

INSTANTIATE_TEST_SUITE_P(
    MmapMsync, ModuleFaults,
    ::testing::Values(ModuleFaultCase{
        .module = "mmap_msync",
        .fill_prepare = {"--mmap_msync.prealloc=write", "--mmap_msync.region_size=128MiB",
                         "--duration=0", "--ops=2"},
        .fill_prepare_op = "write",
        // 2 threads x 4 regions x 16 MiB, ftruncated: a store into a hole
        // the full filesystem cannot allocate takes SIGBUS.
        .fill_measure = {"--threads=2", "--duration=0", "--ops=40",
                         "--mmap_msync.region_size=16MiB", "--mmap_msync.regions_per_thread=4"},
        .fill_measure_op = "fill (SIGBUS)",
        .long_run = {"--threads=2", "--mmap_msync.prealloc=write",
                     "--mmap_msync.region_size=128MiB"},
        .audit_run = {"--duration=0", "--ops=4", "--mmap_msync.region_size=1MiB"}}),
    ModuleFaultName);

}  // namespace iomimic::test
