// Kotu-baendum (RULES.md section 2): 2 x 7, skipping 3s, capture of 4, ties (baenda)
// of the end holes 0, 6, 7, 13. Tables hold counterclockwise play only.
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
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  std::string check(const Position& p) const override;
  std::vector<ClassKey> classes(int max_seeds) const override;
};

}  // namespace mancala
