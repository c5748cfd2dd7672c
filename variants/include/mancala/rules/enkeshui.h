// Enkeshui (RULES.md section 4): 2 x K (8, 10, 12), 48 seeds, bulls, capture of the
// facing pit in the first lap, direction privilege.
#pragma once

#include "mancala/variant.h"

namespace mancala {

class Enkeshui final : public Variant {
 public:
  Enkeshui(int row, bool layout_b) : k_(row), layout_b_(layout_b) {}

  VariantId id() const override { return VariantId::Enkeshui; }
  std::string name() const override { return "enkeshui:" + std::to_string(k_) + (layout_b_ ? ":b" : ""); }
  int pits() const override { return 2 * k_; }
  int total_seeds() const override { return 48; }
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  std::string check(const Position& p) const override;

  int row() const { return k_; }

 private:
  int k_;
  bool layout_b_;
};

}  // namespace mancala
