// Enkeshui (docs/rules/enkeshui.md): worked turns of docs/rules/, one test per clause,
// impossible positions, golden perft numbers, and a cross-check against the naive
// implementation of tests/reference/naive_enkeshui.h on random positions.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include "mancala/notation.h"
#include "mancala/perft.h"
#include "mancala/rules/enkeshui.h"
#include "reference/naive_enkeshui.h"

using namespace mancala;

namespace {

ParsedPosition parse(const std::string& text) {
  auto p = parse_position(text);
  EXPECT_TRUE(p) << text << ": " << (p ? "" : p.error().message);
  return *p;
}

// Every turn of a position in the format of docs/rules/ (what `mancala-tb moves` prints).
std::vector<std::string> turns(const std::string& text) {
  const ParsedPosition pp = parse(text);
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  std::vector<std::string> lines;
  for (const Child& c : kids) {
    EXPECT_FALSE(c.same_side);
    EXPECT_FALSE(c.game_over);
    char buf[64];
    std::snprintf(buf, sizeof buf, "  move %-14s -> ", pp.variant->move_name(c.move).c_str());
    lines.push_back(buf + format_position(*pp.variant, c.next, opposite(pp.side)) +
                    "    gains: mover " + std::to_string(c.gain_mover) + ", opponent " + std::to_string(c.gain_opponent));
  }
  return lines;
}

// The single turn from `pit`, as "POSITION gains M/O" (fails if there is not exactly one).
std::string turn(const std::string& text, int pit) {
  const ParsedPosition pp = parse(text);
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  std::string found;
  int n = 0;
  for (const Child& c : kids)
    if (c.move.pit() == pit) {
      ++n;
      found = format_position(*pp.variant, c.next, opposite(pp.side)) + " gains " + std::to_string(c.gain_mover) + "/" +
              std::to_string(c.gain_opponent);
    }
  EXPECT_EQ(n, 1) << text << " pit " << pit;
  return found;
}

std::string check_error(const std::string& text) {
  auto p = parse_position(text);
  EXPECT_FALSE(p) << text << " should be rejected";
  return p ? std::string() : p.error().message;
}

}  // namespace

// ---- docs/rules/enkeshui.md, reproduced exactly ---------------------------------------------

TEST(EnkeshuiExamples, StartLayoutA) {
  EXPECT_EQ(turns("enkeshui:8 0,0,4,4,4,4,4,4/4,4,4,4,4,4,0,0 S"),
            (std::vector<std::string>{
                "  move 2              -> enkeshui:8 1,0,0,5,5,5,0,5/5,5,5,0,5,5,1,1 N    gains: mover 0, opponent 0",
                "  move 3              -> enkeshui:8 1,1,4,0,5,5,5,0/5,5,5,5,0,5,1,1 N    gains: mover 0, opponent 0",
                "  move 4              -> enkeshui:8 1,1,0,5,1,6,6,0/1,6,6,6,6,1,1,1 N    gains: mover 0, opponent 0",
                "  move 5              -> enkeshui:8 0,0,4,4,4,0,5,5/5,0,5,5,5,5,1,0 N    gains: mover 0, opponent 0",
                "  move 6              -> enkeshui:8 0,0,4,4,4,4,0,5/5,5,0,5,5,5,1,1 N    gains: mover 0, opponent 0",
                "  move 7              -> enkeshui:8 1,0,4,4,4,4,4,0/5,5,5,0,5,5,1,1 N    gains: mover 0, opponent 0",
            }));
}

TEST(EnkeshuiExamples, BullsMade) {
  EXPECT_EQ(turns("enkeshui:8 0,0,0,0,1,4,0,0/0,2,1,0,3,1,2,0 S"),
            (std::vector<std::string>{
                "  move 4              -> enkeshui:8 0,0,0,0,0,0,1,1/1,3,0,1,0S,1,2,0 N    gains: mover 4, opponent 0",
                "  move 5              -> enkeshui:8 0,0,0,0,1,0,1,1/1,0,2,1,0S,1,2,0 N    gains: mover 4, opponent 0",
            }));
}

