// Cenne (docs/rules/cenne.md): hand-worked turns for every clause, the worked turns
// of docs/rules/, golden perft numbers, and a cross-check against the naive reference
// implementation in tests/reference/naive_cenne.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "mancala/perft.h"
#include "reference/naive_cenne.h"
#include "variants/kotu_cenne_support.h"

using namespace mancala;
using kc_test::turns;

namespace {

using Lines = std::vector<std::string>;

std::string first_turn(const std::string& text) {
  const Lines t = turns(text);
  return t.empty() ? "(none)" : t[0];
}

}  // namespace

// ---- docs/rules/ -------------------------------------------------------------

TEST(Cenne, ExamplesStart) {
  EXPECT_EQ(turns("cenne:7:7 4,4,4,4,4,4,4/4,4,4,4,4,4,4 S"),
            (Lines{
                "0 -> cenne:7:7 1,5,5,5,0,5,5/5,5,0,5,5,5,5 N | 0 0",
                "1 -> cenne:7:7 5,1,5,5,5,0,5/5,5,5,0,5,5,5 N | 0 0",
                "2 -> cenne:7:7 5,5,1,5,5,5,0/5,5,5,5,0,5,5 N | 0 0",
                "3 -> cenne:7:7 5,5,5,1,5,5,5/0,5,5,5,5,0,5 N | 0 0",
                "4 -> cenne:7:7 5,5,5,5,1,5,5/5,0,5,5,5,5,0 N | 0 0",
                "5 -> cenne:7:7 0,5,5,5,5,1,5/5,5,0,5,5,5,5 N | 0 0",
                "6 -> cenne:7:7 5,0,5,5,5,5,1/5,5,5,0,5,5,5 N | 0 0",
            }));
}

TEST(Cenne, ExamplesClaim) {
  EXPECT_EQ(turns("cenne:7:7 2,1,1,0,1,1,0/2,1,0,0,0,0,0 S"),
            (Lines{
                "0 -> cenne:7:7 0,2,0,1,0,2,1/2,1,0,0,0,0,0 N | 0 0",
                "1 -> cenne:7:7 2,0,0,1,0,2,1/2,1,0,0,0,0,0 N | 0 0",
                "2 -> cenne:7:7 2,1,0,1,1,1,0/2,1,0,0,0,0,0 N | 0 0",
                "4 -> cenne:7:7 2,1,1,0,0,0,1/0,2,1,1,0,0,0 N | 0 0",
                "5 -> cenne:7:7 2,1,1,0,1,0,1/2,1,0,0,0,0,0 N | 0 0",
                "claim -> (game over) | 9 0",
            }));
}

// ---- Sowing -------------------------------------------------------------------

TEST(Cenne, LapEndings) {
  // held 0: the turn ends.
  EXPECT_EQ(first_turn("cenne:7:7 0,0,0,0,0,1,0/1,0,0,0,0,0,0 S"), "5 -> cenne:7:7 0,0,0,0,0,0,1/1,0,0,0,0,0,0 N | 0 0");
  // held 1 (now 2): relay its 2 seeds.
  EXPECT_EQ(first_turn("cenne:7:7 1,1,0,0,0,0,0/0,0,0,0,0,0,1 S"), "0 -> cenne:7:7 0,0,1,1,0,0,0/0,0,0,0,0,0,1 N | 0 0");
  // held 4 (now 5): relay.
  EXPECT_EQ(first_turn("cenne:7:7 1,4,0,0,0,0,0/0,0,0,0,0,0,1 S"), "0 -> cenne:7:7 0,0,1,1,1,1,1/0,0,0,0,0,0,1 N | 0 0");
}

TEST(Cenne, MurteIsSkippedUnlessLastSeed) {
  EXPECT_EQ(first_turn("cenne:7:7 2,3,0,0,0,0,0/0,0,0,0,0,0,1 S"), "0 -> cenne:7:7 0,3,1,1,0,0,0/0,0,0,0,0,0,1 N | 0 0");
  // An opponent's murte is passed too (and is no drop into his row).
  EXPECT_EQ(first_turn("cenne:7:7 0,0,0,0,0,0,3/3,0,0,0,0,0,1 S"), "6 -> cenne:7:7 0,0,0,0,0,0,0/3,1,1,1,0,0,1 N | 0 0");
}

