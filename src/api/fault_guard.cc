// SIGBUS on a MAP_SHARED store: see include/iomimic/fault_guard.h.
//
// The handler is installed once, process-wide. A thread inside
// CallCatchingSigbus has a jump buffer; the handler jumps back to it. A
// SIGBUS anywhere else is a real bug: restore the default action and
// re-raise so the process dies with the usual core.
#include "iomimic/fault_guard.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace iomimic::internal {
namespace {

thread_local sigjmp_buf* tls_jump = nullptr;
thread_local uintptr_t tls_fault_addr = 0;

void OnSigbus(int sig, siginfo_t* info, void*) {
  if (tls_jump != nullptr) {
    tls_fault_addr = reinterpret_cast<uintptr_t>(info->si_addr);
    siglongjmp(*tls_jump, 1);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void InstallOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = OnSigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, nullptr);
  });
}

struct MappedPage {
  std::string path;
  uint64_t offset = 0;  // page-aligned offset in the file
  uint64_t rest = 0;    // bytes of the mapping from there to its end
};

// The file and offset behind `addr`, from /proc/self/maps; false for an
// anonymous or deleted mapping.
bool FindMappedPage(uintptr_t addr, MappedPage* out) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms, dev, path;
    uint64_t offset = 0, inode = 0;
    in >> range >> perms >> std::hex >> offset >> dev >> std::dec >> inode;
    std::getline(in >> std::ws, path);
    const size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    const uintptr_t start = std::stoull(range.substr(0, dash), nullptr, 16);
    const uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (addr < start || addr >= end) continue;
    if (path.empty() || path[0] != '/' || path.find(" (deleted)") != std::string::npos) {
      return false;
    }
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    out->path = path;
    out->offset = (offset + (addr - start)) / page * page;
    out->rest = offset + (end - start) - out->offset;
    return true;
  }
  return false;
}

// A full filesystem is not full for long: writeback of other dirty pages
// gives back the blocks ext4 reserved for their metadata, so one page may
// be allocatable again by the time this runs. The rest of the mapping
// (up to kProbeBytes) is what the stores needed: that is what is tried.
constexpr uint64_t kProbeBytes = 64ull << 20;

int DiagnoseSigbus(uintptr_t addr) {
  MappedPage page;
  if (addr == 0 || !FindMappedPage(addr, &page)) return EFAULT;
  const int fd = ::open(page.path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return EFAULT;
  const size_t page_size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<char> buf(page_size);
  int err = EFAULT;
  const ssize_t n = ::pread(fd, buf.data(), page_size, static_cast<off_t>(page.offset));
  if (n < 0) {
    err = errno;  // the page-in fails again: EIO
  } else if (n > 0 &&  // 0: beyond the end of the file, a truncated mapping
             ::fallocate(fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(page.offset),
                         static_cast<off_t>(std::min(page.rest, kProbeBytes))) != 0 &&
             (errno == ENOSPC || errno == EDQUOT)) {
    err = errno;
  }
  ::close(fd);
  return err;
}

}  // namespace

int LastSigbusErrno() { return DiagnoseSigbus(tls_fault_addr); }

bool CallCatchingSigbus(void (*fn)(void*), void* arg) {
  InstallOnce();
  sigjmp_buf jump;
  sigjmp_buf* volatile previous = tls_jump;
  if (sigsetjmp(jump, 1) != 0) {
    tls_jump = previous;
    return false;
  }
  tls_fault_addr = 0;
  tls_jump = &jump;
  fn(arg);
  tls_jump = previous;
  return true;
}

}  // namespace iomimic::internal
