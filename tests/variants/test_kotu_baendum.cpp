// Kotu-baendum (docs/rules/kotu-baendum.md): hand-worked turns for every clause, the worked
// turns of docs/rules/, golden perft numbers, and a cross-check against the naive
// reference implementation in tests/reference/naive_kotu_baendum.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "mancala/perft.h"
#include "reference/naive_kotu_baendum.h"
#include "variants/kotu_cenne_support.h"

using namespace mancala;
using kc_test::turns;

namespace {

const KotuBaendum kRules;

using Lines = std::vector<std::string>;

}  // namespace

// ---- docs/rules/ -------------------------------------------------------------

TEST(KotuBaendum, ExamplesFirstMove) {
  const Lines got = turns("kotu-baendum 4,4,4,4,4,4,4/4,4,4,4,4,4,4 S first");
  // The counterclockwise moves are those of docs/rules/; each has its clockwise twin.
  EXPECT_EQ(got, (Lines{
                     "0 -> kotu-baendum 1,5,5,5,0,5,5/5,5,0,5,5,5,5 N | 0 0",
                     "0:cw -> kotu-baendum 5,0,5,5,5,5,1/5,5,5,0,5,5,5 N | 0 0",
                     "6 -> kotu-baendum 5,0,5,5,5,5,1/5,5,5,0,5,5,5 N | 0 0",
                     "6:cw -> kotu-baendum 1,5,5,5,0,5,5/5,5,0,5,5,5,5 N | 0 0",
                 }));
}

TEST(KotuBaendum, ExamplesTieIsMade) {
  EXPECT_EQ(turns("kotu-baendum 0,1,1,0,0,0,1/3,1,0,2,1,0,1 S"),
            (Lines{
                "1 -> kotu-baendum 0,0,0,1,1,0,1/3,1,0,2,1,0,1 N | 0 0",
                "2 -> kotu-baendum 0,1,0,1,0,0,1/3,1,0,2,1,0,1 N | 0 0",
                "6 -> kotu-baendum 0,1,1,0,0,0,0/0S,1,0,2,1,0,1 N | 4 0",
            }));
}

TEST(KotuBaendum, StartCarriesFirstMoveFlag) {
  const Position s = kRules.start();
  EXPECT_EQ(s.flags, kFirstMove);
  EXPECT_EQ(format_position(kRules, s, Side::South), "kotu-baendum 4,4,4,4,4,4,4/4,4,4,4,4,4,4 S first");
  EXPECT_FALSE(kRules.tabled(s));
}

// ---- Sowing -------------------------------------------------------------------

TEST(KotuBaendum, LapEndsOnEmptyPit) {
  EXPECT_EQ(turns("kotu-baendum 0,0,1,0,0,0,0/0,0,0,0,0,0,1 S"),
            (Lines{"2 -> kotu-baendum 0,0,0,1,0,0,0/0,0,0,0,0,0,1 N | 0 0"}));
}

TEST(KotuBaendum, RelayOnTwoThreeAndFiveOrMore) {
  // now 2: relay the 2 seeds of pit 1 to pits 2 and 3.
  EXPECT_EQ(turns("kotu-baendum 1,1,0,0,0,0,0/0,0,0,0,0,0,1 S")[0],
            "0 -> kotu-baendum 0,0,1,1,0,0,0/0,0,0,0,0,0,1 N | 0 0");
  // now 3 (held 2): relay 3 seeds from pit 1.
  EXPECT_EQ(turns("kotu-baendum 1,2,0,0,0,0,0/0,0,0,0,0,0,1 S")[0],
            "0 -> kotu-baendum 0,0,1,1,1,0,0/0,0,0,0,0,0,1 N | 0 0");
  // now 5 (held 4): relay 5 seeds from pit 1: pits 2..6.
  EXPECT_EQ(turns("kotu-baendum 1,4,0,0,0,0,0/0,0,0,0,0,0,1 S")[0],
            "0 -> kotu-baendum 0,0,1,1,1,1,1/0,0,0,0,0,0,1 N | 0 0");
}

