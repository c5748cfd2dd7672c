// Djenon-aboure (docs/rules/djenon-aboure.md): 2 x 6, no stores, first seed back into the
// emptied pit, relay on 3 or 5+, capture on 2 or 4 with a chain backwards.
#pragma once

#include "mancala/rules/sowing.h"
#include "mancala/variant.h"

namespace mancala {

class DjenonAboure final : public Variant {
 public:
  static constexpr int kPits = 12;
  static constexpr int kRow = 6;

  VariantId id() const override { return VariantId::DjenonAboure; }
  std::string name() const override { return "djenon-aboure"; }
  int pits() const override { return kPits; }
  int total_seeds() const override { return 48; }
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  // No marks or flags on this board: the fast forms of the generic functions.
  Position rotate(const Position& p) const override { return rotate_plain(p, kPits); }
  ClassKey class_of(const Position& p) const override { return ClassKey{0, p.seeds_in(0, kPits)}; }

  // One turn from South's pit `pit` (must hold >= 2). Returns false if endless.
  // On success `p` is the board after the turn (not turned round), `gain` the capture.
  static bool play(Position& p, int pit, int& gain);

 private:
  static bool has_move(const Position& p);  // South has a non-endless move
};

}  // namespace mancala
