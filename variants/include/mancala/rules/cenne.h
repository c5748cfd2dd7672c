// Cenne (docs/rules/cenne.md): 2 x 7 played in rounds; murte skipping, wanasu,
// atappe with its forced reply and jeppe, the claim of a round. `cenne:A:B` has A
// pits in play for South and B for North.
//
// Board. A position holds only the n = A + B pits in play, in circuit order; pits
// [0, south_pits(p)) are the mover's. When B moves (the board turned round), the
// position carries kFlipped and the mover has B pits: cenne:A:B with North to move
// is cenne:B:A with South to move. With A == B the flag is never set.
//
// Atappe and jeppe. An atappe turn leaves its child with kAtappe (and no jeppe: the
// forced reply sets a new one). The reply lifts the mover's rightmost pit r = sp-1,
// drops one seed in the opponent's rightmost pit n-1, one back in r, one in r-1 and
// captures r-1 (which then holds 4). Its child carries jeppe = the replier's pit r,
// seen from the new mover as the opponent's rightmost pit n-1 ("jeppe on the
// opponent's side"); after the next turn it is the mover's rightmost pit sp-1 and
// forbids that pit for that one turn, after which it is cleared.
#pragma once

#include "mancala/variant.h"

namespace mancala {

class Cenne final : public Variant {
 public:
  Cenne(int south, int north);

  VariantId id() const override { return VariantId::Cenne; }
  std::string name() const override { return "cenne:" + std::to_string(a_) + ":" + std::to_string(b_); }
  int pits() const override { return a_ + b_; }
  int south_pits(const Position& p) const override { return (p.flags & kFlipped) ? b_ : a_; }
  // A round is played with 4 seeds in each pit in play.
  int total_seeds() const override { return 4 * (a_ + b_); }
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  // The children that do not end the game: children() without the claim (its test
  // plays up to 4 turns ahead). For solvers that have read every exit already.
  void children_in_play(const Position& p, std::vector<Child>& out) const { sow_children(p, out, false); }
  Value terminal_value(const Position& p) const override;
  Position rotate(const Position& p) const override;
  // No marks: the state (flags, jeppe) and its turned form without a turned board.
  ClassKey class_of(const Position& p) const override;
  std::string check(const Position& p) const override;
  std::vector<ClassKey> classes(int max_seeds) const override;
  // Every state that can occur is in classes(): atappe positions only with the seed
  // counts at which they can arise, jeppe positions at every count once the first
  // count at which they arise is in reach (see classes()).
  bool tabled(const Position& p) const override;

  int south_in_play() const { return a_; }
  int north_in_play() const { return b_; }

  // Outcome of one turn of the mover (South of the normalised position).
  struct Turn {
    bool endless = false;
    bool atappe = false;           // ended by putting the seeds in hand in the rightmost pit
    bool dropped_opponent = false;  // some seed was dropped into an opponent pit
    int captured = 0;
  };
  // Plays the turn from pit `pit` (non-empty) on `p` in place (not turned round).
  Turn play(Position& p, int pit) const;
  // Whether the mover of `p` may claim the round (four turns in a row, none dropping
  // a seed into an opponent pit; the first respects a jeppe in his row).
  bool claim_available(const Position& p) const;
  // The lowest seed counts of the classes with a jeppe on the opponent's side, a jeppe
  // on the mover's side and an atappe reply due (computed from the few positions
  // that can have them).
  int min_seeds_jeppe_opponent() const { return min_jeppe_opp_; }
  int min_seeds_jeppe_mover() const { return min_jeppe_mover_; }
  int min_seeds_atappe() const { return 3 * (a_ + b_) + 2; }

 private:
  bool claim_search(const Position& p, int turns_left, bool first) const;
  void sow_children(const Position& p, std::vector<Child>& out, bool with_claim) const;
  bool reply(const Position& p, Child& c) const;

  int a_, b_;
  int min_jeppe_opp_ = 0, min_jeppe_mover_ = 0;
};

}  // namespace mancala
