// Kalah(m, n) (docs/rules/kalah.md): stores on the circuit, extra move from the
// store, capture from an empty own pit (`empty` or `standard` option).
#pragma once

#include <array>
#include <cstring>

#include "mancala/rules/sowing.h"
#include "mancala/variant.h"

namespace mancala {

class Kalah final : public Variant {
 public:
  enum class Capture : std::uint8_t { Empty, Standard };

  Kalah(int pits_per_side, Capture capture) : m_(pits_per_side), capture_(capture) {}

  VariantId id() const override { return VariantId::Kalah; }
  std::string name() const override;
  int pits() const override { return 2 * m_; }
  int total_seeds() const override { return 2 * m_ * 8; }  // up to Kalah(m, 8)
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  // No marks or flags on this board: the fast forms of the generic functions.
  Position rotate(const Position& p) const override { return rotate_plain(p, 2 * m_); }
  ClassKey class_of(const Position& p) const override { return ClassKey{0, p.seeds_in(0, 2 * m_)}; }

  Parents in_class_parents(const Position& p, std::vector<Position>& out) const override;
  bool has_unmoves() const override { return true; }
  int max_moves() const override { return pits() / 2; }  // a pit of the mover's side
  bool in_class_acyclic() const override { return true; }

  // Compact boards (the solver's acyclic kernel, class_solver.h, and children()):
  // a board is 16 bytes, the 2m pit contents then zeros (m <= 6).
  //
  // sow: one move from South's pit i (b[i] > 0, neither side empty). out gets the
  // child's board, turned round unless the mover moves again; `gain` is what the
  // move took off the board (sown into the store, captured). A move with gain 0 stays
  // in the class (it cannot move again: its last seed did not reach the store).
  struct Sowing {
    int gain = 0;
    bool again = false;
  };
  Sowing sow(const Seeds* b, int i, Seeds* out) const;
  // side_move: the same move from pit i of South's side x (pit k in byte k of the
  // word), North's side left out. On any board (x | y) the move leaves `own` on
  // South's side and y + `other` on North's (`other`: the seeds sown there, laps
  // included), sows `store` seeds into the store and moves again when `again`; then,
  // if `last` >= 0 (its last seed fell into South's pit `last`, empty before), it
  // captures the facing pit m-1-last when captures(seeds there after the move): gain
  // store + facing seeds + 1, both pits emptied. sow() is this, and the board turned.
  struct SideMove {
    std::uint64_t own = 0, other = 0;
    int store = 0;
    int last = -1;
    bool again = false;
  };
  SideMove side_move(std::uint64_t x, int i) const;
  bool captures(int facing) const { return facing > 0 || capture_ == Capture::Empty; }
  // b turned round (the other side to move).
  void turn(const Seeds* b, Seeds* out) const;
  // The game is over on board b: a side is empty (no move is left).
  bool over(const Seeds* b) const {
    int south = 0, north = 0;
    for (int k = 0; k < m_; ++k) {
      south += b[k];
      north += b[k + m_];
    }
    return south == 0 || north == 0;
  }

  int pits_per_side() const { return m_; }
  Capture capture() const { return capture_; }

