#include "model/model.h"

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "iomimic/status.h"
#include "model/service_time.h"
#include "iomimic/units.h"

namespace iomimic::disk {
namespace {

// One INI key: how to set it from text and how to write it back.
struct Param {
  const char* key;
  std::function<void(Model*, const std::string&)> set;
  std::function<nlohmann::json(const Model&)> get;
};

[[noreturn]] void Bad(const std::string& key, const std::string& value, const std::string& why) {
  throw UsageError(fmt::format("disk model: invalid value '{}' for '{}': {}", value, key, why));
}

uint64_t Duration(const std::string& key, const std::string& v) {
  std::string err;
  const auto ns = ParseDurationNs(v, &err);
  if (!ns) Bad(key, v, err);
  return *ns;
}

uint64_t Size(const std::string& key, const std::string& v) {
  std::string err;
  const auto bytes = ParseSize(v, &err);
  if (!bytes) Bad(key, v, err);
  return *bytes;
}

double Number(const std::string& key, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(d) || d < 0) {
    Bad(key, v, "expected a number >= 0");
  }
  return d;
}

bool Bool(const std::string& key, const std::string& v) {
  std::string err;
  const auto b = ParseBool(v, &err);
  if (!b) Bad(key, v, err);
  return *b;
}

std::string Ns(uint64_t ns) { return FormatDuration(ns); }

const std::vector<Param>& Params() {
  static const std::vector<Param> params = {
      {"description", [](Model* m, const std::string& v) { m->description = v; },
       [](const Model& m) { return nlohmann::json(m.description); }},
      {"kind",
       [](Model* m, const std::string& v) {
         if (v == "hdd") m->kind = ModelKind::kHdd;
         else if (v == "flat") m->kind = ModelKind::kFlat;
         else Bad("kind", v, "expected hdd or flat");
       },
       [](const Model& m) { return nlohmann::json(m.kind == ModelKind::kHdd ? "hdd" : "flat"); }},
      {"parallel",
       [](Model* m, const std::string& v) {
         const double d = Number("parallel", v);
         if (d != std::floor(d) || d < 1 || d > 256) Bad("parallel", v, "expected 1..256");
         m->parallel = static_cast<uint32_t>(d);
       },
       [](const Model& m) { return nlohmann::json(m.parallel); }},
      {"latency", [](Model* m, const std::string& v) { m->latency_ns = Duration("latency", v); },
       [](const Model& m) { return nlohmann::json(Ns(m.latency_ns)); }},
      {"transfer_mb_s",
       [](Model* m, const std::string& v) { m->transfer_mb_s = Number("transfer_mb_s", v); },
       [](const Model& m) { return nlohmann::json(m.transfer_mb_s); }},
      {"rpm",
       [](Model* m, const std::string& v) {
         const double d = Number("rpm", v);
         if (d != std::floor(d) || d < 1 || d > 100000) Bad("rpm", v, "expected 1..100000");
         m->rpm = static_cast<uint32_t>(d);
       },
       [](const Model& m) { return nlohmann::json(m.rpm); }},
      {"track_to_track",
       [](Model* m, const std::string& v) { m->track_to_track_ns = Duration("track_to_track", v); },
       [](const Model& m) { return nlohmann::json(Ns(m.track_to_track_ns)); }},
      {"average_seek",
       [](Model* m, const std::string& v) { m->average_seek_ns = Duration("average_seek", v); },
       [](const Model& m) { return nlohmann::json(Ns(m.average_seek_ns)); }},
      {"full_stroke",
       [](Model* m, const std::string& v) { m->full_stroke_ns = Duration("full_stroke", v); },
       [](const Model& m) { return nlohmann::json(Ns(m.full_stroke_ns)); }},
      {"outer_mb_s", [](Model* m, const std::string& v) { m->outer_mb_s = Number("outer_mb_s", v); },
       [](const Model& m) { return nlohmann::json(m.outer_mb_s); }},
      {"inner_mb_s", [](Model* m, const std::string& v) { m->inner_mb_s = Number("inner_mb_s", v); },
       [](const Model& m) { return nlohmann::json(m.inner_mb_s); }},
      {"track_size", [](Model* m, const std::string& v) { m->track_size = Size("track_size", v); },
       [](const Model& m) { return nlohmann::json(FormatSize(m.track_size)); }},
      {"read_ahead", [](Model* m, const std::string& v) { m->read_ahead = Size("read_ahead", v); },
       [](const Model& m) { return nlohmann::json(FormatSize(m.read_ahead)); }},
      {"write_cache", [](Model* m, const std::string& v) { m->write_cache = Bool("write_cache", v); },
       [](const Model& m) { return nlohmann::json(m.write_cache ? "on" : "off"); }},
      {"write_cache_size",
       [](Model* m, const std::string& v) { m->write_cache_size = Size("write_cache_size", v); },
       [](const Model& m) { return nlohmann::json(FormatSize(m.write_cache_size)); }},
      {"iops_limit", [](Model* m, const std::string& v) { m->iops_limit = Number("iops_limit", v); },
       [](const Model& m) { return nlohmann::json(m.iops_limit); }},
      {"iops_io_size",
       [](Model* m, const std::string& v) { m->iops_io_size = Size("iops_io_size", v); },
       [](const Model& m) { return nlohmann::json(FormatSize(m.iops_io_size)); }},
      {"bandwidth_limit_mb_s",
       [](Model* m, const std::string& v) {
         m->bandwidth_limit_mb_s = Number("bandwidth_limit_mb_s", v);
       },
       [](const Model& m) { return nlohmann::json(m.bandwidth_limit_mb_s); }},
      {"bucket_depth",
       [](Model* m, const std::string& v) { m->bucket_depth_ns = Duration("bucket_depth", v); },
       [](const Model& m) { return nlohmann::json(Ns(m.bucket_depth_ns)); }},
  };
  return params;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string ModelsDir() {
  const char* env = std::getenv("IOMIMIC_DISK_MODELS");
  return env != nullptr && *env != '\0' ? env : IOMIMIC_DISK_MODELS_DIR;
}

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  DIR* d = ::opendir(ModelsDir().c_str());
  if (d == nullptr) return names;
  while (const dirent* de = ::readdir(d)) {
    const std::string n = de->d_name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".ini") == 0) names.push_back(n.substr(0, n.size() - 4));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

void ApplyOverride(Model* model, const std::string& key, const std::string& value) {
  for (const Param& p : Params()) {
    if (key == p.key) {
      p.set(model, value);
      return;
    }
  }
  throw UsageError(fmt::format("disk model: unknown parameter '{}'", key));
}

Model ParseModel(const std::string& text, const std::string& name, const std::string& origin) {
  Model m;
  m.name = name;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const size_t hash = line.find_first_of("#;");
    line = Trim(hash == std::string::npos ? line : line.substr(0, hash));
    if (line.empty() || line == "[model]") continue;
    const size_t eq = line.find('=');
    if (line[0] == '[' || eq == std::string::npos) {
      throw UsageError(fmt::format("disk model {}:{}: expected [model] or key = value, got '{}'",
                                   origin, n, line));
    }
    ApplyOverride(&m, Trim(line.substr(0, eq)), Trim(line.substr(eq + 1)));
  }
  return m;
}

