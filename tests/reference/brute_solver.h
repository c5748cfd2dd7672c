// A deliberately simple solver to check the retrograde tables against.
//
// It takes every position reachable from some roots (std::map, no index), groups
// them by (seeds in play, marks) — seeds never come back into play and marks never
// go away, so groups are solved in increasing seeds — and inside a group applies
// the definition of the value (docs/rules/README.md) directly: with e(p) the best
// value of a move leaving the group (or of the game ending),
//
//   v(p) >= t > 0  iff  p is in W_t, the least set with  e(p) >= t  or a move to a
//                       group member in L_t,
//   v(p) <= -t < 0 iff  p is in L_t, the least set with  e(p) <= -t (or no such move)
//                       and every move in the group going to W_t,
//   v(p) = 0 otherwise (endless play),
//
// each W_t and L_t computed from scratch by repeated passes until nothing changes.
// Slow (thresholds x passes x moves) and obviously correct.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "mancala/variant.h"

namespace mancala::reference {

class BruteSolver {
 public:
  BruteSolver(const Variant& v, const std::vector<Position>& roots) : v_(v) {
    std::vector<Position> stack = roots;
    while (!stack.empty()) {
      const Position p = stack.back();
      stack.pop_back();
      if (id_.count(key(p))) continue;
      id_[key(p)] = static_cast<int>(pos_.size());
      pos_.push_back(p);
      std::vector<Child> kids;
      v.children(p, kids);
      for (const Child& c : kids)
        if (!c.game_over) stack.push_back(c.next);
      kids_.push_back(std::move(kids));
    }
    values_.assign(pos_.size(), 0);
    // Groups in increasing seeds, and for equal seeds more marks first (a move that
    // keeps every seed in play can only add marks).
    std::map<std::tuple<int, int, std::vector<int>>, std::vector<int>> groups;
    for (std::size_t i = 0; i < pos_.size(); ++i) groups[group_of(pos_[i])].push_back(static_cast<int>(i));
    for (const auto& [g, members] : groups) solve_group(members);
  }

  std::size_t size() const { return pos_.size(); }
  Value value(const Position& p) const { return values_.at(static_cast<std::size_t>(id_.at(key(p)))); }
  const std::vector<Position>& positions() const { return pos_; }

 private:
  using Key = std::tuple<std::vector<int>, std::vector<int>, int, int>;
  Key key(const Position& p) const {
    std::vector<int> a, m;
    for (int i = 0; i < v_.pits(); ++i) {
      a.push_back(p.pits[static_cast<std::size_t>(i)]);
      m.push_back(static_cast<int>(p.marks[static_cast<std::size_t>(i)]));
    }
    return {a, m, p.flags, p.jeppe};
  }
  // A group holds both orientations of its marks (a quiet move turns the board).
  std::tuple<int, int, std::vector<int>> group_of(const Position& p) const {
    auto marks = [&](const Position& q) {
      std::vector<int> m;
      for (int i = 0; i < v_.pits(); ++i) m.push_back(static_cast<int>(q.marks[static_cast<std::size_t>(i)]));
      m.push_back(q.flags);
      m.push_back(q.jeppe);
      return m;
    };
    int marked = 0;
    for (int i = 0; i < v_.pits(); ++i) marked += p.marks[static_cast<std::size_t>(i)] != Mark::None;
    return {p.seeds_in(0, v_.pits()), -marked, std::min(marks(p), marks(v_.rotate(p)))};
  }

  Value neg(Value x) const { return v_.kind() == GameKind::Score ? static_cast<Value>(-x) : negate_step(x); }

  void solve_group(const std::vector<int>& members) {
    const std::set<int> in(members.begin(), members.end());
    std::map<int, Value> exit;                 // best exit per member (absent: none)
    std::map<int, std::vector<int>> inner;     // moves staying in the group
    for (int i : members) {
      const auto& kids = kids_[static_cast<std::size_t>(i)];
      if (kids.empty()) {
        exit[i] = v_.terminal_value(pos_[static_cast<std::size_t>(i)]);
        continue;
      }
      for (const Child& c : kids) {
        const int j = c.game_over ? -1 : id_.at(key(c.next));
        if (j >= 0 && in.count(j) && !c.same_side) {
          inner[i].push_back(j);
          continue;
        }
        const Value x = move_value(v_.kind(), c, j >= 0 ? values_[static_cast<std::size_t>(j)] : Value{0});
        exit[i] = exit.count(i) ? std::max(exit[i], x) : x;
      }
    }
    // Thresholds: every magnitude a value in this group can take.
    std::set<int> ts;
    const int steps = static_cast<int>(members.size()) + 2;
    for (const auto& [i, e] : exit)
      for (int d = 0; d <= (v_.kind() == GameKind::Score ? 0 : steps); ++d)
        if (std::abs(e) - d >= 1) ts.insert(std::abs(e) - d);
    std::map<int, int> win_at, loss_at;  // largest t with p in W_t / L_t
    for (auto it = ts.rbegin(); it != ts.rend(); ++it) {
      const int t = *it;
      std::set<int> W, L;
      for (bool changed = true; changed;) {
        changed = false;
        for (int i : members) {
          const bool has_exit = exit.count(i) > 0;
          const auto& moves = inner[i];
          bool w = has_exit && exit[i] >= t;
          for (int j : moves)  // neg(v(j)) >= t for every v(j) <= -t' ... i.e. j in L_t'
            if (loss_value_at_most(j, L, t)) w = true;
          bool l = (!has_exit || exit[i] <= -t);
          for (int j : moves)
            if (!win_value_at_least(j, W, t)) l = false;
          if (w && !W.count(i)) W.insert(i), changed = true;
          if (l && !L.count(i)) L.insert(i), changed = true;
        }
      }
      for (int i : W)
        if (!win_at.count(i)) win_at[i] = t;
      for (int i : L)
        if (!loss_at.count(i)) loss_at[i] = t;
      cur_W_[t] = W;
      cur_L_[t] = L;
    }
    for (int i : members) {
      Value v = 0;
      if (win_at.count(i)) v = static_cast<Value>(win_at[i]);
      else if (loss_at.count(i)) v = static_cast<Value>(-loss_at[i]);
      values_[static_cast<std::size_t>(i)] = v;
    }
    cur_W_.clear();
    cur_L_.clear();
  }

  // The move to group member j gives the mover >= t: neg(v(j)) >= t.
  // Score: v(j) <= -t, i.e. j in L_t. Win/loss: negate_step(v) >= t  <=>  v <= -(t+1),
  // i.e. j in L_{t+1} (already computed, larger threshold).
  bool loss_value_at_most(int j, const std::set<int>& L, int t) const {
    if (v_.kind() == GameKind::Score) return L.count(j) > 0;
    auto it = cur_L_.find(t + 1);
    return it != cur_L_.end() && it->second.count(j) > 0;
  }
  // The move to group member j gives the mover <= -t: neg(v(j)) <= -t.
  // Score: v(j) >= t, j in W_t. Win/loss: negate_step(v) <= -t  <=>  v >= t+1.
  bool win_value_at_least(int j, const std::set<int>& W, int t) const {
    if (v_.kind() == GameKind::Score) return W.count(j) > 0;
    auto it = cur_W_.find(t + 1);
    return it != cur_W_.end() && it->second.count(j) > 0;
  }

  const Variant& v_;
  std::map<Key, int> id_;
  std::vector<Position> pos_;
  std::vector<std::vector<Child>> kids_;
  std::vector<Value> values_;
  std::map<int, std::set<int>> cur_W_, cur_L_;
};

}  // namespace mancala::reference
