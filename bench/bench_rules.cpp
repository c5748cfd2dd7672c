// Turn generation speed per variant: every legal turn of a fixed sample of indexed
// positions (classes of 8..20 seeds in play, spread evenly over each class), through
// the concrete rule type as the solver's hot loops call it (with_rules, no virtual call).
//
//   mancala_bench_rules [--benchmark_filter=oware] [--benchmark_min_time=1]
//
// Counters: turns/s (turns generated) and positions/s (positions expanded).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mancala/index.h"
#include "mancala/rules.h"

namespace {

using namespace mancala;

constexpr int kSamplePerClass = 4096;

// Positions of the classes (no irreversible state) with 8..20 seeds in play.
std::vector<Position> sample_positions(const Variant& v) {
  std::vector<Position> out;
  for (int seeds = 8; seeds <= std::min(20, v.total_seeds()); ++seeds) {
    const ClassIndex idx(v, ClassKey{0, seeds});
    if (idx.size() == 0) continue;
    const Index step = std::max<Index>(1, idx.size() / kSamplePerClass);
    for (Index r = 0; r < idx.size() && out.size() < static_cast<std::size_t>(seeds - 7) * kSamplePerClass; r += step)
      out.push_back(idx.unrank(r));
  }
  return out;
}

void turn_generation(benchmark::State& state, const std::string& spec) {
  const auto made = make_variant(spec);
  if (!made) {
    state.SkipWithError(made.error().message.c_str());
    return;
  }
  const Variant& v = **made;
  const std::vector<Position> positions = sample_positions(v);
  std::vector<Child> kids;
  std::uint64_t turns = 0, expanded = 0;
  try {
    with_rules(v, [&](const auto& rules) {
      for (auto _ : state) {
        for (const Position& p : positions) {
          rules.children(p, kids);
          turns += kids.size();
        }
        expanded += positions.size();
        benchmark::DoNotOptimize(turns);
      }
    });
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.counters["turns/s"] = benchmark::Counter(static_cast<double>(turns), benchmark::Counter::kIsRate);
  state.counters["positions/s"] = benchmark::Counter(static_cast<double>(expanded), benchmark::Counter::kIsRate);
  state.counters["turns/pos"] = expanded ? static_cast<double>(turns) / static_cast<double>(expanded) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* spec : {"djenon-aboure", "oware", "kalah:6:empty", "kalah:6:standard", "kalah:4:standard",
                           "kotu-baendum", "cenne:7:7", "enkeshui:8", "imbelece"})
    benchmark::RegisterBenchmark((std::string("children/") + spec).c_str(), turn_generation, std::string(spec))
        ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
