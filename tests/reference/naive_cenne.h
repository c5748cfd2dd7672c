// A deliberately naive second implementation of Cenne (docs/rules/cenne.md), written
// from the rule text only, for cross-checking the engine: plain vectors of the pits in
// play, seed-by-seed sowing, every lap-start state remembered in a set, the claim by
// trying every sequence of four own turns.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mancala/position.h"

namespace naive_cenne {

struct Game {
  int a = 7, b = 7;  // pits in play of South and North of the variant cenne:A:B
};

// The mover's view: his `mine` pits first (left to right), then the opponent's.
struct View {
  std::vector<int> seeds;
  int mine = 7;
  bool flipped = false;  // the mover is the B side
  int jeppe = -1;        // index into seeds, -1 none
  bool atappe = false;   // the forced reply is due
};

struct Result {
  std::string move;  // "3", "claim", "reply"
  mancala::Position next;
  bool over = false;
  int gain_mover = 0;
};

inline View from_position(const Game& g, const mancala::Position& p) {
  View v;
  v.flipped = (p.flags & mancala::kFlipped) != 0;
  v.mine = v.flipped ? g.b : g.a;
  v.atappe = (p.flags & mancala::kAtappe) != 0;
  v.jeppe = p.jeppe;
  for (int i = 0; i < g.a + g.b; ++i) v.seeds.push_back(p.pits[i]);
  return v;
}

// The position with the opponent to move (his pits first).
inline mancala::Position turned(const Game& g, const View& v) {
  const int n = static_cast<int>(v.seeds.size());
  mancala::Position p;
  for (int i = 0; i < n; ++i) p.pits[i] = static_cast<mancala::Seeds>(v.seeds[(v.mine + i) % n]);
  bool flipped = v.flipped;
  if (g.a != g.b) flipped = !flipped;
  p.flags = static_cast<std::uint8_t>((flipped ? mancala::kFlipped : 0) | (v.atappe ? mancala::kAtappe : 0));
  p.jeppe = static_cast<std::int8_t>(v.jeppe < 0 ? -1 : (v.jeppe + n - v.mine) % n);
  return p;
}

struct TurnOutcome {
  bool ends = true;
  bool atappe = false;
  bool fed_opponent = false;
  int captured = 0;
};

inline TurnOutcome sow_turn(std::vector<int>& s, int mine, int start) {
  const int n = static_cast<int>(s.size());
  TurnOutcome out;
  std::set<std::pair<std::vector<int>, int>> seen;
  int pit = start;
  for (;;) {
    if (seen.count({s, pit})) {
      out.ends = false;
      return out;
    }
    seen.insert({s, pit});
    int hand = s[pit];
    s[pit] = 0;
    int at = pit;
    while (hand > 0) {
      at = (at + 1) % n;
      if (s[at] == 3 && hand > 1) {
        bool all_three = true;
        for (int x : s) all_three = all_three && x == 3;
        if (all_three) {  // atappe: everything in hand into the rightmost own pit
          s[mine - 1] += hand;
          out.atappe = true;
          return out;
        }
        continue;
      }
      s[at] += 1;
      hand -= 1;
      if (at >= mine) out.fed_opponent = true;
    }
    if (s[at] == 1) return out;
    if (s[at] == 4) {
      out.captured += 4;
      s[at] = 0;
      const int next = (at + 1) % n;
      if (s[next] == 0) return out;
      pit = next;
      continue;
    }
    pit = at;
  }
}

// Can the mover play `left` more turns in a row, none feeding the opponent?
inline bool can_play_quietly(const std::vector<int>& s, int mine, int banned, int left) {
  if (left == 0) return true;
  for (int pit = 0; pit < mine; ++pit) {
    if (s[pit] == 0 || pit == banned) continue;
    std::vector<int> t = s;
    const TurnOutcome o = sow_turn(t, mine, pit);
    if (!o.ends || o.fed_opponent) continue;
    if (can_play_quietly(t, mine, -1, left - 1)) return true;
  }
  return false;
}

inline std::vector<Result> moves(const Game& g, const mancala::Position& p) {
  std::vector<Result> out;
  const View v = from_position(g, p);
  const int n = static_cast<int>(v.seeds.size());
  if (v.atappe) {
    const int right = v.mine - 1;
    if (v.seeds[right] != 3 || v.seeds[right - 1] != 3) return out;
    View w = v;
    w.atappe = false;
    w.seeds[right] = 0;       // lift the 3
    w.seeds[n - 1] += 1;      // one into the opponent's atappe pit
    w.seeds[right] += 1;      // one back
    w.seeds[right - 1] += 1;  // one into the next own pit: 4, captured
    w.seeds[right - 1] = 0;
    w.jeppe = right;
    Result r;
    r.move = "reply";
    r.gain_mover = 4;
    r.next = turned(g, w);
    out.push_back(r);
    return out;
  }
  const int banned = (v.jeppe >= 0 && v.jeppe < v.mine) ? v.jeppe : -1;
  for (int pit = 0; pit < v.mine; ++pit) {
    if (v.seeds[pit] == 0 || pit == banned) continue;
    View w = v;
    if (banned >= 0) w.jeppe = -1;
    const TurnOutcome o = sow_turn(w.seeds, w.mine, pit);
    if (!o.ends) continue;
    if (o.atappe) {
      w.atappe = true;
      w.jeppe = -1;
    }
    Result r;
    r.move = std::to_string(pit);
    r.gain_mover = o.captured;
    r.next = turned(g, w);
    out.push_back(r);
  }
  if (!out.empty() && can_play_quietly(v.seeds, v.mine, banned, 4)) {
    Result r;
    r.move = "claim";
    r.over = true;
    for (int x : v.seeds) r.gain_mover += x;
    out.push_back(r);
  }
  return out;
}

}  // namespace naive_cenne
