// Search above the tables (issue 6): agreement with the tables, with a brute-force
// solver, principal variations that replay to the stated margin, clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <unistd.h>

#include "mancala/generate.h"
#include "mancala/notation.h"
#include "mancala/probe.h"
#include "mancala/search.h"
#include "mancala/table_writer.h"
#include "reference/brute_force.h"
#include "search/reachable_tables.h"
#include "tablebase/support.h"

namespace fs = std::filesystem;
using namespace mancala;

namespace {

VariantPtr variant(const std::string& spec) {
  auto v = make_variant(spec);
  EXPECT_TRUE(v.has_value()) << spec;
  return *v;
}

// Full tables up to `full` seeds in <tmp>/full, and the classes up to `part` seeds
// copied to <tmp>/part. Made once per variant for the whole suite.
struct TableDirs {
  fs::path full, part;
};
const TableDirs& tables_for(const std::string& spec, int full, int part) {
  static const fs::path suite = fs::temp_directory_path() / ("mancala_test_search_" + std::to_string(::getpid()));
  struct RemoveAtExit {
    ~RemoveAtExit() {
      std::error_code ec;
      fs::remove_all(suite, ec);
    }
  };
  static RemoveAtExit cleanup;
  static std::map<std::string, TableDirs> made;
  auto it = made.find(spec);
  if (it != made.end()) return it->second;
  const fs::path root = suite / spec;
  TableDirs d{root / "full", root / "part"};
  fs::create_directories(d.full);
  fs::create_directories(d.part);
  const VariantPtr v = variant(spec);
  GenerateOptions opt;
  opt.max_seeds = full;
  opt.out = d.full;
  opt.threads = 2;
  auto rep = generate(*v, opt);
  EXPECT_TRUE(rep.has_value()) << (rep ? "" : rep.error().message);
  auto tb = Tablebase::open(d.full);
  for (const ClassKey& k : (*tb)->classes(v->name()))
    if (k.seeds <= part) fs::copy_file((*tb)->dir() / table_file_name(v->name(), k), d.part / table_file_name(v->name(), k));
  return made.emplace(spec, d).first->second;
}

std::shared_ptr<const Tablebase> open_tables(const fs::path& dir) {
  auto tb = Tablebase::open(dir);
  EXPECT_TRUE(tb.has_value());
  return *tb;
}

// Random positions of the mark-free class with `seeds` seeds that have a move.
std::vector<Position> random_positions(const Variant& v, int seeds, int count, unsigned seed) {
  std::mt19937_64 rng(seed);
  const ClassIndex idx(v, ClassKey{0, seeds});
  std::vector<Position> out;
  std::vector<Child> kids;
  for (int tries = 0; static_cast<int>(out.size()) < count && tries < count * 20; ++tries) {
    const Position p = idx.unrank(std::uniform_int_distribution<Index>(0, idx.size() - 1)(rng));
    v.children(p, kids);
    if (!kids.empty()) out.push_back(p);
  }
  return out;
}

// Replays a principal variation with the rules engine: the margin it collects,
// from the first mover's view (score games), must be the stated value.
int replay_margin(const Variant& v, Position p, const SearchResult& r) {
  int margin = 0, sign = 1;
  std::vector<Child> kids;
  for (const Child& step : r.pv) {
    v.children(p, kids);
    const auto it = std::find_if(kids.begin(), kids.end(), [&](const Child& c) { return c.move == step.move; });
    EXPECT_NE(it, kids.end()) << "pv move is not legal";
    if (it == kids.end()) return INT32_MIN;
    margin += sign * (it->gain_mover - it->gain_opponent);
    if (it->game_over) return margin;
    if (!it->same_side) sign = -sign;
    p = it->next;
  }
  v.children(p, kids);
  if (kids.empty()) margin += sign * v.terminal_value(p);
  return margin;
}

SearchOptions small_options() {
  SearchOptions o;
  o.tt_bytes = 64ull << 20;
  o.threads = 2;
  return o;
}

}  // namespace

