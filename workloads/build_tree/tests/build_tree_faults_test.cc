// build_tree through the faults every module meets (support/module_faults.h).
// A full object filesystem apart from the sources' is in build_tree_e2e_test.cc.
#include "support/module_faults.h"

namespace iomimic::test {

INSTANTIATE_TEST_SUITE_P(
    BuildTree, ModuleFaults,
    ::testing::Values(ModuleFaultCase{
        .module = "build_tree",
        .fill_prepare = {"--build_tree.dirs=300", "--build_tree.cpu_per_kib=0"},  // ~100 MiB
        .fill_prepare_op = "write",
        // Objects 8x the sources: the tree fits, its objects do not.
        .fill_measure = {"--build_tree.obj_ratio=8", "--build_tree.cpu_per_kib=0"},
        .fill_measure_op = "write",
        .long_run = {"--build_tree.dirs=200", "--build_tree.cpu_per_kib=1ms"},
        // Sources evicted after prepare: every compile reads from the disk.
        .eio_fault = FaultyFs::Fault::kReads,
        .eio_run = {"--build_tree.dirs=50", "--build_tree.cpu_per_kib=100us", "--cache=cold"},
        .eio_ops = {"read", "open", "open_include", "stat"},
        .audit_run = {"--threads=2", "--build_tree.dirs=5", "--build_tree.headers=50",
                      "--build_tree.cpu_per_kib=0"}}),
    ModuleFaultName);

}  // namespace iomimic::test
