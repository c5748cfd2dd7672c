// Imbelece (RULES.md section 5): three rows, a 16-pit circuit, closed ("married")
// pits; win/loss with plies to the end.
#pragma once

#include "mancala/variant.h"

namespace mancala {

class Imbelece final : public Variant {
 public:
  static constexpr int kPits = 16;
  static constexpr int kSide = 8;

  VariantId id() const override { return VariantId::Imbelece; }
  std::string name() const override { return "imbelece"; }
  GameKind kind() const override { return GameKind::WinLoss; }
  int pits() const override { return kPits; }
  int total_seeds() const override { return 48; }
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  std::string check(const Position& p) const override;
};

}  // namespace mancala