TEST(Search, KalahStartsAgreeWithBruteForce) {
  for (const char* cap : {"empty", "standard"})
    for (int m = 1; m <= 3; ++m)
      for (int n = 1; n <= 3; ++n) {
        const VariantPtr v = variant("kalah:" + std::to_string(m) + ":" + cap);
        const Position start = v->start(n);
        reference::BruteForce bf;
        ASSERT_TRUE(bf.solve(*v, start, 2'000'000));
        auto r = solve_position(v, start, small_options());
        ASSERT_TRUE(r.has_value()) << r.error().message;
        EXPECT_EQ(r->value, *bf.value_of(start)) << v->name() << " n=" << n;
        // Every first move's value, and a pv that replays to the value.
        std::vector<Child> kids;
        v->children(start, kids);
        for (const auto& mv : r->moves) {
          const auto it = std::find_if(kids.begin(), kids.end(), [&](const Child& c) { return c.move == mv.move; });
          const int cv = it->game_over ? 0 : *bf.value_of(it->next);
          EXPECT_EQ(mv.value, move_value(v->kind(), *it, static_cast<Value>(cv))) << v->name() << " n=" << n;
        }
        EXPECT_EQ(r->pv_end, "game over");
        EXPECT_EQ(replay_margin(*v, start, *r), r->value) << v->name() << " n=" << n;
      }
}

