// Depth-bounded proof search (proof.h) against reachable-set retrograde tables of
// Imbelece: the same win/loss and the same plies on every position of random games,
// and Open exactly where the tables say draw (or a result deeper than the bound);
// the search's win/loss region retrograde gives the tables' values too.
#include <gtest/gtest.h>

#include <random>

#include "mancala/proof.h"
#include "mancala/notation.h"
#include "search/reachable_tables.h"

namespace mancala {
namespace {

TEST(Proof, AgreesWithReachableTables) {
  const VariantPtr v = *make_variant("imbelece");
  testing_support::ReachableTables tables;
  ASSERT_NO_FATAL_FAILURE(tables.build(v, "2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S", 12, "proof"));

  // The search (region retrograde for win/loss, search.h) must give the same values.
  SearchOptions so;
  so.threads = 1;
  so.principal_variation = false;
  auto searcher = Searcher::create(v, so);
  ASSERT_TRUE(searcher);

  constexpr int kBound = 30;
  std::mt19937 rng(7);
  int compared = 0, decided = 0, open = 0;
  for (int game = 0; game < 8; ++game) {
    Position p = tables.root();
    std::vector<Child> kids;
    for (int ply = 0; ply < 30; ++ply) {
      const auto t = tables.tables().value(*v, p);
      ASSERT_TRUE(t) << t.error().message;
      ProofOptions po;
      po.max_plies = kBound;
      const auto r = prove_within(v, p, po);
      ASSERT_TRUE(r) << r.error().message;
      ++compared;
      const auto sv = (*searcher)->value(p);
      ASSERT_TRUE(sv) << sv.error().message;
      EXPECT_EQ(*sv, *t) << "search: " << format_position(*v, p, Side::South);
      if (*t != 0 && plies_of(*t) <= kBound) {
        ++decided;
        EXPECT_EQ(r->outcome, *t > 0 ? ProofResult::Win : ProofResult::Loss) << format_position(*v, p, Side::South);
        EXPECT_EQ(r->value, *t) << format_position(*v, p, Side::South);
        // The line has the stated length and ends with the loser to move and stuck.
        ASSERT_EQ(static_cast<int>(r->pv.size()), r->plies);
        Position end = r->pv.empty() ? p : r->pv.back().next;
        std::vector<Child> last;
        v->children(end, last);
        EXPECT_TRUE(last.empty());
      } else {
        ++open;
        EXPECT_EQ(r->outcome, ProofResult::Open) << format_position(*v, p, Side::South);
        EXPECT_EQ(r->searched, kBound);
      }
      v->children(p, kids);
      if (kids.empty()) break;
      p = kids[rng() % kids.size()].next;
    }
  }
  RecordProperty("decided", decided);
  RecordProperty("open", open);
  EXPECT_GT(decided, 20);
  EXPECT_GT(open, 5);
}

TEST(Proof, ErrorsAndLimits) {
  const VariantPtr kalah = *make_variant("kalah:4:empty");
  EXPECT_FALSE(prove_within(kalah, kalah->start(3), {}));  // a scored game
  const VariantPtr v = *make_variant("imbelece");
  Position bad = v->start(1);
  bad.marks[3] = Mark::Closed;  // a closed pit holding seeds
  const auto e = prove_within(v, bad, {});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, SearchError::BadPosition);
  // A bound of 0 plies decides only finished games; the start is open.
  ProofOptions zero;
  zero.max_plies = 0;
  const auto r = prove_within(v, v->start(1), zero);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->outcome, ProofResult::Open);
  // A cancelled proof says so.
  std::atomic<bool> cancel{true};
  ProofOptions c;
  c.max_plies = 30;
  c.budget.cancel_on(&cancel);
  const auto x = prove_within(v, v->start(2), c);
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error().code, SearchError::Cancelled);
}

}  // namespace
}  // namespace mancala
