#include "mancala/rules/oware.h"

namespace mancala {

Position Oware::start(int per_pit) const {
  Position p;
  for (int i = 0; i < kPits; ++i) p.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(per_pit ? per_pit : 4);
  return p;
}

// Single lap; a lap of 12 or more seeds skips its start pit. The last seed making an
// opponent pit 2 or 3 captures it and the run of 2s and 3s before it in his row.
int Oware::play(Position& p, int pit) {
  auto& b = p.pits;
  const int s = b[static_cast<std::size_t>(pit)];
  b[static_cast<std::size_t>(pit)] = 0;
  // By laps: each full lap puts one seed in each of the 11 other pits; the rest
  // (1..11 seeds) go one by one after the start pit and never reach it again.
  // E.g. 13 seeds from pit 2: one lap, then pits 3 and 4; the last seed is in pit 4.
  const int laps = (s - 1) / (kPits - 1), rest = s - laps * (kPits - 1);
  if (laps > 0)
    for (int i = 0; i < kPits; ++i)
      if (i != pit) b[static_cast<std::size_t>(i)] = static_cast<Seeds>(b[static_cast<std::size_t>(i)] + laps);
  int q = pit;
  for (int k = 0; k < rest; ++k) {
    q = q + 1 == kPits ? 0 : q + 1;
    ++b[static_cast<std::size_t>(q)];
  }
  int gain = 0;
  while (q >= kRow) {
    const int c = b[static_cast<std::size_t>(q)];
    if (c != 2 && c != 3) break;
    gain += c;
    b[static_cast<std::size_t>(q)] = 0;
    --q;
  }
  return gain;
}

void Oware::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  // Grand slam / feeding rule: moves that leave North empty are legal only if all are.
  bool any_feeds = false;
  for (int i = 0; i < kRow; ++i) {
    if (p.pits[static_cast<std::size_t>(i)] == 0) continue;
    Position b = p;
    const int gain = play(b, i);
    const bool feeds = b.seeds_in(kRow, kPits) > 0;
    if (feeds && !any_feeds) {
      out.clear();
      any_feeds = true;
    }
    if (feeds || !any_feeds) {  // built in place, turned round (no marks or flags here)
      Child& c = out.emplace_back();
      c.move = Move::sow(i);
      c.gain_mover = static_cast<std::int16_t>(gain);
      for (std::size_t k = 0; k < kRow; ++k) {
        c.next.pits[k] = b.pits[k + kRow];
        c.next.pits[k + kRow] = b.pits[k];
      }
    }
  }
}

// The side to move has no seeds: the game ends, the opponent takes what is left.
Value Oware::terminal_value(const Position& p) const {
  return static_cast<Value>(p.seeds_in(0, kRow) - p.seeds_in(kRow, kPits));
}

// Un-moves. p (South to move) came from q by a capture-free move of the other side:
// turn p round so that mover is South again; his start pit i is empty; sowing s
// seeds from i put one seed in each pit of the lap (skipping i), so q = board with
// one seed taken back from each pit of the lap and s seeds in i. A longer lap
// takes back from a superset of pits, so the first failure ends the search.
Variant::Parents Oware::in_class_parents(const Position& p, std::vector<Position>& out) const {
  out.clear();
  const Position b = rotate(p);
  const int n = b.seeds_in(0, kPits);
  const bool starved = b.seeds_in(kRow, kPits) == 0;
  for (int i = 0; i < kRow; ++i) {
    if (b.pits[static_cast<std::size_t>(i)] != 0) continue;
    Position q = b;
    int j = i;
    for (int s = 1; s <= n; ++s) {
      j = j + 1 == kPits ? 0 : j + 1;
      if (j == i) j = j + 1 == kPits ? 0 : j + 1;
      auto& c = q.pits[static_cast<std::size_t>(j)];
      if (c == 0) break;
      --c;
      // The last seed landing on an opponent 2 or 3 would have captured: not in-class.
      const int after = b.pits[static_cast<std::size_t>(j)];
      if (j >= kRow && (after == 2 || after == 3)) continue;
      Position& parent = out.emplace_back(q);  // built in place
      parent.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(s);
      if (starved) {
        std::vector<Child> kids;
        children(parent, kids);
        bool legal = false;
        for (const Child& k : kids) legal = legal || (k.gain_mover == 0 && k.next == p);
        if (!legal) out.pop_back();
      }
    }
  }
  return Parents::Exact;
}

}  // namespace mancala
