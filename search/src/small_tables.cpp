// Tables made on the spot for small positions (search.h make_small_tables).
#include <chrono>

#include "mancala/generate.h"
#include "mancala/probe.h"
#include "mancala/search.h"

namespace mancala {

std::expected<SmallTables, SearchError> make_small_tables(const Variant& v, const Position& root,
                                                          const std::filesystem::path& dir, std::uint64_t max_positions,
                                                          int threads, const std::atomic<bool>* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  if (const std::string e = v.check(root); !e.empty()) return std::unexpected(SearchError{SearchError::BadPosition, e});
  const int seeds = v.class_of(root).seeds;
  GenerateOptions opt;
  opt.max_seeds = seeds;
  opt.out = dir;
  opt.threads = threads;
  opt.budget.cancel_on(cancel);
  opt.max_positions = max_positions;
  // Every class up to the root's seeds, if they are few enough.
  std::uint64_t whole = 0;
  for (const ClassKey& k : v.solving_order(seeds)) {
    whole += static_cast<std::uint64_t>(ClassIndex(v, k).size());
    if (whole > max_positions) break;
  }
  SmallTables out;
  Result<GenerateReport> made;
  if (whole <= max_positions) {
    out.how = "every class up to " + std::to_string(seeds) + " seeds";
    made = generate(v, opt);
  } else {
    out.how = "the positions reachable from it";
    made = generate_reachable(v, root, opt);
  }
  if (!made) {
    if (made.error().code == Error::Cancelled) return std::unexpected(made.error());
    return fail_with(Error::Limit, "no small tables: " + made.error().message);
  }
  auto tb = Tablebase::open(dir);
  if (!tb) return std::unexpected(tb.error());
  out.tables = *tb;
  out.positions = made->positions;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace mancala