TEST(KotuBaendum, ThreeIsSkippedUnlessLastSeed) {
  // 2 seeds from pit 0: pit 1 holds 3 and is passed, pits 2 and 3 get one each.
  EXPECT_EQ(turns("kotu-baendum 2,3,0,0,0,0,0/0,0,0,0,0,0,1 S")[0],
            "0 -> kotu-baendum 0,3,1,1,0,0,0/0,0,0,0,0,0,1 N | 0 0");
  // The last seed lands on a 3: capture of 4 (pit 1 is not an end hole: no tie).
  EXPECT_EQ(turns("kotu-baendum 1,3,0,0,0,0,0/0,0,0,0,0,0,1 S")[0],
            "0 -> kotu-baendum 0,0,0,0,0,0,0/0,0,0,0,0,0,1 N | 4 0");
  // A skipped 3, then the last seed lands on another 3.
  EXPECT_EQ(turns("kotu-baendum 2,3,0,3,0,0,0/0,0,0,0,0,0,1 S")[0],
            "0 -> kotu-baendum 0,3,1,0,0,0,0/0,0,0,0,0,0,1 N | 4 0");
  // 3s in the opponent's row are skipped too.
  EXPECT_EQ(turns("kotu-baendum 0,0,0,0,0,0,3/3,0,0,0,0,0,1 S")[0],
            "6 -> kotu-baendum 0,0,0,0,0,0,0/3,1,1,1,0,0,1 N | 0 0");
}

TEST(KotuBaendum, EmptiedStartPitIsSkippedAtThree) {
  // 44 seeds from pit 0 with pit 13 tied by North: three rounds fill every open pit to
  // 3 (the tie takes 3); then pits 1..12 are passed, the tie takes 1 and the last seed
  // lands on pit 0, which holds 3 again: capture, and pit 0 is tied by South.
  EXPECT_EQ(turns("kotu-baendum 44,0,0,0,0,0,0/0,0,0,0,0,0,0N S"),
            (Lines{"0 -> kotu-baendum 0S,3,3,3,3,3,3/3,3,3,3,3,3,0N N | 4 4"}));
}

TEST(KotuBaendum, CaptureOnEndHoleTiesIt) {
  // Pit 6 of South: captured and tied by South.
  EXPECT_EQ(turns("kotu-baendum 0,0,0,0,0,1,3/0,0,0,0,0,0,1 S")[0],
            "5 -> kotu-baendum 0,0,0,0,0,0,0S/0,0,0,0,0,0,1 N | 4 0");
  // Pit 13 of North: from South's pit 6, 7 seeds, the last lands on 13 (held 3).
  EXPECT_EQ(turns("kotu-baendum 0,0,0,0,0,0,7/0,0,0,0,0,0,3 S")[0],
            "6 -> kotu-baendum 0,0,0,0,0,0,0/1,1,1,1,1,1,0S N | 4 0");
}

TEST(KotuBaendum, SeedsSownIntoTiesLeavePlay) {
  // Pit 6 tied by South: one seed to it (South gains 1), the last lands in pit 7.
  EXPECT_EQ(turns("kotu-baendum 0,0,0,0,0,2,0S/0,0,0,1,0,0,0 S"),
            (Lines{"5 -> kotu-baendum 0,0,0,0,0,0,0S/1,0,0,1,0,0,0 N | 1 0"}));
  // The last seed in a tie of North: the turn sits down, North gains it.
  EXPECT_EQ(turns("kotu-baendum 0,0,0,0,0,1,0N/0,0,0,1,0,0,0 S"),
            (Lines{"5 -> kotu-baendum 0,0,0,0,0,0,0N/0,0,0,1,0,0,0 N | 0 1"}));
  // A tie made, then sown into by the opponent: after South ties pit 7, North's pit 13
  // with 8 seeds passes 0..6 and drops one into the tie, which South gains.
  EXPECT_EQ(turns("kotu-baendum 0,0,0,0,0,0,1/3,0,0,0,0,0,8 S")[0],
            "6 -> kotu-baendum 0,0,0,0,0,0,0/0S,0,0,0,0,0,8 N | 4 0");
  EXPECT_EQ(turns("kotu-baendum 0,0,0,0,0,0,0/0S,0,0,0,0,0,8 N"),
            (Lines{"6 -> kotu-baendum 1,1,1,1,1,1,1/0S,0,0,0,0,0,0 S | 0 1"}));
}