TEST(Search, CyclicGamesAgreeWithBruteForce) {
  // Oware and Djenon-aboure repeat positions: the repetition rule must give the
  // endless-play value exactly.
  for (const char* spec : {"oware", "djenon-aboure"}) {
    const VariantPtr v = variant(spec);
    auto searcher = Searcher::create(v, small_options());
    ASSERT_TRUE(searcher.has_value());
    int zeros = 0;
    for (int seeds : {5, 6, 7})
      for (const Position& p : random_positions(*v, seeds, 12, 7u + static_cast<unsigned>(seeds))) {
        reference::BruteForce bf;
        if (!bf.solve(*v, p, 400'000)) continue;
        auto val = (*searcher)->value(p);
        ASSERT_TRUE(val.has_value()) << val.error().message;
        EXPECT_EQ(*val, *bf.value_of(p)) << format_position(*v, p, Side::South);
        zeros += *val == 0;
        auto r = (*searcher)->solve(p);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->value, *val);
        if (r->pv_end == "game over") {
          EXPECT_EQ(replay_margin(*v, p, *r), r->value);
        }
      }
    EXPECT_GT(zeros, 0) << spec << ": no draw among the samples";
  }
}

TEST(Search, AgreesWithTablesAboveSmallerTables) {
  struct Case {
    const char* spec;
    int full, part;
  };
  // Kalah(3) over tables of 16 and 17 seeds: the search keeps their values in 4 bits,
  // the extreme ones as bounds (table_leaves.h), and searches a child whose bound
  // does not decide.
  for (const Case& c : {Case{"oware", 8, 5}, Case{"kalah:4:empty", 10, 5}, Case{"djenon-aboure", 8, 5},
                        Case{"kalah:3:empty", 20, 17}, Case{"kalah:3:standard", 19, 16}}) {
    const VariantPtr v = variant(c.spec);
    const TableDirs& d = tables_for(c.spec, c.full, c.part);
    const auto full = open_tables(d.full);
    SearchOptions o = small_options();
    o.tables = open_tables(d.part);
    auto searcher = Searcher::create(v, o);
    ASSERT_TRUE(searcher.has_value()) << searcher.error().message;
    int checked = 0;
    std::uint64_t hits = 0;
    for (int seeds = c.part + 1; seeds <= c.full; ++seeds)
      for (const Position& p : random_positions(*v, seeds, 25, static_cast<unsigned>(seeds) * 31u)) {
        const auto want = full->probe(*v, p);
        ASSERT_TRUE(want.has_value());
        auto r = (*searcher)->solve(p);
        ASSERT_TRUE(r.has_value()) << r.error().message;
        EXPECT_EQ(r->value, want->value) << format_position(*v, p, Side::South);
        for (const auto& mv : r->moves) {
          const auto it = std::find_if(want->moves.begin(), want->moves.end(),
                                       [&](const MoveValue& m) { return m.move == mv.move; });
          ASSERT_NE(it, want->moves.end());
          EXPECT_EQ(mv.value, it->value) << format_position(*v, p, Side::South) << " move " << v->move_name(mv.move);
        }
        hits += r->table_hits;
        if (r->pv_end == "game over") {
          EXPECT_EQ(replay_margin(*v, p, *r), r->value);
        }
        ++checked;
      }
    EXPECT_GT(checked, 50) << c.spec;
    EXPECT_GT(hits, 0u) << c.spec;
  }
}

TEST(Search, StartPositionAboveTables) {
  // Kalah(4,3) with tables up to 10 seeds, and without: the same value and moves.
  const VariantPtr v = variant("kalah:4:empty");
  const TableDirs& d = tables_for("kalah:4:empty", 10, 5);
  SearchOptions o = small_options();
  o.tables = open_tables(d.full);
  auto with = solve_position(v, v->start(3), o);
  auto without = solve_position(v, v->start(3), small_options());
  ASSERT_TRUE(with.has_value() && without.has_value());
  EXPECT_EQ(with->value, without->value);
  ASSERT_EQ(with->moves.size(), without->moves.size());
  for (std::size_t i = 0; i < with->moves.size(); ++i) EXPECT_EQ(with->moves[i].value, without->moves[i].value);
  EXPECT_EQ(replay_margin(*v, v->start(3), *with), with->value);
  EXPECT_GT(with->table_hits, 0u);
}

TEST(Search, MissingTablesAreNamed) {
  const VariantPtr v = variant("oware");
  const TableDirs& d = tables_for("oware", 8, 5);
  // A folder with a hole: class 3 removed.
  const fs::path holed = d.part.parent_path() / "holed";
  fs::create_directories(holed);
  for (const auto& e : fs::directory_iterator(d.part))
    if (e.path().filename().string().rfind("oware.3.", 0) != 0)
      fs::copy_file(e.path(), holed / e.path().filename(), fs::copy_options::overwrite_existing);
  SearchOptions o = small_options();
  o.tables = open_tables(holed);
  const Position p = random_positions(*v, 8, 1, 99u).front();
  auto r = solve_position(v, p, o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, SearchError::MissingTable);
  EXPECT_NE(r.error().message.find("class 3"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("reach 5 seeds"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("mancala-tb"), std::string::npos) << r.error().message;  // the CLI adds its command

  // A folder without tables of the variant at all.
  SearchOptions o2 = small_options();
  o2.tables = open_tables(d.part);
  auto s = Searcher::create(variant("djenon-aboure"), o2);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, SearchError::MissingTable);
  EXPECT_NE(s.error().message.find("no tables for djenon-aboure"), std::string::npos) << s.error().message;
}

// A Kalah table holding a value that no position of its seeds has (class 5: odd values
// in [-5, 5]) is refused: beyond the seeds by the reader, of the other parity when the
// search packs its values in 4 bits.
TEST(Search, KalahValuesOfAnotherClassAreCorrupt) {
  const VariantPtr v = variant("kalah:4:empty");
  const TableDirs& d = tables_for("kalah:4:empty", 10, 5);
  const ClassKey key{0, 5};
  for (const int bad : {2, -4, 7, -7}) {
    const fs::path dir = d.part.parent_path() / ("bad" + std::to_string(bad + 10));
    fs::create_directories(dir);
    for (const auto& e : fs::directory_iterator(d.part))
      fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
    const std::vector<std::uint8_t> bytes(ClassIndex(*v, key).size(), static_cast<std::uint8_t>(static_cast<std::int8_t>(bad)));
    ASSERT_TRUE(write_table(dir / table_file_name(v->name(), key), *v, key, bytes, 1));
    SearchOptions o = small_options();
    o.tables = open_tables(dir);
    auto r = solve_position(v, v->start(2), o);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().code, SearchError::Corrupt) << bad;
    EXPECT_NE(r.error().message.find(bad % 2 == 0 ? "not that of a Kalah position of 5 seeds" : "with 5 seeds in play"),
              std::string::npos)
        << r.error().message;
  }
}

TEST(Search, TranspositionTableTooSmall) {
  SearchOptions o;
  o.tt_bytes = 1000;
  auto s = Searcher::create(variant("kalah:3:empty"), o);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, SearchError::TableTooSmall);
  EXPECT_NE(s.error().message.find("at least 1 MiB"), std::string::npos);
  // The smallest allowed table still gives exact values (only slower).
  o.tt_bytes = 1ull << 20;
  auto r = solve_position(variant("kalah:3:empty"), variant("kalah:3:empty")->start(3), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->value, 2);
}

