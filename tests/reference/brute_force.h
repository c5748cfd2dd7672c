// A deliberately naive solver, independent of solver/ and tablebase/, for
// cross-checks: enumerate every position reachable from a root (std::map), then
// iterate bounds on the whole graph to a fixpoint.
//
//   lo_0(p) = -B, hi_0(p) = +B                    (B larger than any value)
//   lo_{k+1}(p) = max over moves of g_m(lo_k or hi_k of the child)
//   hi_{k+1}(p) = max over moves of g_m(hi_k or lo_k of the child)
//
// where g_m is the move's value from the child's value (increasing for a move
// again, decreasing otherwise), a terminal position or game-ending move being
// exact. lo_k(p) is what the mover can force within k moves with the unknown rest
// counted at its worst, hi_k(p) what the opponent cannot stop him from reaching.
// At the fixpoint, lo(p) > 0 means a finite game worth lo(p) can be forced,
// hi(p) < 0 the same for the opponent, and anything else is endless play:
//
//   v(p) = lo(p) if lo(p) > 0,  hi(p) if hi(p) < 0,  0 otherwise.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "mancala/variant.h"

namespace mancala::reference {

struct BruteForce {
  struct Edge {
    int child = -1;  // -1: the move ends the game
    int gain = 0;    // gain_mover - gain_opponent
    bool same_side = false;
    bool game_over = false;
  };
  std::map<Position, int, bool (*)(const Position&, const Position&)> id{
      [](const Position& a, const Position& b) {
        return std::tie(a.pits, a.marks, a.flags, a.jeppe) < std::tie(b.pits, b.marks, b.flags, b.jeppe);
      }};
  std::vector<Position> positions;
  std::vector<std::vector<Edge>> edges;
  std::vector<int> value;

  // Solves everything reachable from root; false if more than max_positions.
  bool solve(const Variant& v, const Position& root, std::size_t max_positions) {
    const bool winloss = v.kind() == GameKind::WinLoss;
    const int big = winloss ? kWinValue : 1000;
    std::vector<int> todo{intern(root)};
    std::vector<Child> kids;
    while (!todo.empty()) {
      const int at = todo.back();
      todo.pop_back();
      v.children(positions[static_cast<std::size_t>(at)], kids);
      std::vector<Edge> out;
      for (const Child& c : kids) {
        Edge e;
        e.gain = c.gain_mover - c.gain_opponent;
        e.same_side = c.same_side;
        e.game_over = c.game_over;
        if (!c.game_over) {
          const std::size_t before = positions.size();
          e.child = intern(c.next);
          if (positions.size() > before) todo.push_back(e.child);
          if (positions.size() > max_positions) return false;
        }
        out.push_back(e);
      }
      edges[static_cast<std::size_t>(at)] = std::move(out);
    }
    // Groups: seeds on the board and marks (the brute force's own notion of a class;
    // a move either keeps them, gaining nothing, or takes seeds off the board or adds a
    // mark). Solved in increasing seeds, so every move leaving a group has its exact value.
    const std::size_t n = positions.size();
    auto seeds = [&](std::size_t i) {
      int s = 0;
      for (Seeds x : positions[i].pits) s += x;
      return s;
    };
    auto same_group = [&](std::size_t i, std::size_t j) {
      return seeds(i) == seeds(j) && positions[i].marks == positions[j].marks && positions[i].flags == positions[j].flags;
    };
    std::vector<int> lo(n, -big), hi(n, big);
    std::vector<bool> done(n, false);
    value.assign(n, 0);
    auto g = [&](const Edge& e, int cv) {
      if (winloss) return e.game_over ? 0 : static_cast<int>(negate_step(static_cast<Value>(cv)));
      if (e.game_over) return e.gain;
      return e.same_side ? e.gain + cv : e.gain - cv;
    };
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return seeds(x) < seeds(y); });
    for (std::size_t at = 0; at < n;) {
      // One group: positions with the same seeds and marks, contiguous after a stable
      // partition of this seed level.
      std::vector<std::size_t> group;
      const std::size_t first = order[at];
      std::size_t end = at;
      while (end < n && seeds(order[end]) == seeds(first)) ++end;
      for (std::size_t k = at; k < end; ++k)
        if (!done[order[k]] && same_group(order[k], first)) group.push_back(order[k]);
      for (std::size_t i : group)
        if (edges[i].empty()) lo[i] = hi[i] = v.terminal_value(positions[i]);
      for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i : group) {
          if (edges[i].empty()) continue;
          int a = -big - 1, b = -big - 1;
          for (const Edge& e : edges[i]) {
            if (e.game_over) {
              a = std::max(a, g(e, 0));
              b = std::max(b, g(e, 0));
              continue;
            }
            const std::size_t c = static_cast<std::size_t>(e.child);
            if (done[c]) {  // left the group: exact
              a = std::max(a, g(e, value[c]));
              b = std::max(b, g(e, value[c]));
              continue;
            }
            const bool up = !winloss && e.same_side;  // g increasing in the child's value
            a = std::max(a, g(e, up ? lo[c] : hi[c]));
            b = std::max(b, g(e, up ? hi[c] : lo[c]));
          }
          if (a != lo[i] || b != hi[i]) changed = true;
          lo[i] = a;
          hi[i] = b;
        }
      }
      for (std::size_t i : group) {
        value[i] = lo[i] > 0 ? lo[i] : hi[i] < 0 ? hi[i] : 0;
        done[i] = true;
      }
      while (at < n && done[order[at]]) ++at;
    }
    return true;
  }

  std::optional<int> value_of(const Position& p) const {
    const auto it = id.find(p);
    if (it == id.end()) return std::nullopt;
    return value[static_cast<std::size_t>(it->second)];
  }

 private:
  int intern(const Position& p) {
    const auto [it, fresh] = id.emplace(p, static_cast<int>(positions.size()));
    if (fresh) {
      positions.push_back(p);
      edges.emplace_back();
    }
    return it->second;
  }
};

}  // namespace mancala::reference