TEST(KotuBaendum, NoMoveFromTiedPit) {
  const Lines got = turns("kotu-baendum 0S,1,0,0,0,0,0N/0,0,0,0,0,0,1 S");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].substr(0, 2), "1 ");
}

TEST(KotuBaendum, FirstMoveOnlyFromEndHolesBothDirections) {
  // Clockwise play simulated on the real board, then mirrored to counterclockwise form:
  //   0:cw, 1 seed: into pit 13 (now 2), relay 2: pits 12, 11. Real board
  //   0,0,0,0,0,0,2/0,0,0,0,1,1,0; mirrored 2,0,0,0,0,0,0/0,1,1,0,0,0,0.
  //   6:cw, 2 seeds: pits 5, 4. Real 1,0,0,0,1,1,0/0,0,0,0,0,0,1; mirrored
  //   0,1,1,0,0,0,1/1,0,0,0,0,0,0.
  EXPECT_EQ(turns("kotu-baendum 1,0,0,1,0,0,2/0,0,0,0,0,0,1 S first"),
            (Lines{
                "0 -> kotu-baendum 0,1,0,1,0,0,2/0,0,0,0,0,0,1 N | 0 0",
                "0:cw -> kotu-baendum 2,0,0,1,0,0,0/0,1,1,0,0,0,0 N | 0 0",
                "6 -> kotu-baendum 1,0,0,1,0,0,0/1,1,0,0,0,0,1 N | 0 0",
                "6:cw -> kotu-baendum 0,1,1,1,0,0,1/1,0,0,0,0,0,0 N | 0 0",
            }));
}

TEST(KotuBaendum, MirrorIsAnInvolutionAndSwapsEnds) {
  const auto pp = kc_test::parse_or_die("kotu-baendum 1,2,3,4,5,0,0S/1,2,3,4,5,0,0N S");
  const Position m = KotuBaendum::mirror(pp.position);
  EXPECT_EQ(kc_test::key_of(m, 14), "0S,0,5,4,3,2,1,0N,0,5,4,3,2,1, f0 j-1");
  EXPECT_EQ(KotuBaendum::mirror(m), pp.position);
  // The children of a clockwise first move are the mirrored counterclockwise ones.
  const Position s = kRules.start(2);
  std::vector<Child> kids, mirrored;
  kRules.children(s, kids);
  kRules.children(KotuBaendum::mirror(s), mirrored);
  ASSERT_EQ(kids.size(), 4u);
  ASSERT_EQ(mirrored.size(), 4u);
  EXPECT_EQ(kids[1].next, mirrored[2].next);  // 0:cw on s == 6 on mirror(s)
  EXPECT_EQ(kids[3].next, mirrored[0].next);  // 6:cw on s == 0 on mirror(s)
}

TEST(KotuBaendum, SeedThatCannotBePlacedIsEndless) {
  // Pit 0: 5 seeds, every other pit 3, no tie: the seeds refill pit 0 to 3, then a
  // seed that is not the last finds every pit at 3: the turn is endless, not a move.
  const Lines got = turns("kotu-baendum 5,3,3,3,3,3,3/3,3,3,3,3,3,3 S");
  ASSERT_FALSE(got.empty());
  for (const auto& line : got) EXPECT_NE(line.substr(0, 2), "0 ") << line;
}

TEST(KotuBaendum, NoLegalMoveEndsTheGame) {
  const auto pp = kc_test::parse_or_die("kotu-baendum 0S,0,0,0,0,0,0N/1,2,0,0,0,0,0 S");
  std::vector<Child> kids;
  kRules.children(pp.position, kids);
  EXPECT_TRUE(kids.empty());
  EXPECT_EQ(kRules.terminal_value(pp.position), -3);  // the opponent sweeps the untied pits
}

