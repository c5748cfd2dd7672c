// Kalah(m, n) (docs/rules/kalah.md): stores on the circuit, extra move from the
// store, capture from an empty own pit (`empty` or `standard` option).
#pragma once

#include "mancala/rules/sowing.h"
#include "mancala/variant.h"

namespace mancala {

class Kalah final : public Variant {
 public:
  enum class Capture : std::uint8_t { Empty, Standard };

  Kalah(int pits_per_side, Capture capture) : m_(pits_per_side), capture_(capture) {}

  VariantId id() const override { return VariantId::Kalah; }
  std::string name() const override;
  int pits() const override { return 2 * m_; }
  int total_seeds() const override { return 2 * m_ * 8; }  // up to Kalah(m, 8)
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  // No marks or flags on this board: the fast forms of the generic functions.
  Position rotate(const Position& p) const override { return rotate_plain(p, 2 * m_); }
  ClassKey class_of(const Position& p) const override { return ClassKey{0, p.seeds_in(0, 2 * m_)}; }

  Parents in_class_parents(const Position& p, std::vector<Position>& out) const override;
  bool has_unmoves() const override { return true; }
  bool in_class_acyclic() const override { return true; }

  int pits_per_side() const { return m_; }
  Capture capture() const { return capture_; }

 private:
  int m_;
  Capture capture_;
};

}  // namespace mancala
