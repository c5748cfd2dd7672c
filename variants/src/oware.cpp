#include "mancala/rules/oware.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

namespace mancala {

Position Oware::start(int per_pit) const {
  Position p;
  for (int i = 0; i < kPits; ++i) p.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(per_pit ? per_pit : 4);
  return p;
}

namespace {

// The first 16 pits as one vector (Oware's 12, then 4 that are 0 on its board).
using Pits16 = std::uint8_t __attribute__((vector_size(16)));

// What a sowing adds, by its start pit and seeds: a seed in each of the 11 other pits a
// full lap (the pits of others[pit], 0xFF there), then one in each of the `rest` pits
// after the start (rest[pit][rest], 1 <= rest <= 11). E.g. 13 seeds from pit 2: one
// lap, then pits 3 and 4: 1 & others[2], + rest[2][2].
struct SowTables {
  alignas(16) std::uint8_t others[Oware::kPits][16];
  alignas(16) std::uint8_t rest[Oware::kPits][Oware::kPits][16];
};
constexpr SowTables make_sow_tables() {
  SowTables t{};
  for (int pit = 0; pit < Oware::kPits; ++pit) {
    for (int i = 0; i < Oware::kPits; ++i) t.others[pit][i] = i == pit ? 0 : 0xFF;
    for (int rest = 0; rest < Oware::kPits; ++rest)
      for (int k = 1; k <= rest; ++k) t.rest[pit][rest][(pit + k) % Oware::kPits] = 1;
  }
  return t;
}
constexpr SowTables kSow = make_sow_tables();

// The pits whose bytes are marked (0xFF) in m, as bits: bit i for pit i.
unsigned marked(Pits16 m) {
#if defined(__SSE2__)
  return static_cast<unsigned>(_mm_movemask_epi8(reinterpret_cast<__m128i>(m)));
#else
  unsigned bits = 0;
  for (int i = 0; i < 16; ++i) bits |= (m[i] ? 1u : 0u) << i;
  return bits;
#endif
}

// The board turned round: pits 6..11 to 0..5 and 0..5 to 6..11 (12..15 stay 0). Two
// byte shifts of the whole vector (a shuffle of bytes is not in the baseline
// instruction set: the compiler made it byte by byte through memory).
Pits16 turn_round(Pits16 v) {
#if defined(__SSE2__)
  const auto x = reinterpret_cast<__m128i>(v);
  const __m128i low = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m128i high = _mm_setr_epi8(0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0);
  return reinterpret_cast<Pits16>(
      _mm_or_si128(_mm_and_si128(_mm_srli_si128(x, 6), low), _mm_and_si128(_mm_slli_si128(x, 6), high)));
#else
  Pits16 t{};
  for (int k = 0; k < Oware::kRow; ++k) t[k] = v[k + Oware::kRow], t[k + Oware::kRow] = v[k];
  return t;
#endif
}

// Single lap; a lap of 12 or more seeds skips its start pit. The last seed making an
// opponent pit 2 or 3 captures it and the run of 2s and 3s before it in his row.
// The board v (South to move) after South sows `pit`, which holds s > 0 seeds, and
// captures; `gain` the capture. All in one vector of 16 pits (a loop a seed, then
// the board's bytes read back, had been a fifth of a full probe: each byte read
// waited for the store of the whole board).
Pits16 sow(Pits16 v, int pit, int s, int& gain) {
  constexpr int P = Oware::kPits, R = Oware::kRow;
  // By laps: each full lap puts one seed in each of the 11 other pits; the rest
  // (1..11 seeds) go one by one after the start pit and never reach it again.
  // E.g. 13 seeds from pit 2: one lap, then pits 3 and 4; the last seed is in pit 4.
  const int laps = s > P - 1 ? (s - 1) / (P - 1) : 0, rest = s - laps * (P - 1);
  Pits16 others, after;
  std::memcpy(&others, kSow.others[pit], sizeof others);
  std::memcpy(&after, kSow.rest[pit][rest], sizeof after);
  const Pits16 lap = Pits16{} + static_cast<std::uint8_t>(laps);  // laps in every pit
  v = (v & others) + (lap & others) + after;                     // the start pit emptied
  int q = pit + rest;
  if (q >= P) q -= P;
  gain = 0;
  if (q < R) return v;
  // The run of 2s and 3s from q down, in North's row: r pits, q - r + 1 .. q.
  const unsigned two_three = marked(reinterpret_cast<Pits16>((v == 2) | (v == 3)));
  const int r = std::min(std::countl_one(two_three << (31 - q)), q - R + 1);
  if (r == 0) return v;
  const unsigned run = ((1u << r) - 1) << (q - r + 1);
  gain = 2 * r + std::popcount(marked(reinterpret_cast<Pits16>(v == 3)) & run);
  const Pits16 lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const auto first = static_cast<std::uint8_t>(q - r + 1), last = static_cast<std::uint8_t>(q);
  return v & reinterpret_cast<Pits16>(lane < first || lane > last);
}

}  // namespace

int Oware::play(Position& p, int pit) {
  Pits16 v;
  std::memcpy(&v, p.pits.data(), sizeof v);
  int gain;
  v = sow(v, pit, p.pits[static_cast<std::size_t>(pit)], gain);
  std::memcpy(p.pits.data(), &v, sizeof v);
  return gain;
}

void Oware::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  Pits16 board;
  std::memcpy(&board, p.pits.data(), sizeof board);
  // Grand slam / feeding rule: moves that leave North empty are legal only if all are.
  bool any_feeds = false;
  for (int i = 0; i < kRow; ++i) {
    const int s = p.pits[static_cast<std::size_t>(i)];
    if (s == 0) continue;
    int gain;
    const Pits16 v = sow(board, i, s, gain);
    const bool feeds = (~marked(reinterpret_cast<Pits16>(v == 0)) & 0x0FC0u) != 0;  // a seed in pits 6..11
    if (feeds && !any_feeds) {
      out.clear();
      any_feeds = true;
    }
    if (feeds || !any_feeds) {  // built in place, turned round (no marks or flags here)
      Child& c = out.emplace_back();
      c.move = Move::sow(i);
      c.gain_mover = static_cast<std::int16_t>(gain);
      const Pits16 turned = turn_round(v);
      std::memcpy(c.next.pits.data(), &turned, sizeof turned);
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
  const int n = seeds(b);
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
