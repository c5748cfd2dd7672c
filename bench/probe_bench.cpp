// Probe speed of the C++ library (libmancala_tb, as a consumer links it) and the
// position lists scripts/bench_probe.sh gives all three languages.
//
//   probe_bench positions DIR VARIANT COUNT SEED COLD WARM
//       COLD: COUNT positions drawn uniformly from every table of VARIANT in DIR;
//       WARM: COUNT positions from the first four blocks of the largest table. Prints the
//       tables' positions and bytes on disk.
//   probe_bench run DIR FILE PASSES
//       values (Tablebase::value) and probes (value and every move's value) of the
//       positions of FILE with a freshly opened folder: the first pass and the later ones.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mancala/notation.h"
#include "mancala/probe.h"

using namespace mancala;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int positions(const std::string& dir, const std::string& spec, long count, unsigned seed, const std::string& cold_path,
              const std::string& warm_path) {
  auto tb = Tablebase::open(dir);
  auto v = make_variant(spec);
  if (!tb || !v) return std::fprintf(stderr, "cannot open %s or variant %s\n", dir.c_str(), spec.c_str()), 1;
  std::vector<std::pair<ClassKey, Index>> sizes;
  Index total = 0, file_bytes = 0, largest = 0;
  ClassKey big{};
  for (const auto& k : (*tb)->classes((*v)->name())) {
    auto t = (*tb)->table(**v, k);
    if (!t) return std::fprintf(stderr, "%s\n", t.error().message.c_str()), 1;
    const auto& h = (*t)->header();
    sizes.push_back({k, h.positions});
    total += h.positions;
    file_bytes += std::filesystem::file_size((*t)->path());
    if (h.positions > largest) largest = h.positions, big = k;
  }
  std::mt19937_64 rng(seed);
  std::ofstream cold(cold_path), warm(warm_path);
  for (long i = 0; i < count; ++i) {
    Index r = std::uniform_int_distribution<Index>(0, total - 1)(rng);
    std::size_t c = 0;
    while (r >= sizes[c].second) r -= sizes[c++].second;
    const ClassIndex idx(**v, sizes[c].first);
    cold << format_position(**v, idx.unrank(r), Side::South) << "\n";
  }
  auto t = (*tb)->table(**v, big);
  const ClassIndex idx(**v, big);
  const Index span = std::min<Index>(largest, (*t)->header().block_positions * 4);
  for (long i = 0; i < count; ++i)
    warm << format_position(**v, idx.unrank(std::uniform_int_distribution<Index>(0, span - 1)(rng)), Side::South) << "\n";
  std::printf("tables %zu files, %llu positions, %llu bytes (%.3f bytes/position)\n", sizes.size(),
              static_cast<unsigned long long>(total), static_cast<unsigned long long>(file_bytes),
              static_cast<double>(file_bytes) / static_cast<double>(total));
  return 0;
}

int run(const std::string& dir, const std::string& file, int passes) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto tb = Tablebase::open(dir);
  if (!tb) return std::fprintf(stderr, "%s\n", tb.error().message.c_str()), 1;
  long long sum = 0;
  double first = 0, later = 0, parsed_later = 0, probes = 0;
  std::vector<ParsedPosition> pps;
  for (const auto& l : lines) pps.push_back(*parse_position(l));
  for (int pass = 0; pass < passes; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& l : lines) {  // from the text, as the C API and Python do
      const auto pp = parse_position(l);
      auto r = (*tb)->value(*pp->variant, pp->position);
      if (!r) return std::fprintf(stderr, "%s: %s\n", l.c_str(), r.error().message.c_str()), 1;
      sum += *r;
    }
    (pass == 0 ? first : later) += seconds_since(t0);
    if (pass == 0) continue;
    const auto t1 = std::chrono::steady_clock::now();
    for (const auto& pp : pps) sum += *(*tb)->value(*pp.variant, pp.position);  // parsed once
    parsed_later += seconds_since(t1);
  }
  const auto t2 = std::chrono::steady_clock::now();
  for (const auto& pp : pps) sum += (*tb)->probe(*pp.variant, pp.position)->value;
  probes = seconds_since(t2);
  const double n = static_cast<double>(lines.size());
  std::printf("first %.0f later %.0f parsed %.0f probes %.0f checksum %lld\n", n / first,
              n * (passes - 1) / later, n * (passes - 1) / parsed_later, n / probes, sum);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() == 7 && a[0] == "positions") return positions(a[1], a[2], std::stol(a[3]), static_cast<unsigned>(std::stoul(a[4])), a[5], a[6]);
  if (a.size() == 4 && a[0] == "run") return run(a[1], a[2], std::stoi(a[3]));
  std::fprintf(stderr, "usage: probe_bench positions DIR VARIANT COUNT SEED COLD WARM | run DIR FILE PASSES\n");
  return 2;
}
