// Cenne (RULES.md section 3): 2 x 7 played in rounds; murte skipping, wanasu,
// atappe with its forced reply and jeppe, the claim of a round. `cenne:A:B` has A
// pits in play for South and B for North.
#pragma once

#include "mancala/variant.h"

namespace mancala {

class Cenne final : public Variant {
 public:
  Cenne(int south, int north) : a_(south), b_(north) {}

  VariantId id() const override { return VariantId::Cenne; }
  std::string name() const override { return "cenne:" + std::to_string(a_) + ":" + std::to_string(b_); }
  int pits() const override { return a_ + b_; }
  int south_pits(const Position& p) const override { return (p.flags & kFlipped) ? b_ : a_; }
  int total_seeds() const override { return 56; }
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  Position rotate(const Position& p) const override;
  std::string check(const Position& p) const override;
  std::vector<ClassKey> classes(int max_seeds) const override;
  bool tabled(const Position& p) const override { return (p.flags & ~kFlipped) == 0 && p.jeppe < 0; }

  int south_in_play() const { return a_; }
  int north_in_play() const { return b_; }

 private:
  int a_, b_;
};

}  // namespace mancala
