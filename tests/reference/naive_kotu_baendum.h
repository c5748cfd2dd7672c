// A deliberately naive second implementation of Kotu-baendum (docs/rules/kotu-baendum.md),
// written from the rule text only, for cross-checking the engine. Plain vectors,
// seed-by-seed sowing in either direction (clockwise play is simulated directly, not
// by mirroring), endless turns found by remembering every lap-start state in a set.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mancala/position.h"

namespace naive_kotu {

// owner: 0 open, 1 tied by the mover (South), 2 tied by the opponent (North).
struct Board {
  std::vector<int> seeds = std::vector<int>(14, 0);
  std::vector<int> owner = std::vector<int>(14, 0);
};

struct Result {
  std::string move;  // "3", "0:cw"
  mancala::Position next;  // the opponent to move, as South; counterclockwise form
  int gain_mover = 0;
  int gain_opponent = 0;
};

inline bool end_hole(int i) { return i == 0 || i == 6 || i == 7 || i == 13; }

inline Board from_position(const mancala::Position& p) {
  Board b;
  for (int i = 0; i < 14; ++i) {
    b.seeds[i] = p.pits[i];
    b.owner[i] = p.marks[i] == mancala::Mark::South ? 1 : p.marks[i] == mancala::Mark::North ? 2 : 0;
  }
  return b;
}

// The board as the opponent sees it (his pits first, owners exchanged).
inline mancala::Position to_position_turned(const Board& b) {
  mancala::Position p;
  for (int i = 0; i < 14; ++i) {
    const int from = (i + 7) % 14;
    p.pits[i] = static_cast<mancala::Seeds>(b.seeds[from]);
    const int o = b.owner[from];
    p.marks[i] = o == 0 ? mancala::Mark::None : o == 1 ? mancala::Mark::North : mancala::Mark::South;
  }
  return p;
}

// Plays South's turn from `start` sowing in direction `dir` (+1 counterclockwise,
// -1 clockwise). Returns false if the turn never ends.
inline bool play_turn(Board& b, int start, int dir, int& mover, int& opponent) {
  std::set<std::pair<std::vector<int>, int>> seen;
  int pit = start;
  while (true) {
    if (!seen.insert({b.seeds, pit}).second) return false;  // this lap was started before
    int hand = b.seeds[pit];
    b.seeds[pit] = 0;
    int at = pit;
    while (hand > 0) {
      at = ((at + dir) % 14 + 14) % 14;
      if (b.owner[at] == 1) { ++mover; --hand; if (hand == 0) return true; continue; }
      if (b.owner[at] == 2) { ++opponent; --hand; if (hand == 0) return true; continue; }
      if (b.seeds[at] == 3 && hand > 1) {
        bool somewhere = false;  // can this seed go anywhere at all?
        for (int i = 0; i < 14; ++i)
          if (b.owner[i] != 0 || b.seeds[i] != 3) somewhere = true;
        if (!somewhere) return false;
        continue;
      }
      b.seeds[at] += 1;
      hand -= 1;
    }
    if (b.seeds[at] == 1) return true;
    if (b.seeds[at] == 4) {
      mover += 4;
      b.seeds[at] = 0;
      if (end_hole(at)) b.owner[at] = 1;
      return true;
    }
    pit = at;
  }
}

inline mancala::Position mirror_rows(const mancala::Position& p) {
  mancala::Position m = p;
  for (int i = 0; i < 7; ++i) {
    m.pits[6 - i] = p.pits[i];
    m.marks[6 - i] = p.marks[i];
    m.pits[13 - i] = p.pits[7 + i];
    m.marks[13 - i] = p.marks[7 + i];
  }
  return m;
}

inline std::vector<Result> moves(const mancala::Position& p) {
  std::vector<Result> out;
  const Board board = from_position(p);
  const bool first = (p.flags & mancala::kFirstMove) != 0;
  for (int pit = 0; pit < 7; ++pit) {
    if (board.seeds[pit] == 0 || board.owner[pit] != 0) continue;
    if (first && pit != 0 && pit != 6) continue;
    for (int dir : {+1, -1}) {
      if (dir == -1 && !first) continue;
      Board b = board;
      Result r;
      if (!play_turn(b, pit, dir, r.gain_mover, r.gain_opponent)) continue;
      r.move = std::to_string(pit) + (dir == -1 ? ":cw" : "");
      r.next = to_position_turned(b);
      // Clockwise games are kept in the mirrored, counterclockwise form.
      if (dir == -1) r.next = mirror_rows(r.next);
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace naive_kotu
