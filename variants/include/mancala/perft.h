// perft: the number of move sequences of exactly `depth` turns from a position,
// counting each distinct turn once (a turn that ends the game ends its sequence).
#pragma once

#include <cstdint>
#include <vector>

#include "mancala/rules.h"

namespace mancala {

template <class Rules>
std::uint64_t perft(const Rules& rules, const Position& p, int depth) {
  if (depth == 0) return 1;
  std::vector<Child> kids;
  rules.Rules::children(p, kids);
  if (depth == 1) return kids.size();
  std::uint64_t n = 0;
  for (const Child& c : kids)
    if (!c.game_over) n += perft(rules, c.next, depth - 1);
  return n;
}

inline std::uint64_t perft(const Variant& v, const Position& p, int depth) {
  return with_rules(v, [&](const auto& rules) { return perft(rules, p, depth); });
}

}  // namespace mancala
