// A position: pit contents, irreversible marks, flags. Always stored with the
// side to move as South (docs/rules/README.md); the notation layer turns boards round.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "mancala/types.h"

namespace mancala {

struct Position {
  std::array<Seeds, kMaxPits> pits{};  // live seeds per pit, circuit order
  std::array<Mark, kMaxPits> marks{};  // ties, bulls, closed pits
  std::uint8_t flags = 0;              // PositionFlag bits
  std::int8_t jeppe = -1;              // Cenne: pit that may not start its owner's turn

  friend bool operator==(const Position&, const Position&) = default;

  int seeds_in(int from, int to) const {
    int s = 0;
    for (int i = from; i < to; ++i) s += pits[static_cast<std::size_t>(i)];
    return s;
  }
  bool has_marks(int n) const {
    for (int i = 0; i < n; ++i)
      if (marks[static_cast<std::size_t>(i)] != Mark::None) return true;
    return false;
  }
};

struct PositionHash {
  std::size_t operator()(const Position& p) const noexcept;
};

// What a move leads to.
//   value(move) = gain_mover - gain_opponent + (same_side ? v(next) : -v(next))   (score)
//   value(move) = negate_step(v(next))                                          (win/loss)
//   game_over: the game ends with the move; next is meaningless and v(next) = 0.
struct Child {
  Move move;
  Position next;  // normalised: its side to move is South
  std::int16_t gain_mover = 0;
  std::int16_t gain_opponent = 0;
  bool same_side = false;  // the mover moves again (Kalah's store)
  bool game_over = false;
};

}  // namespace mancala
