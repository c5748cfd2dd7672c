#include "mancala/rules/imbelece.h"

#include "mancala/rules/sowing.h"

namespace mancala {

Position Imbelece::start(int per_pit) const {
  Position p;
  for (int i = 0; i < kPits; ++i) p.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(per_pit ? per_pit : 3);
  p.flags = kFirstMove;
  return p;
}

// Laps along the circuit. Each seed goes to the next pit; the mover's closed pits
// (0..7) are passed over, at the opponent's closed pits (8..15) the seed goes into the
// store. End of a lap (docs/rules/imbelece.md):
//   last seed into the store          -> the turn ends
//   last pit held 0                   -> the turn ends
//   opponent's pit now holding 4, not the game's first move
//                                     -> it is closed, its 4 seeds sown on from the next pit
//   otherwise                         -> relay from the last pit
// Only relay laps can repeat (a closing adds a mark for good), so only they are fed to
// the endless-turn detector, with the board before the lift.
bool Imbelece::play(Position& p, int pit) {
  const bool first_move = (p.flags & kFirstMove) != 0;
  p.flags = 0;
  auto& b = p.pits;
  auto& m = p.marks;
  EndlessTurnDetector guard;
  int hand = 0;
  int at = pit;
  bool relay = true;  // the next lap lifts pit `at` (else: `hand` seeds from a closing)
  for (;;) {
    if (relay) {
      if (guard.repeats(p, at)) return false;
      hand = b[static_cast<std::size_t>(at)];
      b[static_cast<std::size_t>(at)] = 0;
    }
    bool into_store = false;
    while (hand > 0) {
      at = (at + 1) % kPits;
      const auto u = static_cast<std::size_t>(at);
      if (m[u] == Mark::Closed) {
        if (at < kSide) continue;  // the mover's own closed pit: passed over
        --hand;                    // the opponent's: one seed into the store
        into_store = hand == 0;
        continue;
      }
      ++b[u];
      --hand;
    }
    if (into_store) return true;
    const auto u = static_cast<std::size_t>(at);
    if (b[u] == 1) return true;  // held 0
    if (at >= kSide && b[u] == 4 && !first_move) {
      m[u] = Mark::Closed;
      hand = 4;
      b[u] = 0;
      relay = false;
      continue;
    }
    relay = true;
  }
}

void Imbelece::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  for (int i = 0; i < kSide; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (p.marks[u] == Mark::Closed || p.pits[u] == 0) continue;
    Position q = p;
    if (!play(q, i)) continue;  // endless: not a legal move
    Child c;
    c.move = Move::sow(i);
    c.next = rotate(q);
    out.push_back(c);
  }
}

// No legal move at the start of his turn: the side to move has lost, in 0 plies.
Value Imbelece::terminal_value(const Position&) const { return static_cast<Value>(-kWinValue); }

std::string Imbelece::check(const Position& p) const {
  int total = 0;
  int closed = 0;
  for (int i = 0; i < kPits; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const Mark m = p.marks[u];
    if (m == Mark::South || m == Mark::North)
      return "pit " + std::to_string(i) + ": imbelece has no bulls or tied pits (a pit is open or closed, x)";
    if (m == Mark::Closed) {
      if (p.pits[u] != 0) return "pit " + std::to_string(i) + " is closed and must be written with 0 seeds (0x)";
      ++closed;
    }
    total += p.pits[u];
  }
  if (total > total_seeds())
    return std::to_string(total) + " seeds on the board, but " + name() + " is played with " + std::to_string(total_seeds());
  if ((p.flags & ~kFirstMove) != 0) return name() + " has no position flags but 'first'";
  if ((p.flags & kFirstMove) && closed > 0) return "closed pits in the first move of the game (no pit can be closed before it)";
  if (p.jeppe >= 0) return name() + " has no jeppe pit";
  return {};
}

}  // namespace mancala
