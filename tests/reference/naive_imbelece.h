// A deliberately naive second implementation of docs/rules/imbelece.md (Imbelece),
// written from the rule text only, for cross-checking the engine.
//
// The board is absolute: a std::vector<int> of 16 seed counts and a std::vector<bool>
// of closed pits; South owns pits 0..7, North 8..15; the mover is 'S' or 'N'. Seeds are
// dropped one at a time; an endless turn is found by remembering every relay lap's
// start (board, closed pits, pit) in a std::set.
#pragma once

#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace naive {

struct ImbBoard {
  std::vector<int> seeds = std::vector<int>(16, 0);
  std::vector<bool> closed = std::vector<bool>(16, false);
  auto operator<=>(const ImbBoard&) const = default;
};

struct NaiveImbelece {
  static bool owns(char side, int pit) { return side == 'S' ? pit < 8 : pit >= 8; }

  // The board after the turn of `mover` from `start`, or nothing if it never ends.
  static std::optional<ImbBoard> turn(ImbBoard b, char mover, int start, bool first_move_of_game) {
    std::set<std::tuple<std::vector<int>, std::vector<bool>, int>> relays_seen;
    int pit = start;
    int hand = 0;
    bool lift = true;
    while (true) {
      if (lift) {
        if (!relays_seen.insert({b.seeds, b.closed, pit}).second) return std::nullopt;
        hand = b.seeds[pit];
        b.seeds[pit] = 0;
      }
      int pos = pit;
      bool last_into_store = false;
      while (hand > 0) {
        pos = (pos + 1) % 16;
        if (b.closed[pos]) {
          if (owns(mover, pos)) continue;  // own closed pit: nothing happens
          hand--;                          // opponent's closed pit: a seed to the store
          if (hand == 0) last_into_store = true;
          continue;
        }
        b.seeds[pos]++;
        hand--;
      }
      if (last_into_store) return b;
      if (b.seeds[pos] == 1) return b;
      if (!owns(mover, pos) && b.seeds[pos] == 4 && !first_move_of_game) {
        b.closed[pos] = true;
        hand = 4;
        b.seeds[pos] = 0;
        pit = pos;  // sow on from the next pit
        lift = false;
        continue;
      }
      pit = pos;
      lift = true;
    }
  }

  // (start pit from the mover's left, board after) of every legal turn.
  static std::vector<std::pair<int, ImbBoard>> turns(const ImbBoard& b, char mover, bool first_move_of_game) {
    std::vector<std::pair<int, ImbBoard>> out;
    for (int j = 0; j < 8; ++j) {
      const int pit = mover == 'S' ? j : 8 + j;
      if (b.closed[pit] || b.seeds[pit] == 0) continue;
      if (auto after = turn(b, mover, pit, first_move_of_game)) out.push_back({j, *after});
    }
    return out;
  }
};

}  // namespace naive