TEST(EnkeshuiExamples, Capture) {
  EXPECT_EQ(turns("enkeshui:8 1,0,1,0,0,1,0,1/0,0,0,0,1,0,2,1 S"),
            (std::vector<std::string>{
                "  move 0              -> enkeshui:8 0,0,1,0,0,1,0,1/0,0,0,0,1,0,0,1 N    gains: mover 3, opponent 0",
                "  move 2              -> enkeshui:8 1,0,0,0,0,1,0,1/0,0,0,0,0,0,2,1 N    gains: mover 2, opponent 0",
                "  move 5              -> enkeshui:8 1,0,1,0,0,0,1,1/0,0,0,0,1,0,2,1 N    gains: mover 0, opponent 0",
                "  move 7              -> enkeshui:8 1,0,1,0,0,1,0,0/1,0,0,0,1,0,2,1 N    gains: mover 0, opponent 0",
            }));
}

TEST(EnkeshuiExamples, DirectionPrivilege) {
  const auto got = turns("enkeshui:8 3,2,2,0,2,3,0,7/0,1,1,1,1,1,1,1 S");
  EXPECT_EQ(got, (std::vector<std::string>{
                     "  move 0              -> enkeshui:8 0,3,3,0,2,3,0,7/0,1,1,1,0,1,1,1 N    gains: mover 2, opponent 0",
                     "  move 1              -> enkeshui:8 3,0,3,0,2,3,0,7/0,1,1,1,0,1,1,1 N    gains: mover 2, opponent 0",
                     "  move 2:ccw          -> enkeshui:8 0S,0S,0,1,0,4,1,0/1,2,2,2,2,2,2,0 N    gains: mover 7, opponent 0",
                     "  move 2:cw,ccw       -> enkeshui:8 0S,2,0,1,0,4,1,0/1,2,2,2,2,0,4,1 N    gains: mover 4, opponent 0",
                     "  move 2:cw,cw,ccw    -> enkeshui:8 3,2,0,1,0,4,1,0/1,2,0,4,4,1,3,0 N    gains: mover 0, opponent 0",
                     "  move 2:cw,cw,cw     -> enkeshui:8 3,2,0,1,0,4,1,1/2,3,0,3,3,0,3,0 N    gains: mover 0, opponent 0",
                     "  move 4              -> enkeshui:8 3,2,2,0,0,4,0,7/0,0,1,1,1,1,1,1 N    gains: mover 2, opponent 0",
                     "  move 5              -> enkeshui:8 3,2,2,0,2,0,1,8/1,1,1,1,1,1,1,1 N    gains: mover 0, opponent 0",
                     "  move 7              -> enkeshui:8 0S,2,2,0,2,3,0,0/1,2,2,2,2,2,0,2 N    gains: mover 4, opponent 0",
                 }));
}

// ---- Start positions ---------------------------------------------------------------

// The traditional description draws North's row as South sees it (pits 2K-1 .. K); in
// circuit order every start position reads the same for both halves.
TEST(Enkeshui, StartPositions) {
  auto start = [](const std::string& spec) {
    auto v = *make_variant(spec);
    return format_position(*v, v->start(), Side::South);
  };
  EXPECT_EQ(start("enkeshui:8"), "enkeshui:8 0,0,4,4,4,4,4,4/0,0,4,4,4,4,4,4 S");
  EXPECT_EQ(start("enkeshui:8:a"), "enkeshui:8 0,0,4,4,4,4,4,4/0,0,4,4,4,4,4,4 S");
  EXPECT_EQ(start("enkeshui:8:b"), "enkeshui:8:b 4,4,4,4,4,4,0,0/4,4,4,4,4,4,0,0 S");
  EXPECT_EQ(start("enkeshui:10"), "enkeshui:10 0,0,0,0,4,4,4,4,4,4/0,0,0,0,4,4,4,4,4,4 S");
  EXPECT_EQ(start("enkeshui:12"), "enkeshui:12 0,3,3,0,3,3,0,3,3,0,3,3/0,3,3,0,3,3,0,3,3,0,3,3 S");
  for (const char* spec : {"enkeshui:8", "enkeshui:8:b", "enkeshui:10", "enkeshui:12"}) {
    auto v = *make_variant(spec);
    EXPECT_EQ(v->start().seeds_in(0, v->pits()), 48) << spec;
    EXPECT_EQ(v->rotate(v->start()), v->start()) << spec << " is symmetric under the half turn";
  }
}

// ---- One test per clause of docs/rules/enkeshui.md -----------------------------------------

TEST(Enkeshui, MovesStartFromNonEmptyNonBullPitsOnly) {
  const auto got = turns("enkeshui:8 0,1,0S,0,0,0,0,0/0,0,0,0,0,0,0,1 S");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].find("move 1 "), std::string::npos);
}

