// The faults every module is put through (issue 8), as one parameterised
// suite: the tests are in tests/e2e/module_faults_test.cc, and each module
// instantiates them from its own folder with the arguments that make it
// fill a small filesystem, run long enough to be signalled in each phase,
// and meet a failing disk:
//
//   INSTANTIATE_TEST_SUITE_P(RrdUpdate, ModuleFaults,
//                            ::testing::Values(ModuleFaultCase{...}));
//
// What every test checks: exit 1 (or 0 for a run that completed first), a
// complete JSON report whose status and error say what happened, the run
// directory gone, and nothing else on the filesystem changed (a sentinel
// file byte for byte, the free space back to what it was).
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/faulty_fs.h"

namespace iomimic::test {

struct ModuleFaultCase {
  std::string module{};
  // Arguments that overflow a 64 MiB ext4 in prepare (--space_check=false
  // is added), and the op expected to fail there with ENOSPC.
  std::vector<std::string> fill_prepare{};
  std::string fill_prepare_op{};
  // The same in the measured phase; empty when the module does not grow
  // its files while measuring (rrd_update updates in place).
  std::vector<std::string> fill_measure{};
  std::string fill_measure_op{};
  // A run that lasts until signalled, with a prepare and a cleanup long
  // enough to be hit (many files), on a 512 MiB ext4.
  std::vector<std::string> long_run{};
  // A run that meets a failing disk once measuring: the fault, the
  // arguments, and the ops that may report the EIO. Empty args: no case
  // here (mmap_msync's are in tests/e2e/eio_test.cc).
  FaultyFs::Fault eio_fault = FaultyFs::Fault::kNone;
  std::vector<std::string> eio_run{};
  std::vector<std::string> eio_ops{};
  // A short complete run for the write audit.
  std::vector<std::string> audit_run{};
};

void PrintTo(const ModuleFaultCase& c, std::ostream* os);

class ModuleFaults : public ::testing::TestWithParam<ModuleFaultCase> {
 protected:
  void SetUp() override;
  void TearDown() override;
  // A run that fills a 64 MiB ext4 in `phase`, checked end to end.
  void ExpectFullFilesystemFailure(const std::vector<std::string>& args, const std::string& op,
                                   const std::string& phase);

  std::string report_{};
};

// The test name of a case: the module's name.
std::string ModuleFaultName(const ::testing::TestParamInfo<ModuleFaultCase>& info);

}  // namespace iomimic::test
