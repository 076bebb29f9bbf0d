// build_tree end to end: the built binary on loop-mounted filesystems,
// checked through its JSON report and the files it leaves with --keep. The
// expectations come from the module's own header-only arithmetic
// (tree_shape.h), not from re-running it.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../include_scanner.h"
#include "../tree_shape.h"
#include "support/loop_fs.h"
#include "support/run_binary.h"

namespace iomimic::test {
namespace {

using build_tree::TreeParams;
using build_tree::TreeShape;
using nlohmann::json;

// One entry of a directory tree: what a change to it would alter.
struct Node {
  bool dir = false;
  uint64_t size = 0;
  uint64_t hash = 0;  // FNV-1a of the content (files)
  mode_t mode = 0;
  timespec mtime{}, ctime{}, atime{};
  bool operator==(const Node& o) const {
    auto same = [](const timespec& a, const timespec& b) {
      return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
    };
    return dir == o.dir && size == o.size && hash == o.hash && mode == o.mode &&
           same(mtime, o.mtime) && same(ctime, o.ctime) && same(atime, o.atime);
  }
};
using Tree = std::map<std::string, Node>;  // relative path -> node ("" is the root)

uint64_t HashFd(int fd) {
  uint64_t h = 1469598103934665603ull;
  char buf[8192];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) {
    for (ssize_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
  }
  return h;
}

// Lists `root` recursively. Everything is opened O_NOATIME, so listing
// (and hashing) leaves access times as they were: they can be compared.
void ListInto(const std::string& root, const std::string& rel, bool hash, Tree* out) {
  const std::string path = rel.empty() ? root : root + "/" + rel;
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0) << path;
  Node n;
  n.dir = S_ISDIR(st.st_mode);
  n.size = n.dir ? 0 : static_cast<uint64_t>(st.st_size);
  n.mode = st.st_mode;
  n.mtime = st.st_mtim;
  n.ctime = st.st_ctim;
  n.atime = st.st_atim;
  if (!n.dir) {
    if (hash) {
      const int fd = ::open(path.c_str(), O_RDONLY | O_NOATIME);
      ASSERT_GE(fd, 0) << path;
      n.hash = HashFd(fd);
      ::close(fd);
    }
    (*out)[rel] = n;
    return;
  }
  (*out)[rel] = n;
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOATIME);
  ASSERT_GE(fd, 0) << path;
  DIR* d = ::fdopendir(fd);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != ".." && name != "lost+found") names.push_back(name);
  }
  ::closedir(d);
  for (const std::string& name : names) {
    ListInto(root, rel.empty() ? name : rel + "/" + name, hash, out);
  }
}

Tree List(const std::string& root, bool hash = false) {
  Tree t;
  ListInto(root, "", hash, &t);
  return t;
}

std::vector<std::string> Names(const Tree& t) {
  std::vector<std::string> v;
  for (const auto& [path, node] : t) {
    if (!path.empty()) v.push_back(path);
  }
  return v;
}

std::string ReportPath(const std::string& tag) {
  return "/tmp/iomimic-e2e-build_tree-" + tag + "-" + std::to_string(::getpid()) + ".json";
}

