// The foundation of issue 2 for Djenon-aboure, Oware and Kalah (docs/rules/djenon-aboure.md,
// oware.md, kalah.md): hand-worked turns for every clause of the rules, the worked turns of
// docs/rules/, golden perft numbers, a randomized cross-check against the naive
// second implementation (tests/reference/naive_classic.h), and the notation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "mancala/notation.h"
#include "mancala/perft.h"
#include "mancala/rules.h"
#include "mancala/rules/kalah.h"
#include "reference/naive_classic.h"

using namespace mancala;

namespace {

VariantPtr variant(const std::string& spec) {
  auto v = make_variant(spec);
  if (!v) throw std::runtime_error(v.error().message);
  return *v;
}

ParsedPosition parsed(const std::string& text) {
  auto p = parse_position(text);
  if (!p) throw std::runtime_error(p.error().message);
  return *p;
}

// The position and every legal turn, in the format of docs/rules/ (and of
// `mancala-tb moves`): the position after each turn written with its side to move.
std::string moves_text(const std::string& position) {
  const ParsedPosition pp = parsed(position);
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  std::string s = format_position(*pp.variant, pp.position, pp.side) + "\n";
  for (const Child& c : kids) {
    const Side next = c.same_side ? pp.side : opposite(pp.side);
    const std::string after = c.game_over ? "(game over)" : format_position(*pp.variant, c.next, next);
    char line[512];
    std::snprintf(line, sizeof line, "  move %-14s -> %s    gains: mover %d, opponent %d\n",
                  pp.variant->move_name(c.move).c_str(), after.c_str(), c.gain_mover, c.gain_opponent);
    s += line;
  }
  return s;
}

std::vector<Child> children_of(const std::string& position) {
  const ParsedPosition pp = parsed(position);
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  return kids;
}

// The value of a finished game for its side to move (the final sharing of docs/rules/).
Value terminal_of(const std::string& position) {
  const ParsedPosition pp = parsed(position);
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  EXPECT_TRUE(kids.empty()) << position << " is not over";
  return pp.variant->terminal_value(pp.position);
}

// ---- Bridge to the naive implementation --------------------------------------

naive::Game naive_game(const Variant& v) {
  switch (v.id()) {
    case VariantId::DjenonAboure: return naive::Game::DjenonAboure;
    case VariantId::Oware: return naive::Game::Oware;
    case VariantId::Kalah:
      return static_cast<const Kalah&>(v).capture() == Kalah::Capture::Empty ? naive::Game::KalahEmpty
                                                                               : naive::Game::KalahStandard;
    default: throw std::logic_error("no naive rules for " + v.name());
  }
}

std::vector<int> board_of(const Variant& v, const Position& absolute) {
  std::vector<int> b(static_cast<std::size_t>(v.pits()));
  for (int i = 0; i < v.pits(); ++i) b[static_cast<std::size_t>(i)] = absolute.pits[static_cast<std::size_t>(i)];
  return b;
}

Position position_of(const std::vector<int>& b) {
  Position p;
  for (std::size_t i = 0; i < b.size(); ++i) p.pits[i] = static_cast<Seeds>(b[i]);
  return p;
}

// The engine's turns in the naive form: absolute boards, explicit sides, sorted.
std::vector<naive::Turn> engine_turns(const Variant& v, const std::vector<int>& b, char side) {
  const Position absolute = position_of(b);
  const Position p = side == 'S' ? absolute : v.rotate(absolute);
  std::vector<Child> kids;
  with_rules(v, [&](const auto& rules) { rules.children(p, kids); });
  std::vector<naive::Turn> out;
  for (const Child& c : kids) {
    EXPECT_FALSE(c.game_over);  // these games end in a position without turns
    const char next = c.same_side ? side : naive::other(side);
    out.push_back({v.move_name(c.move), board_of(v, next == 'S' ? c.next : v.rotate(c.next)), next, c.gain_mover,
                   c.gain_opponent});
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<naive::Turn> naive_turns(const Variant& v, const std::vector<int>& b, char side) {
  auto t = naive::turns(naive_game(v), b, side);
  std::sort(t.begin(), t.end());
  return t;
}

std::string describe(const Variant& v, const std::vector<int>& b, char side) {
  return v.name() + " " + format_pits(v, position_of(b)) + " " + side;
}

}  // namespace

// =============================================================================
// Djenon-aboure (docs/rules/djenon-aboure.md)
// =============================================================================

TEST(DjenonAboure, FirstSeedBackIntoStartPitAndRelayOn2Before) {
  // Move 0: pit 0 gets 1 back, pit 1 held 2 (now 3): relay; lift 3 from pit 1, one back
  // into it, then pits 2 and 3; pit 3 held 0: the turn ends.
  EXPECT_EQ(moves_text("djenon-aboure 2,2,0,0,0,0/0,0,0,0,0,1 S"),
            "djenon-aboure 2,2,0,0,0,0/0,0,0,0,0,1 S\n"
            "  move 0              -> djenon-aboure 1,1,1,1,0,0/0,0,0,0,0,1 N    gains: mover 0, opponent 0\n"
            "  move 1              -> djenon-aboure 2,1,1,0,0,0/0,0,0,0,0,1 N    gains: mover 0, opponent 0\n");
}

TEST(DjenonAboure, RelayOn4OrMoreBefore) {
  // Move 0: pit 1 held 4 (now 5): relay of 5 seeds from pit 1 (one back into it), the last
  // into pit 5 which held 0.
  EXPECT_EQ(moves_text("djenon-aboure 2,4,0,0,0,0/0,0,0,0,0,1 S"),
            "djenon-aboure 2,4,0,0,0,0/0,0,0,0,0,1 S\n"
            "  move 0              -> djenon-aboure 1,1,1,1,1,1/0,0,0,0,0,1 N    gains: mover 0, opponent 0\n"
            "  move 1              -> djenon-aboure 2,1,1,1,1,0/0,0,0,0,0,1 N    gains: mover 0, opponent 0\n");
}

TEST(DjenonAboure, SingletonsAreNeverMoved) {
  const auto kids = children_of("djenon-aboure 1,1,0,1,2,1/1,1,1,1,1,1 S");
  ASSERT_EQ(kids.size(), 1u);
  EXPECT_EQ(kids[0].move, Move::sow(4));
}

TEST(DjenonAboure, CaptureChainFromNorthsRowIntoSouths) {
  // Move 4: pits 4,5,6 get a seed; pit 6 held 1 (now 2): capture, then backwards pit 5
  // (now 2, South's own row) is captured, pit 4 (now 1) stops the chain.
  // Move 3: pit 4 held 3 (now 4): capture 4; pit 3 holds 1: stop.
  EXPECT_EQ(moves_text("djenon-aboure 0,0,0,2,3,1/1,0,0,0,1,0 S"),
            "djenon-aboure 0,0,0,2,3,1/1,0,0,0,1,0 S\n"
            "  move 3              -> djenon-aboure 0,0,0,1,0,1/1,0,0,0,1,0 N    gains: mover 4, opponent 0\n"
            "  move 4              -> djenon-aboure 0,0,0,2,1,0/0,0,0,0,1,0 N    gains: mover 4, opponent 0\n");
}

TEST(DjenonAboure, CaptureChainFromSouthsRowIntoNorths) {
  // 10 seeds from pit 4 end in pit 1 (held 1, now 2); backwards pit 0 (2) and pit 11
  // (North's, 4) are captured, pit 10 (1) stops the chain.
  EXPECT_EQ(moves_text("djenon-aboure 1,1,0,0,10,0/0,0,0,0,0,3 S"),
            "djenon-aboure 1,1,0,0,10,0/0,0,0,0,0,3 S\n"
            "  move 4              -> djenon-aboure 0,0,0,0,1,1/1,1,1,1,1,0 N    gains: mover 8, opponent 0\n");
}

TEST(DjenonAboure, CaptureChainStopsAfterEveryOtherPitWasLookedAtOnce) {
  // 13 seeds from pit 0: one back into it, one in each other pit, the 13th into pit 0
  // again (held 1, now 2): capture. Every other pit now holds 2: the chain takes all 11
  // and stops when it has looked at every other pit once. The whole board is taken.
  EXPECT_EQ(moves_text("djenon-aboure 13,1,1,1,1,1/1,1,1,1,1,1 S"),
            "djenon-aboure 13,1,1,1,1,1/1,1,1,1,1,1 S\n"
            "  move 0              -> djenon-aboure 0,0,0,0,0,0/0,0,0,0,0,0 N    gains: mover 24, opponent 0\n");
  // The same with North to move (absolute sides: North's pit 6 is his left).
  EXPECT_EQ(moves_text("djenon-aboure 1,1,1,1,1,1/13,1,1,1,1,1 N"),
            "djenon-aboure 1,1,1,1,1,1/13,1,1,1,1,1 N\n"
            "  move 0              -> djenon-aboure 0,0,0,0,0,0/0,0,0,0,0,0 S    gains: mover 24, opponent 0\n");
}

TEST(DjenonAboure, PassWhenTheMoverCannotMoveButTheOpponentCan) {
  EXPECT_EQ(moves_text("djenon-aboure 0,1,1,0,0,1/3,0,0,1,1,1 S"),
            "djenon-aboure 0,1,1,0,0,1/3,0,0,1,1,1 S\n"
            "  move pass           -> djenon-aboure 0,1,1,0,0,1/3,0,0,1,1,1 N    gains: mover 0, opponent 0\n");
}

TEST(DjenonAboure, GameEndsWhenNeitherCanMoveEachTakesHisOwnRow) {
  EXPECT_EQ(terminal_of("djenon-aboure 0,1,1,0,0,1/1,0,0,1,1,1 S"), 3 - 4);
  EXPECT_EQ(terminal_of("djenon-aboure 0,1,1,0,0,1/1,0,0,1,1,1 N"), 4 - 3);
  EXPECT_EQ(terminal_of("djenon-aboure 0,0,0,0,0,0/0,0,0,0,0,0 S"), 0);
}

// Found by a search over random positions with the naive implementation: South's pit 5
// (5 seeds) relays forever; the other moves end.
TEST(DjenonAboure, EndlessTurnIsNotAMove) {
  const std::string pos = "djenon-aboure 1,5,4,5,2,5/1,2,1,2,1,2 S";
  // Evidence independent of both implementations' detectors: 100000 laps never end.
  std::vector<int> b = {1, 5, 4, 5, 2, 5, 1, 2, 1, 2, 1, 2};
  int pit = 5;
  bool ended = false;
  for (int lap = 0; lap < 100000 && !ended; ++lap) {
    int hand = b[pit], at = pit;
    b[pit] = 0;
    for (int k = 0; k < hand; ++k) b[at = (pit + k) % 12] += 1;
    const int before = b[at] - 1;
    if (before == 0 || before == 1 || before == 3) ended = true;
    pit = at;
  }
  EXPECT_FALSE(ended);
  std::vector<int> naive_board = {1, 5, 4, 5, 2, 5, 1, 2, 1, 2, 1, 2};
  int gain = 0;
  EXPECT_FALSE(naive::djenon_sow(naive_board, 5, gain));

  EXPECT_EQ(moves_text(pos),
            "djenon-aboure 1,5,4,5,2,5/1,2,1,2,1,2 S\n"
            "  move 1              -> djenon-aboure 1,1,5,6,3,1/2,3,2,3,0,2 N    gains: mover 2, opponent 0\n"
            "  move 2              -> djenon-aboure 1,5,1,6,3,1/2,3,2,3,0,2 N    gains: mover 2, opponent 0\n"
            "  move 3              -> djenon-aboure 2,1,0,0,5,8/2,1,2,1,2,1 N    gains: mover 6, opponent 0\n"
            "  move 4              -> djenon-aboure 1,5,4,5,1,1/2,3,2,3,0,2 N    gains: mover 2, opponent 0\n");
}

// South's only move (18 seeds in pit 3) is endless: he has no legal move and passes.
TEST(DjenonAboure, OnlyEndlessMovesMeansPass) {
  EXPECT_EQ(moves_text("djenon-aboure 0,1,0,18,1,0/1,5,6,5,4,1 S"),
            "djenon-aboure 0,1,0,18,1,0/1,5,6,5,4,1 S\n"
            "  move pass           -> djenon-aboure 0,1,0,18,1,0/1,5,6,5,4,1 N    gains: mover 0, opponent 0\n");
}

// =============================================================================
// Oware (docs/rules/oware.md)
// =============================================================================

TEST(Oware, LapOf12OrMoreSkipsItsStartPit) {
  // 12 seeds from pit 0: pits 1..11 get one, pit 0 is skipped, the 12th goes to pit 1.
  // The last seed makes an own pit hold 2: no capture.
  EXPECT_EQ(moves_text("oware 12,0,0,0,0,0/1,1,1,1,1,1 S"),
            "oware 12,0,0,0,0,0/1,1,1,1,1,1 S\n"
            "  move 0              -> oware 0,2,1,1,1,1/2,2,2,2,2,2 N    gains: mover 0, opponent 0\n");
  // 12 seeds from pit 5: pits 6..11, 0..4, skip 5, then pit 6 again (0 -> 2): capture 2.
  EXPECT_EQ(moves_text("oware 0,0,0,0,0,12/0,0,0,0,0,1 S"),
            "oware 0,0,0,0,0,12/0,0,0,0,0,1 S\n"
            "  move 5              -> oware 1,1,1,1,1,0/0,1,1,1,1,2 N    gains: mover 2, opponent 0\n");
}

TEST(Oware, CapturesOnlyInTheOpponentsRow) {
  // Move 0 makes South's own pit 1 hold 2: nothing is captured.
  EXPECT_EQ(moves_text("oware 1,1,0,0,0,0/0,0,0,0,0,1 S"),
            "oware 1,1,0,0,0,0/0,0,0,0,0,1 S\n"
            "  move 0              -> oware 0,2,0,0,0,0/0,0,0,0,0,1 N    gains: mover 0, opponent 0\n"
            "  move 1              -> oware 1,0,1,0,0,0/0,0,0,0,0,1 N    gains: mover 0, opponent 0\n");
}

TEST(Oware, CaptureChainStopsAtTheEndOfTheOpponentsRow) {
  // Pits 7 (3) and 6 (2) are captured; South's own pit 5 (3) is not.
  EXPECT_EQ(moves_text("oware 0,0,0,0,3,2/1,2,0,0,0,1 S"),
            "oware 0,0,0,0,3,2/1,2,0,0,0,1 S\n"
            "  move 4              -> oware 0,0,0,0,0,3/0,0,0,0,0,1 N    gains: mover 5, opponent 0\n"
            "  move 5              -> oware 0,0,0,0,3,0/0,0,0,0,0,1 N    gains: mover 5, opponent 0\n");
}

TEST(Oware, CaptureChainStopsAtTheFirstPitNotHolding2Or3) {
  // Pits 9 and 8 (2 each) are captured, pit 7 (1) stops the chain before pit 6 (3).
  EXPECT_EQ(moves_text("oware 0,0,0,0,0,4/2,0,1,1,0,0 S"),
            "oware 0,0,0,0,0,4/2,0,1,1,0,0 S\n"
            "  move 5              -> oware 0,0,0,0,0,0/3,1,0,0,0,0 N    gains: mover 4, opponent 0\n");
}

TEST(Oware, MoveLeavingOpponentEmptyOnlyIfAllDo) {
  // Capturing all of North's seeds (move 5) is not allowed while move 4 feeds him.
  EXPECT_EQ(moves_text("oware 0,0,0,0,1,1/1,0,0,0,0,0 S"),
            "oware 0,0,0,0,1,1/1,0,0,0,0,0 S\n"
            "  move 4              -> oware 0,0,0,0,0,2/1,0,0,0,0,0 N    gains: mover 0, opponent 0\n");
  // ... but it is when every move does so.
  EXPECT_EQ(moves_text("oware 0,0,0,0,0,1/1,0,0,0,0,0 S"),
            "oware 0,0,0,0,0,1/1,0,0,0,0,0 S\n"
            "  move 5              -> oware 0,0,0,0,0,0/0,0,0,0,0,0 N    gains: mover 2, opponent 0\n");
  // Not feeding an empty opponent (move 0) is not allowed while move 5 feeds him.
  EXPECT_EQ(moves_text("oware 1,0,0,0,0,1/0,0,0,0,0,0 S"),
            "oware 1,0,0,0,0,1/0,0,0,0,0,0 S\n"
            "  move 5              -> oware 1,0,0,0,0,0/1,0,0,0,0,0 N    gains: mover 0, opponent 0\n");
  // ... but it is when no move can feed him.
  EXPECT_EQ(moves_text("oware 1,0,0,0,0,0/0,0,0,0,0,0 S"),
            "oware 1,0,0,0,0,0/0,0,0,0,0,0 S\n"
            "  move 0              -> oware 0,1,0,0,0,0/0,0,0,0,0,0 N    gains: mover 0, opponent 0\n");
}

TEST(Oware, MoverWithoutSeedsEndsTheGameOpponentTakesAll) {
  EXPECT_EQ(terminal_of("oware 0,0,0,0,0,0/1,2,0,0,0,0 S"), -3);
  EXPECT_EQ(terminal_of("oware 0,1,0,0,0,0/0,0,0,0,0,0 N"), -1);
  EXPECT_EQ(terminal_of("oware 0,0,0,0,0,0/0,0,0,0,0,0 S"), 0);
}

// =============================================================================
// Kalah (docs/rules/kalah.md)
// =============================================================================

TEST(Kalah, LastSeedInOwnStoreMovesAgain) {
  const auto kids = children_of("kalah:6:empty 4,4,4,4,4,4/4,4,4,4,4,4 S");
  ASSERT_EQ(kids.size(), 6u);
  for (const Child& c : kids) EXPECT_EQ(c.same_side, c.move == Move::sow(2)) << to_string(c.move);
  // A move's value is its gain plus (not minus) the child's value when the mover moves again.
  const Child& again = kids[2];
  EXPECT_EQ(move_value(GameKind::Score, again, 5), 1 + 5);
  EXPECT_EQ(move_value(GameKind::Score, kids[0], 5), 0 - 5);
}

TEST(Kalah, CaptureOptionsDifferOnAnEmptyFacingPit) {
  // Move 0 ends in South's empty pit 1, facing pit 6 is empty.
  EXPECT_EQ(moves_text("kalah:4:empty 1,0,0,0/1,1,0,1 S"),
            "kalah:4:empty 1,0,0,0/1,1,0,1 S\n"
            "  move 0              -> kalah:4:empty 0,0,0,0/1,1,0,1 N    gains: mover 1, opponent 0\n");
  EXPECT_EQ(moves_text("kalah:4:standard 1,0,0,0/1,1,0,1 S"),
            "kalah:4:standard 1,0,0,0/1,1,0,1 S\n"
            "  move 0              -> kalah:4:standard 0,1,0,0/1,1,0,1 N    gains: mover 0, opponent 0\n");
}

TEST(Kalah, BothOptionsCaptureANonEmptyFacingPit) {
  for (const char* opt : {"empty", "standard"}) {
    const std::string v = std::string("kalah:4:") + opt;
    EXPECT_EQ(moves_text(v + " 1,0,0,0/1,5,5,1 S"),
              v + " 1,0,0,0/1,5,5,1 S\n" + "  move 0              -> " + v +
                  " 0,0,0,0/1,5,0,1 N    gains: mover 6, opponent 0\n");
  }
}

TEST(Kalah, CaptureOnlyOnTheMoversOwnSide) {
  // Move 3: one seed into the store, the last into North's empty pit 4: no capture.
  EXPECT_EQ(moves_text("kalah:4:empty 0,0,0,2/0,0,0,1 S"),
            "kalah:4:empty 0,0,0,2/0,0,0,1 S\n"
            "  move 3              -> kalah:4:empty 0,0,0,0/1,0,0,1 N    gains: mover 1, opponent 0\n");
}

TEST(Kalah, OpponentsStoreSkippedStartPitNotSkipped) {
  // 5 seeds from pit 1: store, pits 2, 3, (North's store skipped), pit 0, pit 1 (the
  // emptied start pit, now 1): capture it with the facing pit 2 (2 seeds): 1 + 3 = 4.
  EXPECT_EQ(moves_text("kalah:2:empty 0,5/1,1 S"),
            "kalah:2:empty 0,5/1,1 S\n"
            "  move 1              -> kalah:2:empty 1,0/0,2 N    gains: mover 4, opponent 0\n");
}

// The solver's kernel moves one side alone (Kalah::side_move, class_solver.h): on any
// other side, the move then the capture test give sow()'s board, gain and extra move.
TEST(Kalah, SideMoveIsSowOnAnyOtherSide) {
  std::mt19937 rng(13);
  for (const char* spec : {"kalah:4:empty", "kalah:4:standard", "kalah:6:empty", "kalah:6:standard"}) {
    const auto v = variant(spec);
    const auto& k = dynamic_cast<const Kalah&>(*v);
    const int m = k.pits_per_side();
    for (int trial = 0; trial < 5000; ++trial) {
      Seeds b[16] = {};
      const unsigned most = trial % 3 == 0 ? 21 : 4;  // 20 seeds a pit: laps (under 256 on the board)
      for (int j = 0; j < 2 * m; ++j) b[j] = static_cast<Seeds>(rng() % most);
      std::uint64_t x = 0, y = 0;
      std::memcpy(&x, b, static_cast<std::size_t>(m));
      std::memcpy(&y, b + m, static_cast<std::size_t>(m));
      for (int i = 0; i < m; ++i) {
        if (b[i] == 0) continue;
        Seeds c[16] = {};
        const Kalah::Sowing s = k.sow(b, i, c);
        const Kalah::SideMove d = k.side_move(x, i);
        std::uint64_t own = d.own, other = y + d.other;
        int gain = d.store;
        if (d.last >= 0) {
          const int facing = m - 1 - d.last, f = static_cast<int>((other >> (8 * facing)) & 0xFF);
          if (k.captures(f)) {
            gain += f + 1;
            other &= ~(std::uint64_t{0xFF} << (8 * facing));
            own &= ~(std::uint64_t{0xFF} << (8 * d.last));
          }
        }
        Seeds e[16] = {};
        std::memcpy(e, d.again ? &own : &other, static_cast<std::size_t>(m));
        std::memcpy(e + m, d.again ? &other : &own, static_cast<std::size_t>(m));
        EXPECT_EQ(gain, s.gain) << spec << " pit " << i;
        EXPECT_EQ(d.again, s.again) << spec << " pit " << i;
        EXPECT_EQ(std::memcmp(c, e, sizeof c), 0) << spec << " pit " << i;
      }
    }
  }
}

TEST(Kalah, GameEndsWhenASideIsEmptyEachTakesHisOwn) {
  EXPECT_EQ(terminal_of("kalah:6:empty 0,0,0,0,0,0/1,2,3,0,0,0 S"), -6);
  EXPECT_EQ(terminal_of("kalah:6:empty 1,2,0,0,0,0/0,0,0,0,0,0 S"), 3);
  EXPECT_EQ(terminal_of("kalah:4:empty 0,0,0,0/1,0,0,1 N"), 2);
  EXPECT_EQ(terminal_of("kalah:6:standard 0,0,0,0,0,0/0,0,0,0,0,0 S"), 0);
  // An extra move that empties the mover's side ends the game too.
  EXPECT_EQ(moves_text("kalah:2:empty 0,1/3,0 S"),
            "kalah:2:empty 0,1/3,0 S\n"
            "  move 1              -> kalah:2:empty 0,0/3,0 S    gains: mover 1, opponent 0\n");
  EXPECT_EQ(terminal_of("kalah:2:empty 0,0/3,0 S"), -3);
}

// =============================================================================
// docs/rules/, reproduced exactly
// =============================================================================

TEST(ClassicExamples, DjenonAboureStart) {
  EXPECT_EQ(moves_text("djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S"), R"(djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S
  move 0              -> djenon-aboure 2,6,6,0,5,5/5,1,5,5,5,1 N    gains: mover 2, opponent 0
  move 1              -> djenon-aboure 1,2,6,6,0,5/5,5,1,5,5,5 N    gains: mover 2, opponent 0
  move 2              -> djenon-aboure 5,1,2,6,6,0/5,5,5,1,5,5 N    gains: mover 2, opponent 0
  move 3              -> djenon-aboure 5,5,1,2,6,6/0,5,5,5,1,5 N    gains: mover 2, opponent 0
  move 4              -> djenon-aboure 5,5,5,1,2,6/6,0,5,5,5,1 N    gains: mover 2, opponent 0
  move 5              -> djenon-aboure 1,5,5,5,1,2/6,6,0,5,5,5 N    gains: mover 2, opponent 0
)");
}

TEST(ClassicExamples, OwareStart) {
  EXPECT_EQ(moves_text("oware 4,4,4,4,4,4/4,4,4,4,4,4 S"), R"(oware 4,4,4,4,4,4/4,4,4,4,4,4 S
  move 0              -> oware 0,5,5,5,5,4/4,4,4,4,4,4 N    gains: mover 0, opponent 0
  move 1              -> oware 4,0,5,5,5,5/4,4,4,4,4,4 N    gains: mover 0, opponent 0
  move 2              -> oware 4,4,0,5,5,5/5,4,4,4,4,4 N    gains: mover 0, opponent 0
  move 3              -> oware 4,4,4,0,5,5/5,5,4,4,4,4 N    gains: mover 0, opponent 0
  move 4              -> oware 4,4,4,4,0,5/5,5,5,4,4,4 N    gains: mover 0, opponent 0
  move 5              -> oware 4,4,4,4,4,0/5,5,5,5,4,4 N    gains: mover 0, opponent 0
)");
}

TEST(ClassicExamples, KalahEmptyStart) {
  EXPECT_EQ(moves_text("kalah:6:empty 4,4,4,4,4,4/4,4,4,4,4,4 S"), R"(kalah:6:empty 4,4,4,4,4,4/4,4,4,4,4,4 S
  move 0              -> kalah:6:empty 0,5,5,5,5,4/4,4,4,4,4,4 N    gains: mover 0, opponent 0
  move 1              -> kalah:6:empty 4,0,5,5,5,5/4,4,4,4,4,4 N    gains: mover 0, opponent 0
  move 2              -> kalah:6:empty 4,4,0,5,5,5/4,4,4,4,4,4 S    gains: mover 1, opponent 0
  move 3              -> kalah:6:empty 4,4,4,0,5,5/5,4,4,4,4,4 N    gains: mover 1, opponent 0
  move 4              -> kalah:6:empty 4,4,4,4,0,5/5,5,4,4,4,4 N    gains: mover 1, opponent 0
  move 5              -> kalah:6:empty 4,4,4,4,4,0/5,5,5,4,4,4 N    gains: mover 1, opponent 0
)");
}

TEST(ClassicExamples, DjenonAboureCaptureChain) {
  EXPECT_EQ(moves_text("djenon-aboure 2,2,3,1,0,1/0,2,1,1,1,0 S"), R"(djenon-aboure 2,2,3,1,0,1/0,2,1,1,1,0 S
  move 0              -> djenon-aboure 1,1,0,0,0,1/0,2,1,1,1,0 N    gains: mover 6, opponent 0
  move 1              -> djenon-aboure 2,1,0,1,0,1/0,2,1,1,1,0 N    gains: mover 4, opponent 0
  move 2              -> djenon-aboure 2,2,1,2,1,1/0,2,1,1,1,0 N    gains: mover 0, opponent 0
)");
}

TEST(ClassicExamples, DjenonAbourePass) {
  EXPECT_EQ(moves_text("djenon-aboure 0,1,1,0,0,1/3,0,0,1,1,1 S"), R"(djenon-aboure 0,1,1,0,0,1/3,0,0,1,1,1 S
  move pass           -> djenon-aboure 0,1,1,0,0,1/3,0,0,1,1,1 N    gains: mover 0, opponent 0
)");
}

TEST(ClassicExamples, OwareCaptureOf2sAnd3s) {
  EXPECT_EQ(moves_text("oware 1,0,0,0,0,2/2,2,0,3,1,2 S"), R"(oware 1,0,0,0,0,2/2,2,0,3,1,2 S
  move 0              -> oware 0,1,0,0,0,2/2,2,0,3,1,2 N    gains: mover 0, opponent 0
  move 5              -> oware 1,0,0,0,0,0/0,0,0,3,1,2 N    gains: mover 6, opponent 0
)");
}

TEST(ClassicExamples, KalahStandardCapture) {
  EXPECT_EQ(moves_text("kalah:4:standard 1,0,0,0/1,5,5,1 S"), R"(kalah:4:standard 1,0,0,0/1,5,5,1 S
  move 0              -> kalah:4:standard 0,0,0,0/1,5,0,1 N    gains: mover 6, opponent 0
)");
}

// The examples agree with the naive implementation too, and with North to move (the
// board turned round gives the same turns turned round).
TEST(ClassicExamples, NaiveAgreesAndNorthIsSouthTurnedRound) {
  for (const char* text : {"djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S", "oware 4,4,4,4,4,4/4,4,4,4,4,4 S",
                           "kalah:6:empty 4,4,4,4,4,4/4,4,4,4,4,4 S", "djenon-aboure 2,2,3,1,0,1/0,2,1,1,1,0 S",
                           "djenon-aboure 0,1,1,0,0,1/3,0,0,1,1,1 S", "oware 1,0,0,0,0,2/2,2,0,3,1,2 S",
                           "kalah:4:standard 1,0,0,0/1,5,5,1 S"}) {
    const ParsedPosition pp = parsed(text);
    const Variant& v = *pp.variant;
    const std::vector<int> b = board_of(v, pp.position);
    EXPECT_EQ(engine_turns(v, b, 'S'), naive_turns(v, b, 'S')) << text;
    const std::vector<int> turned = board_of(v, v.rotate(pp.position));
    const auto south = engine_turns(v, b, 'S');
    const auto north = engine_turns(v, turned, 'N');
    ASSERT_EQ(south.size(), north.size()) << text;
    for (std::size_t i = 0; i < south.size(); ++i) {
      EXPECT_EQ(north[i].label, south[i].label);
      EXPECT_EQ(north[i].pits, board_of(v, v.rotate(position_of(south[i].pits))));
      EXPECT_EQ(north[i].gain_mover, south[i].gain_mover);
    }
  }
}

// =============================================================================
// Golden perft numbers from the start, cross-checked against the naive rules
// =============================================================================

namespace {

struct Golden {
  const char* variant;
  std::vector<std::uint64_t> perft;  // depth 1, 2, ...
};

const Golden kGolden[] = {
    {"djenon-aboure", {6, 27, 120, 512, 1963, 7862, 26596, 92094}},
    {"oware", {6, 36, 190, 1014, 5219, 27332, 139157}},
    {"kalah:6:empty", {6, 35, 185, 942, 4685, 23169, 113959}},
    {"kalah:6:standard", {6, 35, 185, 942, 4690, 23233, 114430}},
    {"kalah:4:standard", {4, 15, 51, 181, 644, 2203, 7470, 24423, 77210}},
};

}  // namespace

TEST(ClassicPerft, GoldenNumbersFromTheStart) {
  for (const Golden& g : kGolden) {
    const VariantPtr v = variant(g.variant);
    for (std::size_t d = 0; d < g.perft.size(); ++d)
      EXPECT_EQ(perft(*v, v->start(), static_cast<int>(d) + 1), g.perft[d]) << g.variant << " depth " << d + 1;
  }
}

TEST(ClassicPerft, NaiveImplementationAgrees) {
  for (const Golden& g : kGolden) {
    const VariantPtr v = variant(g.variant);
    const std::vector<int> b = board_of(*v, v->start());
    for (std::size_t d = 0; d < g.perft.size(); ++d)
      EXPECT_EQ(naive::perft(naive_game(*v), b, 'S', static_cast<int>(d) + 1), g.perft[d])
          << g.variant << " depth " << d + 1;
  }
}

// =============================================================================
// Randomized cross-check against the naive implementation
// =============================================================================

namespace {

struct CrossCheckStats {
  int positions = 0, over = 0, passes = 0, captures = 0, endless = 0, again = 0, starving = 0;
};

CrossCheckStats cross_check(const std::string& spec, int count, unsigned seed) {
  const VariantPtr v = variant(spec);
  const naive::Game game = naive_game(*v);
  std::mt19937 rng(seed);
  CrossCheckStats st;
  const int densities[] = {1, 2, 3, 4, 5, 6, 8, 12, 20};
  while (st.positions < count) {
    const int most = densities[rng() % std::size(densities)];
    std::vector<int> b(static_cast<std::size_t>(v->pits()));
    int total = 0;
    for (int& x : b) total += (x = static_cast<int>(rng() % static_cast<unsigned>(most + 1)));
    if (rng() % 4 == 0) {  // one big pit among small ones: long laps, relays, endless turns
      const int big = static_cast<int>(rng() % static_cast<unsigned>(v->pits()));
      const int extra = static_cast<int>(rng() % 24);
      b[static_cast<std::size_t>(big)] += extra;
      total += extra;
    }
    if (total > v->total_seeds()) continue;
    ++st.positions;
    const char side = rng() % 2 ? 'S' : 'N';
    const auto mine = engine_turns(*v, b, side);
    const auto theirs = naive_turns(*v, b, side);
    EXPECT_EQ(mine, theirs) << describe(*v, b, side);
    if (mine != theirs) break;
    if (theirs.empty()) {
      ++st.over;
      const Position absolute = position_of(b);
      const Position p = side == 'S' ? absolute : v->rotate(absolute);
      EXPECT_EQ(v->terminal_value(p), naive::final_margin(game, b, side)) << describe(*v, b, side);
    }
    for (const auto& t : theirs) {
      st.passes += t.label == "pass";
      st.captures += t.gain_mover > 0;
      st.again += t.to_move == side;
    }
    if (game == naive::Game::DjenonAboure) {
      for (int j = 0; j < 6; ++j) {
        const int pit = naive::own_pit(side, 6, j);
        if (b[static_cast<std::size_t>(pit)] < 2) continue;
        std::vector<int> c = b;
        int gain = 0;
        st.endless += !naive::djenon_sow(c, pit, gain);
      }
    }
    if (game == naive::Game::Oware && !theirs.empty() && naive::row_sum(theirs[0].pits, naive::other(side), 6) == 0)
      ++st.starving;
  }
  return st;
}

}  // namespace

TEST(ClassicCrossCheck, DjenonAboure) {
  const auto st = cross_check("djenon-aboure", 20000, 1);
  EXPECT_GT(st.over, 0);
  EXPECT_GT(st.passes, 0);
  EXPECT_GT(st.captures, 1000);
}

// Endless turns are rare in random positions (about 1 in 4000 boards of 48 seeds), so
// search for boards with a move that has not ended after 1000 laps (a plain loop, no
// detector), then cross-check those boards with both sides to move.
TEST(ClassicCrossCheck, DjenonAboureEndlessTurns) {
  const VariantPtr v = variant("djenon-aboure");
  std::mt19937 rng(3);
  int found = 0, only_endless = 0;
  for (int tries = 0; tries < 2000000 && found < 25; ++tries) {
    std::vector<int> b(12, 0);
    const int seeds = 36 + static_cast<int>(rng() % 13);
    for (int k = 0; k < seeds; ++k) b[rng() % 12] += 1;
    int endless_pit = -1, ending = 0;
    for (int start = 0; start < 6; ++start) {
      if (b[static_cast<std::size_t>(start)] < 2) continue;
      std::vector<int> c = b;
      int pit = start;
      bool ended = false;
      for (int lap = 0; lap < 1000 && !ended; ++lap) {
        const int hand = c[static_cast<std::size_t>(pit)];
        int at = pit;
        c[static_cast<std::size_t>(pit)] = 0;
        for (int k = 0; k < hand; ++k) c[static_cast<std::size_t>(at = (pit + k) % 12)] += 1;
        const int before = c[static_cast<std::size_t>(at)] - 1;
        ended = before == 0 || before == 1 || before == 3;
        pit = at;
      }
      if (ended) ++ending;
      else endless_pit = start;
    }
    if (endless_pit < 0) continue;
    ++found;
    only_endless += ending == 0;
    std::vector<int> c = b;
    int gain = 0;
    EXPECT_FALSE(naive::djenon_sow(c, endless_pit, gain)) << describe(*v, b, 'S');
    const auto mine = engine_turns(*v, b, 'S');
    EXPECT_EQ(mine, naive_turns(*v, b, 'S')) << describe(*v, b, 'S');
    for (const auto& t : mine) EXPECT_NE(t.label, std::to_string(endless_pit)) << describe(*v, b, 'S');
    const std::vector<int> turned = board_of(*v, v->rotate(position_of(b)));
    EXPECT_EQ(engine_turns(*v, turned, 'N'), naive_turns(*v, turned, 'N')) << describe(*v, turned, 'N');
  }
  EXPECT_EQ(found, 25);
}

TEST(ClassicCrossCheck, Oware) {
  const auto st = cross_check("oware", 20000, 2);
  EXPECT_GT(st.over, 0);
  EXPECT_GT(st.captures, 1000);
  EXPECT_GT(st.starving, 0);
}

TEST(ClassicCrossCheck, Kalah) {
  for (int m = 1; m <= 6; ++m)
    for (const char* opt : {"empty", "standard"}) {
      const auto st = cross_check("kalah:" + std::to_string(m) + ":" + opt, m == 6 || m == 4 ? 5000 : 1500,
                                  static_cast<unsigned>(10 * m + (opt[0] == 'e')));
      EXPECT_GT(st.over, 0) << m << opt;
      EXPECT_GT(st.captures, 100) << m << opt;
      EXPECT_GT(st.again, 100) << m << opt;
    }
}

// =============================================================================
// Notation
// =============================================================================

TEST(ClassicNotation, RoundTrips) {
  for (const char* text :
       {"djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S", "djenon-aboure 0,1,1,0,0,1/3,0,0,1,1,1 N", "oware 1,0,0,0,0,2/2,2,0,3,1,2 S",
        "oware 0,0,0,0,0,12/0,0,0,0,0,1 N", "kalah:6:empty 4,4,4,4,4,4/4,4,4,4,4,4 S", "kalah:6:standard 0,0,7,0,0,1/1,0,0,0,0,9 N",
        "kalah:1:empty 16/0 N", "kalah:4:standard 1,0,0,0/1,5,5,1 S"}) {
    const ParsedPosition pp = parsed(text);
    EXPECT_EQ(format_position(*pp.variant, pp.position, pp.side), text);
  }
}

TEST(ClassicNotation, RandomRoundTripsBothSides) {
  std::mt19937 rng(7);
  for (const char* spec : {"djenon-aboure", "oware", "kalah:1:empty", "kalah:3:standard", "kalah:6:empty"}) {
    const VariantPtr v = variant(spec);
    for (int i = 0; i < 300; ++i) {
      Position p;
      int left = v->total_seeds();
      for (int k = 0; k < v->pits(); ++k) {
        const int x = std::min(left, static_cast<int>(rng() % 9));
        p.pits[static_cast<std::size_t>(k)] = static_cast<Seeds>(x);
        left -= x;
      }
      const Side side = rng() % 2 ? Side::North : Side::South;
      const std::string text = format_position(*v, p, side);
      const ParsedPosition back = parsed(text);
      EXPECT_EQ(back.variant->name(), v->name());
      EXPECT_EQ(back.position, p) << text;
      EXPECT_EQ(back.side, side) << text;
      // The one-pass reading of plain text (parse_plain) and the general one agree:
      // other blanks, leading zeros and a trailing tab go the general way.
      const auto ref = parse_position_ref(text);
      ASSERT_TRUE(ref.has_value()) << text;
      EXPECT_EQ(ref->variant->name(), v->name());
      EXPECT_EQ(ref->position, p) << text;
      EXPECT_EQ(ref->side, side) << text;
      std::string spaced = text;
      spaced.replace(spaced.rfind(' '), 1, " \t ");
      spaced.replace(spaced.find(' '), 1, "   ");
      const std::size_t comma = spaced.find(',');
      if (comma != std::string::npos) spaced.insert(comma + 1, "00");
      spaced += "\t";
      const auto general = parse_position_ref(spaced);
      ASSERT_TRUE(general.has_value()) << spaced;
      EXPECT_EQ(general->position, p) << spaced;
      EXPECT_EQ(general->side, side) << spaced;
    }
  }
}

TEST(ClassicNotation, VariantNamesAndParameters) {
  EXPECT_EQ(variant("kalah")->name(), "kalah:6:empty");
  EXPECT_EQ(variant("kalah:4")->name(), "kalah:4:empty");
  EXPECT_EQ(variant("kalah:3:standard")->name(), "kalah:3:standard");
  EXPECT_EQ(variant("awari")->name(), "oware");
  EXPECT_EQ(variant("kalah:5:standard")->pits(), 10);
  EXPECT_EQ(variant("kalah:6:empty")->total_seeds(), 96);
}

TEST(ClassicNotation, OneClearErrorPerMalformedInput) {
  struct Bad {
    const char* text;
    const char* says;  // a piece of the message
  };
  const Bad bad[] = {
      {"", "empty position"},
      {"mancala 4,4,4,4,4,4/4,4,4,4,4,4 S", "unknown variant 'mancala'"},
      {"kalah:9 4,4,4,4,4,4/4,4,4,4,4,4 S", "pits per side must be a number from 1 to 6, got '9'"},
      {"kalah:0 0/0 S", "pits per side"},
      {"kalah:x 4,4/4,4 S", "pits per side"},
      {"kalah:6:foo 4,4,4,4,4,4/4,4,4,4,4,4 S", "capture option must be 'empty' or 'standard', got 'foo'"},
      {"kalah:6:empty:x 4,4,4,4,4,4/4,4,4,4,4,4 S", "at most two parameters"},
      {"oware:6 4,4,4,4,4,4/4,4,4,4,4,4 S", "takes no parameters"},
      {"djenon-aboure:2 4,4,4,4,4,4/4,4,4,4,4,4 S", "takes no parameters"},
      {"oware 4,4,4,4,4/4,4,4,4,4,4 S", "South's half must list 6 pits, got 5"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,4,4 S", "North's half must list 6 pits, got 7"},
      {"kalah:4:empty 4,4,4,4/4,4,4,4,4,4 S", "North's half must list 4 pits, got 6"},
      {"oware 4,4,4,-1,4,4/4,4,4,4,4,4 S", "impossible number of seeds (-1)"},
      {"oware 4,4,4,4,4,4/4,4,four,4,4,4 S", "must be a number of seeds"},
      {"oware 4,4,,4,4,4/4,4,4,4,4,4 S", "must be a number of seeds"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,2.5 S", "must be a number of seeds"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,999 S", "impossible number of seeds (999)"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,1000 S", "impossible number of seeds (1000)"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,99999999999999999999 S", "must be a number of seeds"},
      {"djenon-aboure 48888888888,4,4,4,4,4/4,4,4,4,4,4 S", "must be a number of seeds"},  // the fuzzer's: a long first cell
      {"oware 4,4,4,4,4,4/4,4,4,4,4,4, S", "North's half must list 6 pits, got 7"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,+4 S", "must be a number of seeds"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,5 S", "49 seeds on the board, but oware is played with at most 48"},
      {"djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,5 S", "49 seeds"},
      {"kalah:1:empty 9/8 S", "17 seeds"},
      {"kalah:6:standard 8,8,8,8,8,8/8,8,8,8,8,9 S", "97 seeds"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,4 X", "side to move must be S or N, got 'X'"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,4 south", "side to move must be S or N"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,4", "expected PITS SIDE"},
      {"oware", "expected PITS SIDE"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,4 S bogus", "unknown flag 'bogus'"},
      {"oware 4,4,4,4,4,4/4,4,4,4,4,4 S first", "oware has no position flags"},
      {"djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 N atappe", "has no position flags"},
      {"kalah:6:empty 4,4,4,4,4,4/4,4,4,4,4,4 S jeppe=3", "has no jeppe pit"},
      {"oware 4,4,4,4,4,4,4,4,4,4,4,4 S", "two halves separated by one '/'"},
      {"oware 4,4,4/4,4,4/4,4,4,4,4,4 S", "two halves separated by one '/'"},
      {"oware 0S,4,4,4,4,4/4,4,4,4,4,4 S", "has no tied, bull or closed pits"},
      {"djenon-aboure 4x,4,4,4,4,4/4,4,4,4,4,4 S", "must be written with 0 seeds"},
  };
  for (const Bad& b : bad) {
    const auto p = parse_position(b.text);
    ASSERT_FALSE(p.has_value()) << "accepted: '" << b.text << "'";
    EXPECT_NE(p.error().message.find(b.says), std::string::npos) << "'" << b.text << "' gave: " << p.error().message;
    EXPECT_EQ(p.error().message.find('\n'), std::string::npos) << "one line: " << p.error().message;
  }
}

TEST(ClassicNotation, StartPositions) {
  EXPECT_EQ(format_position(*variant("djenon-aboure"), variant("djenon-aboure")->start(), Side::South),
            "djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S");
  EXPECT_EQ(format_position(*variant("oware"), variant("oware")->start(), Side::South), "oware 4,4,4,4,4,4/4,4,4,4,4,4 S");
  EXPECT_EQ(format_position(*variant("kalah:3:standard"), variant("kalah:3:standard")->start(3), Side::South),
            "kalah:3:standard 3,3,3/3,3,3 S");
}