TEST(Enkeshui, SeedsSownIntoBullsGoToTheirOwners) {
  // 3 seeds: pit 1 (a North bull), pit 2 (a South bull), pit 3 (empty: the turn ends).
  EXPECT_EQ(turn("enkeshui:8 3,0N,0S,0,0,0,0,0/0,0,0,0,0,0,0,1 S", 0),
            "enkeshui:8 0,0N,0S,1,0,0,0,0/0,0,0,0,0,0,0,1 N gains 1/1");
  // North to move: gains are the mover's (North's) and the opponent's.
  EXPECT_EQ(turn("enkeshui:8 0,0,0,0,0,0,0,1/3,0S,0N,0,0,0,0,0 N", 0),
            "enkeshui:8 0,0,0,0,0,0,0,1/0,0S,0N,1,0,0,0,0 S gains 1/1");
}

TEST(Enkeshui, LastSeedIntoABullEndsTheTurn) {
  EXPECT_EQ(turn("enkeshui:8 2,1,0S,0,0,0,0,0/0,0,0,0,0,0,0,1 S", 0),
            "enkeshui:8 0,2,0S,0,0,0,0,0/0,0,0,0,0,0,0,1 N gains 1/0");
  EXPECT_EQ(turn("enkeshui:8 2,1,0N,0,0,0,0,0/0,0,0,0,0,0,0,1 S", 0),
            "enkeshui:8 0,2,0N,0,0,0,0,0/0,0,0,0,0,0,0,1 N gains 0/1");
}

TEST(Enkeshui, LastSeedOnAThreeMakesABull) {
  // Also on the opponent's side, and after a relay.
  EXPECT_EQ(turn("enkeshui:8 0,0,0,0,0,0,0,1/3,0,0,0,0,0,0,0 S", 7),
            "enkeshui:8 0,0,0,0,0,0,0,0/0S,0,0,0,0,0,0,0 N gains 4/0");
  EXPECT_EQ(turn("enkeshui:8 0,0,0,0,0,1,1,0/3,0,0,0,0,0,0,0 S", 5),
            "enkeshui:8 0,0,0,0,0,0,0,1/0S,0,0,0,0,0,0,0 N gains 4/0");
}

TEST(Enkeshui, LastTwoSeedsOnTwoAndThreeMakeTwoBulls) {
  // Held 2 then 3.
  EXPECT_EQ(turn("enkeshui:8 2,2,3,0,0,0,0,0/0,0,0,0,0,0,0,1 S", 0),
            "enkeshui:8 0,0S,0S,0,0,0,0,0/0,0,0,0,0,0,0,1 N gains 7/0");
  // Held 3 then 2.
  EXPECT_EQ(turn("enkeshui:8 2,3,2,0,0,0,0,0/0,0,0,0,0,0,0,1 S", 0),
            "enkeshui:8 0,0S,0S,0,0,0,0,0/0,0,0,0,0,0,0,1 N gains 7/0");
  // Not when one of the two pits is a bull: pit 1 is a bull, pit 2 held 2 -> relay.
  EXPECT_EQ(turn("enkeshui:8 2,0N,2,0,0,0,0,0/0,0,0,0,0,0,0,1 S", 0),
            "enkeshui:8 0,0N,0,1,1,1,0,0/0,0,0,0,0,0,0,1 N gains 0/1");
  // A one-seed lap has no "last two seeds": pit 1 held 2 -> relay.
  EXPECT_EQ(turn("enkeshui:8 1,2,0,0,0,0,0,0/0,0,0,0,0,0,0,1 S", 0),
            "enkeshui:8 0,0,1,1,1,0,0,0/0,0,0,0,0,0,0,1 N gains 0/0");
}

TEST(Enkeshui, LastSeedIntoAnEmptyOpponentPitEndsTheTurn) {
  EXPECT_EQ(turn("enkeshui:8 0,0,0,0,0,0,0,2/0,0,0,0,0,0,5,5 S", 7),
            "enkeshui:8 0,0,0,0,0,0,0,0/1,1,0,0,0,0,5,5 N gains 0/0");
}

