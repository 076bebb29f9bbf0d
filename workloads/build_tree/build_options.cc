#include "build_options.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "iomimic/status.h"
#include "source_tree.h"

namespace iomimic::build_tree {

void DeclareBuildOptions(OptionSet& o, BuildTreeConfig* c) {
  o.Integer("dirs", &c->dirs, "generated tree: source directories", 1, 1'000'000);
  o.Integer("files_per_dir", &c->files_per_dir, "generated tree: sources per directory", 1,
            1'000'000);
  o.Size("source_size", &c->source_size, "generated tree: mean source size (lognormal)", 64,
         64ull << 20);
  o.Number("source_size_sigma", &c->source_size_sigma,
           "generated tree: lognormal shape of source sizes (0 = all equal); clamped to "
           "[64 B, 64 x mean]",
           0, 4);
  o.Integer("headers", &c->headers, "generated tree: headers in the include directories", 1,
            10'000'000);
  o.Size("header_size", &c->header_size, "generated tree: mean header size (lognormal)", 64,
         64ull << 20);
  o.Number("header_size_sigma", &c->header_size_sigma,
           "generated tree: lognormal shape of header sizes (0 = all equal)", 0, 4);
  o.Integer("includes_per_source", &c->includes_per_source,
            "generated tree: distinct headers each source includes", 0, 100'000);
  o.Integer("include_path", &c->include_path,
            "generated tree: include directories, searched in order", 1, 64);
  o.Number("first_dir_share", &c->first_dir_share,
           "generated tree: share of the headers in the first include directory; each next "
           "one holds that share of the rest (0.58 with 4 directories: ~40 % of probes fail)",
           0.001, 1);
  o.Text("source_dir", &c->source_dir,
         "a user's source tree to build instead of a generated one (read only, never written)");
  o.Text("include_dirs", &c->include_dirs,
         "with source_dir: comma-separated include directories relative to it, in search order");
  o.Text("source_suffixes", &c->source_suffixes,
         "with source_dir: comma-separated suffixes of the files to compile",
         [](const std::string& v) {
           return SplitList(v).empty() ? std::string("must name at least one suffix")
                                       : std::string();
         });
  o.Enum("walk", &c->walk,
         "when the tree is walked (getdents): auto (none for a generated tree, measure for "
         "source_dir), none, prepare (untimed), measure (timed, by job 0 before the compiles)",
         {"auto", "none", "prepare", "measure"});
  o.Enum("probe", &c->probe, "how an include directory is probed: open (as cpp), stat",
         {"open", "stat"});
  o.Duration("cpu_per_kib", &c->cpu_per_kib_ns,
             "CPU time burned per KiB a compile read (a calibrated spin: CPU time, not wall)", 0,
             1'000'000'000);
  o.Number("obj_ratio", &c->obj_ratio, "object size / source size", 0, 100);
  o.Size("read_size", &c->read_size, "bytes per read() and write()", 512, 16ull << 20);
  o.Text("obj_target", &c->obj_target,
         "directory for the object tree, e.g. on another filesystem (default: the run "
         "directory's obj/)");
  o.Flag("link", &c->link, "after the last compile, read every object and write one output");
  o.Flag("processes", &c->processes,
         "fork one child process per job (as make forks compilers) instead of compiling on "
         "the worker thread");
}

std::string ValidateBuildOptions(const BuildTreeConfig& c) {
  if (c.source_dir.empty()) {
    if (!c.include_dirs.empty()) {
      return "option 'build_tree.include_dirs' needs 'build_tree.source_dir' (a generated "
             "tree has 'build_tree.include_path' directories)";
    }
    if (c.includes_per_source > c.headers) {
      return "option 'build_tree.includes_per_source' (" +
             std::to_string(c.includes_per_source) + ") must not exceed 'build_tree.headers' (" +
             std::to_string(c.headers) + "): a source includes distinct headers";
    }
    if (c.dirs * c.files_per_dir > 10'000'000) {
      return "options 'build_tree.dirs' x 'build_tree.files_per_dir' must not exceed 10000000 "
             "sources";
    }
    return {};
  }
  if (c.walk == "none") {
    return "option 'build_tree.walk' = none needs a generated tree: the sources of "
           "'build_tree.source_dir' are found by walking it";
  }
  const std::string root = Canonical(c.source_dir);
  if (root.empty()) {
    return "option 'build_tree.source_dir': '" + c.source_dir + "' cannot be resolved";
  }
  for (const std::string& d : SplitList(c.include_dirs)) {
    struct stat st {};
    if (::stat((root + "/" + d).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return "invalid value '" + c.include_dirs + "' for option 'build_tree.include_dirs': '" +
             d + "' is not a directory under " + root;
    }
  }
  // A tree without one source would "complete" one empty build: a wrong
  // directory, not a measurement. The walk stops at the first source.
  struct FoundOne {};
  const std::vector<std::string> suffixes = SplitList(c.source_suffixes);
  try {
    WalkTree(root, nullptr, [&](const std::string&, const std::string& name, int) {
      if (HasSuffix(name, suffixes)) throw FoundOne{};
    });
    return "option 'build_tree.source_dir': '" + c.source_dir + "' has no file ending in '" +
           c.source_suffixes + "' (option 'build_tree.source_suffixes'): nothing to compile";
  } catch (const FoundOne&) {
  } catch (const SysError& e) {
    return "option 'build_tree.source_dir': '" + c.source_dir + "' cannot be read: " + e.what();
  }
  if (!c.obj_target.empty() && IsInside(Canonical(c.obj_target), root)) {
    return "option 'build_tree.obj_target' = '" + c.obj_target +
           "' is inside 'build_tree.source_dir': iomimic never writes into a user's tree";
  }
  return {};
}

TreeParams TreeParamsOf(const BuildTreeConfig& c, uint64_t seed) {
  TreeParams p;
  p.dirs = static_cast<uint64_t>(c.dirs);
  p.files_per_dir = static_cast<uint64_t>(c.files_per_dir);
  p.source_size = c.source_size;
  p.source_size_sigma = c.source_size_sigma;
  p.headers = static_cast<uint64_t>(c.headers);
  p.header_size = c.header_size;
  p.header_size_sigma = c.header_size_sigma;
  p.includes_per_source = static_cast<uint64_t>(c.includes_per_source);
  p.include_path = static_cast<uint64_t>(c.include_path);
  p.first_dir_share = c.first_dir_share;
  p.seed = seed;
  return p;
}

std::string Canonical(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? std::string(buf) : std::string();
}

bool IsInside(const std::string& path, const std::string& dir) {
  return !path.empty() && !dir.empty() && (path == dir || path.rfind(dir + "/", 0) == 0);
}

}  // namespace iomimic::build_tree
