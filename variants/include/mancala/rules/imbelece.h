// Imbelece (docs/rules/imbelece.md): three rows, a 16-pit circuit, closed ("married")
// pits; win/loss with plies to the end.
//
// Circuit (South to move): South's outer row left to right 0..5, his central pit next
// to the store 6, his other central pit 7, then North's 8..15 the same way. Turning
// the board round maps pit i to (i + 8) mod 16 (Variant::rotate). A closed pit is
// Mark::Closed: it holds no seeds and is never sown into (the mover's own closed pits
// are passed over; at the opponent's, one seed from hand goes into the store, out of
// play). The central store is not a position field: seeds fed to it just leave play.
#pragma once

#include "mancala/variant.h"

namespace mancala {

class Imbelece final : public Variant {
 public:
  static constexpr int kPits = 16;
  static constexpr int kSide = 8;

  bool whole_tables() const override { return false; }
  VariantId id() const override { return VariantId::Imbelece; }
  std::string name() const override { return "imbelece"; }
  GameKind kind() const override { return GameKind::WinLoss; }
  int pits() const override { return kPits; }
  int total_seeds() const override { return 48; }
  // The start carries the kFirstMove flag: no pit can be closed in the first move.
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  std::string check(const Position& p) const override;

  // One turn from South's pit `pit` (non-empty, not closed). Returns false if the turn
  // never ends; otherwise `p` is the board after it (not turned round, flags cleared).
  static bool play(Position& p, int pit);
};

}  // namespace mancala
