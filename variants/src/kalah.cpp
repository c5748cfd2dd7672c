#include "mancala/rules/kalah.h"

namespace mancala {

std::string Kalah::name() const {
  return "kalah:" + std::to_string(m_) + (capture_ == Capture::Empty ? ":empty" : ":standard");
}

Position Kalah::start(int per_pit) const {
  Position p;
  for (int i = 0; i < 2 * m_; ++i) p.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(per_pit ? per_pit : 4);
  return p;
}

// If either side is empty after a move the game is over: the child is terminal and
// its terminal_value shares out the seeds (each side takes its own).
void Kalah::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  const int m = m_;
  if (over(p.pits.data())) return;
  for (int i = 0; i < m; ++i) {
    if (p.pits[static_cast<std::size_t>(i)] == 0) continue;
    Child& c = out.emplace_back();
    const Sowing s = sow(p.pits.data(), i, c.next.pits.data());
    c.move = Move::sow(i);
    c.gain_mover = static_cast<std::int16_t>(s.gain);
    c.same_side = s.again;
  }
}

// Un-moves of in-class moves (no seed reaches the store, no capture): the lap of s
// seeds from the mover's empty pit i stays on his side, i+s <= m-1. Turn p round so
// the mover is South and take one seed back from each of pits i+1..i+s. Exact: the
// lap's last pit must not have been empty (capture), and q must not be over already
// (North, untouched by the move, empty).
Variant::Parents Kalah::in_class_parents(const Position& p, std::vector<Position>& out) const {
  out.clear();
  const Position b = rotate(p);
  const int n = 2 * m_;
  if (b.seeds_in(m_, n) == 0) return Parents::Exact;
  for (int i = 0; i < m_; ++i) {
    if (b.pits[static_cast<std::size_t>(i)] != 0) continue;
    Position q = b;
    for (int s = 1; i + s < m_; ++s) {
      const int j = i + s;
      auto& c = q.pits[static_cast<std::size_t>(j)];
      if (c == 0) break;
      --c;
      // Landing in an (earlier) empty pit captures unless standard and facing empty.
      if (c == 0 && (capture_ == Capture::Empty || b.pits[static_cast<std::size_t>(n - 1 - j)] > 0)) continue;
      Position parent = q;
      parent.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(s);
      out.push_back(parent);
    }
  }
  return Parents::Exact;
}

// A position with one side empty: the game is over, each side takes its own seeds.
Value Kalah::terminal_value(const Position& p) const {
  return static_cast<Value>(p.seeds_in(0, m_) - p.seeds_in(m_, 2 * m_));
}

}  // namespace mancala
