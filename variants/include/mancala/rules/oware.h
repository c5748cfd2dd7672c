// Oware / Awari with Romein & Bal's rules (docs/rules/oware.md).
#pragma once

#include "mancala/rules/sowing.h"
#include "mancala/variant.h"

namespace mancala {

class Oware final : public Variant {
 public:
  static constexpr int kPits = 12;
  static constexpr int kRow = 6;

  VariantId id() const override { return VariantId::Oware; }
  std::string name() const override { return "oware"; }
  int pits() const override { return kPits; }
  int total_seeds() const override { return 48; }
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  // No marks or flags on this board: the fast forms of the generic functions.
  Position rotate(const Position& p) const override { return rotate_plain(p, kPits); }
  ClassKey class_of(const Position& p) const override { return ClassKey{0, p.seeds_in(0, kPits)}; }
  // Reachable positions: the side that just moved (North, after the turn round)
  // has at least one empty pit (the start position excepted).
  IndexFilter index_filter(const ClassKey&) const override { return {kRow, kPits}; }

  Parents in_class_parents(const Position& p, std::vector<Position>& out) const override;
  bool has_unmoves() const override { return true; }
  int max_moves() const override { return pits() / 2; }  // a pit of the mover's side

  // Sows South's pit `pit` (non-empty) and captures; returns the capture.
  static int play(Position& p, int pit);
};

}  // namespace mancala
