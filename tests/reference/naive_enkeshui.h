// A deliberately naive second implementation of docs/rules/enkeshui.md (Enkeshui),
// written from the rule text only, for cross-checking the engine.
//
// Nothing is shared with the engine: the board is a std::vector<int> of seeds and a
// std::string of owners ('.' plain, 'S' / 'N' a bull of that player) in absolute
// orientation (South's row 0..k-1, North's row k..2k-1, circuit order), the mover is
// 'S' or 'N', seeds are dropped one at a time, and every lap-start state of a turn is
// remembered in a std::set. Each turn is explored breadth-first over the direction
// choices; the result is the set of distinct (board after, gains) of the turns.
#pragma once

#include <deque>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace naive {

struct EnkBoard {
  std::vector<int> seeds;
  std::string owner;  // '.', 'S', 'N'
  auto operator<=>(const EnkBoard&) const = default;
};

struct EnkResult {
  EnkBoard after;
  int gain_mover = 0;
  int gain_opponent = 0;
  auto operator<=>(const EnkResult&) const = default;
};

class NaiveEnkeshui {
 public:
  explicit NaiveEnkeshui(int row) : k(row), n(2 * row) {}

  bool mine(char mover, int pit) const { return mover == 'S' ? pit < k : pit >= k; }
  int facing(int pit) const { return n - 1 - pit; }

  // All distinct results of all legal turns of `mover` (empty: no legal move).
  std::set<EnkResult> turns(const EnkBoard& b, char mover) const {
    std::set<EnkResult> all;
    for (int pit = 0; pit < n; ++pit) {
      if (!mine(mover, pit) || b.owner[pit] != '.' || b.seeds[pit] == 0) continue;
      for (const EnkResult& r : turns_from(b, mover, pit)) all.insert(r);
    }
    return all;
  }

  struct State {
    EnkBoard board;
    int pit;
    int gm, go;
    bool first;
    bool free_direction;
  };

  std::set<EnkResult> turns_from(const EnkBoard& b, char mover, int start) const {
    std::set<EnkResult> results;
    std::set<std::tuple<EnkBoard, int, int, bool, bool>> seen;  // board, pit, gm, first, free
    std::deque<State> todo;
    todo.push_back(State{b, start, 0, 0, true, false});
    while (!todo.empty()) {
      State s = todo.front();
      todo.pop_front();
      if (!seen.insert({s.board, s.pit, s.gm, s.first, s.free_direction}).second) continue;
      std::vector<int> dirs = {+1};
      if (s.free_direction) dirs = {+1, -1};
      for (int dir : dirs) {
        State t = s;
        bool ended = lap(t, mover, dir);
        if (ended) results.insert(EnkResult{t.board, t.gm, t.go});
        else todo.push_back(t);
      }
    }
    return results;
  }

  // Plays one lap of state `s` in direction `dir`; true if the turn ended.
  bool lap(State& s, char mover, int dir) const {
    std::vector<int>& seeds = s.board.seeds;
    std::string& owner = s.board.owner;
    const char opp = mover == 'S' ? 'N' : 'S';
    int hand = seeds[s.pit];
    seeds[s.pit] = 0;
    int pos = s.pit;
    std::vector<int> dropped_in;  // pits, in order
    std::vector<int> had_before;  // their contents before the seed (-1: a bull)
    std::set<int> opponent_pits_fed;
    while (hand > 0) {
      pos = ((pos + dir) % n + n) % n;
      hand--;
      dropped_in.push_back(pos);
      if (!mine(mover, pos)) opponent_pits_fed.insert(pos);
      if (owner[pos] == mover) {
        s.gm++;
        had_before.push_back(-1);
      } else if (owner[pos] == opp) {
        s.go++;
        had_before.push_back(-1);
      } else {
        had_before.push_back(seeds[pos]);
        seeds[pos]++;
      }
    }
    if ((int)opponent_pits_fed.size() == k) s.free_direction = true;
    const int last = dropped_in.back();
    const int before = had_before.back();
    // Bulls made?
    std::set<int> new_bulls;
    if (before == 3) new_bulls.insert(last);
    if (dropped_in.size() >= 2) {
      const int prev = dropped_in[dropped_in.size() - 2];
      const int prev_before = had_before[had_before.size() - 2];
      if ((before == 2 && prev_before == 3) || (before == 3 && prev_before == 2)) {
        new_bulls.insert(last);
        new_bulls.insert(prev);
      }
    }
    if (!new_bulls.empty()) {
      for (int p : new_bulls) {
        s.gm += seeds[p];
        seeds[p] = 0;
        owner[p] = mover;
      }
      return true;
    }
    if (before == -1) return true;  // into a bull
    if (before == 0) {
      if (mine(mover, last) && s.first) {
        const int f = facing(last);
        if (owner[f] == '.' && seeds[f] > 0) {
          s.gm += seeds[f] + 1;
          seeds[f] = 0;
          seeds[last] = 0;
          // Along the mover's row, counterclockwise from the capturing pit.
          const int row_end = mover == 'S' ? k : n;
          for (int p = last + 1; p < row_end; ++p) {
            const int fp = facing(p);
            if (owner[p] == '.' && seeds[p] == 0 && owner[fp] == '.' && seeds[fp] > 0) {
              s.gm += seeds[fp];
              seeds[fp] = 0;
            } else {
              break;
            }
          }
        }
      }
      return true;
    }
    s.pit = last;
    s.first = false;
    return false;
  }

  int k, n;
};

}  // namespace naive