TEST(KotuBaendum, ParseErrors) {
  auto err = [](const std::string& t) {
    auto p = parse_position(t);
    return p ? std::string("(accepted)") : p.error().message;
  };
  EXPECT_NE(err("kotu-baendum 0,0,0,0S,0,0,0/0,0,0,0,0,0,1 S").find("only the end holes"), std::string::npos);
  EXPECT_NE(err("kotu-baendum 9,9,9,9,9,9,1/1,0,0,0,0,0,1 S").find("57 seeds"), std::string::npos);
  EXPECT_NE(err("kotu-baendum 2S,0,0,0,0,0,0/0,0,0,0,0,0,1 S").find("0 seeds"), std::string::npos);
  EXPECT_NE(err("kotu-baendum 0x,0,0,0,0,0,0/0,0,0,0,0,0,1 S").find("closed"), std::string::npos);
  EXPECT_NE(err("kotu-baendum 3,3,3,3,3,3,3/3,3,3,3,3,3,3 S atappe").find("first"), std::string::npos);
  EXPECT_NE(err("kotu-baendum 0S,3,3,3,3,3,3/3,3,3,3,3,3,3 S first").find("first"), std::string::npos);
  EXPECT_NE(err("kotu-baendum 3,3,3,3,3,3,3/3,3,3,3,3,3,3 S jeppe=6").find("jeppe"), std::string::npos);
  EXPECT_EQ(err("kotu-baendum 0S,3,3,3,3,3,0N/3,3,3,3,3,3,0S S"), "(accepted)");
}

// ---- Classes --------------------------------------------------------------------

TEST(KotuBaendum, ClassesCoverTieStatesInOrder) {
  const auto cls = kRules.classes(3);
  ASSERT_EQ(cls.size(), 81u * 4);
  auto ties = [](const ClassKey& k) {
    int t = 0;
    for (int i = 0; i < 14; ++i) t += ((k.state >> (2 * i)) & 3u) != 0;
    return t;
  };
  for (std::size_t i = 1; i < cls.size(); ++i) {
    ASSERT_LE(cls[i - 1].seeds, cls[i].seeds);
    if (cls[i - 1].seeds == cls[i].seeds) { EXPECT_GE(ties(cls[i - 1]), ties(cls[i])); }
  }
}

// ---- Cross-check against the naive implementation -------------------------------------

