// Strategy proofs (strategy.h) against reachable-set retrograde tables of Imbelece:
// win / draw / loss agree on every position of random games from a 16-seed root, in
// both directions (each side's "never loses" proof).
#include <gtest/gtest.h>

#include <random>

#include "mancala/strategy.h"
#include "mancala/notation.h"
#include "search/reachable_tables.h"

namespace mancala {
namespace {

SafetyOptions small_budget() {
  SafetyOptions o;
  o.memory_bytes = 64ull << 20;
  return o;
}

TEST(Strategy, AgreesWithReachableTables) {
  const VariantPtr v = *make_variant("imbelece");
  testing_support::ReachableTables tables;
  ASSERT_NO_FATAL_FAILURE(tables.build(v, "2,2,2,2,0x,0x,0x,0x/2,2,2,2,0x,0x,0x,0x S", 16, "strategy"));

  std::mt19937 rng(11);
  int won = 0, drawn = 0, lost = 0;
  for (int game = 0; game < 12; ++game) {
    Position p = tables.root();
    std::vector<Child> kids;
    for (int ply = 0; ply < 40; ++ply) {
      const auto t = tables.tables().value(*v, p);
      ASSERT_TRUE(t) << t.error().message;
      const auto d = decide_win_loss(v, p, small_budget());
      ASSERT_TRUE(d) << d.error().message;
      const auto want = *t > 0 ? WinLossDecision::Win : *t < 0 ? WinLossDecision::Loss : WinLossDecision::Draw;
      EXPECT_EQ(d->outcome, want) << format_position(*v, p, Side::South);
      (*t > 0 ? won : *t < 0 ? lost : drawn)++;
      // Each proof that says Safe comes with a checked certificate holding the root.
      EXPECT_EQ(d->mover.outcome == SafetyResult::Safe, d->mover.certificate > 0);
      if (want != WinLossDecision::Loss) {
        EXPECT_EQ(d->opponent.outcome == SafetyResult::Safe, d->opponent.certificate > 0);
      }
      v->children(p, kids);
      if (kids.empty()) break;
      p = kids[rng() % kids.size()].next;
    }
  }
  RecordProperty("won", won);
  RecordProperty("drawn", drawn);
  RecordProperty("lost", lost);
  EXPECT_GT(won, 10);
  EXPECT_GT(drawn, 10);
  EXPECT_GT(lost, 10);
}

TEST(Strategy, ErrorsAndLimits) {
  const VariantPtr kalah = *make_variant("kalah:4:empty");
  const auto scored = prove_safe(kalah, kalah->start(3), true, small_budget());
  ASSERT_FALSE(scored);
  EXPECT_EQ(scored.error().code, SearchError::BadPosition);
  const VariantPtr v = *make_variant("imbelece");
  Position bad = v->start(1);
  bad.marks[3] = Mark::Closed;  // a closed pit holding seeds
  const auto e = decide_win_loss(v, bad, small_budget());
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, SearchError::BadPosition);
  // A game with no move left: the side to move has lost.
  Position over;
  const auto o = decide_win_loss(v, over, small_budget());
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->outcome, WinLossDecision::Loss);
  // Too little memory for the graph of the 1-seed start: a clear error, not a crash.
  SafetyOptions tiny;
  tiny.memory_bytes = 1 << 16;
  const auto t = prove_safe(v, v->start(1), true, tiny);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, SearchError::TableTooSmall);
  // Cancelled.
  std::atomic<bool> cancel{true};
  SafetyOptions c = small_budget();
  c.budget.cancel_on(&cancel);
  const auto x = prove_safe(v, v->start(1), true, c);
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error().code, SearchError::Cancelled);
}

}  // namespace
}  // namespace mancala