TEST(Enkeshui, CaptureOfTheFacingPitAndTheChain) {
  // Pit 0 -> pit 1 (empty, faces 14: 2 seeds): capture 2 + 1. Pit 2 is empty and faces
  // 13 (3 seeds): captured; pit 3 faces an empty pit: the chain stops.
  EXPECT_EQ(turn("enkeshui:8 1,0,0,0,0,0,0,1/0,4,0,0,0,3,2,0 S", 0),
            "enkeshui:8 0,0,0,0,0,0,0,1/0,4,0,0,0,0,0,0 N gains 6/0");
  // ... and goes on while the facing pits hold seeds: 14, 13, 12.
  EXPECT_EQ(turn("enkeshui:8 1,0,0,0,0,0,0,1/0,0,0,0,4,3,2,0 S", 0),
            "enkeshui:8 0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0 N gains 10/0");
  // The chain runs to the end of the mover's row and no further.
  EXPECT_EQ(turn("enkeshui:8 0,0,0,0,0,1,0,0/1,5,0,0,0,0,0,0 S", 5),
            "enkeshui:8 0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 N gains 7/0");
  // A bull in the mover's row stops the chain; so does a bull facing it.
  EXPECT_EQ(turn("enkeshui:8 0,0,0,0,0,1,0,0S/1,5,0,0,0,0,0,0 S", 5),
            "enkeshui:8 0,0,0,0,0,0,0,0S/1,0,0,0,0,0,0,0 N gains 6/0");
  EXPECT_EQ(turn("enkeshui:8 0,0,0,0,0,1,0,0/1,0N,0,0,0,0,0,0 S", 5),
            "enkeshui:8 0,0,0,0,0,0,1,0/1,0N,0,0,0,0,0,0 N gains 0/0");
}

TEST(Enkeshui, NoCaptureFromAnEmptyFacingPitOrABull) {
  EXPECT_EQ(turn("enkeshui:8 1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,3 S", 0),
            "enkeshui:8 0,1,0,0,0,0,0,0/0,0,0,0,0,0,0,3 N gains 0/0");
  EXPECT_EQ(turn("enkeshui:8 1,0,0,0,0,0,0,0/0,0,0,0,0,0,0N,3 S", 0),
            "enkeshui:8 0,1,0,0,0,0,0,0/0,0,0,0,0,0,0N,3 N gains 0/0");
}

TEST(Enkeshui, NoCaptureAfterARelay) {
  // Pit 0 -> pit 1 (held 1): relay 2 seeds -> pit 2, pit 3 (empty, faces 12: 5 seeds).
  EXPECT_EQ(turn("enkeshui:8 1,1,0,0,0,0,0,0/0,0,0,0,5,0,0,0 S", 0),
            "enkeshui:8 0,0,1,1,0,0,0,0/0,0,0,0,5,0,0,0 N gains 0/0");
}

TEST(Enkeshui, FirstLapWrappingToItsEmptiedPitCanCapture) {
  // 16 seeds from pit 0: one in every other pit, the last back into pit 0 (held 0 as
  // it was emptied); it faces pit 15, which now holds 1.
  EXPECT_EQ(turn("enkeshui:8 16,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S", 0),
            "enkeshui:8 0,1,1,1,1,1,1,1/1,1,1,1,1,1,1,0 N gains 2/0");
}

TEST(Enkeshui, PrivilegeNeedsEveryOpponentPitIncludingBulls) {
  // Pit 7: 9 seeds over 8..15 (15 a South bull: it gets a seed too), then 0 (held 2:
  // relay, with a choice of direction). With 7 seeds the lap stops at 14 and the
  // relay from there feeds 15: no single lap fed all eight, no choice.
  const auto with_all = turns("enkeshui:8 2,0,0,0,0,0,0,9/1,1,1,1,1,1,1,0S S");
  bool choice = false;
  for (const auto& line : with_all) choice = choice || line.find("move 7:") != std::string::npos;
  EXPECT_TRUE(choice);
  const auto short_lap = turns("enkeshui:8 2,0,0,0,0,0,0,7/1,1,1,1,1,1,1,0S S");
  for (const auto& line : short_lap) EXPECT_EQ(line.find("move 7:"), std::string::npos) << line;
}

TEST(Enkeshui, EndlessTurnIsNotAMove) {
  // Pit 4 relays forever; the other turns end.
  const auto got = turns("enkeshui:8 0,1,0,1,2,0,2,1/0,1,0,1,0,1,0,1 S");
  ASSERT_EQ(got.size(), 4u);
  for (const auto& line : got) EXPECT_EQ(line.find("move 4 "), std::string::npos);
}

