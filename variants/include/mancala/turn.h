// The end of a game after one move, for programs that play whole games (the C API's
// mtb_turn, the Python module's Turn): no tables needed.
#pragma once

#include <optional>
#include <vector>

#include "mancala/variant.h"

namespace mancala {

// A game is over after a move when the move says so (Child::game_over: Cenne's last
// seeds) or when the side to move next has no legal move (its terminal_value then
// settles the seeds left). Returns the value of the move for its mover in that case
// (move_value: the gains plus what the end shares out, or a win/loss Value), and
// nothing while the game goes on.
inline std::optional<Value> value_if_over(const Variant& v, const Child& c) {
  if (c.game_over) return move_value(v.kind(), c, 0);
  std::vector<Child> after;
  v.children(c.next, after);
  if (!after.empty()) return std::nullopt;
  return move_value(v.kind(), c, v.terminal_value(c.next));
}

}  // namespace mancala