TEST(Cenne, WanasuThenNextPitEmptyOrNot) {
  // The last seed makes 4: captured; pit 2 is empty: the turn ends.
  EXPECT_EQ(first_turn("cenne:7:7 1,3,0,0,0,0,0/0,0,0,0,0,0,1 S"), "0 -> cenne:7:7 0,0,0,0,0,0,0/0,0,0,0,0,0,1 N | 4 0");
  // Pit 2 holds 2: lifted and sown on (pits 3 and 4).
  EXPECT_EQ(first_turn("cenne:7:7 1,3,2,0,0,0,0/0,0,0,0,0,0,1 S"), "0 -> cenne:7:7 0,0,0,1,1,0,0/0,0,0,0,0,0,1 N | 4 0");
  // Pit 2 holds 3: lifted whatever its number.
  EXPECT_EQ(first_turn("cenne:7:7 1,3,3,0,0,0,0/0,0,0,0,0,0,1 S"), "0 -> cenne:7:7 0,0,0,1,1,1,0/0,0,0,0,0,0,1 N | 4 0");
  // The next pit is in the opponent's row.
  EXPECT_EQ(first_turn("cenne:7:7 0,0,0,0,0,1,3/2,0,0,0,0,0,1 S"), "5 -> cenne:7:7 0,0,0,0,0,0,0/0,1,1,0,0,0,1 N | 4 0");
}

// ---- Atappe, forced reply, jeppe ------------------------------------------------------

TEST(Cenne, AtappeForcedReplyAndJeppe) {
  // 5 seeds from pit 0, every other pit 3: the seeds refill pit 0 to 3, then with 2 in
  // hand every pit holds 3: both go into South's rightmost pit 3.
  EXPECT_EQ(first_turn("cenne:4:4 5,3,3,3/3,3,3,3 S"), "0 -> cenne:4:4 3,3,3,5/3,3,3,3 N atappe | 0 0");
  // The emptied start pit is passed as a murte as well: 26 seeds from pit 0 fill every
  // pit to 3 in three rounds, and the last 2 cannot be placed.
  EXPECT_EQ(first_turn("cenne:4:4 26,0,0,0/0,0,0,0 S"), "0 -> cenne:4:4 3,3,3,5/3,3,3,3 N atappe | 0 0");
  // The forced reply (the only move, no claim): North lifts pit 7, one seed to pit 3,
  // one back, one to pit 6 which holds 4 and is captured; pit 7 is the jeppe.
  EXPECT_EQ(turns("cenne:4:4 3,3,3,5/3,3,3,3 N atappe"), (Lines{"reply -> cenne:4:4 3,3,3,6/3,3,0,1 S jeppe=7 | 4 0"}));
  // The jeppe lasts through South's turn...
  for (const auto& line : turns("cenne:4:4 3,3,3,6/3,3,0,1 S jeppe=7"))
    EXPECT_NE(line.find("jeppe=7"), std::string::npos) << line;
  // ...forbids pit 7 on North's next turn, and is gone after it.
  EXPECT_EQ(turns("cenne:4:4 0,3,3,6/3,3,0,1 N jeppe=7"), (Lines{
                                                              "0 -> cenne:4:4 1,3,3,6/0,3,1,2 S | 0 0",
                                                              "1 -> cenne:4:4 1,3,3,6/3,0,1,2 S | 0 0",
                                                          }));
  // A jeppe that is the only non-empty pit: no legal move, the round ends.
  const auto pp = kc_test::parse_or_die("cenne:7:7 0,0,0,0,0,0,1/2,0,0,0,0,0,0 S jeppe=6");
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  EXPECT_TRUE(kids.empty());
  EXPECT_EQ(pp.variant->terminal_value(pp.position), -3);
}

// ---- Claim and the end of a round -----------------------------------------------------

TEST(Cenne, ClaimAvailableOrNot) {
  // One quiet turn only (pit 5 -> 6); then pit 6 must feed North: no claim.
  EXPECT_EQ(turns("cenne:7:7 0,0,0,0,0,1,0/1,0,0,0,0,0,0 S"), (Lines{"5 -> cenne:7:7 0,0,0,0,0,0,1/1,0,0,0,0,0,0 N | 0 0"}));
  // Three quiet turns are not enough: 1 seed in pit 3 walks to 4, 5, 6, then feeds.
  const Lines three = turns("cenne:7:7 0,0,0,1,0,0,0/1,0,0,0,0,0,0 S");
  EXPECT_EQ(three.size(), 1u);
  // Four are: pit 2 walks to 3, 4, 5, 6.
  const Lines four = turns("cenne:7:7 0,0,1,0,0,0,0/1,0,0,0,0,0,0 S");
  ASSERT_EQ(four.size(), 2u);
  EXPECT_EQ(four[1], "claim -> (game over) | 2 0");  // every seed on the board
  // Skipping the opponent's murte is not a drop: 2 seeds from pit 6 pass North's
  // murtes 7..13 and land in pits 0 and 1.
  const Lines murte = turns("cenne:7:7 0,0,0,0,0,0,2/3,3,3,3,3,3,3 S");
  ASSERT_EQ(murte.size(), 2u);
  EXPECT_EQ(murte[0], "6 -> cenne:7:7 1,1,0,0,0,0,0/3,3,3,3,3,3,3 N | 0 0");
  EXPECT_EQ(murte[1], "claim -> (game over) | 23 0");
  // The start has no claim.
  EXPECT_EQ(turns("cenne:7:7 4,4,4,4,4,4,4/4,4,4,4,4,4,4 S").size(), 7u);
}