namespace {

std::vector<std::string> engine_keys(const Position& p) {
  std::vector<Child> kids;
  kRules.children(p, kids);
  std::vector<std::string> out;
  for (const Child& c : kids) {
    EXPECT_FALSE(c.same_side);
    EXPECT_FALSE(c.game_over);
    out.push_back(to_string(c.move) + " " + kc_test::key_of(c.next, 14) + " " + std::to_string(c.gain_mover) + "/" +
                  std::to_string(c.gain_opponent));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> naive_keys(const Position& p) {
  std::vector<std::string> out;
  for (const auto& r : naive_kotu::moves(p))
    out.push_back(r.move + " " + kc_test::key_of(r.next, 14) + " " + std::to_string(r.gain_mover) + "/" +
                  std::to_string(r.gain_opponent));
  std::sort(out.begin(), out.end());
  return out;
}

std::uint64_t naive_perft(const Position& p, int depth) {
  if (depth == 0) return 1;
  const auto kids = naive_kotu::moves(p);
  if (depth == 1) return kids.size();
  std::uint64_t n = 0;
  for (const auto& k : kids) n += naive_perft(k.next, depth - 1);
  return n;
}

Position random_position(std::mt19937_64& rng) {
  Position p;
  int ties = 0;
  for (int h : {0, 6, 7, 13}) {
    const auto r = rng() % 8;
    if (r < 2) p.marks[static_cast<std::size_t>(h)] = r == 0 ? Mark::South : Mark::North;
    ties += r < 2;
  }
  const int cap = 56 - 4 * ties;
  int total = static_cast<int>(rng() % 3 == 0 ? rng() % static_cast<unsigned>(cap + 1) : rng() % 21);
  std::vector<int> open;
  for (int i = 0; i < 14; ++i)
    if (p.marks[static_cast<std::size_t>(i)] == Mark::None) open.push_back(i);
  if (rng() % 3 == 0) {  // many 3s: skipping and endless turns
    if (rng() % 2) total = cap - static_cast<int>(rng() % 12);
    for (int i : open)
      if (total >= 3 && rng() % 5 != 0) {
        p.pits[static_cast<std::size_t>(i)] = 3;
        total -= 3;
      }
  }
  while (total-- > 0) ++p.pits[static_cast<std::size_t>(open[rng() % open.size()])];
  if (ties == 0 && rng() % 10 == 0) p.flags = kFirstMove;
  if (ties == 0 && rng() % 12 == 0) {  // every pit 3 but one of the mover's: endless turns
    for (int i = 0; i < 14; ++i) p.pits[static_cast<std::size_t>(i)] = 3;
    p.pits[rng() % 7] = static_cast<Seeds>(3 + rng() % 12);
  }
  return p;
}

}  // namespace

TEST(KotuBaendum, PerftGoldenAndNaive) {
  const std::uint64_t golden[] = {4, 24, 152, 946, 5720, 34358};
  const Position s = kRules.start();
  for (int d = 1; d <= 6; ++d) {
    EXPECT_EQ(perft(kRules, s, d), golden[d - 1]) << "depth " << d;
    if (d <= 5) { EXPECT_EQ(naive_perft(s, d), golden[d - 1]) << "naive, depth " << d; }
  }
}

TEST(KotuBaendum, RandomPositionsMatchNaive) {
  std::mt19937_64 rng(20240611);
  int endless_seen = 0, compared = 0;
  for (int i = 0; i < 6000; ++i) {
    const Position p = random_position(rng);
    ASSERT_EQ(kRules.check(p), "") << kc_test::key_of(p, 14);
    const auto e = engine_keys(p);
    ASSERT_EQ(e, naive_keys(p)) << kc_test::key_of(p, 14);
    ++compared;
    int startable = 0;
    for (int j = 0; j < 7; ++j)
      startable += p.pits[static_cast<std::size_t>(j)] > 0 && p.marks[static_cast<std::size_t>(j)] == Mark::None;
    if (!(p.flags & kFirstMove) && static_cast<int>(e.size()) < startable) ++endless_seen;
  }
  EXPECT_GT(endless_seen, 0) << "no endless turn was exercised";
  // Random games from the start: realistic positions with ties made along the way.
  std::vector<Child> kids;
  for (int game = 0; game < 300; ++game) {
    Position p = kRules.start();
    for (int ply = 0; ply < 300; ++ply) {
      ASSERT_EQ(engine_keys(p), naive_keys(p)) << kc_test::key_of(p, 14);
      ++compared;
      kRules.children(p, kids);
      if (kids.empty()) break;
      const Child& c = kids[rng() % kids.size()];
      // Seeds are conserved: in play, or credited to a player.
      ASSERT_EQ(p.seeds_in(0, 14), c.next.seeds_in(0, 14) + c.gain_mover + c.gain_opponent);
      p = c.next;
    }
  }
  EXPECT_GT(compared, 15000);
}

TEST(KotuBaendum, MovesOnlyReachEarlierClassesOrTheirOwn) {
  const auto cls = kRules.solving_order(56);
  std::map<std::pair<std::uint64_t, int>, std::size_t> where;
  for (std::size_t i = 0; i < cls.size(); ++i) where[{cls[i].state, cls[i].seeds}] = i;
  std::mt19937_64 rng(7);
  std::vector<Child> kids;
  for (int i = 0; i < 3000; ++i) {
    Position p = random_position(rng);
    p.flags = 0;
    const ClassKey from = kRules.class_of(p);
    kRules.children(p, kids);
    for (const Child& c : kids) {
      const ClassKey to = kRules.class_of(c.next);
      if (to == from) {  // a move inside the class (both orientations): nothing leaves play
        EXPECT_EQ(c.gain_mover + c.gain_opponent, 0);
        EXPECT_FALSE(c.same_side);
        continue;
      }
      EXPECT_LT(where.at({to.state, to.seeds}), where.at({from.state, from.seeds}));
    }
  }
}