void Validate(const Model& m) {
  if (m.kind == ModelKind::kHdd) {
    if (m.outer_mb_s <= 0 || m.inner_mb_s <= 0 || m.inner_mb_s > m.outer_mb_s) {
      Bad("inner_mb_s", fmt::format("{}", m.inner_mb_s), "an hdd needs 0 < inner_mb_s <= outer_mb_s");
    }
    if (!(m.track_to_track_ns <= m.average_seek_ns && m.average_seek_ns <= m.full_stroke_ns)) {
      Bad("average_seek", Ns(m.average_seek_ns), "needs track_to_track <= average_seek <= full_stroke");
    }
    if (!SeekCurveFor(m).monotonic()) {
      Bad("average_seek", Ns(m.average_seek_ns),
          "no seek curve t2t + a*sqrt(x) + b*x that grows with distance fits these three times");
    }
  }
  if (m.iops_limit > 0 && m.iops_io_size == 0) Bad("iops_io_size", "0", "must be > 0");
}

Model LoadModel(const std::string& name_or_path,
                const std::vector<std::pair<std::string, std::string>>& overrides) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 4 &&
                        name_or_path.compare(name_or_path.size() - 4, 4, ".ini") == 0);
  const std::string path = is_path ? name_or_path : ModelsDir() + "/" + name_or_path + ".ini";
  const std::string text = ReadFile(path);
  if (text.empty()) {
    std::string known;
    for (const std::string& n : ModelNames()) known += (known.empty() ? "" : ", ") + n;
    throw UsageError(fmt::format("invalid value '{}' for option 'model': no such model (known: {})",
                                 name_or_path, known));
  }
  std::string stem = path.substr(path.rfind('/') + 1);
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".ini") == 0) stem.resize(stem.size() - 4);
  Model m = ParseModel(text, stem, path);
  for (const auto& [k, v] : overrides) ApplyOverride(&m, k, v);
  Validate(m);
  return m;
}

nlohmann::json ModelToJson(const Model& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const Param& p : Params()) j[p.key] = p.get(m);
  return j;
}

std::string ModelToIni(const Model& m) {
  std::string s = "[model]\n";
  for (const Param& p : Params()) {
    const nlohmann::json v = p.get(m);
    s += fmt::format("{} = {}\n", p.key, v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s;
}

}  // namespace iomimic::disk
