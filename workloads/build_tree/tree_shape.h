// TreeShape: the arithmetic of a generated source tree, derived from a seed.
//
// Nothing is stored per file: every path, size and include list is a pure
// function of (params, index), so a 100,000-file tree costs no memory and
// a test can compute what the module must have done (e.g. how many include
// probes failed) from the same code. Header-only, standard library only.
//
// Layout, relative to the tree's root (ctx.run_dir()/src):
//   dNNNN/fNNNN.c     source i = file i % files_per_dir of directory i / files_per_dir
//   include/iK/hNNNNN.h
//                     header h lives in include directory K = IncludeDirOf(h). Headers
//                     fill the include path geometrically: a share q
//                     (first_dir_share) of them in i0, q of the rest in i1, ..., the last
//                     directory takes what is left. Headers are contiguous blocks: i0 holds
//                     the lowest numbers.
// Source i starts with includes_per_source lines "#include <hNNNNN.h>" naming
// distinct headers (Include(i, j)), then filler lines up to SourceSize(i).
// Probing header h costs IncludeDirOf(h) failed opens (ENOENT) and one hit,
// so a uniform pick of headers gives an ENOENT share of m / (m + 1), where m
// is the mean of IncludeDirOf over the headers.
//
// Sizes are lognormal with the given mean and shape sigma (0: all equal),
// clamped to [64 B, 64 x mean]; a source is never smaller than its include
// lines. Thread-safe: immutable after construction.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace iomimic::build_tree {

struct TreeParams {
  uint64_t dirs = 100;
  uint64_t files_per_dir = 20;
  uint64_t source_size = 16 << 10;  // mean bytes
  double source_size_sigma = 0.8;
  uint64_t headers = 1000;
  uint64_t header_size = 8 << 10;  // mean bytes
  double header_size_sigma = 0.8;
  uint64_t includes_per_source = 30;  // REQUIRES: <= headers
  uint64_t include_path = 4;          // REQUIRES: >= 1
  double first_dir_share = 0.58;      // REQUIRES: 0 < q <= 1
  uint64_t seed = 1;
};

class TreeShape {
 public:
  explicit TreeShape(const TreeParams& p) : p_(p) {
    header_digits_ = Digits(p_.headers == 0 ? 0 : p_.headers - 1, 5);
    dir_digits_ = Digits(p_.dirs == 0 ? 0 : p_.dirs - 1, 4);
    file_digits_ = Digits(p_.files_per_dir == 0 ? 0 : p_.files_per_dir - 1, 4);
    // Cumulative header counts per include directory (P + 1 bounds).
    bounds_.assign(p_.include_path + 1, 0);
    double left = 1.0;
    double cumulative = 0.0;
    for (uint64_t k = 1; k < p_.include_path; ++k) {
      cumulative += left * p_.first_dir_share;
      left *= 1.0 - p_.first_dir_share;
      const double at = cumulative * static_cast<double>(p_.headers);
      bounds_[k] = std::min<uint64_t>(p_.headers, static_cast<uint64_t>(std::llround(at)));
      bounds_[k] = std::max(bounds_[k], bounds_[k - 1]);
    }
    bounds_[p_.include_path] = p_.headers;
  }

  const TreeParams& params() const { return p_; }
  uint64_t sources() const { return p_.dirs * p_.files_per_dir; }
  uint64_t headers() const { return p_.headers; }

  // --- paths (relative to the tree root) ---
  std::string SourceDirName(uint64_t d) const { return Numbered('d', d, dir_digits_); }
  std::string SourceRelPath(uint64_t i) const { return StemOf(i) + ".c"; }
  // The object's path relative to the object tree's root.
  std::string ObjectRelPath(uint64_t i) const { return StemOf(i) + ".o"; }
  static std::string IncludeDirRelPath(uint64_t k) { return "include/" + Numbered('i', k, 1); }
  std::string HeaderName(uint64_t h) const { return Numbered('h', h, header_digits_) + ".h"; }
  std::string HeaderRelPath(uint64_t h) const {
    return IncludeDirRelPath(IncludeDirOf(h)) + "/" + HeaderName(h);
  }

