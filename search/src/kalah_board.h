// Kalah positions as the search holds them (internal to search/src): two 16-byte
// halves, sowing by precomputed masks, a hash of four words, the table rank from the
// pits.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "mancala/index.h"
#include "mancala/variant.h"

namespace mancala::search_detail {

// Kalah positions for the search (side to move South, no stores): the mover's pits
// in bytes 0..15, the other side's in bytes 16..31 (pits per side m <= 12), so that
// turning the board round swaps two halves, a lap of seeds is one addition per word,
// and the hash reads four words. Sowing s seeds from pit i puts s / L seeds in every
// pit and the store (L = 2m + 1 steps) and one more in each of the s % L steps after i:
// both are masks precomputed per (i, s % L), with the store's seeds and the last step.
struct KPos {
  std::uint64_t w[4];  // KPos{} is empty
  std::uint8_t* b() { return reinterpret_cast<std::uint8_t*>(w); }
  const std::uint8_t* b() const { return reinterpret_cast<const std::uint8_t*>(w); }
};

__extension__ typedef unsigned __int128 U128;
inline std::uint64_t mum(std::uint64_t a, std::uint64_t b) {
  const U128 r = static_cast<U128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}
inline std::uint64_t kpos_hash(const KPos& p) {
  const std::uint64_t a = mum(p.w[0] ^ 0xA0761D6478BD642Full, p.w[2] ^ 0xE7037ED1A0B428DBull);
  return mum(a ^ p.w[1] ^ 0x8EBC6AF09C88C6E3ull, p.w[3] ^ 0x589965CC75374CC3ull);
}
// Sum of the bytes of a word whose byte sum is below 256.
inline int byte_sum(std::uint64_t x) { return static_cast<int>((x * 0x0101010101010101ull) >> 56); }

// A move of a Kalah position.
struct KKid {
  KPos next;  // turned round unless `again`
  int gain;   // seeds the mover stores (sown and captured)
  int seeds;  // seeds left on the board
  int index;  // the move's index among the moves (the order of Variant::children)
  int pit;
  bool again;
  bool over;  // one side of `next` is empty: the game is over
};

class KalahBoard {
 public:
  KalahBoard() = default;
  // Ranks for up to `max_seeds` seeds on the board.
  KalahBoard(int m, bool empty_capture, int max_seeds) : m_(m), L_(2 * m + 1), empty_(empty_capture) {
    for (int i = 0; i < m; ++i) {
      lap_.b()[i] = 1;
      lap_.b()[16 + i] = 1;
    }
    sow_.resize(static_cast<std::size_t>(m * L_));
    for (int i = 0; i < m; ++i)
      for (int rest = 0; rest < L_; ++rest) {
        Sow& s = sow_[static_cast<std::size_t>(i * L_ + rest)];
        for (int k = 1, step = i + 1; k <= rest; ++k, ++step) {
          if (step == L_) step = 0;
          if (step == m) ++s.store;
          else ++s.add.b()[step < m ? step : 16 + step - m - 1];
        }
        s.last = (i + rest) % L_;
      }
    for (int s = 0; s < 256; ++s) laps_[s] = {static_cast<std::uint8_t>(s / L_), static_cast<std::uint8_t>(s % L_)};
    // The table rank: the index's own (DistributionIndex, no filter), read from the
    // halves where they lie.
    rank_ = distribution_index(2 * m, IndexFilter{}, std::max(max_seeds, 1));
    unrolled_ = rank_->unrolls(12);
  }
  int m() const { return m_; }

  KPos from(const Position& p) const {
    KPos q{};
    for (int i = 0; i < m_; ++i) {
      q.b()[i] = p.pits[static_cast<std::size_t>(i)];
      q.b()[16 + i] = p.pits[static_cast<std::size_t>(m_ + i)];
    }
    return q;
  }
  Position to(const KPos& q) const {
    Position p;
    for (int i = 0; i < m_; ++i) {
      p.pits[static_cast<std::size_t>(i)] = q.b()[i];
      p.pits[static_cast<std::size_t>(m_ + i)] = q.b()[16 + i];
    }
    return p;
  }
  static int south(const KPos& q) { return byte_sum(q.w[0]) + byte_sum(q.w[1]); }
  static bool over(const KPos& q) { return (q.w[0] | q.w[1]) == 0 || (q.w[2] | q.w[3]) == 0; }