TEST(Enkeshui, DistinctChoicesWithTheSameResultAreOneMove) {
  std::mt19937 rng(7);
  auto v = *make_variant("enkeshui:8");
  int privileged = 0;
  for (int t = 0; t < 3000; ++t) {
    Position p;
    const int seeds = 4 + static_cast<int>(rng() % 8);
    for (int s = 0; s < seeds; ++s) ++p.pits[rng() % 16];
    p.pits[rng() % 8] = static_cast<Seeds>(8 + rng() % 8);  // a pile that can feed North's whole row
    std::vector<Child> kids;
    v->children(p, kids);
    for (std::size_t i = 0; i < kids.size(); ++i) {
      privileged += kids[i].move.choices() > 0;
      for (std::size_t j = i + 1; j < kids.size(); ++j)
        if (kids[i].move.pit() == kids[j].move.pit()) {
          EXPECT_FALSE(kids[i].next == kids[j].next && kids[i].gain_mover == kids[j].gain_mover &&
                       kids[i].gain_opponent == kids[j].gain_opponent);
        }
    }
  }
  EXPECT_GT(privileged, 0);
}

// Moves from different start pits are different moves, even with the same outcome:
// pit 4 sows its seed into pit 5 and relays its 15 seeds; pit 5 sows its 14 seeds; both
// end with the same board and gains.
TEST(Enkeshui, SameOutcomeFromTwoStartPitsIsTwoMoves) {
  const auto got = turns("enkeshui:8 1,2,2,0,1,14,2,3/0,1,1,3,0N,0,0,1 S");
  const std::string after = "-> enkeshui:8 2,3,3,1,1,0,3,4/1,2,2,4,0N,1,1,2 N    gains: mover 0, opponent 1";
  EXPECT_EQ(got.size(), 7u);
  int same = 0;
  for (const auto& line : got) same += line.find(after) != std::string::npos;
  EXPECT_EQ(same, 2);
  EXPECT_NE(std::find(got.begin(), got.end(), "  move 4              " + after), got.end());
  EXPECT_NE(std::find(got.begin(), got.end(), "  move 5              " + after), got.end());
}

// Reached 2 plies from the enkeshui:8 start: pit 4 has more distinct outcomes than the
// documented limit. children() reports it (std::length_error) instead of a truncated list.
TEST(Enkeshui, TooManyOutcomesIsAnError) {
  const ParsedPosition pp = parse("enkeshui:8 1,1,5,0,1,6,6,6/0,1,1,5,5,5,0,5 S");
  std::vector<Child> kids;
  try {
    pp.variant->children(pp.position, kids);
    ADD_FAILURE() << "no std::length_error";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than " + std::to_string(Enkeshui::kMaxTurnsPerPit) + " distinct outcomes"),
              std::string::npos)
        << e.what();
  }
}

TEST(Enkeshui, NoLegalMoveEndsTheGame) {
  const ParsedPosition pp = parse("enkeshui:8 0,0S,0,0,0N,0,0,0/3,0,0,2,0,0,0S,1 S");
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  EXPECT_TRUE(kids.empty());
  EXPECT_EQ(pp.variant->terminal_value(pp.position), -6);
  const ParsedPosition north = parse("enkeshui:8 4,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 N");
  pp.variant->children(north.position, kids);
  EXPECT_TRUE(kids.empty());
  EXPECT_EQ(north.variant->terminal_value(north.position), -4);
}

TEST(Enkeshui, MovesThatKeepEverythingFlipTheSide) {
  auto v = *make_variant("enkeshui:10");
  std::vector<Child> kids;
  v->children(v->start(), kids);
  for (const Child& c : kids) EXPECT_FALSE(c.same_side);
}

TEST(Enkeshui, LongMoveNames) {
  const Enkeshui e(8, false);
  EXPECT_EQ(e.move_name(Move::sow(2).with_choice(true).with_choice(false)), "2:cw,ccw");
  EXPECT_EQ(e.move_name(Enkeshui::long_move(3, 41)), "3:long#41");
  EXPECT_EQ(Enkeshui::long_move(3, 41).pit(), 3);
}

// ---- Impossible positions ------------------------------------------------------------