TEST(Cenne, NoLegalMoveEndsTheRound) {
  const auto pp = kc_test::parse_or_die("cenne:7:7 0,0,0,0,0,0,0/1,2,0,0,0,0,0 S");
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  EXPECT_TRUE(kids.empty());
  EXPECT_EQ(pp.variant->terminal_value(pp.position), -3);
}

// ---- Boards with unequal sides --------------------------------------------------------

TEST(Cenne, UnequalSidesFlipWithTheSideToMove) {
  const auto pp = kc_test::parse_or_die("cenne:7:5 4,4,4,4,4,4,4/4,4,4,4,4 N");
  const Variant& v = *pp.variant;
  EXPECT_TRUE(pp.position.flags & kFlipped);
  EXPECT_EQ(v.south_pits(pp.position), 5);  // North's 5 pits are the mover's
  EXPECT_EQ(v.rotate(v.rotate(pp.position)), pp.position);
  EXPECT_EQ(format_position(v, pp.position, Side::North), "cenne:7:5 4,4,4,4,4,4,4/4,4,4,4,4 N");
  // North's pit 0 (pit 7 on the board): relays around both rows (hand-worked).
  EXPECT_EQ(first_turn("cenne:7:5 4,4,4,4,4,4,4/4,4,4,4,4 N"), "0 -> cenne:7:5 6,6,6,0,1,6,6/2,7,1,6,1 S | 0 0");
  EXPECT_EQ(turns("cenne:7:5 4,4,4,4,4,4,4/4,4,4,4,4 N").size(), 5u);
  // Equal sides never carry the flag.
  const auto eq = kc_test::parse_or_die("cenne:6:6 4,4,4,4,4,4/4,4,4,4,4,4 N");
  EXPECT_EQ(eq.position.flags, 0);
}

TEST(Cenne, ParseErrors) {
  auto err = [](const std::string& t) {
    auto p = parse_position(t);
    return p ? std::string("(accepted)") : p.error().message;
  };
  EXPECT_NE(err("cenne:7:7 5,5,5,5,5,5,5/5,5,5,5,5,5,5 S").find("70 seeds"), std::string::npos);
  EXPECT_NE(err("cenne:4:4 5,5,5,5/4,4,4,1 S").find("33 seeds"), std::string::npos);
  EXPECT_NE(err("cenne:4:4 3,3,3,5/3,3,3,3 N atappe jeppe=7").find("no jeppe"), std::string::npos);
  EXPECT_NE(err("cenne:4:4 3,3,3,4/3,3,3,3 N atappe").find("every pit"), std::string::npos);
  EXPECT_NE(err("cenne:7:7 1,1,1,1,1,1,1/1,1,1,1,1,1,1 S jeppe=3").find("rightmost"), std::string::npos);
  EXPECT_NE(err("cenne:7:7 0S,1,1,1,1,1,1/1,1,1,1,1,1,1 S").find("no tied"), std::string::npos);
  EXPECT_NE(err("cenne:7:7 1,1,1,1,1,1,1/1,1,1,1,1,1,1 S first").find("first"), std::string::npos);
  EXPECT_NE(err("cenne:7:5 1,1,1,1,1,1/1,1,1,1,1,1 S").find("7 pits"), std::string::npos);
  EXPECT_EQ(err("cenne:4:4 3,3,3,6/3,3,0,1 S jeppe=7"), "(accepted)");
}

// ---- Cross-check against the naive implementation -------------------------------------