TEST(Search, LimitsAreErrors) {
  SearchOptions o = small_options();
  o.budget.work_limit(5000);
  auto r = solve_position(variant("kalah:4:empty"), variant("kalah:4:empty")->start(4), o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, SearchError::Limit);
}

// A stop (cancel, a limit) returns through the search, in parallel splits too, and
// leaves the searcher sound: the same searcher then gives the exact values.
TEST(Search, StopsLeaveTheSearcherSound) {
  for (const char* spec : {"kalah:4:empty", "oware"}) {
    const VariantPtr v = variant(spec);
    Position root = v->start(4);
    if (std::string(spec) == "oware") {  // 8 seeds: small enough to solve without tables
      root = Position{};
      for (int i : {0, 2, 3, 5, 6, 7, 9, 11}) root.pits[static_cast<std::size_t>(i)] = 1;
    }
    const auto ref = solve_position(v, root, small_options());
    ASSERT_TRUE(ref.has_value()) << ref.error().message;
    for (bool all_moves : {true, false}) {
      std::atomic<bool> cancel{true};
      SearchOptions o = small_options();
      o.threads = 2;
      o.all_moves = all_moves;
      o.guess_depth = 0;
      o.budget.cancel_on(&cancel);
      auto s = Searcher::create(v, o);
      ASSERT_TRUE(s.has_value());
      auto stopped = (*s)->solve(root);
      ASSERT_FALSE(stopped.has_value()) << spec;
      EXPECT_EQ(stopped.error().code, SearchError::Cancelled) << spec;
      cancel = false;
      auto again = (*s)->solve(root);
      ASSERT_TRUE(again.has_value()) << again.error().message;
      EXPECT_EQ(again->value, ref->value) << spec;
      if (all_moves) {
        ASSERT_EQ(again->moves.size(), ref->moves.size()) << spec;
        for (std::size_t i = 0; i < ref->moves.size(); ++i) EXPECT_EQ(again->moves[i].value, ref->moves[i].value) << spec;
      }
    }
  }
}

TEST(Search, TerminalAndTabledRoots) {
  const VariantPtr v = variant("kalah:2:empty");
  Position over;  // South has no seeds: the game is over
  over.pits[2] = 3;
  auto r = solve_position(v, over, small_options());
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->moves.empty());
  EXPECT_EQ(r->value, v->terminal_value(over));
}

// The bounds the Kalah search cuts with (search.cpp): every value has the parity of
// the seeds on the board, and with the empty capture a position not over is worth at
// least 2 - seeds (the mover always stores a seed). Checked on every tabled position.
TEST(Search, KalahBoundsHoldInTheTables) {
  for (const char* spec : {"kalah:4:empty", "kalah:4:standard"}) {
    const VariantPtr v = variant(spec);
    const bool empty = std::string(spec).ends_with("empty");
    const TableDirs& d = tables_for(spec, 10, 5);
    const auto tb = open_tables(d.full);
    std::uint64_t checked = 0, at_floor = 0;
    for (const ClassKey& k : tb->classes(v->name())) {
      auto cls = load_class(tb->dir() / table_file_name(v->name(), k), *v, k);
      ASSERT_TRUE(cls.has_value()) << cls.error().message;
      for (Index i = 0; i < (*cls)->size(); ++i) {
        const Position p = (*cls)->index().unrank(i);
        const int val = (*cls)->get(i);
        ASSERT_EQ((val - k.seeds) % 2, 0) << format_position(*v, p, Side::South);
        if (p.seeds_in(0, 4) == 0 || p.seeds_in(4, 8) == 0) continue;
        if (empty) {
          ASSERT_GE(val, 2 - k.seeds) << format_position(*v, p, Side::South);
        }
        at_floor += val == 2 - k.seeds;
        ++checked;
      }
    }
    EXPECT_GT(checked, 40000u);
    EXPECT_GT(at_floor, 0u) << spec;  // the floor is tight
  }
}