  // The moves of q (k seeds on the board, not over), in pit order: Kalah::children.
  // The child is made in 8-byte words, with no store read back by a wider load (a
  // store is not forwarded to a load that covers more than it: a byte stored into a
  // copy of q and read back in words was 9 % of the search's time, an 8-byte store
  // read back by the compiler's 32-byte vector 11 %). The pit sown from is emptied by
  // taking its seeds off its word (no borrow: the byte holds them) in the same
  // expression that adds the laps and the steps.
  int children(const KPos& q, int k, KKid* out) const {
    int n = 0;
    const std::uint8_t* a = q.b();
    for (int i = 0; i < m_; ++i) {
      const int s = a[i];
      if (s == 0) continue;
      KKid& c = out[n];
      c.index = n++;
      c.pit = i;
      const Laps lr = laps_[s];
      const Sow& w = sow_[static_cast<std::size_t>(i * L_ + lr.rest)];
      const std::uint64_t l = lr.laps;
      const std::uint64_t take = static_cast<std::uint64_t>(s) << (8 * (i & 7));
      const int from = i >> 3;
      std::uint64_t r[4];
      for (int j = 0; j < 4; ++j) r[j] = q.w[j] + l * lap_.w[j] + w.add.w[j] - (j == from ? take : 0);
      int gain = static_cast<int>(l) + w.store;
      c.again = w.last == m_;
      if (w.last < m_) {
        std::uint64_t& x = r[w.last >> 3];
        const int xs = 8 * (w.last & 7);
        if (((x >> xs) & 0xFF) == 1) {  // the last seed in an empty pit of the mover's
          const int o = 16 + m_ - 1 - w.last, ys = 8 * (o & 7);
          std::uint64_t& y = r[o >> 3];
          const std::uint64_t f = (y >> ys) & 0xFF;
          if (f > 0 || empty_) {
            gain += static_cast<int>(f) + 1;
            y -= f << ys;
            x -= std::uint64_t{1} << xs;
          }
        }
      }
      const int turn = c.again ? 0 : 2;  // the other side to move: the halves swapped
      c.next.w[0] = r[turn];
      c.next.w[1] = r[turn + 1];
      c.next.w[2] = r[2 - turn];
      c.next.w[3] = r[3 - turn];
      c.gain = gain;
      c.seeds = k - gain;
      c.over = over(c.next);
    }
    return n;
  }

  // The rank of q among the distributions of `seeds` seeds over the 2m pits in the
  // order of Position (ClassIndex of a plain class; checked by rank_matches): the
  // index's rank of pit j = byte j of the mover's half, then byte 16 + j - m of the
  // other's; unrolled for Kalah(6) where the seeds fit the index's fixed stride.
  Index rank(const KPos& q, int seeds) const {
    const std::uint8_t* a = q.b();
    if (unrolled_) return rank_->rank_if_allowed_by<12>([a](int j) { return static_cast<int>(a[j < 6 ? j : 16 + j - 6]); }, seeds, 0);
    const int m = m_;
    return rank_->rank_if_allowed_by([a, m](int j) { return static_cast<int>(a[j < m ? j : 16 + j - m]); }, seeds, 0);
  }

 private:
  struct Sow {
    KPos add{};
    int store = 0, last = 0;
  };
  int m_ = 0, L_ = 1;
  bool empty_ = true;
  KPos lap_{};
  std::vector<Sow> sow_;
  struct Laps {
    std::uint8_t laps, rest;  // s / L, s % L
  };
  Laps laps_[256]{};  // by the seeds s of a pit
  std::shared_ptr<const DistributionIndex> rank_;  // up to max_seeds
  bool unrolled_ = false;                          // rank_->unrolls(12): Kalah(6)
};

}  // namespace mancala::search_detail