namespace {

struct Board {
  int a, b;
};
const Board kBoards[] = {{7, 7}, {7, 5}, {5, 7}, {4, 4}, {6, 4}};

std::vector<std::string> engine_keys(const Cenne& v, const Position& p) {
  std::vector<Child> kids;
  v.children(p, kids);
  std::vector<std::string> out;
  for (const Child& c : kids) {
    EXPECT_FALSE(c.same_side);
    EXPECT_EQ(c.gain_opponent, 0);
    out.push_back(to_string(c.move) + " " + (c.game_over ? "over" : kc_test::key_of(c.next, v.pits())) + " " +
                  std::to_string(c.gain_mover));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> naive_keys(const Cenne& v, const Position& p) {
  const naive_cenne::Game g{v.south_in_play(), v.north_in_play()};
  std::vector<std::string> out;
  for (const auto& r : naive_cenne::moves(g, p))
    out.push_back(r.move + " " + (r.over ? "over" : kc_test::key_of(r.next, v.pits())) + " " + std::to_string(r.gain_mover));
  std::sort(out.begin(), out.end());
  return out;
}

std::uint64_t naive_perft(const naive_cenne::Game& g, const Position& p, int depth) {
  if (depth == 0) return 1;
  const auto kids = naive_cenne::moves(g, p);
  if (depth == 1) return kids.size();
  std::uint64_t n = 0;
  for (const auto& k : kids)
    if (!k.over) n += naive_perft(g, k.next, depth - 1);
  return n;
}

Position random_position(const Cenne& v, std::mt19937_64& rng) {
  Position p;
  const int n = v.pits();
  if (v.south_in_play() != v.north_in_play() && rng() % 2) p.flags = kFlipped;
  const int sp = v.south_pits(p);
  const auto kind = rng() % 10;
  if (kind == 0) {  // an atappe reply is due (sometimes malformed: no move)
    for (int i = 0; i < n; ++i) p.pits[static_cast<std::size_t>(i)] = 3;
    p.pits[static_cast<std::size_t>(n - 1)] = static_cast<Seeds>(3 + 2 + rng() % static_cast<unsigned>(n - 1));
    if (rng() % 4 == 0) p.pits[static_cast<std::size_t>(sp - 1)] = 2;
    p.flags |= kAtappe;
    return p;
  }
  int total = static_cast<int>(rng() % 3 == 0 ? rng() % static_cast<unsigned>(v.total_seeds() + 1) : rng() % 20);
  if (kind <= 3) {  // nearly all 3s: murte, atappe, endless turns
    for (int i = 0; i < n; ++i) p.pits[static_cast<std::size_t>(i)] = 3;
    total = static_cast<int>(rng() % 5);
    if (rng() % 3 == 0) p.pits[static_cast<std::size_t>(rng() % static_cast<unsigned>(n))] = 0;
  }
  while (total-- > 0) ++p.pits[static_cast<std::size_t>(rng() % static_cast<unsigned>(n))];
  if (kind == 4) p.jeppe = static_cast<std::int8_t>(rng() % 2 ? sp - 1 : n - 1);
  return p;
}

}  // namespace

TEST(Cenne, PerftGoldenAndNaive) {
  struct Golden {
    Board board;
    std::vector<std::uint64_t> counts;
  };
  const Golden golden[] = {
      {{7, 7}, {7, 40, 248, 1569, 9207, 51627}},
      {{5, 4}, {5, 16, 76, 271, 1071, 3166}},
  };
  for (const auto& g : golden) {
    const Cenne v(g.board.a, g.board.b);
    const Position s = v.start();
    for (int d = 1; d <= 6; ++d) {
      EXPECT_EQ(perft(v, s, d), g.counts[static_cast<std::size_t>(d - 1)]) << v.name() << " depth " << d;
      if (d <= 5) {
        EXPECT_EQ(naive_perft({g.board.a, g.board.b}, s, d), g.counts[static_cast<std::size_t>(d - 1)])
            << v.name() << " naive, depth " << d;
      }
    }
  }
}

TEST(Cenne, RandomPositionsMatchNaive) {
  std::mt19937_64 rng(424242);
  int endless = 0, atappe = 0, claims = 0, replies = 0, jeppes = 0, compared = 0;
  std::vector<Child> kids;
  for (const Board& b : kBoards) {
    const Cenne v(b.a, b.b);
    for (int i = 0; i < 1500; ++i) {
      const Position p = random_position(v, rng);
      const auto e = engine_keys(v, p);
      ASSERT_EQ(e, naive_keys(v, p)) << v.name() << " " << kc_test::key_of(p, v.pits());
      ++compared;
      int startable = 0;
      for (int j = 0; j < v.south_pits(p); ++j) startable += p.pits[static_cast<std::size_t>(j)] > 0 && j != p.jeppe;
      const bool claim = std::any_of(e.begin(), e.end(), [](const std::string& k) { return k.rfind("claim", 0) == 0; });
      if (!(p.flags & kAtappe) && static_cast<int>(e.size()) - claim < startable) ++endless;
      for (const auto& k : e) {
        atappe += k.find(" f" + std::to_string(kAtappe)) != std::string::npos ||
                  k.find(" f" + std::to_string(kAtappe | kFlipped)) != std::string::npos;
        claims += k.rfind("claim", 0) == 0;
        replies += k.rfind("reply", 0) == 0;
      }
      jeppes += p.jeppe >= 0;
    }
    for (int game = 0; game < 60; ++game) {
      Position p = v.start();
      for (int ply = 0; ply < 300; ++ply) {
        ASSERT_EQ(engine_keys(v, p), naive_keys(v, p)) << v.name() << " " << kc_test::key_of(p, v.pits());
        ++compared;
        v.children(p, kids);
        if (kids.empty()) break;
        const Child& c = kids[rng() % kids.size()];
        if (c.game_over) break;
        ASSERT_EQ(p.seeds_in(0, v.pits()), c.next.seeds_in(0, v.pits()) + c.gain_mover);
        p = c.next;
      }
    }
  }
  EXPECT_GT(compared, 10000);
  EXPECT_GT(endless, 0);
  EXPECT_GT(atappe, 0);
  EXPECT_GT(claims, 0);
  EXPECT_GT(replies, 0);
  EXPECT_GT(jeppes, 0);
}

TEST(Cenne, ClassesAreOrderedAndMatchTabled) {
  std::mt19937_64 rng(99);
  std::vector<Child> kids;
  for (const Board& b : kBoards) {
    const Cenne v(b.a, b.b);
    const auto cls = v.solving_order(v.total_seeds());
    std::map<std::pair<std::uint64_t, int>, std::size_t> where;
    for (std::size_t i = 0; i < cls.size(); ++i) where[{cls[i].state, cls[i].seeds}] = i;
    EXPECT_EQ(where.size(), cls.size());
    EXPECT_GE(v.min_seeds_jeppe_opponent(), 3 * v.pits() - 2);
    for (int i = 0; i < 1500; ++i) {
      const Position p = random_position(v, rng);
      const ClassKey from = v.class_of(p);
      const bool listed = where.count({from.state, from.seeds}) > 0;
      if (v.tabled(p)) { EXPECT_TRUE(listed) << kc_test::key_of(p, v.pits()); }
      if (!listed) continue;
      v.children(p, kids);
      for (const Child& c : kids) {
        if (c.game_over) continue;
        const ClassKey to = v.class_of(c.next);
        ASSERT_TRUE(where.count({to.state, to.seeds})) << to_string(to, v.pits());
        if (to == from) {  // a move inside the class: nothing leaves play, the side flips
          EXPECT_EQ(c.gain_mover + c.gain_opponent, 0);
          EXPECT_FALSE(c.same_side);
          continue;
        }
        EXPECT_LT(where.at({to.state, to.seeds}), where.at({from.state, from.seeds}))
            << v.name() << " " << to_string(from, v.pits()) << " -> " << to_string(to, v.pits());
      }
    }
  }
}

// The class list of every board is closed under moves at every --max-seeds, not only
// for the whole game: a child of a listed class is listed (a jeppe class holds both
// jeppe states, so once one is listed its captures reach the lower jeppe counts).
TEST(Cenne, ClassListIsClosedAtEveryMaxSeeds) {
  std::mt19937_64 rng(7);
  std::vector<Child> kids;
  for (int a = 4; a <= 7; ++a)
    for (int b = 4; b <= 7; ++b) {
      const Cenne v(a, b);
      // (class, child class) pairs of random positions, jeppe ones included.
      std::vector<std::pair<ClassKey, ClassKey>> edges;
      for (int i = 0; i < 3000; ++i) {
        Position p = random_position(v, rng);
        if (i % 2 && !(p.flags & kAtappe)) p.jeppe = static_cast<std::int8_t>(v.pits() - 1);
        if (!v.check(p).empty()) continue;
        v.children(p, kids);
        for (const Child& c : kids)
          if (!c.game_over) edges.emplace_back(v.class_of(p), v.class_of(c.next));
      }
      for (int max = 0; max <= v.total_seeds(); ++max) {
        const auto cls = v.solving_order(max);
        const std::set<std::pair<std::uint64_t, int>> listed = [&] {
          std::set<std::pair<std::uint64_t, int>> s;
          for (const ClassKey& k : cls) s.insert({k.state, k.seeds});
          return s;
        }();
        for (const auto& [from, to] : edges) {
          if (!listed.count({from.state, from.seeds})) continue;
          ASSERT_TRUE(listed.count({to.state, to.seeds}))
              << v.name() << " up to " << max << ": " << to_string(from, v.pits()) << " -> " << to_string(to, v.pits());
        }
      }
    }
}
