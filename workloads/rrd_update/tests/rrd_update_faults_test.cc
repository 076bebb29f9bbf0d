// rrd_update through the faults every module meets (support/module_faults.h).
// Its files do not grow while measuring (updates in place), so a full
// filesystem can only happen while the files are made.
#include "support/module_faults.h"

namespace iomimic::test {

INSTANTIATE_TEST_SUITE_P(
    RrdUpdate, ModuleFaults,
    ::testing::Values(ModuleFaultCase{
        .module = "rrd_update",
        .fill_prepare = {"--rrd_update.files=1000"},  // ~94 MiB of RRD files
        .fill_prepare_op = "write",
        .long_run = {"--rrd_update.files=2000", "--rrd_update.passes=1000000"},
        // Files evicted before every pass: each update reads from the disk.
        .eio_fault = FaultyFs::Fault::kReads,
        .eio_run = {"--rrd_update.files=200", "--rrd_update.cache=cold",
                    "--rrd_update.passes=1000000"},
        .eio_ops = {"pread_header", "pread_row", "open"},
        .audit_run = {"--rrd_update.files=20", "--rrd_update.passes=2"}}),
    ModuleFaultName);

}  // namespace iomimic::test
