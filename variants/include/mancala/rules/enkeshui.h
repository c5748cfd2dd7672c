// Enkeshui (docs/rules/enkeshui.md): 2 x K (8, 10, 12), 48 seeds, bulls, capture of the
// facing pit in the first lap, direction privilege.
//
// Board: South's row is pits 0..K-1, North's row K..2K-1 (circuit order); pit i faces
// 2K-1-i. A bull is a pit marked Mark::South / Mark::North: it holds no live seeds,
// every seed sown into it is credited at once to its owner (gain_mover or
// gain_opponent) and leaves play; a turn never starts from a bull.
//
// Direction privilege: once a lap of the turn has dropped a seed into every pit of the
// opponent's row, each later lap is sown clockwise or counterclockwise at the mover's
// choice. A move is the start pit plus those choices ("2:cw,ccw"). From the first
// privileged lap on, the turns of a start pit are found by a breadth-first search over
// the lap-start states (board, lap pit, mover's gain), counterclockwise first, each state
// visited once; a choice sequence that revisits a state is endless there or leads only
// to outcomes found already. Choice sequences that end in the same outcome (position
// after the turn, gain_mover, gain_opponent) are one move: children() lists each outcome
// of a start pit once, labelled by its shortest choice sequence (the first in shortlex
// order, ccw < cw). Different start pits are different moves even with the same outcome.
//
// Hard limit: the privilege can give a start pit an astronomical number of distinct
// outcomes (docs/rules/enkeshui.md). children() is exact, or it throws
// std::length_error when one start pit has more than kMaxTurnsPerPit distinct outcomes
// or the search needs more than kMaxLapStates lap-start states for it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mancala/variant.h"

namespace mancala {

class Enkeshui final : public Variant {
 public:
  Enkeshui(int row, bool layout_b) : k_(row), layout_b_(layout_b) {}

  bool whole_tables() const override { return false; }
  VariantId id() const override { return VariantId::Enkeshui; }
  std::string name() const override { return "enkeshui:" + std::to_string(k_) + (layout_b_ ? ":b" : ""); }
  int pits() const override { return 2 * k_; }
  int total_seeds() const override { return 48; }
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  std::string check(const Position& p) const override;

  std::string move_name(Move m) const override;

  // A move whose shortest choice sequence is longer than Move::kMaxChoices cannot
  // spell its choices out. It is written with the choice-count field set to
  // kLongChoices and bits 13..31 holding its ordinal n among such moves of its start
  // pit, in the order children() lists them; its name is "p:long#n".
  static constexpr int kLongChoices = 31;
  static constexpr Move long_move(int pit, std::uint32_t n) {
    return Move::from_bits(static_cast<std::uint32_t>(pit) | (static_cast<std::uint32_t>(kLongChoices) << 8) | (n << 13));
  }

  // The hard limits of children() per start pit (see the top of this file).
  static constexpr std::size_t kMaxTurnsPerPit = std::size_t{1} << 16;
  static constexpr std::size_t kMaxLapStates = std::size_t{1} << 20;

  int row() const { return k_; }
  bool layout_b() const { return layout_b_; }

  // Fewest seeds that must have left play for `bulls` bulls to exist: a bull made
  // alone takes 4 seeds, a pair made by the 2-and-3 rule takes 7.
  static int seeds_taken_by_bulls(int bulls) { return (bulls / 2) * 7 + (bulls % 2) * 4; }

 private:
  // State at the start of a lap of one turn (South moving).
  struct Lap {
    Position board;
    int pit = 0;              // the lap lifts this pit
    int gain_mover = 0;
    int gain_opponent = 0;
    bool first = true;        // the turn's first lap (captures possible)
    bool privilege = false;   // the mover chooses this lap's direction
    Move move;                // start pit and the choices made so far
    int choices = 0;          // number of choices made (may exceed what `move` holds)
  };
  // Sows one lap of `lap` in direction `cw` and applies the end of lap. Returns true
  // if the turn goes on (`lap` is then the next lap's start), false if it ended.
  bool sow_lap(Lap& lap, bool cw) const;
  // Every turn from South's pit `pit`, appended to `out`.
  void turns_from(const Position& p, int pit, std::vector<Child>& out) const;

  int k_;
  bool layout_b_;
};

}  // namespace mancala
