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

// Sowing circuit for South: pits 0..m-1, South's store (position m in the circuit
// below), North's pits m..2m-1; North's store is skipped. Circuit step c in
// [0, 2m+1): c < m -> pit c, c == m -> store, c > m -> pit c-1.
// s seeds from pit i go round L = 2m+1 steps: s / L whole laps put one seed in every
// pit and the store (pit i included), the other s % L seeds go one each to steps
// i+1, i+2, ... (mod L); the last seed lands on step (i + s) mod L.
void Kalah::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  const int m = m_;
  const int n = 2 * m;
  const int L = n + 1;
  if (p.seeds_in(0, m) == 0 || p.seeds_in(m, n) == 0) return;  // game over
  for (int i = 0; i < m; ++i) {
    const int s = p.pits[static_cast<std::size_t>(i)];
    if (s == 0) continue;
    Seeds b[kMaxPits];
    for (int k = 0; k < n; ++k) b[k] = p.pits[static_cast<std::size_t>(k)];
    b[i] = 0;
    const int laps = s / L, rest = s % L;
    int store = laps;
    if (laps)
      for (int k = 0; k < n; ++k) b[k] = static_cast<Seeds>(b[k] + laps);
    for (int k = 1, step = i + 1; k <= rest; ++k, ++step) {
      if (step == L) step = 0;
      if (step == m) ++store;
      else ++b[step < m ? step : step - 1];
    }
    const int last = (i + s) % L;
    int gain = store;
    const bool again = last == m;
    if (!again && last < m && b[last] == 1) {
      const int facing = n - 1 - last;
      const int f = b[facing];
      if (f > 0 || capture_ == Capture::Empty) {
        gain += f + 1;
        b[facing] = 0;
        b[last] = 0;
      }
    }
    // If either side is now empty the game is over: the child is terminal and its
    // terminal_value shares out the seeds (each side takes its own).
    Child& c = out.emplace_back();
    c.move = Move::sow(i);
    c.gain_mover = static_cast<std::int16_t>(gain);
    c.same_side = again;
    auto& q = c.next.pits;
    if (again) {
      for (int k = 0; k < n; ++k) q[static_cast<std::size_t>(k)] = b[k];
    } else {  // turned round: North's pits first
      for (int k = 0; k < m; ++k) {
        q[static_cast<std::size_t>(k)] = b[k + m];
        q[static_cast<std::size_t>(k + m)] = b[k];
      }
    }
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