TEST(Enkeshui, ImpossiblePositions) {
  EXPECT_NE(check_error("enkeshui:8 0,2S,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S").find("bull and must be written with 0 seeds"), std::string::npos);
  EXPECT_NE(check_error("enkeshui:8 0,0x,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S").find("no closed pits"), std::string::npos);
  EXPECT_NE(check_error("enkeshui:8 9,9,9,9,9,9,0,0/0,0,0,0,0,0,0,0 S").find("54 seeds on the board"), std::string::npos);
  EXPECT_NE(check_error("enkeshui:8 9,9,9,9,9,0S,0,0/0,0,0,0,0,0,0,0 S").find("1 bulls"), std::string::npos);
  EXPECT_NE(check_error("enkeshui:8 4,4,4,4,4,4,4,4/0,0,0,0,0,0,0,0 S first").find("no position flags"), std::string::npos);
  EXPECT_NE(check_error("enkeshui:8 4,4,4,4,4,4,4,4/0,0,0,0,0,0,0,0 S jeppe=3").find("no jeppe"), std::string::npos);
  // Possible: 44 live seeds and one bull, 41 and two.
  EXPECT_TRUE(parse_position("enkeshui:8 8,8,8,8,8,4,0S,0/0,0,0,0,0,0,0,0 S"));
  EXPECT_TRUE(parse_position("enkeshui:8 8,8,8,8,8,1,0S,0N/0,0,0,0,0,0,0,0 S"));
}

// ---- Golden perft numbers --------------------------------------------------------------

// From the start positions, checked against the naive implementation below. (From
// enkeshui:8 at depth 3 a privileged turn has more distinct outcomes than
// Enkeshui::kMaxTurnsPerPit: see TooManyOutcomesIsAnError and docs/rules/enkeshui.md.)
TEST(Enkeshui, PerftGolden) {
  auto count = [](const std::string& spec, int depth) {
    auto v = *make_variant(spec);
    return perft(*v, v->start(), depth);
  };
  EXPECT_EQ(count("enkeshui:8", 1), 6u);
  EXPECT_EQ(count("enkeshui:8", 2), 43u);
  EXPECT_EQ(count("enkeshui:8:b", 3), 215u);
  EXPECT_EQ(count("enkeshui:10", 5), 22895u);
  EXPECT_EQ(count("enkeshui:12", 5), 21224u);
}

// ---- Cross-check against the naive implementation -------------------------------------

namespace {

naive::EnkBoard to_naive(const Position& p, int n) {
  naive::EnkBoard b;
  b.owner.assign(static_cast<std::size_t>(n), '.');
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    b.seeds.push_back(p.pits[u]);
    b.owner[u] = p.marks[u] == Mark::South ? 'S' : p.marks[u] == Mark::North ? 'N' : '.';
  }
  return b;
}

// The engine's turns as naive results per start pit: the board after the turn with South
// as mover. Fails if a start pit lists one outcome twice (distinct choice sequences with
// the same result are one move); different start pits may share an outcome.
std::map<int, std::set<naive::EnkResult>> engine_results(const Variant& v, const Position& p) {
  std::vector<Child> kids;
  v.children(p, kids);
  std::map<int, std::set<naive::EnkResult>> out;
  for (const Child& c : kids) {
    const bool fresh = out[c.move.pit()].insert({to_naive(v.rotate(c.next), v.pits()), c.gain_mover, c.gain_opponent}).second;
    EXPECT_TRUE(fresh) << "two moves of pit " << c.move.pit() << " with the same result, e.g. " << v.move_name(c.move);
  }
  return out;
}

// A naive board turned round: pit i goes to (i + K) mod 2K, bulls change owner.
naive::EnkBoard turned(const naive::EnkBoard& b) {
  const std::size_t n = b.seeds.size(), k = n / 2;
  naive::EnkBoard r = b;
  for (std::size_t i = 0; i < n; ++i) {
    r.seeds[(i + k) % n] = b.seeds[i];
    r.owner[(i + k) % n] = b.owner[i] == 'S' ? 'N' : b.owner[i] == 'N' ? 'S' : '.';
  }
  return r;
}

std::map<int, std::set<naive::EnkResult>> naive_results(const naive::NaiveEnkeshui& nv, const naive::EnkBoard& b, char mover) {
  std::map<int, std::set<naive::EnkResult>> out;
  const int k = nv.k;
  for (int pit = 0; pit < nv.n; ++pit) {
    if (!nv.mine(mover, pit) || b.owner[static_cast<std::size_t>(pit)] != '.' || b.seeds[static_cast<std::size_t>(pit)] == 0) continue;
    // North's results are turned round, so that they read as South's.
    auto& mine = out[mover == 'S' ? pit : pit - k];
    for (const naive::EnkResult& r : nv.turns_from(b, mover, pit))
      mine.insert({mover == 'S' ? r.after : turned(r.after), r.gain_mover, r.gain_opponent});
  }
  return out;
}