// solve --best-only: the same value as every first move's search, and its move
// reaches it; with one and two threads (the moves of positions near the root shared
// among the threads).
TEST(Search, BestOnlyAgreesWithEveryMove) {
  for (const char* spec : {"kalah:4:empty", "kalah:4:standard"}) {
    const VariantPtr v = variant(spec);
    const TableDirs& d = tables_for(spec, 10, 5);
    for (int threads : {1, 2}) {
      SearchOptions all = small_options(), best = small_options();
      all.tables = best.tables = open_tables(d.part);
      best.all_moves = false;
      best.threads = threads;
      auto sa = Searcher::create(v, all);
      auto sb = Searcher::create(v, best);
      ASSERT_TRUE(sa.has_value() && sb.has_value());
      std::vector<Position> ps = random_positions(*v, 14, 20, 7u);
      ps.push_back(v->start(3));
      ps.push_back(v->start(4));
      for (const Position& p : ps) {
        auto ra = (*sa)->solve(p);
        auto rb = (*sb)->solve(p);
        ASSERT_TRUE(ra.has_value() && rb.has_value());
        EXPECT_EQ(rb->value, ra->value) << format_position(*v, p, Side::South);
        ASSERT_EQ(rb->moves.size(), 1u);
        const auto it = std::find_if(ra->moves.begin(), ra->moves.end(),
                                     [&](const RootMoveValue& m) { return m.move == rb->moves[0].move; });
        ASSERT_NE(it, ra->moves.end());
        EXPECT_EQ(it->value, ra->value) << format_position(*v, p, Side::South);
        EXPECT_EQ(replay_margin(*v, p, *rb), rb->value);
      }
    }
  }
}

// Kalah(6) with two threads: six moves a position, so the parallel split runs at
// expected cut-nodes too (after their third move) and at all-nodes (after the first),
// for the value and best move alone and inside each first move's search (every first
// move's value). Every value equals the complete tables', every best move reaches it.
TEST(Search, TwoThreadsKalah6AgreesWithTables) {
  for (const char* spec : {"kalah:6:empty", "kalah:6:standard"}) {
    const VariantPtr v = variant(spec);
    const TableDirs& d = tables_for(spec, 16, 6);
    const auto full = open_tables(d.full);
    for (bool all_moves : {false, true}) {
      SearchOptions o = small_options();
      o.tables = open_tables(d.part);
      o.all_moves = all_moves;
      o.threads = 2;
      auto searcher = Searcher::create(v, o);
      ASSERT_TRUE(searcher.has_value()) << searcher.error().message;
      int checked = 0;
      for (int seeds : {12, 16})
        for (const Position& p : random_positions(*v, seeds, all_moves ? 5 : 12, static_cast<unsigned>(seeds) * 7u)) {
          const std::string where = std::string(spec) + " " + format_position(*v, p, Side::South);
          const auto want = full->probe(*v, p);
          ASSERT_TRUE(want.has_value());
          auto r = (*searcher)->solve(p);
          ASSERT_TRUE(r.has_value()) << r.error().message;
          EXPECT_EQ(r->value, want->value) << where;
          ASSERT_EQ(r->moves.size(), all_moves ? want->moves.size() : 1u) << where;
          for (const RootMoveValue& mv : r->moves) {
            const auto it = std::find_if(want->moves.begin(), want->moves.end(),
                                         [&](const MoveValue& m) { return m.move == mv.move; });
            ASSERT_NE(it, want->moves.end()) << where;
            EXPECT_EQ(mv.value, it->value) << where << " move " << v->move_name(mv.move);
          }
          ++checked;
        }
      EXPECT_GE(checked, all_moves ? 8 : 20) << spec;
    }
  }
}