// Runs the binary; the report is the JSON document.
json RunBuild(std::vector<std::string> args, const std::string& tag) {
  const std::string report = ReportPath(tag);
  args.insert(args.begin(), {"run", "build_tree"});
  args.push_back("--output=" + report);
  args.push_back("--format=none");
  args.push_back("--quiet");
  args.push_back("--min_free=8MiB");  // the test filesystems are small
  const RunResult r = RunIomimic(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(report);
  if (!in) return json();
  json j = json::parse(in);
  ::unlink(report.c_str());
  return j;
}

// The report's devices: name -> roles.
std::map<std::string, std::vector<std::string>> Roles(const json& j) {
  std::map<std::string, std::vector<std::string>> roles;
  for (const json& d : j["devices"]) {
    roles[d["device"]] = d["roles"].get<std::vector<std::string>>();
  }
  return roles;
}

void RemoveKept(const std::string& dir) {
  if (dir.empty()) return;
  const RunResult r = RunCommand({"rm", "-rf", "--one-file-system", dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A small generated tree and the options that make it.
struct Small {
  TreeParams p;
  double obj_ratio = 1.5;
  std::vector<std::string> Args() const {
    return {"--seed=" + std::to_string(p.seed),
            "--build_tree.dirs=" + std::to_string(p.dirs),
            "--build_tree.files_per_dir=" + std::to_string(p.files_per_dir),
            "--build_tree.source_size=" + std::to_string(p.source_size),
            "--build_tree.source_size_sigma=0.8",
            "--build_tree.headers=" + std::to_string(p.headers),
            "--build_tree.header_size=" + std::to_string(p.header_size),
            "--build_tree.header_size_sigma=0.8",
            "--build_tree.includes_per_source=" + std::to_string(p.includes_per_source),
            "--build_tree.include_path=" + std::to_string(p.include_path),
            "--build_tree.first_dir_share=0.5",
            "--build_tree.obj_ratio=1.5",
            "--build_tree.cpu_per_kib=1us"};
  }
  static Small Make(uint64_t seed) {
    Small s;
    s.p.dirs = 6;
    s.p.files_per_dir = 7;
    s.p.source_size = 2048;
    s.p.source_size_sigma = 0.8;
    s.p.headers = 40;
    s.p.header_size = 1024;
    s.p.header_size_sigma = 0.8;
    s.p.includes_per_source = 5;
    s.p.include_path = 3;
    s.p.first_dir_share = 0.5;
    s.p.seed = seed;
    return s;
  }
};

TEST(BuildTreeIncludeScanner, FindsDirectivesAcrossChunkBoundaries) {
  const std::string text =
      "int a;\n  #  include <linux/types.h>\n#include \"local.h\"\n#define X\n"
      "# include_next <no.h>\n#include <>\n#include <last.h>";
  for (size_t chunk = 1; chunk <= text.size(); ++chunk) {
    build_tree::IncludeScanner s;
    for (size_t off = 0; off < text.size(); off += chunk) {
      s.Feed(text.data() + off, std::min(chunk, text.size() - off));
    }
    s.Finish();
    ASSERT_EQ(s.found().size(), 3u) << "chunk " << chunk;
    EXPECT_EQ(s.found()[0].name, "linux/types.h");
    EXPECT_FALSE(s.found()[0].quoted);
    EXPECT_EQ(s.found()[1].name, "local.h");
    EXPECT_TRUE(s.found()[1].quoted);
    EXPECT_EQ(s.found()[2].name, "last.h");
  }
}

TEST(BuildTreeShape, KernelLikeDefaultsMissAboutFortyPercentOfProbes) {
  TreeParams p;  // the defaults of the module: 4 include directories, q = 0.58
  p.dirs = 200;
  p.headers = 5000;
  const TreeShape shape(p);
  const double misses = static_cast<double>(shape.ExpectedProbeEnoent());
  const double hits = static_cast<double>(shape.sources() * p.includes_per_source);
  EXPECT_NEAR(misses / (misses + hits), 0.40, 0.02);
}

// A generated tree built on a fresh ext4: Build() runs it with the Small
// shape of `seed` and returns the report.
class BuildTreeOnExt4 : public ::testing::Test {
 protected:
  void SetUp() override {
    IOMIMIC_REQUIRE_LOOP_FS("ext4");
    fs_ = LoopFs::Create("ext4", 64ull << 20);
  }
  json Build(const Small& s, const std::vector<std::string>& extra, const std::string& tag) {
    std::vector<std::string> args = s.Args();
    args.push_back("--target=" + fs_->mount_point());
    args.insert(args.end(), extra.begin(), extra.end());
    return RunBuild(args, tag);
  }
  std::unique_ptr<LoopFs> fs_;
};

TEST_F(BuildTreeOnExt4, GeneratedTreeHasThePromisedShapeAndOneObjectPerSource) {
  const Small s = Small::Make(7);
  const TreeShape shape(s.p);
  const json j = Build(s, {"--threads=1", "--keep"}, "shape");
  ASSERT_TRUE(j.is_object());
  const std::string run_dir = j["run_dir"];
  const uint64_t n = shape.sources();
  const uint64_t k = s.p.includes_per_source;

  // The source tree: every file where TreeShape puts it, with its size.
  const Tree src = List(run_dir + "/src");
  Tree want_src;
  uint64_t files = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const auto it = src.find(shape.SourceRelPath(i));
    ASSERT_NE(it, src.end()) << shape.SourceRelPath(i);
    EXPECT_EQ(it->second.size, shape.SourceSize(i)) << shape.SourceRelPath(i);
    ++files;
  }
  for (uint64_t h = 0; h < shape.headers(); ++h) {
    const auto it = src.find(shape.HeaderRelPath(h));
    ASSERT_NE(it, src.end()) << shape.HeaderRelPath(h);
    EXPECT_EQ(it->second.size, shape.HeaderSize(h));
    ++files;
  }
  // Directories: dNNNN x dirs, include/, include/iK x include_path.
  EXPECT_EQ(src.size() - 1, files + s.p.dirs + 1 + s.p.include_path) << "nothing else in src/";
  uint64_t spread = 0;
  for (uint64_t d = 0; d < s.p.include_path; ++d) spread += shape.HeadersInDir(d);
  EXPECT_EQ(spread, shape.headers());

  // The object tree: one object per source (obj_ratio x its size) and the
  // link output, nothing else.
  const Tree obj = List(run_dir + "/obj");
  uint64_t object_bytes = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const auto it = obj.find(shape.ObjectRelPath(i));
    ASSERT_NE(it, obj.end()) << shape.ObjectRelPath(i);
    const auto want =
        static_cast<uint64_t>(std::llround(1.5 * static_cast<double>(shape.SourceSize(i))));
    EXPECT_EQ(it->second.size, want);
    object_bytes += want;
  }
  ASSERT_TRUE(obj.count("linked.out"));
  EXPECT_EQ(obj.at("linked.out").size, object_bytes);
  EXPECT_EQ(obj.size() - 1, n + 1 + s.p.dirs) << "objects, the link output, the object dirs";

  // The report says the same, and the probing follows the arithmetic.
  const json& m = j["module_report"];
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(j["work_units"], n);
  EXPECT_EQ(m["sources_compiled"], n);
  EXPECT_EQ(m["build_complete"], true);
  EXPECT_EQ(m["headers_read"], n * k);
  EXPECT_EQ(m["probe_enoent"], shape.ExpectedProbeEnoent());
  EXPECT_EQ(m["probes"], shape.ExpectedProbeEnoent() + n * k);
  EXPECT_EQ(m["tree"]["probe_enoent_expected"], shape.ExpectedProbeEnoent());
  EXPECT_EQ(m["mkdir"]["calls"], s.p.dirs);
  EXPECT_EQ(m["mkdir"]["eexist"], 0);
  EXPECT_EQ(m["link"]["output_bytes"], object_bytes);
  EXPECT_EQ(m["bytes"]["object_written"], object_bytes);
  const json& ops = j["ops"];
  EXPECT_EQ(ops["probe_enoent"]["count"], shape.ExpectedProbeEnoent());
  EXPECT_EQ(ops["stat"]["count"], n);
  // open: sources, headers, objects created, then the link: n objects + output.
  EXPECT_EQ(ops["open"]["count"], n + n * k + n + n + 1);
  EXPECT_EQ(ops["close"]["count"], ops["open"]["count"]);
  EXPECT_EQ(ops["compile"]["count"], n);
  EXPECT_EQ(ops["link"]["count"], 1);
  EXPECT_EQ(ops["getdents"]["count"], 0) << "a generated tree is not walked by default";
  for (const auto& [name, op] : ops.items()) EXPECT_EQ(op["errors"], 0) << name;
  RemoveKept(run_dir);
}

TEST_F(BuildTreeOnExt4, ProbeArithmeticHoldsForForkedJobsAndStatProbes) {
  const Small s = Small::Make(11);
  const TreeShape shape(s.p);
  const json j = Build(s,
                       {"--threads=3", "--build_tree.processes=true", "--build_tree.probe=stat",
                        "--build_tree.walk=measure"},
                       "fork");
  ASSERT_TRUE(j.is_object());
  const uint64_t n = shape.sources();
  const uint64_t k = s.p.includes_per_source;
  const json& m = j["module_report"];
  const json& ops = j["ops"];
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(m["job_mode"], "processes");
  EXPECT_EQ(m["sources_compiled"], n);
  EXPECT_EQ(m["probe_enoent"], shape.ExpectedProbeEnoent());
  EXPECT_EQ(ops["probe_enoent"]["count"], shape.ExpectedProbeEnoent());
  // Each compile and the link ran in its own child; their ops came back.
  EXPECT_EQ(ops["fork"]["count"], n + 1);
  EXPECT_EQ(ops["compile"]["count"], n);
  EXPECT_EQ(ops["link"]["count"], 1);
  EXPECT_EQ(m["link"]["objects"], n);
  // stat: each source, and each probe that found its header.
  EXPECT_EQ(ops["stat"]["count"], n + n * k);
  // The walk: src/, include/, the include dirs and the source dirs.
  EXPECT_EQ(m["walk"]["dirs"], 1 + 1 + s.p.include_path + s.p.dirs);
  EXPECT_EQ(m["walk"]["sources_found"], n);
  EXPECT_GE(ops["getdents"]["count"].get<uint64_t>(), 2 * m["walk"]["dirs"].get<uint64_t>());
  const uint64_t walk_opens = m["walk"]["dirs"];
  EXPECT_EQ(ops["open"]["count"], walk_opens + n + n * k + n + n + 1);
  EXPECT_EQ(m["mkdir"]["calls"].get<uint64_t>() - m["mkdir"]["eexist"].get<uint64_t>(), s.p.dirs);
  EXPECT_EQ(List(fs_->mount_point()).size(), 1u) << "the run directory must be gone";
}

TEST(BuildTree, ObjectsGoToObjTargetAndNothingElseIsWrittenThere) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  auto src_fs = LoopFs::Create("ext4", 64ull << 20);
  auto obj_fs = LoopFs::Create("ext4", 64ull << 20);
  const Small s = Small::Make(3);
  const TreeShape shape(s.p);
  std::vector<std::string> args = s.Args();
  args.insert(args.end(), {"--target=" + src_fs->mount_point(), "--threads=2", "--keep",
                           "--build_tree.obj_target=" + obj_fs->mount_point()});
  const json j = RunBuild(args, "objtarget");
  ASSERT_TRUE(j.is_object());
  const std::string run_dir = j["run_dir"];
  ASSERT_EQ(j["extra_run_dirs"].size(), 1u);
  const std::string obj_dir = j["extra_run_dirs"][0];
  const uint64_t n = shape.sources();

  // The object filesystem holds the run directory made in it, and in it
  // exactly the objects, their directories and the link output.
  const std::string obj_run = obj_dir.substr(obj_fs->mount_point().size() + 1);
  for (const std::string& path : Names(List(obj_fs->mount_point()))) {
    EXPECT_EQ(path.substr(0, path.find('/')), obj_run) << path;
  }
  const Tree obj = List(obj_dir);
  for (uint64_t i = 0; i < n; ++i) EXPECT_TRUE(obj.count(shape.ObjectRelPath(i))) << i;
  EXPECT_TRUE(obj.count("linked.out"));
  EXPECT_TRUE(obj.count(".iomimic-run")) << "the run directory's marker";
  EXPECT_EQ(obj.size() - 2, n + 1 + s.p.dirs);
  // The target's run directory has the sources and no object at all.
  const Tree target = List(run_dir);
  EXPECT_EQ(target.count("obj"), 0u);
  for (const std::string& path : Names(target)) {
    if (path == ".iomimic-run") continue;
    EXPECT_EQ(path.rfind("src", 0), 0u) << path;
    EXPECT_FALSE(path.size() > 2 && path.compare(path.size() - 2, 2, ".o") == 0) << path;
  }
  EXPECT_EQ(j["module_report"]["objects_in"], "obj_target");

  // Both devices are reported, each with its role.
  const auto roles = Roles(j);
  ASSERT_EQ(roles.size(), 2u) << j["devices"].dump();
  EXPECT_EQ(roles.at(src_fs->device_name()), std::vector<std::string>{"target"});
  EXPECT_EQ(roles.at(obj_fs->device_name()), std::vector<std::string>{"obj_target"});
  EXPECT_EQ(j["device"]["device"], src_fs->device_name());
  RemoveKept(run_dir);
  RemoveKept(obj_dir);
}

// A user's tree: kernel/fork.c includes <linux/types.h> (found in include/),
// which includes <asm/types.h> (found in the second include directory after
// a miss in the first), "local.h" (its own directory) and <stdio.h> (in no
// directory of the path); lib/b.S and lib/sub/a.c include <asm/types.h>.
void MakeUserTree(const std::string& root) {
  auto write = [&](const std::string& rel, const std::string& text) {
    const std::string path = root + "/" + rel;
    for (size_t slash = path.find('/', root.size() + 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      ::mkdir(path.substr(0, slash).c_str(), 0755);
    }
    std::ofstream(path) << text;
  };
  write("include/linux/types.h", "#pragma once\n#include <asm/types.h>\nint x;\n");
  write("arch/x86/include/asm/types.h", "#include <linux/types.h>\nint y;\n");
  write("kernel/fork.c",
        "#include <linux/types.h>\n#include \"local.h\"\n#include <stdio.h>\nint main(){}\n");
  write("kernel/local.h", "int l;\n#include <linux/types.h>\n");
  write("lib/sub/a.c", "  #  include <asm/types.h>\n");
  write("lib/b.S", "#include <asm/types.h>\n");
  write("README", "not a source\n");
}

TEST(BuildTree, UserTreeIsLeftByteForByteUnchanged) {
  IOMIMIC_REQUIRE_LOOP_FS("ext4");
  // strictatime: any read without O_NOATIME would change an access time.
  auto tree_fs = LoopFs::Create("ext4", 64ull << 20, "", "strictatime");
  auto target_fs = LoopFs::Create("ext4", 64ull << 20);
  const std::string root = tree_fs->mount_point() + "/linux";
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  MakeUserTree(root);
  tree_fs->Sync();
  const Tree before = List(root, true);

  const json j = RunBuild({"--target=" + target_fs->mount_point(), "--threads=2",
                      "--build_tree.source_dir=" + root,
                      "--build_tree.include_dirs=include,arch/x86/include",
                      "--cache=cold"},
                     "user");
  ASSERT_TRUE(j.is_object());
  const Tree after = List(root, true);
  EXPECT_EQ(Names(before), Names(after));
  for (const auto& [path, node] : before) {
    ASSERT_TRUE(after.count(path)) << path;
    EXPECT_TRUE(node == after.at(path)) << "'" << path << "' changed (content, mode or a time)";
  }

  const json& m = j["module_report"];
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(m["tree"]["kind"], "user");
  EXPECT_EQ(m["sources_compiled"], 3);  // kernel/fork.c, lib/b.S, lib/sub/a.c
  EXPECT_EQ(m["objects"], 3);
  // fork.c: linux/types.h (1 probe), asm/types.h (2: miss, hit), local.h (1),
  // stdio.h (2 misses, unresolved); the repeats of linux/types.h come from the
  // lookup cache. b.S and a.c: asm/types.h (2), linux/types.h (1) each.
  EXPECT_EQ(m["probes"], 12);
  EXPECT_EQ(m["probe_enoent"], 5);
  EXPECT_EQ(m["headers_read"], 7);
  EXPECT_EQ(m["includes"], 12);
  EXPECT_EQ(m["includes_cached"], 4);
  EXPECT_EQ(m["unresolved_includes"], 1);
  EXPECT_EQ(m["walk"]["when"], "measure");
  EXPECT_EQ(m["walk"]["files"], 7);
  EXPECT_GT(j["ops"]["getdents"]["count"].get<uint64_t>(), 0u);
  const auto roles = Roles(j);
  ASSERT_EQ(roles.size(), 2u) << j["devices"].dump();
  EXPECT_EQ(roles.at(tree_fs->device_name()), std::vector<std::string>{"source_dir"});
  EXPECT_EQ(roles.at(target_fs->device_name()), std::vector<std::string>{"target"});
  EXPECT_EQ(List(target_fs->mount_point()).size(), 1u) << "the run directory must be gone";
}

TEST(BuildTree, RefusesOptionsThatCannotMakeATree) {
  const RunResult a = RunIomimic({"run", "build_tree", "--build_tree.headers=3",
                                  "--build_tree.includes_per_source=4", "--format=none"});
  EXPECT_EQ(a.exit_code, 2);
  EXPECT_NE(a.err.find("build_tree.includes_per_source"), std::string::npos) << a.err;
  const RunResult b = RunIomimic({"run", "build_tree", "--build_tree.include_dirs=include",
                                  "--format=none"});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("build_tree.source_dir"), std::string::npos) << b.err;
  const RunResult c = RunIomimic({"run", "build_tree", "--build_tree.source_dir=/usr/include",
                                  "--build_tree.obj_target=/usr/include/linux", "--format=none"});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("never writes into a user's tree"), std::string::npos) << c.err;
}

}  // namespace
}  // namespace iomimic::test
