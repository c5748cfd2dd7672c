// The one interface every rule type implements, and the registry of variants.
//
// Cold paths (CLI, notation, probe) call the virtual functions. Hot loops (solver,
// perft, verify) are templates over the concrete final rule type, picked once by
// `with_rules` (rules.h): calls through the final type are devirtualised.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mancala/error.h"
#include "mancala/position.h"
#include "mancala/types.h"

namespace mancala {

enum class VariantId : std::uint8_t { DjenonAboure, KotuBaendum, Cenne, Enkeshui, Imbelece, Oware, Kalah };

// A class = (irreversible state, seeds in play).
// A move that captures nothing turns the board round, so a class holds the
// positions of both orientations of its marks: `state` is the smaller of the two
// packed states (canonical), and the class index numbers the positions of the
// canonical orientation first, then those of the turned one (if different).
// `state` packs the marks, flags and jeppe of its positions:
//   bits 0..47   mark of pit i in bits 2i..2i+1 (Mark values)
//   bits 48..55  PositionFlag bits
//   bits 56..60  jeppe + 1 (0 = none)
// Example: Kotu-baendum with pit 7 tied by South and 12 live seeds:
//   state = 1 << 14 = 16384, seeds = 12.
struct ClassKey {
  std::uint64_t state = 0;
  int seeds = 0;
  friend bool operator==(const ClassKey&, const ClassKey&) = default;
  friend bool operator<(const ClassKey& a, const ClassKey& b) {
    return a.seeds != b.seeds ? a.seeds < b.seeds : a.state < b.state;
  }
};
struct ClassKeyHash {
  std::size_t operator()(const ClassKey& k) const noexcept {
    return std::hash<std::uint64_t>()(k.state * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(k.seeds));
  }
};
inline std::uint64_t pack_state(const Position& p, int pits) {  // marks 2 bits per pit, flags << 48, (jeppe + 1) << 56
  std::uint64_t s = 0;
  for (int i = 0; i < pits; ++i) s |= static_cast<std::uint64_t>(p.marks[static_cast<std::size_t>(i)]) << (2 * i);
  return s | (static_cast<std::uint64_t>(p.flags) << 48) | (static_cast<std::uint64_t>(p.jeppe + 1) << 56);
}
Position skeleton_of(const ClassKey& k, int pits);  // marks/flags/jeppe, no seeds
std::string to_string(const ClassKey& k, int pits);  // "12" or "12 [7S]" etc.

// A reachability filter over the live pits of a class: at least one of the live
// pits with live index in [zero_from, zero_to) is empty. Empty range = no filter.
struct IndexFilter {
  int zero_from = 0;
  int zero_to = 0;
  bool active() const { return zero_to > zero_from; }
  friend bool operator==(const IndexFilter&, const IndexFilter&) = default;
};

class Variant {
 public:
  virtual ~Variant() = default;

  virtual VariantId id() const = 0;
  virtual std::string name() const = 0;  // canonical spec: "kalah:6:empty"
  virtual GameKind kind() const { return GameKind::Score; }
  virtual int pits() const = 0;  // pits on the circuit
  // Pits [0, south_pits) belong to the side to move (South) in this position.
  virtual int south_pits(const Position&) const { return pits() / 2; }
  virtual int total_seeds() const = 0;  // seeds in a whole game; positions hold at most this

  // The start position with `per_pit` seeds in each pit (0: the game's own).
  virtual Position start(int per_pit = 0) const = 0;

  // All legal turns of `p` (its side to move is South). Empty means the game is over:
  // then terminal_value(p) is its value.
  virtual void children(const Position& p, std::vector<Child>& out) const = 0;
  virtual Value terminal_value(const Position& p) const = 0;

  // The board turned round (side to move exchanged).
  virtual Position rotate(const Position& p) const;

  // Errors of a position beyond notation shape (seed totals, marks on wrong pits, ...).
  // Empty string when fine.
  virtual std::string check(const Position& p) const;

  // Class of a position, and the classes with up to max_seeds in play in an order
  // where every class comes after all classes its moves can lead to.
  virtual ClassKey class_of(const Position& p) const;
  virtual std::vector<ClassKey> classes(int max_seeds) const;
  // classes() with every key canonical (see ClassKey) and each class once, in order.
  std::vector<ClassKey> solving_order(int max_seeds) const;
  // The packed state of a position's skeleton turned round.
  std::uint64_t turned_state(const Position& p) const { return pack_state(rotate(p), pits()); }
  virtual IndexFilter index_filter(const ClassKey&) const { return {}; }
  // Whether a position is one the tables hold (false e.g. for a first-move flag).
  virtual bool tabled(const Position& p) const { return p.flags == 0 && p.jeppe < 0; }

  // Parents inside the same class: the positions q of class_of(p) with a move to p
  // that stays in the class, each once. Returns
  //   Parents::Exact     the list is exactly that set (filter aside: the caller
  //                      drops positions its class index does not allow),
  //   Parents::Superset  it may hold extra candidates (the solver checks each),
  //   Parents::None      the variant cannot enumerate them (multi-lap turns): the
  //                      solver then sweeps.
  enum class Parents : std::uint8_t { None, Superset, Exact };
  virtual Parents in_class_parents(const Position&, std::vector<Position>&) const { return Parents::None; }

  // Capabilities the solver asks for (retrograde.h picks its method from them):
  // has_unmoves: in_class_parents enumerates parents (never answers None);
  // in_class_acyclic: no sequence of moves that stay in a class returns to a
  // position it started from (Kalah: seeds only move towards the mover's store).
  virtual bool has_unmoves() const { return false; }
  virtual bool in_class_acyclic() const { return false; }
  // The most distinct moves a position has (the level method's counters).
  virtual int max_moves() const { return pits(); }
  // Whether classes() lists every class moves can reach, so that whole tables can be
  // generated (false for Enkeshui's bulls and Imbelece's closed pits: too many
  // combinations; their tables are reachable sets, `generate --from`).
  virtual bool whole_tables() const { return true; }

  // Move labels and their parse (for probe output and `play`).
  virtual std::string move_name(Move m) const { return to_string(m); }

  // Largest |value| of a position with `seeds` live seeds (score games), or kWinValue.
  virtual int value_bound(int seeds) const { return kind() == GameKind::Score ? seeds : kWinValue; }
};

using VariantPtr = std::shared_ptr<const Variant>;

// "kalah:6:empty", "oware", "cenne:7:5", ... -> the variant; an unknown name or bad
// parameters fail with InvalidArgument (the message lists the known variants).
Result<VariantPtr> make_variant(std::string_view spec);

struct VariantDoc {
  std::string name;        // base name
  std::string parameters;  // e.g. ":M:empty|standard"
  std::string example;     // canonical example spec
  std::string summary;
};
std::vector<VariantDoc> variant_docs();

// The value of a move for the mover, from the child's own value (see Child).
inline Value move_value(GameKind kind, const Child& c, Value child_value) {
  if (kind == GameKind::WinLoss) return c.game_over ? child_value : negate_step(child_value);
  const int base = c.gain_mover - c.gain_opponent;
  if (c.game_over) return static_cast<Value>(base);
  return static_cast<Value>(base + (c.same_side ? child_value : -child_value));
}

}  // namespace mancala
