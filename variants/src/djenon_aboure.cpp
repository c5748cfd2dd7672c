#include "mancala/rules/djenon_aboure.h"

#include "mancala/rules/sowing.h"

namespace mancala {

Position DjenonAboure::start(int per_pit) const {
  Position p;
  for (int i = 0; i < kPits; ++i) p.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(per_pit ? per_pit : 4);
  return p;
}

// A lap from `pit`: lift s seeds, drop the first back into `pit`, one in each of the
// next s-1 pits. The end of the lap is decided by what the last pit held before:
//   0 -> stop; 1 or 3 -> capture and stop; 2 or >= 4 -> relay from it.
bool DjenonAboure::play(Position& p, int pit, int& gain) {
  gain = 0;
  EndlessTurnDetector guard;
  auto& b = p.pits;
  for (;;) {
    if (guard.repeats(p, pit)) return false;
    const int s = b[static_cast<std::size_t>(pit)];
    b[static_cast<std::size_t>(pit)] = 0;
    int last = pit;
    for (int k = 0; k < s; ++k) {
      last = (pit + k) % kPits;
      ++b[static_cast<std::size_t>(last)];
    }
    const int before = b[static_cast<std::size_t>(last)] - 1;
    if (before == 0) return true;
    if (before == 1 || before == 3) {
      gain += b[static_cast<std::size_t>(last)];
      b[static_cast<std::size_t>(last)] = 0;
      int q = last;
      for (int looked = 0; looked < kPits - 1; ++looked) {
        q = (q + kPits - 1) % kPits;
        const int c = b[static_cast<std::size_t>(q)];
        if (c != 2 && c != 4) break;
        gain += c;
        b[static_cast<std::size_t>(q)] = 0;
      }
      return true;
    }
    pit = last;  // relay
  }
}

bool DjenonAboure::has_move(const Position& p) {
  for (int i = 0; i < kRow; ++i) {
    if (p.pits[static_cast<std::size_t>(i)] < 2) continue;
    Position q = p;
    int gain = 0;
    if (play(q, i, gain)) return true;
  }
  return false;
}

void DjenonAboure::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  for (int i = 0; i < kRow; ++i) {
    if (p.pits[static_cast<std::size_t>(i)] < 2) continue;
    Child c;
    c.next = p;
    int gain = 0;
    if (!play(c.next, i, gain)) continue;  // endless: not a legal move
    c.move = Move::sow(i);
    c.gain_mover = static_cast<std::int16_t>(gain);
    c.next = rotate(c.next);
    out.push_back(c);
  }
  if (!out.empty()) return;
  // No legal move: pass if the opponent can move, else the game is over.
  const Position turned = rotate(p);
  if (has_move(turned)) {
    Child c;
    c.move = Move::pass();
    c.next = turned;
    out.push_back(c);
  }
}

Value DjenonAboure::terminal_value(const Position& p) const {
  return static_cast<Value>(p.seeds_in(0, kRow) - p.seeds_in(kRow, kPits));
}

}  // namespace mancala
