// The distance that realises a value (solver/include/mancala/distances.h,
// docs/values.md): games played through the probe library from random positions, the
// side ahead by the library's best move, the other side by an adversary that keeps
// the value and steers back to positions already seen. Every game must realise the
// table's value, and no stretch between two exits from a class may outlast the
// distance the table gave at its start.
#include <gtest/gtest.h>

#include <random>
#include <unordered_set>

#include "mancala/distances.h"
#include "mancala/lower_store.h"
#include "mancala/notation.h"
#include "mancala/probe.h"
#include "support.h"

namespace mancala::test {
namespace {

struct Game {
  std::string spec;  // a variant, or "--from=ROOT"
  int max_seeds;
  int games;
};

// Generates the tables (values and distances) of `g` into `dir`.
VariantPtr generate_into(const Game& g, const fs::path& dir, int threads = 2) {
  GenerateOptions opt;
  opt.max_seeds = g.max_seeds;
  opt.out = dir;
  opt.threads = threads;
  opt.distances = true;
  if (g.spec.starts_with("--from=")) {
    auto pp = parse_position(g.spec.substr(7));
    EXPECT_TRUE(pp) << g.spec;
    auto rep = generate_reachable(*pp->variant, pp->position, opt);
    EXPECT_TRUE(rep) << (rep ? "" : rep.error().message);
    return pp->variant;
  }
  const VariantPtr v = variant(g.spec);
  auto rep = generate(*v, opt);
  EXPECT_TRUE(rep) << (rep ? "" : rep.error().message);
  return v;
}

// A uniformly drawn class of the folder, then a uniformly drawn position of it.
Position random_position(const Tablebase& tb, const Variant& v, std::mt19937_64& rng) {
  const auto keys = tb.classes(v.name());
  const ClassKey key = keys[std::uniform_int_distribution<std::size_t>(0, keys.size() - 1)(rng)];
  auto t = tb.table(v, key);
  auto idx = (*t)->index(v);
  return (*idx)->unrank(std::uniform_int_distribution<Index>(0, (*idx)->size() - 1)(rng));
}

struct Tally {
  int games = 0, endless = 0, exits = 0, longest_stretch = 0;
};

// One game from p; failures are reported with the start position.
void play(const Tablebase& tb, const Variant& v, const Position& start, std::mt19937_64& rng, Tally& tally) {
  const std::string where = format_position(v, start, Side::South);
  auto first = tb.probe(v, start);
  ASSERT_TRUE(first) << where << ": " << first.error().message;
  const Value target = first->value;  // for side A, the mover at the start
  const bool score = v.kind() == GameKind::Score;
  if (score) {
    ASSERT_EQ(first->distances, has_distance_tables(v)) << where;
  }
  int margin = 0;                     // what A has won so far
  bool a_to_move = true;
  Position p = start;
  std::unordered_set<Position, PositionHash> seen;
  int stretch = 0, owed = -1;  // plies since the last exit; the distance at its start (-1: none owed)
  for (int ply = 0;; ++ply) {
    ASSERT_LT(ply, 100000) << where;
    auto r = tb.probe(v, p);
    ASSERT_TRUE(r) << where << ": " << r.error().message;
    // The probe values a position by its best move; the table's own entry agrees.
    if (auto own = tb.value(v, p)) {
      ASSERT_EQ(*own, r->value) << where << " ply " << ply;
    }
    if (score) {
      // Value-optimal play keeps "won so far + value still to come" at the start's value.
      ASSERT_EQ(margin + (a_to_move ? r->value : -r->value), target) << where << " ply " << ply;
      if (owed < 0 && r->distances) owed = r->value == 0 ? 0 : r->distance;
    }
    if (owed > 0 && stretch >= owed && !r->moves.empty()) {
      FAIL() << where << ": still in the class after the " << owed << " plies the table gave";
    }
    if (r->moves.empty()) {
      if (owed > 0) {
        ASSERT_LE(stretch, owed) << where << ": the game ended after " << stretch << " plies, the table gave " << owed;
      }
      if (score) margin += a_to_move ? v.terminal_value(p) : -v.terminal_value(p);
      else ASSERT_EQ(a_to_move, target < 0) << where << ": the side that lost had a move left";
      break;
    }
    if (!seen.insert(p).second) {
      // A repetition: only endless play, worth 0, may repeat a position.
      ASSERT_EQ(r->value, 0) << where << ": a position worth " << r->value << " came back at ply " << ply;
      ++tally.endless;
      break;
    }
    const MoveValue* pick = &r->moves.front();
    if (r->value <= 0) {  // the adversary: a value-optimal move, back to a seen position when it can
      std::vector<const MoveValue*> best, back;
      for (const MoveValue& m : r->moves)
        if (m.value == r->value) {
          best.push_back(&m);
          if (!m.child.game_over && seen.count(m.child.next)) back.push_back(&m);
        }
      const auto& from = back.empty() ? best : back;
      pick = from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
    }
    const Child& c = pick->child;
    const bool exit = c.game_over || c.same_side || v.class_of(c.next) != v.class_of(p);
    ++stretch;
    if (exit) {
      if (owed > 0) {
        ASSERT_LE(stretch, owed) << where << ": a stretch of " << stretch << " plies, the table gave " << owed;
      }
      tally.longest_stretch = std::max(tally.longest_stretch, stretch);
      ++tally.exits;
      stretch = 0;
      owed = -1;
      seen.clear();  // no position before an exit can come back
    }
    if (score) margin += (a_to_move ? 1 : -1) * (c.gain_mover - c.gain_opponent);
    if (c.game_over) break;
    if (!c.same_side) a_to_move = !a_to_move;
    p = c.next;
  }
  if (score) {
    EXPECT_EQ(margin, target) << where << ": realised " << margin << ", the table gave " << target;
  }
  ++tally.games;
}

class Realise : public ::testing::TestWithParam<Game> {};

TEST_P(Realise, EveryGameRealisesTheValue) {
  const Game& g = GetParam();
  TempDir dir;
  const VariantPtr v = generate_into(g, dir.path);
  auto tb = Tablebase::open(dir.path);
  ASSERT_TRUE(tb);
  std::mt19937_64 rng(31);
  Tally tally;
  for (int i = 0; i < g.games; ++i) {
    play(**tb, *v, random_position(**tb, *v, rng), rng, tally);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(tally.games, g.games);
  std::printf("%s: %d games, %d exits, %d ended in endless play (worth 0), longest stretch %d plies\n", g.spec.c_str(),
              tally.games, tally.exits, tally.endless, tally.longest_stretch);
}

INSTANTIATE_TEST_SUITE_P(
    Games, Realise,
    ::testing::Values(Game{"oware", 9, 3000}, Game{"djenon-aboure", 8, 2000}, Game{"kotu-baendum", 5, 2000},
                      Game{"cenne:4:4", 7, 2000}, Game{"cenne:7:7", 8, 1000},
                      Game{"--from=enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S", 10, 2000},
                      Game{"kalah:4:empty", 9, 2000},
                      Game{"--from=imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S", 10, 1000}),
    [](const ::testing::TestParamInfo<Game>& param) {
      std::string n = param.param.spec.substr(0, param.param.spec.find_first_of(": "));
      if (n.starts_with("--from=")) n = n.substr(7);
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n + "_" + std::to_string(param.index);
    });

// The distance files do not depend on the threads.
TEST(Distances, SameBytesWithOneAndTwoThreads) {
  TempDir one, two;
  const Game g{"oware", 9, 0};
  const VariantPtr v = generate_into(g, one.path, 1);
  generate_into(g, two.path, 2);
  EXPECT_GT(expect_same_files(one.path, two.path, ".mtz"), 0);
}

// The level method's distances (SolveOptions::distances: each level in rounds by
// distance) are solve_distances's (one pass over the moves, then breadth-first
// levels over the kept edges), class by class, on 1 and 2 threads.
TEST(Distances, LevelsFindTheSameDistancesAsTheirOwnSolver) {
  const VariantPtr v = variant("oware");
  for (const int threads : {1, 2}) {
    SolvedClasses solved;
    int compared = 0;
    for (const ClassKey& k : v->solving_order(10)) {
      SolveOptions so;
      so.threads = threads;
      so.method = SolveOptions::Method::Levels;
      std::vector<std::uint8_t> found;
      so.distances = &found;
      auto values = solve_class(*v, k, solved, so);
      ASSERT_TRUE(values) << values.error().message;
      auto own = solve_distances(*v, **values, solved, so);
      ASSERT_TRUE(own) << own.error().message;
      ASSERT_EQ(found.size(), own->size()) << to_string(k, v->pits());
      EXPECT_TRUE(found == *own) << "class " << to_string(k, v->pits()) << ", " << threads << " threads";
      compared += found == *own && !found.empty();
      solved.add(*values);
    }
    EXPECT_EQ(compared, 11);
  }
}

// The sweeps' kept in-class children (SolveOptions::kept_children) give the distances
// that playing every move gives, class by class, on 1 and 2 threads; with room for
// the kept ranks of only some pieces (rank_cache_bytes), listed and unlisted pieces
// mix in one class. The edges written to a spill file (SolveOptions::spill_dir) give
// them too.
TEST(Distances, SweepsKeptChildrenGiveTheSameDistances) {
  TempDir spill;
  int unlisted = 0;
  for (const auto& [spec, seeds] : {std::pair{"kotu-baendum", 6}, std::pair{"cenne:4:4", 6}, std::pair{"djenon-aboure", 7}}) {
    const VariantPtr v = variant(spec);
    for (const int threads : {1, 2}) {
      SolvedClasses solved;
      int listed = 0, compared = 0;
      for (const ClassKey& k : v->solving_order(seeds)) {
        SolveOptions so;
        so.threads = threads;
        so.method = SolveOptions::Method::Sweeps;
        if (compared % 2) so.rank_cache_bytes = 16 << 10;
        std::vector<std::int8_t> exits;
        KeptChildren kept;
        so.best_exits = &exits;
        so.kept_children = &kept;
        auto values = solve_class(*v, k, solved, so);
        ASSERT_TRUE(values) << values.error().message;
        for (const auto& piece : kept.pieces) (piece.listed ? listed : unlisted) += 1;
        auto with = solve_distances(*v, **values, solved, so, &exits, nullptr, &kept);
        ASSERT_TRUE(with) << with.error().message;
        auto played = solve_distances(*v, **values, solved, so);
        ASSERT_TRUE(played) << played.error().message;
        EXPECT_TRUE(*with == *played) << spec << " class " << to_string(k, v->pits()) << ", " << threads << " threads";
        SolveOptions to_disk = so;  // the edges through a spill file, as generate under a budget
        to_disk.spill_dir = spill.path;
        auto spilled = solve_distances(*v, **values, solved, to_disk);
        ASSERT_TRUE(spilled) << spilled.error().message;
        EXPECT_TRUE(*spilled == *played) << spec << " class " << to_string(k, v->pits()) << " with the edges on disk";
        // Listed pieces given back (generate's last resort under a budget,
        // fit_distance_pass): every other listed piece plays its moves, edges on disk.
        KeptChildren half = kept;
        int given = 0;
        for (auto& piece : half.pieces)
          if (piece.listed && given++ % 2 == 0) piece = KeptChildren::Piece{};
        auto mixed = solve_distances(*v, **values, solved, to_disk, &exits, nullptr, &half);
        ASSERT_TRUE(mixed) << mixed.error().message;
        EXPECT_TRUE(*mixed == *played) << spec << " class " << to_string(k, v->pits()) << " with pieces given back";
        ++compared;
        solved.add(*values);
      }
      EXPECT_GT(listed, 0) << spec;
    }
  }
  EXPECT_GT(unlisted, 0);
}

// The worked example of fit_distance_pass (lower_store.h): the edges go to disk first,
// then the last listed pieces whose lists outweigh their edges on disk.
TEST(Distances, FitDistancePassGivesBackTheLastListedPieces) {
  KeptChildren kept;
  kept.pieces.resize(5);
  for (std::size_t k = 2; k < 5; ++k) {
    kept.pieces[k].listed = true;
    kept.pieces[k].ranks.reserve((20 + 10 * (k - 2)) * 512);  // 40, 60, 80 KiB
  }
  bool on_disk = true;
  std::uint64_t given = 9;
  EXPECT_EQ(fit_distance_pass(&kept, 20480, 500000, on_disk, given), 466944u);
  EXPECT_FALSE(on_disk);
  EXPECT_EQ(given, 0u);
  EXPECT_EQ(fit_distance_pass(&kept, 20480, 401408, on_disk, given), 401408u);
  EXPECT_TRUE(on_disk);
  EXPECT_EQ(given, 0u);
  EXPECT_EQ(fit_distance_pass(&kept, 20480, 350000, on_disk, given), 335872u);
  EXPECT_TRUE(on_disk);
  EXPECT_EQ(given, 1u);
  EXPECT_FALSE(kept.pieces[4].listed);
  EXPECT_TRUE(kept.pieces[3].listed);
  // Not enough even with every piece given back: all go, the need stays above room.
  EXPECT_EQ(fit_distance_pass(&kept, 20480, 1000, on_disk, given), 9u * 20480 + 4u * 20480);
  EXPECT_EQ(given, 2u);
  // No kept lists (the level method, or none listed): the edges of every position.
  EXPECT_EQ(fit_distance_pass(nullptr, 20480, 1000, on_disk, given), 9u * 20480 + 4u * 20480);
  EXPECT_EQ(given, 0u);
}

// Under a memory budget (generate --memory-mb) the distance pass after the sweeps
// fits its own arrays when it starts, apart from the value solve: it reads no lower
// class (the value solve kept each position's best exit), so they leave memory for
// it and come back whole for the next class's value solve. Djenon-aboure up to 10 at
// 6 MiB: every value solve finds its lower classes whole (no page read through the
// cache, as without distances), the distance passes of 9 and 10 seeds (21 bytes a
// position: 3.5 and 7.4 MB) page them out, and the files are the same. (Counted in
// the value solve's fit, the distances' arrays had paged the lower classes out for
// the value solve itself.)
TEST(Distances, MemoryBudgetFitsTheDistancePassApart) {
  TempDir free, values, budget;
  const Game g{"djenon-aboure", 10, 0};
  const VariantPtr v = generate_into(g, free.path);
  for (const bool with : {false, true}) {
    GenerateOptions opt;
    opt.max_seeds = g.max_seeds;
    opt.out = with ? budget.path : values.path;
    opt.threads = 2;
    opt.memory_bytes = std::uint64_t{6} << 20;
    opt.distances = with;
    auto r = generate(*v, opt);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->cache_misses, 0u) << (with ? "with" : "without") << " distances";
    if (with)
      EXPECT_GT(r->paged_classes, 0);
    else
      EXPECT_EQ(r->paged_classes, 0);
  }
  EXPECT_EQ(expect_same_files(free.path, budget.path, ".mtz"), g.max_seeds + 1);
  EXPECT_EQ(expect_same_files(free.path, budget.path, ".mtb"), g.max_seeds + 1);
}

// A resumed generate writes the distance files that are missing, the same bytes.
TEST(Distances, ResumeMakesTheMissingFiles) {
  TempDir dir;
  const Game g{"oware", 6, 0};
  generate_into(g, dir.path);
  const fs::path file = dir.path / table_file_name("oware", ClassKey{0, 5}, TableContent::Distances);
  const auto bytes = slurp(file);
  ASSERT_FALSE(bytes.empty());
  fs::remove(file);
  generate_into(g, dir.path);
  EXPECT_EQ(slurp(file), bytes);
}

// Without distance files the probe says so and orders by value alone.
TEST(Distances, AbsentFilesAreReported) {
  TempDir dir;
  const Game g{"oware", 4, 0};
  generate_into(g, dir.path);
  for (const auto& e : fs::directory_iterator(dir.path))
    if (e.path().extension() == ".mtz") fs::remove(e.path());
  auto tb = Tablebase::open(dir.path);
  ASSERT_TRUE(tb);
  auto pp = parse_position("oware 1,0,0,1,0,0/0,0,0,1,0,0 S");
  ASSERT_TRUE(pp);
  auto r = (*tb)->probe(*pp->variant, pp->position);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->distances);
  EXPECT_TRUE(r->distances_missing);
}

// A distance file under a value file's name (or the reverse) is refused.
TEST(Distances, ContentIsChecked) {
  TempDir dir;
  generate_into(Game{"oware", 3, 0}, dir.path);
  const VariantPtr v = variant("oware");
  const ClassKey key{0, 3};
  const fs::path mtz = dir.path / table_file_name("oware", key, TableContent::Distances);
  const fs::path mtb = dir.path / table_file_name("oware", key);
  EXPECT_TRUE(TableFile::open(mtz, *v, key, TableContent::Distances));
  auto wrong = TableFile::open(mtz, *v, key, TableContent::Values);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, TableError::Mismatch);
  EXPECT_FALSE(TableFile::open(mtb, *v, key, TableContent::Distances));
}

