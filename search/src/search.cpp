// Exact search above the tables (see search.h): the facade. A Searcher chooses its
// engine once (engine.h: Kalah, games with cycles, region retrograde), fills the
// engine's shared core (transposition table, table leaves, budget) and runs the
// root: the value and a best move, every first move's value, the principal variation.
#include "mancala/search.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "engine.h"
#include "mancala/rules/kalah.h"
#include "region_engine.h"

namespace mancala {

using namespace search_detail;

struct Searcher::Impl {
  std::unique_ptr<Engine> engine;
};

Searcher::Searcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Searcher::~Searcher() = default;

std::expected<std::unique_ptr<Searcher>, SearchError> Searcher::create(VariantPtr v, SearchOptions options) {
  const auto* kalah = dynamic_cast<const Kalah*>(v.get());
  // Kalah: seeds only move forward in a class (no cycles), every seed ends in a store.
  const bool may_repeat = v->id() != VariantId::Kalah;
  const bool region = may_repeat && options.cycles == CycleMethod::Region;
  std::unique_ptr<Engine> e = !may_repeat ? make_kalah_engine() : region ? make_region_engine() : make_cyclic_engine();
  e->variant = v;
  e->kind = v->kind();
  e->parity = v->id() == VariantId::Kalah;
  if (kalah) e->secures_one = kalah->capture() == Kalah::Capture::Empty;
  if (options.tt_bytes < TranspositionTable::kMinBytes)
    return std::unexpected(SearchError{SearchError::TableTooSmall, "the transposition table needs at least 1 MiB, got " +
                                                                       std::to_string(options.tt_bytes) + " bytes"});
  // Games with cycles: region retrograde alone takes the whole budget (no table); beside
  // alpha-beta the table takes half and the regions of small classes and their memo
  // the other half.
  const std::uint64_t tt_bytes = !may_repeat ? options.tt_bytes
                                 : region    ? TranspositionTable::kMinBytes
                                             : std::max(TranspositionTable::kMinBytes, options.tt_bytes / 2);
  if (auto* r = dynamic_cast<RegionEngine*>(e.get()))
    r->region_budget = region ? options.tt_bytes : std::max(options.tt_bytes - tt_bytes, options.tt_bytes / 2);
  // Kalah: a sixteenth of the table, at most 16 MiB (it should stay in the caches), for
  // the positions just above the tables (kalah_engine.cpp).
  const std::uint64_t near_bytes = !may_repeat ? std::min<std::uint64_t>(tt_bytes / 16, 16u << 20) : 0;
  if (!e->tt.allocate(tt_bytes, near_bytes, options.huge_pages))
    return std::unexpected(SearchError{SearchError::OutOfMemory, "could not allocate a transposition table of " +
                                                                      std::to_string(options.tt_bytes >> 20) + " MiB"});
  Engine* raw = e.get();
  e->leaves.huge_pages = options.huge_pages;
  if (auto err = e->leaves.open(options.tables, v, [raw](SearchError x) { return raw->fail(std::move(x)); }))
    return std::unexpected(*err);
  if (kalah) {
    e->kalah = true;
    e->board = KalahBoard(kalah->pits_per_side(), kalah->capture() == Kalah::Capture::Empty, e->leaves.max_seeds());
    e->leaves.rank_by(&e->board);
  }
  e->opt = std::move(options);
  auto impl = std::make_unique<Impl>();
  impl->engine = std::move(e);
  return std::unique_ptr<Searcher>(new Searcher(std::move(impl)));
}

std::expected<Value, SearchError> Searcher::value(const Position& p) {
  Engine& s = *impl_->engine;
  if (auto e = s.check(p)) return std::unexpected(*e);
  s.begin(&p);
  int v = 0;
  Ctx c;
  if (auto e = s.guarded([&] { v = s.value(c, p, "position"); })) return std::unexpected(*e);
  return static_cast<Value>(v);
}

Result<std::uint64_t> Searcher::save_table(const std::filesystem::path& file) const {
  const Engine& s = *impl_->engine;
  return save_table_file(s.tt, file, s.variant->name(), s.table_key(s.variant->start()));
}

Result<std::uint64_t> Searcher::load_table(const std::filesystem::path& file) {
  Engine& s = *impl_->engine;
  return load_table_file(s.tt, file, s.variant->name(), s.table_key(s.variant->start()), kInf);
}

Result<std::uint64_t> Searcher::check_table_file(const std::filesystem::path& file) {
  return search_detail::check_table_file(file);
}

std::expected<SearchResult, SearchError> Searcher::solve(const Position& p) {
  Engine& s = *impl_->engine;
  if (auto e = s.check(p)) return std::unexpected(*e);
  s.begin(&p);
  SearchResult out;
  std::vector<Child> kids;
  s.variant->children(p, kids);
  std::vector<int> values(kids.size(), 0);
  std::vector<bool> known(kids.size(), false);
  std::atomic<int> done{0};
  s.progress.root_moves = static_cast<int>(kids.size());
  const int threads = s.opt.threads > 0 ? s.opt.threads : tbb::this_task_arena::max_concurrency();
  auto absorb = [&](Ctx& c) {
    s.nodes += c.nodes - c.flushed;
    c.flushed = c.nodes;
    s.table_hits += c.table_hits;
    c.table_hits = 0;
  };
  auto failed = [&]() -> std::optional<SearchError> {
    std::lock_guard lock(s.mu);
    return s.error;
  };

  if (s.value_first() && !kids.empty()) {
    // Kalah: the value first, by MTD(f); with several threads every search of the root
    // shares its moves after the first among them (split_root).
    std::atomic<int> root_value{0};
    Ctx main;
    s.split_threads = std::max(1, threads);
    auto run = [&] { s.guarded([&] { root_value = s.value(main, p, "position"); }); };
    if (threads <= 1) {
      run();
    } else {
      tbb::task_arena arena(threads);
      arena.execute(run);
    }
    s.split_threads = 1;
    absorb(main);
    if (auto e = failed()) return std::unexpected(*e);
    out.value = static_cast<Value>(root_value.load());
    Ctx c;
    int best = -1;
    if (auto e = s.guarded([&] { best = s.best_move(c, p, out.value); })) return std::unexpected(*e);
    absorb(c);
    if (best < 0) return std::unexpected(SearchError{SearchError::BadPosition, "internal error: no move reaches the value"});
    values[static_cast<std::size_t>(best)] = out.value;
    known[static_cast<std::size_t>(best)] = true;
    done = 1;
  }

  if (!s.value_first() || s.opt.all_moves) {
    // Every first move's exact value, the first moves shared among the threads.
    auto root_task = [&](std::size_t i) {
      if (known[i]) return;
      Ctx c;
      // Isolated: a thread waiting for a split of this move's search takes no other
      // first move meanwhile (that would hold the split up for a whole search).
      tbb::this_task_arena::isolate([&] {
        s.guarded([&] { values[i] = s.exact(c, kids[i], "move " + s.variant->move_name(kids[i].move)); });
      });
      absorb(c);
      known[i] = true;
      const int d = ++done;
      if (s.opt.progress) s.report([&](SearchProgress& pr) { pr.root_moves_done = d; });
    };
    if (threads <= 1 || kids.size() <= 1) {
      for (std::size_t i = 0; i < kids.size(); ++i) root_task(i);
    } else {
      // Kalah: the searches of the first moves split too, so a thread with no first
      // move left helps with the others' positions near their roots.
      s.split_threads = threads;
      tbb::task_arena arena(threads);
      arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, kids.size(), 1),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                            for (std::size_t i = r.begin(); i != r.end(); ++i) root_task(i);
                          },
                          tbb::simple_partitioner());
      });
      s.split_threads = 1;
    }
    if (auto e = failed()) return std::unexpected(*e);
  }
  for (std::size_t i = 0; i < kids.size(); ++i)
    if (known[i]) out.moves.push_back(RootMoveValue{kids[i].move, static_cast<Value>(values[i]), kids[i]});
  std::stable_sort(out.moves.begin(), out.moves.end(),
                   [](const RootMoveValue& a, const RootMoveValue& b) { return a.value > b.value; });
  out.value = kids.empty() ? s.variant->terminal_value(p) : out.moves.front().value;
  if (s.opt.principal_variation) {
    Ctx c;
    if (auto e = s.guarded([&] {
          principal_variation(s, c, p, out.value, out);
        }))
      return std::unexpected(*e);
    absorb(c);
  }
  out.nodes = s.nodes.load();
  out.table_hits = s.table_hits.load();
  out.seconds = s.seconds();
  return out;
}

std::expected<SearchResult, SearchError> solve_position(VariantPtr v, const Position& p, SearchOptions options) {
  auto s = Searcher::create(std::move(v), std::move(options));
  if (!s) return std::unexpected(s.error());
  return (*s)->solve(p);
}

}  // namespace mancala
