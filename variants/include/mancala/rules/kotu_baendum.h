// Kotu-baendum (docs/rules/kotu-baendum.md): 2 x 7, skipping 3s, capture of 4, ties (baenda)
// of the end holes 0, 6, 7, 13. Tables hold counterclockwise play only.
//
// Clockwise games. Mirroring each row (pit i <-> k-1-i in each row, i.e. i -> 6-i for
// South's row and i -> 20-i for North's) turns clockwise sowing into counterclockwise
// sowing: the clockwise path 0, 13, 12, ... becomes 6, 7, 8, ... So a clockwise first
// move from pit j is played as the counterclockwise move from mirror(j) on the mirrored
// board, and its child is returned in that mirrored (counterclockwise) form, where the
// rest of the game is counterclockwise play. To show a clockwise game as it stands on
// the real board, mirror every later position back (mirror is its own inverse).
#pragma once

#include "mancala/variant.h"

namespace mancala {

class KotuBaendum final : public Variant {
 public:
  static constexpr int kPits = 14;
  static constexpr int kRow = 7;

  VariantId id() const override { return VariantId::KotuBaendum; }
  std::string name() const override { return "kotu-baendum"; }
  int pits() const override { return kPits; }
  int total_seeds() const override { return 56; }
  // The game's start carries the first-move flag (start from an end hole, choice of
  // direction).
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  std::string check(const Position& p) const override;
  std::vector<ClassKey> classes(int max_seeds) const override;
  bool tabled(const Position& p) const override { return p.flags == 0 && p.jeppe < 0; }
  // The generic forms written for this board (no modulo, the turned state computed
  // from the packed marks instead of a turned board): the solver calls them per child.
  Position rotate(const Position& p) const override;
  ClassKey class_of(const Position& p) const override;

  static constexpr bool is_end_hole(int pit) { return pit == 0 || pit == 6 || pit == 7 || pit == 13; }
  static constexpr int mirror_pit(int pit) { return pit < kRow ? kRow - 1 - pit : 3 * kRow - 1 - pit; }
  // The board mirrored within each row (clockwise <-> counterclockwise play).
  static Position mirror(const Position& p);
  // rotate(p), in place.
  static void turn_in_place(Position& p);

  // One counterclockwise turn of South from `pit` (non-empty, untied). Returns false
  // if the turn is endless. On success `p` is the board after the turn (not turned
  // round); gains are added to South's (`gain_south`) and North's (`gain_north`).
  static bool play(Position& p, int pit, int& gain_south, int& gain_north);
};

}  // namespace mancala