  // --- includes ---
  // Position of header h's directory in the include path (0 = searched first).
  uint64_t IncludeDirOf(uint64_t h) const {
    return static_cast<uint64_t>(std::upper_bound(bounds_.begin(), bounds_.end(), h) -
                                 bounds_.begin()) -
           1;
  }
  uint64_t HeadersInDir(uint64_t k) const { return bounds_[k + 1] - bounds_[k]; }
  // The j-th header source i includes (0 <= j < includes_per_source). The
  // headers of one source are distinct: a stride coprime with the count.
  uint64_t Include(uint64_t i, uint64_t j) const {
    const uint64_t n = p_.headers;
    const uint64_t start = Hash(1, i, 0) % n;
    uint64_t stride = n <= 1 ? 1 : 1 + Hash(2, i, 0) % (n - 1);
    while (n > 1 && std::gcd(stride, n) != 1) stride = stride % (n - 1) + 1;
    return (start + (j * stride) % n) % n;
  }
  std::string IncludeLine(uint64_t h) const { return "#include <" + HeaderName(h) + ">\n"; }
  uint64_t IncludeLineBytes() const {
    return 10 + (1 + static_cast<uint64_t>(header_digits_) + 2) + 2;  // "#include <" h ">\n"
  }
  // Failed probes (ENOENT) of one compile of source i, and of the whole tree.
  uint64_t ProbeEnoentOf(uint64_t i) const {
    uint64_t n = 0;
    for (uint64_t j = 0; j < p_.includes_per_source; ++j) n += IncludeDirOf(Include(i, j));
    return n;
  }
  uint64_t ExpectedProbeEnoent() const {
    uint64_t n = 0;
    for (uint64_t i = 0; i < sources(); ++i) n += ProbeEnoentOf(i);
    return n;
  }

  // --- sizes ---
  uint64_t SourceSize(uint64_t i) const {
    const uint64_t includes = p_.includes_per_source * IncludeLineBytes();
    return std::max(includes, Lognormal(3, i, p_.source_size, p_.source_size_sigma));
  }
  uint64_t HeaderSize(uint64_t h) const {
    return Lognormal(4, h, p_.header_size, p_.header_size_sigma);
  }

  // Deterministic 64-bit hash of (seed, stream, a, b): splitmix64 steps.
  uint64_t Hash(uint64_t stream, uint64_t a, uint64_t b) const {
    uint64_t x = Mix(p_.seed ^ 0x6a09e667f3bcc909ull);
    x = Mix(x ^ (stream * 0x9E3779B97F4A7C15ull));
    x = Mix(x ^ a);
    return Mix(x ^ (b + 0xbb67ae8584caa73bull));
  }

 private:
  static uint64_t Mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1).
  double Unit(uint64_t stream, uint64_t a, uint64_t b) const {
    return (static_cast<double>(Hash(stream, a, b) >> 11) + 0.5) / 9007199254740992.0;
  }
  // Lognormal with the given mean (mu = ln(mean) - sigma^2 / 2), Box-Muller.
  uint64_t Lognormal(uint64_t stream, uint64_t index, uint64_t mean, double sigma) const {
    if (sigma <= 0.0) return std::max<uint64_t>(mean, 1);
    const double z = std::sqrt(-2.0 * std::log(Unit(stream, index, 1))) *
                     std::cos(6.283185307179586 * Unit(stream, index, 2));
    const double v = static_cast<double>(mean) * std::exp(sigma * z - sigma * sigma / 2.0);
    const double hi = 64.0 * static_cast<double>(mean);
    return static_cast<uint64_t>(std::llround(std::clamp(v, 64.0, std::max(hi, 64.0))));
  }
  static int Digits(uint64_t v, int at_least) {
    int d = 1;
    while (v >= 10) {
      v /= 10;
      ++d;
    }
    return std::max(d, at_least);
  }
  std::string StemOf(uint64_t i) const {
    return SourceDirName(i / p_.files_per_dir) + "/" +
           Numbered('f', i % p_.files_per_dir, file_digits_);
  }
  static std::string Numbered(char prefix, uint64_t v, int width) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%c%0*llu", prefix, width, static_cast<unsigned long long>(v));
    return buf;
  }

  TreeParams p_;
  int header_digits_ = 5, dir_digits_ = 4, file_digits_ = 4;
  std::vector<uint64_t> bounds_;
};

}  // namespace iomimic::build_tree
