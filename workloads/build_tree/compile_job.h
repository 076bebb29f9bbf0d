// Compiler: what one compile job (and the link) does to the filesystem.
//
// Per source: stat it (make's prerequisite check), open and read it in
// read_size chunks, and for every #include found resolve the name along the
// include path as cpp does: a quoted name first in the includer's directory,
// then each include directory in order; each directory is probed (open, or
// stat with probe = stat) and a miss (ENOENT, ENOTDIR) is recorded as
// probe_enoent. A header found is read (and scanned for its own includes)
// once per source: later includes of it are skipped, as the multiple-include
// optimisation does, and a name looked up once is not probed again within
// the same source (cpp caches lookups per start directory). Then burn CPU
// for the bytes read (cpu_per_kib), mkdir the object directory when this
// worker has not made it yet (EEXIST is fine), write the object (obj_ratio x
// the source's bytes) in read_size chunks and close. No fsync: compilers
// do not. Link() reads every object and writes one output of their total size.
//
// One Compiler per worker (it reuses buffers). It records into the Recorder
// it was given; in process mode that is a recorder writing to a pipe.
#pragma once

#include <sys/types.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cpu_burner.h"
#include "include_scanner.h"
#include "iomimic/recorder.h"

namespace iomimic::build_tree {

// Totals of jobs. Plain data: in process mode it crosses a pipe.
struct JobCounters {
  uint64_t compiled = 0;
  uint64_t source_bytes = 0;
  uint64_t headers_read = 0;
  uint64_t header_bytes = 0;
  uint64_t includes = 0;       // #include directives met
  uint64_t includes_cached = 0;  // resolved from this source's lookup cache, no probe
  uint64_t includes_skipped = 0;  // header already read by this source
  uint64_t unresolved = 0;     // found in no directory of the path (system headers)
  uint64_t probes = 0;         // directories probed
  uint64_t probe_enoent = 0;   // ... that missed (ENOENT, ENOTDIR, a directory)
  uint64_t mkdirs = 0;         // mkdir() calls
  uint64_t mkdir_eexist = 0;   // ... that found the directory already there
  uint64_t objects = 0;
  uint64_t object_bytes = 0;
  uint64_t cpu_ns = 0;         // CPU time asked of the burner
  uint64_t link_objects = 0;
  uint64_t link_bytes = 0;     // bytes the link read, and wrote
  uint64_t max_depth = 0;      // deepest include nesting seen

  void Add(const JobCounters& o);
};

// An object's size: ratio x its source's bytes, rounded to the nearest byte.
inline uint64_t ObjectBytes(uint64_t source_bytes, double ratio) {
  return static_cast<uint64_t>(std::llround(ratio * static_cast<double>(source_bytes)));
}

struct BuildSettings {
  std::vector<std::string> include_dirs;  // absolute, in search order
  std::string obj_root;                   // absolute; exists
  bool probe_with_stat = false;
  uint64_t read_size = 64 << 10;
  uint64_t cpu_per_kib_ns = 0;
  double obj_ratio = 1.0;
  const CpuBurner* burner = nullptr;
};

struct SourceJob {
  std::string source;      // absolute path
  std::string object;      // absolute path
  std::string object_dir;  // absolute; == obj_root for a source at the tree's root
  int64_t object_dir_key = 0;  // identifies object_dir (the directory's index)
};

class Compiler {
 public:
  Compiler(const BuildSettings& settings, Recorder& rec);

  // Compiles one source. `ready_dir` is the key of the object directory this
  // worker made last (-1: none); it is updated. Throws SysError.
  JobCounters Compile(const SourceJob& job, int64_t* ready_dir);
  // Reads objects 0..n-1 (paths from object_path) into `output`.
  JobCounters Link(size_t n, const std::function<std::string(size_t)>& object_path,
                   const std::string& output);

 private:
  // Reads one file (source or header) and the headers it includes.
  void Process(const std::string& path, int fd, int depth, bool is_source, JobCounters* c);
  // Returns an open fd for `name` along the path, or -1 (unresolved).
  int Resolve(const std::string& includer_dir, const IncludeDirective& inc, std::string* found,
              JobCounters* c);
  // -1 on a miss (ENOENT, ENOTDIR, a directory), else an open fd.
  int Probe(const std::string& path, JobCounters* c);
  // Reads fd to its end in read_size chunks; feeds `scanner` when set.
  // Returns the bytes, or -1 when fd is a directory (EISDIR).
  int64_t ReadAll(int fd, const std::string& path, IncludeScanner* scanner);
  // One read() of up to read_size bytes into buf_, recorded. -1 only for
  // EISDIR when dir_is_miss.
  ssize_t ReadChunk(int fd, const std::string& path, bool dir_is_miss);
  void Close(int fd, const std::string& path);
  void MakeDirs(const std::string& dir, JobCounters* c);
  void WriteFile(const std::string& path, uint64_t bytes);

  const BuildSettings& s_;
  Recorder& rec_;
  std::vector<char> buf_;
  std::vector<char> fill_;  // what objects are made of: incompressible bytes
  // Per source: lookup results (key: start directory + name; value: path
  // found or "") and headers already read.
  std::unordered_map<std::string, std::string> lookups_;
  std::unordered_set<std::string> included_;
};

}  // namespace iomimic::build_tree