// Tables of the positions reachable from a root (`generate --from`) serve the search
// as whole classes do (the loader once failed on them: "wrong number of values").
TEST(Search, ReachableSetTables) {
  struct Case {
    const char* spec;
    int per_pit;
  };
  for (const Case& c : {Case{"kalah:4:empty", 2}, Case{"kalah:3:standard", 3}}) {
    const VariantPtr v = variant(c.spec);
    const Position root = v->start(c.per_pit);
    const fs::path dir = fs::temp_directory_path() / ("mancala_test_search_from_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    GenerateOptions g;
    g.max_seeds = 12;
    g.out = dir;
    g.threads = 2;
    ASSERT_TRUE(generate_reachable(*v, root, g).has_value());
    SearchOptions o = small_options();
    o.tables = open_tables(dir);
    auto with = solve_position(v, root, o);
    ASSERT_TRUE(with.has_value()) << with.error().message;
    EXPECT_GT(with->table_hits, 0u);
    const TableDirs& d = tables_for(c.spec, 10, 5);
    SearchOptions o2 = small_options();
    o2.tables = open_tables(d.full);
    auto ref = solve_position(v, root, o2);
    ASSERT_TRUE(ref.has_value()) << ref.error().message;
    EXPECT_EQ(with->value, ref->value) << c.spec;
    ASSERT_EQ(with->moves.size(), ref->moves.size());
    for (std::size_t i = 0; i < ref->moves.size(); ++i) EXPECT_EQ(with->moves[i].value, ref->moves[i].value);
    fs::remove_all(dir);
  }
}

// Tables made on the spot (solve without --tables): whole classes when few, else the
// reachable set, else TableTooSmall; the values equal the search's without tables.
TEST(Search, SmallTablesMadeOnTheSpot) {
  const fs::path dir = fs::temp_directory_path() / ("mancala_test_search_small_" + std::to_string(::getpid()));
  struct Case {
    const char* spec;
    int per_pit;
    std::uint64_t max_positions;
    const char* how;
  };
  for (const Case& c : {Case{"kalah:3:empty", 3, 1'000'000, "every class"}, Case{"kalah:3:empty", 3, 50'000, "reachable"},
                        Case{"oware", 1, 3'000'000, "every class"}}) {
    const VariantPtr v = variant(c.spec);
    const Position root = v->start(c.per_pit);
    fs::remove_all(dir);
    auto made = make_small_tables(*v, root, dir, c.max_positions, 2);
    ASSERT_TRUE(made.has_value()) << made.error().message;
    EXPECT_NE(made->how.find(c.how), std::string::npos) << made->how;
    SearchOptions o = small_options();
    o.tables = made->tables;
    auto with = solve_position(v, root, o);
    ASSERT_TRUE(with.has_value()) << with.error().message;
    if (std::string(c.spec) != "oware") {
      auto without = solve_position(v, root, small_options());
      ASSERT_TRUE(without.has_value());
      EXPECT_EQ(with->value, without->value) << c.spec;
    } else {
      EXPECT_EQ(with->value, 0);  // Oware 1 seed per pit: a draw (results/start-positions.md)
    }
  }
  fs::remove_all(dir);
  auto too_big = make_small_tables(*variant("kalah:6:empty"), variant("kalah:6:empty")->start(4), dir, 1000, 2);
  ASSERT_FALSE(too_big.has_value());
  EXPECT_EQ(too_big.error().code, SearchError::TableTooSmall);
  fs::remove_all(dir);
}

// Progress of a long search: each first guess says so, and the bounds it reports for the
// root are proven ones (they hold the value found), never a guess's.
TEST(Search, ProgressReportsProvenBoundsOnly) {
  const VariantPtr v = variant("kalah:4:empty");
  const TableDirs& d = tables_for("kalah:4:empty", 10, 5);
  SearchOptions o = small_options();
  o.tables = open_tables(d.part);
  o.all_moves = false;
  o.threads = 1;
  o.guess_depth = 9;
  std::vector<SearchProgress> seen;
  o.progress = [&](const SearchProgress& p) { seen.push_back(p); };
  auto s = Searcher::create(v, o);
  ASSERT_TRUE(s.has_value());
  auto r = (*s)->solve(v->start(4));
  ASSERT_TRUE(r.has_value());
  bool guess = false;
  for (const SearchProgress& p : seen) {
    guess = guess || p.current.find("first guess at 9 plies") != std::string::npos;
    if (!p.current.empty()) {
      EXPECT_LE(p.lower, r->value) << p.current;
      EXPECT_GE(p.upper, r->value) << p.current;
    }
  }
  EXPECT_TRUE(guess);
}

// Games with cycles by alpha-beta (repetition = 0, path-dependent results kept out of
// the transposition table) against reachable-set retrograde tables: the value and
// every first move's value on every position of random games from a root of each
// variant with cycles, by pure alpha-beta (no class left to region retrograde) and by
// the default mix (small classes by region retrograde). Pure alpha-beta may give up
// on a position where play goes round (the node limit); most must be decided.
TEST(Search, CyclicAlphaBetaAgreesWithTables) {
  struct Case {
    const char* spec;
    const char* root;
    int max_seeds;
  };
  const Case cases[] = {
      {"enkeshui:8", "1,0,1,0,1,0,1,0/0,1,0,1,0,1,0,1 S", 8},
      {"kotu-baendum", "1,1,0,1,1,0,1/1,0,1,1,0,1,1 S first", 10},
      {"cenne:5:5", "1,1,1,1,1/1,1,1,1,1 S", 10},
      {"imbelece", "2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S", 12},
      {"oware", "1,0,1,1,0,1/0,1,1,0,1,1 S", 8},
      {"djenon-aboure", "2,0,1,0,2,0/0,2,0,1,0,2 S", 10},
  };
  for (const Case& c : cases) {
    const VariantPtr v = variant(c.spec);
    testing_support::ReachableTables tables;
    ASSERT_NO_FATAL_FAILURE(tables.build(v, c.root, c.max_seeds, "alphabeta"));
    for (const std::uint64_t region : {std::uint64_t{0}, SearchOptions{}.region_positions}) {
      SearchOptions o = small_options();
      o.region_positions = region;
      o.principal_variation = false;
      o.budget.work_limit(4'000'000);
      auto searcher = Searcher::create(v, o);
      ASSERT_TRUE(searcher.has_value());
      std::mt19937 rng(11);
      int compared = 0, gave_up = 0;
      for (int game = 0; game < 5; ++game) {
        Position p = tables.root();
        std::vector<Child> kids;
        for (int ply = 0; ply < 16; ++ply) {
          v->children(p, kids);
          if (kids.empty()) break;
          const auto want = tables.tables().probe(*v, p);
          ASSERT_TRUE(want.has_value()) << want.error().message;
          auto r = (*searcher)->solve(p);
          if (!r && r.error().code == SearchError::Limit) {
            ++gave_up;
          } else {
            ASSERT_TRUE(r.has_value()) << r.error().message;
            ++compared;
            const std::string at = std::string(c.spec) + " " + format_position(*v, p, Side::South);
            EXPECT_EQ(r->value, want->value) << at << " region " << region;
            ASSERT_EQ(r->moves.size(), want->moves.size()) << at;
            for (const auto& mv : r->moves) {
              const auto it = std::find_if(want->moves.begin(), want->moves.end(),
                                           [&](const MoveValue& m) { return m.move == mv.move; });
              ASSERT_NE(it, want->moves.end()) << at;
              EXPECT_EQ(mv.value, it->value) << at << " move " << v->move_name(mv.move) << " region " << region;
            }
          }
          p = kids[rng() % kids.size()].next;
        }
      }
      RecordProperty(std::string(c.spec) + (region ? ".mixed" : ".pure") + ".gave_up", gave_up);
      EXPECT_GT(compared, 3 * gave_up) << c.spec << " region " << region;
    }
  }
}

// The transposition table in a file: a search stopped by its work limit, saved, and
// loaded into a new searcher goes on from what it proved: the value and every first
// move's value of a fresh search, in fewer positions; the same for a game with cycles.
TEST(Search, TableFileResumesAStoppedSearch) {
  const test::TempDir tmp;
  const fs::path& dir = tmp.path;
  struct Case {
    const char* spec;
    int full, part;
    const char* position;
  };
  for (const Case& c : {Case{"kalah:6:empty", 16, 6, "kalah:6:empty 2,2,2,2,2,2/2,2,2,2,2,2 S"},
                        Case{"oware", 8, 5, "oware 1,1,1,1,0,0/1,1,1,1,0,0 S"}}) {
    const VariantPtr v = variant(c.spec);
    const TableDirs& d = tables_for(c.spec, c.full, c.part);
    const auto parsed = parse_position(c.position);
    ASSERT_TRUE(parsed.has_value());
    const Position p = parsed->position;
    SearchOptions o = small_options();
    o.tables = open_tables(d.part);
    o.threads = 1;
    auto fresh = Searcher::create(v, o);
    ASSERT_TRUE(fresh.has_value());
    auto whole = (*fresh)->solve(p);
    ASSERT_TRUE(whole.has_value()) << whole.error().message;
    ASSERT_GT(whole->nodes, 20000u) << c.spec << ": too small a search to stop half-way";

    SearchOptions limited = o;
    limited.budget.work_limit(whole->nodes / 2);
    auto first = Searcher::create(v, limited);
    ASSERT_TRUE(first.has_value());
    auto stopped = (*first)->solve(p);
    ASSERT_FALSE(stopped.has_value()) << c.spec;
    EXPECT_EQ(stopped.error().code, SearchError::Limit);
    const fs::path file = dir / "table.tt";
    auto saved = (*first)->save_table(file);
    ASSERT_TRUE(saved.has_value()) << saved.error().message;
    EXPECT_GT(*saved, 0u);

    auto second = Searcher::create(v, o);
    ASSERT_TRUE(second.has_value());
    auto loaded = (*second)->load_table(file);
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    EXPECT_EQ(*loaded, *saved);
    auto resumed = (*second)->solve(p);
    ASSERT_TRUE(resumed.has_value()) << resumed.error().message;
    EXPECT_EQ(resumed->value, whole->value) << c.spec;
    EXPECT_LT(resumed->nodes, whole->nodes) << c.spec;
    ASSERT_EQ(resumed->moves.size(), whole->moves.size());
    for (std::size_t i = 0; i < whole->moves.size(); ++i) {
      EXPECT_EQ(resumed->moves[i].move, whole->moves[i].move) << c.spec;
      EXPECT_EQ(resumed->moves[i].value, whole->moves[i].value) << c.spec;
    }
  }
}

// A table file is hostile until checked: every damaged or foreign file is refused
// with its own code, the table is left usable, and the file is not touched.
TEST(Search, TableFileRefusesBadFiles) {
  const test::TempDir tmp;
  const fs::path& dir = tmp.path;
  const VariantPtr v = variant("kalah:3:empty");
  SearchOptions o = small_options();
  o.threads = 1;
  auto s = Searcher::create(v, o);
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE((*s)->solve(v->start(3)).has_value());
  const fs::path good = dir / "good.tt";
  auto n = (*s)->save_table(good);
  ASSERT_TRUE(n.has_value()) << n.error().message;
  const std::vector<char> bytes = test::slurp(good);
  // 16 fixed bytes, the name, 20 more, then N entries and one CRC per 65,536.
  const std::size_t head = 16 + v->name().size() + 20;
  ASSERT_EQ(bytes.size(), head + *n * 16 + 4 * ((*n + 65535) / 65536));

  struct Bad {
    const char* what;
    std::vector<char> bytes;
    Error::Code code;
  };
  const auto first = [&](std::size_t count) { return std::vector<char>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(count)); };
  std::vector<char> flipped_entry = bytes, flipped_head = bytes, version = bytes, big_count = bytes, longer = bytes;
  longer.push_back('!');
  flipped_entry[head + 5] ^= 0x40;
  flipped_head[20] ^= 0x01;
  version[8] = 9;
  big_count[head - 12] = static_cast<char>(0xFF);
  const std::vector<Bad> bad = {
      {"empty", {}, Error::Corrupt},
      {"garbage", std::vector<char>(200, 'x'), Error::Corrupt},
      {"cut in the header", first(20), Error::Corrupt},
      {"cut in the entries", first(bytes.size() - 7), Error::Corrupt},
      {"one more byte", longer, Error::Corrupt},
      {"an entry's byte flipped", flipped_entry, Error::Corrupt},
      {"the name's byte flipped", flipped_head, Error::Corrupt},
      {"another version", version, Error::Mismatch},
      {"a count beyond the file", big_count, Error::Corrupt},
  };
  for (const Bad& b : bad) {
    const fs::path f = dir / "bad.tt";
    test::spit(f, b.bytes);
    auto r = (*s)->load_table(f);
    ASSERT_FALSE(r.has_value()) << b.what;
    EXPECT_EQ(r.error().code, b.code) << b.what << ": " << r.error().message;
    EXPECT_NE(r.error().message.find("bad.tt"), std::string::npos) << r.error().message;
    EXPECT_EQ(test::slurp(f), b.bytes) << b.what;
  }
  auto missing = (*s)->load_table(dir / "missing.tt");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, Error::Io);
  // Another variant's file: a mismatch, named.
  auto other = Searcher::create(variant("kalah:4:empty"), o);
  ASSERT_TRUE(other.has_value());
  auto foreign = (*other)->load_table(good);
  ASSERT_FALSE(foreign.has_value());
  EXPECT_EQ(foreign.error().code, Error::Mismatch);
  EXPECT_NE(foreign.error().message.find("kalah:3:empty"), std::string::npos) << foreign.error().message;
  // Still a sound searcher, and the good file still loads.
  EXPECT_TRUE((*s)->load_table(good).has_value());
  auto again = (*s)->solve(v->start(3));
  ASSERT_TRUE(again.has_value());
}