std::uint64_t naive_perft(const naive::NaiveEnkeshui& nv, const naive::EnkBoard& b, char mover, int depth) {
  if (depth == 0) return 1;
  const auto rs = nv.turns(b, mover);
  if (depth == 1) return rs.size();
  std::uint64_t n = 0;
  for (const auto& r : rs) n += naive_perft(nv, r.after, mover == 'S' ? 'N' : 'S', depth - 1);
  return n;
}

Position random_position(std::mt19937& rng, int n, int max_seeds, double bull_rate) {
  Position p;
  std::uniform_real_distribution<double> u(0, 1);
  int bulls = 0;
  for (int i = 0; i < n; ++i)
    if (u(rng) < bull_rate) {
      p.marks[static_cast<std::size_t>(i)] = (rng() & 1) ? Mark::South : Mark::North;
      ++bulls;
    }
  const int seeds = static_cast<int>(rng() % static_cast<unsigned>(max_seeds + 1));
  for (int s = 0; s < seeds; ++s) {
    const int i = static_cast<int>(rng() % static_cast<unsigned>(n));
    if (p.marks[static_cast<std::size_t>(i)] == Mark::None) ++p.pits[static_cast<std::size_t>(i)];
  }
  if (rng() % 2) {  // a pile in South's row that can feed North's whole row
    const auto i = static_cast<std::size_t>(rng() % static_cast<unsigned>(n / 2));
    if (p.marks[i] == Mark::None) p.pits[i] = static_cast<Seeds>(p.pits[i] + n / 2 + rng() % 4);
  }
  return p;
}

}  // namespace

TEST(EnkeshuiNaive, PerftAgrees) {
  for (const auto& [spec, depth] : std::vector<std::pair<std::string, int>>{
           {"enkeshui:8", 2}, {"enkeshui:8:b", 3}, {"enkeshui:10", 3}, {"enkeshui:12", 3}}) {
    auto v = *make_variant(spec);
    const naive::NaiveEnkeshui nv(v->pits() / 2);
    EXPECT_EQ(perft(*v, v->start(), depth), naive_perft(nv, to_naive(v->start(), v->pits()), 'S', depth)) << spec;
  }
}

// Random positions stay far below Enkeshui::kMaxTurnsPerPit (at most 16 seeds plus one
// pile of K..K+3 seeds): the largest start pit is reported as `largest` and checked, so
// a change of the generator that came near the limit would show.
TEST(EnkeshuiNaive, RandomPositionsAgree) {
  std::mt19937 rng(20240605);
  int compared = 0, with_choices = 0, with_bulls = 0;
  std::size_t largest = 0;
  for (const char* spec : {"enkeshui:8", "enkeshui:10", "enkeshui:12"}) {
    auto v = *make_variant(spec);
    const int n = v->pits();
    const naive::NaiveEnkeshui nv(n / 2);
    for (int t = 0; t < 1500; ++t) {
      const Position p = random_position(rng, n, t % 3 == 0 ? 16 : 10, t % 2 ? 0.15 : 0.0);
      const std::string text = format_position(*v, p, Side::South);
      std::map<int, std::set<naive::EnkResult>> mine;
      ASSERT_NO_THROW(mine = engine_results(*v, p)) << text;
      const auto theirs = naive_results(nv, to_naive(p, n), 'S');
      ASSERT_EQ(mine, theirs) << text;
      // The same position with North to move, played by the naive code as North.
      const auto north = naive_results(nv, to_naive(v->rotate(p), n), 'N');
      ASSERT_EQ(north, theirs) << text;
      ++compared;
      with_bulls += p.has_marks(n);
      std::vector<Child> kids;
      v->children(p, kids);
      for (const Child& c : kids) with_choices += c.move.choices() > 0;
      for (const auto& [pit, results] : mine) largest = std::max(largest, results.size());
    }
  }
  EXPECT_GT(with_choices, 20);
  EXPECT_GT(with_bulls, 1000);
  EXPECT_EQ(compared, 4500);
  EXPECT_LT(largest, Enkeshui::kMaxTurnsPerPit / 16);
}