 private:
  int m_;
  Capture capture_;
};

namespace kalah_detail {
// A compact board in one register: byte k of the number is pit k (or circuit step k).
__extension__ using Board = unsigned __int128;
// ones(k): bytes 0..k-1 set to 1 (k <= 16).
inline constexpr auto kOnes = [] {
  std::array<Board, 17> t{};
  for (int k = 1; k <= 16; ++k) t[static_cast<std::size_t>(k)] = t[static_cast<std::size_t>(k - 1)] | (Board{1} << (8 * (k - 1)));
  return t;
}();
inline Board ones(int k) { return kOnes[static_cast<std::size_t>(k)]; }
inline Board load(const Seeds* b) {
  Board x;
  std::memcpy(&x, b, sizeof x);
  return x;
}
inline int byte(Board x, int k) { return static_cast<int>(x >> (8 * k)) & 0xFF; }
}  // namespace kalah_detail

// Sowing circuit for South: circuit step c in [0, 2m+1): c < m -> pit c, c == m ->
// South's store, c > m -> North's pit c-1 (North's store is skipped). The circuit is
// one 128-bit number, byte c = step c, so sowing is additions of masks of ones: s
// seeds from pit i go round L = 2m+1 steps: s / L whole laps put one seed on every
// step (pit i included), the other r = s % L seeds one each on steps i+1, ..., i+r
// (mod L); the last seed lands on step (i + s) mod L. No byte overflows (at most 8
// seeds a pit at the start: 96 seeds on the board).
// Example (m = 2, L = 5): board (South 3, 0 | North 1, 1), sow pit 0: circuit
// (0, 0, store 0, 1, 1) + ones on steps 1..3 = (0, 1, 1, 2, 1): one seed in the
// store (gain 1), last seed on North's pit 2: child turned round (2, 1 | 0, 1).
namespace kalah_detail {
// The circuit of board p (m pits a side) after South sows pit i, before any capture;
// `last`: the step of its last seed, (i + s) mod L.
inline Board sow_circuit(const Seeds* p, int m, int i, int& last) {
  const int L = 2 * m + 1;
  const int s = p[i];
  const Board south_mask = ones(m) * 0xFF;
  const Board pits = load(p) & ~(Board{0xFF} << (8 * i));  // pit i emptied
  Board c = (pits & south_mask) | ((pits & ~south_mask) << 8);  // store byte m: 0
  const int laps = s >= L ? s / L : 0, rest = s - laps * L;
  if (laps) c += ones(L) * static_cast<unsigned>(laps);
  const int end = i + 1 + rest;  // steps i+1 .. end-1, wrapping past L
  c += end <= L ? ones(end) - ones(i + 1) : (ones(L) - ones(i + 1)) + ones(end - L);
  last = end - 1 < L ? end - 1 : end - 1 - L;
  return c;
}
}  // namespace kalah_detail

inline Kalah::Sowing Kalah::sow(const Seeds* p, int i, Seeds* out) const {
  using namespace kalah_detail;
  const int m = m_;
  const int n = 2 * m;
  int last = 0;
  Board c = sow_circuit(p, m, i, last);
  const Board south_mask = ones(m) * 0xFF;
  Sowing r{byte(c, m), last == m};
  if (!r.again && last < m && byte(c, last) == 1) {
    const int facing = n - last;  // the step of pit n-1-last
    const int f = byte(c, facing);
    if (f > 0 || capture_ == Capture::Empty) {
      r.gain += f + 1;
      c &= ~((Board{0xFF} << (8 * facing)) | (Board{0xFF} << (8 * last)));
    }
  }
  const Board south = c & south_mask, north = (c >> (8 * (m + 1))) & south_mask;
  const Board child = r.again ? south | (north << (8 * m)) : north | (south << (8 * m));
  std::memcpy(out, &child, sizeof child);
  return r;
}

inline Kalah::SideMove Kalah::side_move(std::uint64_t x, int i) const {
  using namespace kalah_detail;
  const int m = m_;
  Seeds p[16] = {};
  std::memcpy(p, &x, sizeof x);  // North's side empty (m <= 6)
  int last = 0;
  const Board c = sow_circuit(p, m, i, last);
  const Board side = ones(m) * 0xFF;
  SideMove r;
  r.own = static_cast<std::uint64_t>(c & side);
  r.other = static_cast<std::uint64_t>((c >> (8 * (m + 1))) & side);
  r.store = byte(c, m);
  r.again = last == m;
  r.last = !r.again && last < m && byte(c, last) == 1 ? last : -1;
  return r;
}

inline void Kalah::turn(const Seeds* b, Seeds* out) const {
  using namespace kalah_detail;
  const Board south_mask = ones(m_) * 0xFF, x = load(b);
  const Board turned = ((x >> (8 * m_)) & south_mask) | ((x & south_mask) << (8 * m_));
  std::memcpy(out, &turned, sizeof turned);
}

}  // namespace mancala