// The give-back of fit_distance_pass in a whole generation (generate_classes): the
// value solves keep every in-class child (rank_cache_bytes unbounded, through the
// loop's solve hook, as a generous budget would), and the budget then leaves the
// distance passes of the large classes too little room even with their edges on
// disk, so listed pieces go back to playing their moves. The files are those of a
// generation without a budget.
TEST(Distances, GenerateGivesBackListedPiecesThatDoNotFit) {
  TempDir free, tight;
  const Game g{"kotu-baendum", 7, 0};
  const VariantPtr v = generate_into(g, free.path, 1);
  GenerateOptions opt;
  opt.max_seeds = g.max_seeds;
  opt.out = tight.path;
  opt.threads = 1;
  opt.distances = true;
  opt.memory_bytes = std::uint64_t{2} << 20;
  ClassLoopHooks hooks;
  hooks.solve = [&](int, const ClassIndex& index, const SolvedClasses& solved, const SolveOptions& so, SolveStats& stats) {
    SolveOptions all = so;
    all.rank_cache_bytes = std::numeric_limits<std::uint64_t>::max();
    all.exits_read = nullptr;
    all.spill_dir.clear();
    return solve_class(*v, index, solved, all, &stats);
  };
  SolvedClasses solved;
  auto r = generate_classes(*v, v->solving_order(g.max_seeds), opt, solved, nullptr, hooks);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GT(r->unlisted_pieces, 0u);
  EXPECT_GT(expect_same_files(free.path, tight.path, ".mtz"), 0);
  EXPECT_GT(expect_same_files(free.path, tight.path, ".mtb"), 0);
}

}  // namespace
}  // namespace mancala::test
