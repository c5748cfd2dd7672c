// Perfect hashing of the positions of a class.
//
// A class fixes the marks (ties, bulls, closed pits), the flags and the number n of
// live seeds. Its positions are the distributions of n seeds over its P live pits
// (pits whose mark is None), optionally restricted by an IndexFilter ("at least one
// of the live pits in [a, b) is empty"). The rank is the position's number in the
// lexicographic order of (x_0, x_1, ..., x_{P-1}) among the allowed distributions,
// a bijection onto [0, count).
//
// Formula. Let C(j, m, z) be the number of allowed ways to put m seeds into live
// pits j..P-1 when z says whether the filter is already met (an empty filtered pit
// was seen before j). With m_j seeds left before pit j and z_j the flag then:
//
//   rank(x) = sum_{j < P-1}  T[j][m_j][x_j][z_j],
//   T[j][m][v][z] = sum_{x < v} C(j+1, m-x, z || (j in [a,b) && x == 0))
//
// and the last pit takes what is left. Without a filter C(j, m, .) = binom(m+P-1-j, P-1-j).
//
// Worked example (P = 3, n = 2, no filter). The 6 distributions in order are
//   (0,0,2) (0,1,1) (0,2,0) (1,0,1) (1,1,0) (2,0,0)  ->  ranks 0..5.
// rank(1,1,0): T[0][2][1] = C(1,2) = 3 (the three with x0 = 0), then
//              T[1][1][1] = C(2,1) = 1 (x1 = 0, x2 = 1): rank 4.
// With the filter "one of live pits [1,3) is empty" (Oware's rule on the row of the
// side that just moved) only (0,1,1) is dropped, and the other five get ranks
//   (0,0,2)=0 (0,2,0)=1 (1,0,1)=2 (1,1,0)=3 (2,0,0)=4.
// rank(1,1,0) = T[0][2][1][0] = C(1,2,0) = 2 (the two allowed with x0 = 0),
//             + T[1][1][1][0] = C(2,1,1) = 1 (x1 = 0 meets the filter): 3.
//
// With a filter, rank() does not read T (P x N^2 entries, 88 KiB for Oware at 20
// seeds: out of L1): the rank among the allowed distributions is the unfiltered rank
// U(x) minus F(x), the number of filtered-out distributions y < x (those with every
// pit of [a, b) non-empty). Both come from one table of binomials in L1,
// B(j, m) = binom(m+P-1-j, P-1-j) (0 for m < 0), the ways to put m seeds into pits
// j..P-1. A y < x first differs at some pit j: y_j = v < x_j after x's prefix, which
// must leave every pit k of [a, b) before j non-empty. The pits of [a, b) after j
// must be non-empty too: c_j = b - max(a, j+1) of them, one seed each set aside, so
// the completions number B(j+1, m_j - v - c_j); summed over v < x_j (hockey stick)
//   F_j = B(j, m_j - c_j) - B(j, m_j - c_j - x_j),
// less the term of v = 0, B(j+1, m_j - c_j), when j is in [a, b) (y_j may not be 0
// there) and x_j > 0; once x_j = 0 for a j in [a, b) no later pit adds anything.
// Example above (a = 1, b = 3): x = (1,1,0), U = 4; j = 0: c = 2, F_0 = B(0,0) -
// B(0,-1) = 1 (y = (0,1,1)); j = 1: c = 1, F_1 = B(1,0) - B(1,-1) - B(2,0) = 0;
// rank = 4 - 1 = 3.
// rank() sums the terms telescoped, grouped by pit: the terms of U_j, U_{j-1}, F_j
// and F_{j-1} that read m_j go into one entry t_s(j, m_j) of the table of the pit's
// state s: 0 while every filtered pit before j is non-empty (F_{j-1} and F_j count),
// 1 right after the first empty one (F_{j-1} = 0: its head is taken back), 2 later
// (U alone). One look-up per pit, in 3 x P x (N+1) entries, laid out once for each
// first empty filtered pit z (the rows' blocks, below: 39 KiB for Oware's 12 pits).
// Example: t_0(0,2) = B(0,2) - B(0,0) = 5, t_0(1,1) = B(1,1) - B(0,1) - B(1,0) +
// B(2,0) + B(0,-1) = -1, t_0(2,0) = -B(1,0) + B(1,-1) = -1: rank 5 - 1 - 1 = 3.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "mancala/position.h"
#include "mancala/variant.h"

namespace mancala {

using Index = std::uint64_t;

// Rank tables for distributions over `pits` live pits of up to `max_seeds` seeds.
class DistributionIndex {
 public:
  DistributionIndex(int pits, int max_seeds, IndexFilter filter);

  int pits() const { return pits_; }
  int max_seeds() const { return max_seeds_; }
  const IndexFilter& filter() const { return filter_; }

  // Number of allowed distributions of n seeds.
  Index count(int n) const { return n > max_seeds_ ? 0 : c(0, n, 0); }
  // x: live-pit contents summing to n. Precondition: allowed (see `allowed`).
  Index rank(const Seeds* x, int n) const;  // inline without a filter, out of line with one
  void unrank(Index r, int n, Seeds* x) const;
  bool allowed(const Seeds* x) const;
  // rank(x, n) where allowed(x), else kLeftOut: the check and the rank in one pass.
  static constexpr Index kLeftOut = ~Index{0};
  Index rank_if_allowed(const Seeds* x, int n) const {
    return filter_.active() ? rank_filtered(x, n, true) : rank(x, n);
  }

  // rank_if_allowed of the distribution pit(0), .., pit(P-1) (ints summing to n) whose
  // empty pits are the bits of `empty` (bit j: pit(j) == 0), read pit by pit where the
  // caller holds them, with no copy (the C API's mtb_value_pits: an engine's ints, in
  // South's order or North's, its empty pits found by a vector compare; a probe's
  // children): the look-ups of rank_filtered (or rank), each pit's row found by z, the
  // first empty filtered pit, in the rows' block z. kP: P when compiled (the loop
  // unrolled; with the rows at kFlatStride, one load a pit at a constant offset from
  // the block), or 0. Precondition for kP != 0: unrolls(kP), checked by the caller where
  // it picks its way (once a class, or before its hot path's frame).
  template <int kP = 0, class Pit>
  Index rank_if_allowed_by(Pit&& pit, int n, unsigned empty) const {
    assert(kP == 0 || unrolls(kP));
    const unsigned f = empty & filter_bits_;
    if (f == 0 && filtered_) return kLeftOut;  // no filtered pit empty: not allowed()
    // z: the first empty filtered pit; f == 0 only without a filter, whose one block is 0.
    const std::size_t z = f ? static_cast<std::size_t>(std::countr_zero(f)) : 0;
    if constexpr (kP != 0) return sum_rows<kP, kFlatStride>(rows_.data() + z * (kP * kFlatStride), pit, n);
    return sum_rows<0, 0>(row(static_cast<int>(z), 0), pit, n);
  }
  // The rows' stride: kFlatStride where max_seeds() fits in it (the 12-pit ranks
  // unrolled with constant offsets), else max_seeds() + 1.
  static constexpr std::size_t kFlatStride = 32;
  std::size_t stride() const { return stride_; }
  // rank_if_allowed_by<P> may be used: P pits at the stride kFlatStride.
  bool unrolls(int P) const { return pits_ == P && stride_ == kFlatStride; }

  // Without a filter, the rank telescoped into one look-up per pit (below): row j of
  // E(j, s), s in [0, max_seeds], at steps() + j * stride(); null with a filter. Every
  // unfiltered index over the same number of pits has the same E(j, s) for the seeds it
  // covers (class_solver.h's compact kernel ranks the children in the lower classes with
  // the table of the class being solved).
  const Index* steps() const { return filter_.active() ? nullptr : rows_.data(); }

 private:
  // Pit j's row of the tables for a distribution whose first empty filtered pit is z
  // (z = P: none; without a filter, z = 0, the one block): row(z, j)[m] is E(j, m) (no
  // filter; steps()), else the telescoped entry of pit j with m seeds left in the state
  // that z gives it. The rows lie at a fixed stride (stride()), block after block:
  // row(z, j) = rows + (z * P + j) * stride.
  const Index* row(int z, int j) const {
    return rows_.data() + (static_cast<std::size_t>(z) * static_cast<std::size_t>(pits_) + static_cast<std::size_t>(j)) * stride_;
  }
  Index c(int j, int m, int z) const { return counts_[((static_cast<std::size_t>(j) * (max_seeds_ + 1)) + static_cast<std::size_t>(m)) * 2 + static_cast<std::size_t>(z)]; }
  // With a filter; `check`: kLeftOut where the filter leaves x out.
  Index rank_filtered(const Seeds* x, int n, bool check = false) const;
  int next_z(int j, int x, int z) const { return z | ((x == 0 && j >= filter_.zero_from && j < filter_.zero_to) ? 1 : 0); }

  // The rows of every pit, block after block (row()): a block's pit j at row(z, j),
  // m seeds left at row(z, j)[m]: the sum over the pits of row(z, j)[m_j], m_j the
  // seeds left before pit j (row() is read with a constant stride: the loop of
  // sum_rows() unrolled for 12 pits is 12 loads at constant offsets from the block).
  // Without a filter, one block (z = 0) of E(j, s) = [j < P-1] B(j, s) - [j > 0]
  // B(j-1, s) with B(j, s) = C(j, s, 0) = binom(s+P-1-j, P-1-j): the hockey-stick
  // identity gives T[j][m][v] = B(j, m) - B(j, m - v), so with s_j = x_j + ... +
  // x_{P-1} the seeds in pits j.. (s_0 = n)
  //   rank(x) = sum_{j < P-1} B(j, s_j) - B(j, s_{j+1}),
  // which telescopes into one look-up per pit (modulo 2^64):
  //   rank(x) = sum_{j < P} E(j, s_j).
  // Worked example (P = 4, n = 3): B(0,s) = binom(s+3,3), B(1,s) = binom(s+2,2),
  // B(2,s) = s+1; x = (0,1,0,2), s = (3,3,2,2): E(0,3) + E(1,3) + E(2,2) + E(3,2) =
  // 20 + (10 - 20) + (3 - 6) + (0 - 3) = 4, the fifth distribution of 3 seeds over 4
  // pits in lexicographic order: (0,0,0,3) (0,0,1,2) (0,0,2,1) (0,0,3,0) (0,1,0,2).
  // With a filter, P + 1 blocks, z = 0..P: block z holds the telescoped U(x) - F(x) (see
  // the top of this file) of the pit's state that z gives it (0 for j <= z, 1 at z + 1,
  // 2 after), so that a distribution's rows are known once z is (one block).
  // Size: P x stride entries a block, 3 KiB for 12 pits at a stride of 32; Oware's 13
  // blocks 39 KiB. Example: Oware, z = 3, j = 5, m = 7: rows_[(3 * 12 + 5) * 32 + 7].
  template <int kP, std::size_t kS, class Pit>
  Index sum_rows(const Index* block, Pit&& pit, int n) const {
    const int P = kP ? kP : pits_;
    const std::size_t S = kS ? kS : stride_;
#if defined(__GNUC__)
    asm("" : "+r"(block));  // one register: each pit's entry one load at [block + m * 8 + constant]
#endif
    Index r = 0;
    std::ptrdiff_t m = n;
    if constexpr (kP != 0) {
#pragma GCC unroll 16
      for (int j = 0; j < P; ++j) {
        r += block[static_cast<std::size_t>(j) * S + static_cast<std::size_t>(m)];
        m -= pit(j);
      }
    } else {
      for (int j = 0; j < P; ++j, block += S) {
        r += block[m];
        m -= pit(j);
      }
    }
    return r;
  }
  // The sum of block z's rows (rank_filtered): unrolled where the pits are 12 at the
  // stride kFlatStride (Oware's generator ranks its children so), else a loop.
  template <class Pit>
  Index sum_block(std::size_t z, Pit&& pit, int n) const {
    if (unrolls(12)) return sum_rows<12, kFlatStride>(rows_.data() + z * (12 * kFlatStride), pit, n);
    return sum_rows<0, 0>(row(static_cast<int>(z), 0), pit, n);
  }

  int pits_, max_seeds_;
  IndexFilter filter_;
  // The fields of rank_if_allowed_by, together.
  std::size_t stride_;
  std::vector<Index> rows_;
  unsigned filter_bits_ = 0;  // bit j set for the pits j of the filter below P (none without one)
  bool filtered_ = false;  // filter_.active()
  // C(j, m, z), j in [0, P]. T[j][m][v][z] is not kept (P x N^2 entries): unrank()
  // walks its blocks C(j+1, m-x, .), x = 0, 1, .. (at most x_j + 1 of them per pit).
  std::vector<Index> counts_;
};

// The index of one class of one variant: maps positions of the class to [0, size).
// Positions of the canonical orientation (marks as in the key) come first, then
// those of the turned orientation when it differs:
//   full_rank(p) = orientation(p) * per_orientation + distribution rank of p's live pits.
//
// A reachable-set index (Enkeshui, Imbelece: `generate --from`) keeps only the
// positions reachable from a root: `subset` is the sorted list of their full ranks
// and rank(p) is the position of full_rank(p) in it (dense, no gaps). Example:
// subset {3, 8, 40} -> the position of full rank 8 has rank 1; full rank 5 is not
// in the index.
// Looking a full rank f up in the subset, with one of two aids built with the index:
// - a dense subset (at least one entry per 64 full ranks, so 1 bit per full rank is at
//   most 8 bytes per entry, the subset's own size) keeps a bit set, bit f set <=> f in
//   the subset, and the number of entries below each block of 512 bits:
//     rank(f) = block_rank[f >> 9] + popcount of the bits of f's block below f,
//   one cache line (Cenne 7:7 with 1 seed per pit, 14 seeds: 5.0 M of 20.1 M full ranks,
//   2.5 MB of bits where the subset is 40 MB);
// - a sparser one keeps a directory of buckets of full ranks: bucket b = f >> shift
//   holds the subset's entries [dir[b], dir[b+1]), shift the smallest with
//   full_size >> shift <= size / 8, so a bucket holds about 8 entries (a binary search
//   of one or two cache lines where the whole subset took log2(size) misses; at most
//   size / 8 + 2 entries of 8 bytes: 1 byte a position). Example: full size 64, subset
//   {3, 8, 40, 41, ..., 57} (20 entries), taken as sparse: 64 >> 5 = 2 <= 20 / 8 ->
//   shift 5, buckets [0, 32), [32, 64), [64, 96): dir {0, 2, 20, 20}; full rank 41 ->
//   bucket 1, lower_bound over entries 2..19 -> rank 3.
class ClassIndex {
 public:
  ClassIndex(const Variant& v, const ClassKey& key);
  ClassIndex(const Variant& v, const ClassKey& key, std::shared_ptr<const std::vector<Index>> subset);

  const ClassKey& key() const { return key_; }
  Index size() const { return size_; }
  Index full_size() const { return full_size_; }
  int live_pits() const { return static_cast<int>(live_[0].size()); }
  const std::shared_ptr<const std::vector<Index>>& subset() const { return subset_; }
  // Every pit live, one orientation, no filter, no subset: the rank is the plain
  // distribution rank of the pits (solvers may compute it on compact pit arrays).
  bool plain_distribution() const { return plain_ && !subset_ && !dist_->filter().active(); }
  // The rank is the distribution rank of the pits in circuit order (every pit live, one
  // orientation, no position list), a filter leaving some out (distribution().allowed).
  bool ranks_pits() const { return plain_ && !subset_; }
  const DistributionIndex& distribution() const { return *dist_; }

  // Precondition: class_of(p) == key() and allowed(p).
  Index rank(const Position& p) const {
    const Index f = full_rank(p);
    if (!subset_) return f;
    if (bits_) return bits_rank(f);
    return static_cast<Index>(subset_lower_bound(f) - subset_->begin());
  }
  Index full_rank(const Position& p) const {
    if (plain_) return dist_->rank(p.pits.data(), key_.seeds);  // every pit live, one orientation
    const int o = orientation(p);
    const auto& live = live_[o];
    Seeds x[kMaxPits];
    for (std::size_t i = 0; i < live.size(); ++i) x[i] = p.pits[static_cast<std::size_t>(live[i])];
    return static_cast<Index>(o) * per_ + dist_->rank(x, key_.seeds);
  }
  // rank(p) where allowed(p), else DistributionIndex::kLeftOut: the check and the rank
  // in one pass where the rank is the pits' (ranks_pits), as allowed() then rank()
  // elsewhere. Precondition: class_of(p) == key().
  Index rank_if_allowed(const Position& p) const {
    if (plain_ && !subset_) {  // the pits' own rank (DistributionIndex::rank_if_allowed_by)
      const unsigned empty = empty_pits(p);
      auto pit = [&p](int j) { return static_cast<int>(p.pits[static_cast<std::size_t>(j)]); };
      return dist_->unrolls(12) ? dist_->rank_if_allowed_by<12>(pit, key_.seeds, empty) : dist_->rank_if_allowed_by(pit, key_.seeds, empty);
    }
    return allowed(p) ? rank(p) : DistributionIndex::kLeftOut;
  }
  // Bit i set where pit i of the first min(P, 32) pits is empty: one compare of 16
  // bytes up to 16 pits (a Position holds kMaxPits >= 16).
  unsigned empty_pits(const Position& p) const {
    static_assert(kMaxPits >= 16);
#if defined(__SSE2__)
    if (pits_ <= 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p.pits.data()));
      return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()))) & ((1u << pits_) - 1);
    }
#endif
    unsigned e = 0;
    for (int i = 0; i < pits_ && i < 32; ++i) e |= static_cast<unsigned>(p.pits[static_cast<std::size_t>(i)] == 0) << i;
    return e;
  }
  bool contains(const Position& p) const;  // in this class and allowed
  // Allowed by the filter, and in the subset if there is one (class not checked).
  bool allowed(const Position& p) const {
    if (subset_) {
      const Index f = full_rank(p);
      if (bits_) return ((*bits_)[static_cast<std::size_t>(f >> 6)] >> (f & 63)) & 1;
      const auto it = subset_lower_bound(f);
      return it != subset_->end() && *it == f;
    }
    if (!dist_->filter().active()) return true;
    if (plain_) return dist_->allowed(p.pits.data());  // every pit live: no copy
    const auto& live = live_[orientation(p)];
    Seeds x[kMaxPits];
    for (std::size_t i = 0; i < live.size(); ++i) x[i] = p.pits[static_cast<std::size_t>(live[i])];
    return dist_->allowed(x);
  }
  // The position of rank r+1 given p of rank r (r+1 < size()).
  void next(Position& p) const {
    if (subset_) {
      p = full_unrank((*subset_)[static_cast<std::size_t>(rank(p) + 1)]);
      return;
    }
    for (;;) {  // the next distribution in lexicographic order the filter keeps
      const int o = orientation(p);
      const auto& live = live_[o];
      const int P = static_cast<int>(live.size());
      int k = P - 1;
      while (k > 0 && p.pits[static_cast<std::size_t>(live[static_cast<std::size_t>(k)])] == 0) --k;
      if (k == 0) {  // last distribution of this orientation: first of the turned one
        p = full_unrank(per_);
      } else {
        auto at = [&](int j) -> Seeds& { return p.pits[static_cast<std::size_t>(live[static_cast<std::size_t>(j)])]; };
        const int rest = at(k) - 1;
        at(k) = 0;
        ++at(k - 1);
        at(P - 1) = static_cast<Seeds>(rest);
      }
      if (allowed(p)) return;
    }
  }
  // Calls f(r, position of rank r) for r in [begin, end), stepping with next()
  // (cheaper than an unrank per position).
  template <class F>
  void for_each(Index begin, Index end, F&& f) const {
    if (begin >= end) return;
    Position p = unrank(begin);
    for (Index r = begin; r < end; ++r) {
      if (r > begin) next(p);
      f(r, p);
    }
  }
  Position unrank(Index r) const { return full_unrank(subset_ ? (*subset_)[static_cast<std::size_t>(r)] : r); }
  Position full_unrank(Index r) const {
    const int o = r >= per_ ? 1 : 0;
    Position p = skeleton_[o];
    Seeds x[kMaxPits];
    dist_->unrank(r - static_cast<Index>(o) * per_, key_.seeds, x);
    const auto& live = live_[o];
    for (std::size_t i = 0; i < live.size(); ++i) p.pits[static_cast<std::size_t>(live[i])] = x[i];
    return p;
  }

 private:
  // 0 when p's state (marks of the pits in play, flags, jeppe) is the key's, i.e.
  // pack_state(p) == key().state, compared field by field with the skeleton (a
  // child's orientation is asked once per rank).
  int orientation(const Position& p) const {
    if (!two_) return 0;
    const Position& s = skeleton_[0];
    return p.flags == s.flags && p.jeppe == s.jeppe &&
                   std::memcmp(p.marks.data(), s.marks.data(), static_cast<std::size_t>(pits_)) == 0
               ? 0
               : 1;
  }

  // The first subset entry >= f (the directory above narrows the search).
  std::vector<Index>::const_iterator subset_lower_bound(Index f) const {
    const std::size_t b = static_cast<std::size_t>(f >> shift_);
    if (b + 1 >= dir_->size()) return subset_->end();  // past the last bucket (f >= full_size)
    const auto first = subset_->begin() + static_cast<std::ptrdiff_t>((*dir_)[b]);
    const auto last = subset_->begin() + static_cast<std::ptrdiff_t>((*dir_)[b + 1]);
    return std::lower_bound(first, last, f);
  }

  // The number of subset entries below f, from the bit set (dense subsets, above).
  Index bits_rank(Index f) const {
    const std::size_t w = static_cast<std::size_t>(f >> 6), first = w & ~std::size_t{7};
    const std::uint64_t* words = bits_->data();
    Index r = (*block_rank_)[w >> 3];
    for (std::size_t i = first; i < w; ++i) r += static_cast<Index>(std::popcount(words[i]));
    return r + static_cast<Index>(std::popcount(words[w] & ((std::uint64_t{1} << (f & 63)) - 1)));
  }

  ClassKey key_;
  Position skeleton_[2];
  std::vector<int> live_[2];
  bool two_ = false;  // the turned orientation differs
  bool plain_ = false;  // no marks: live pits 0..P-1 in order, one orientation
  std::shared_ptr<const DistributionIndex> dist_;
  std::shared_ptr<const std::vector<Index>> subset_;
  std::shared_ptr<const std::vector<Index>> dir_;  // the subset's buckets (sparse subsets, above)
  int shift_ = 0;
  std::shared_ptr<const std::vector<std::uint64_t>> bits_;  // dense subsets: bit f set <=> f in it
  std::shared_ptr<const std::vector<Index>> block_rank_;    // entries below each 512-bit block
  Index per_ = 0;     // positions per orientation
  Index full_size_ = 0;
  Index size_ = 0;
  int pits_ = 0;
  const Variant* variant_ = nullptr;
};

inline Index DistributionIndex::rank(const Seeds* x, int n) const {
  if (filter_.active()) return rank_filtered(x, n);
  return sum_rows<0, 0>(rows_.data(), [x](int j) { return static_cast<int>(x[j]); }, n);
}

// Shared rank tables (one per number of live pits, filter and seeds), built on first use.
std::shared_ptr<const DistributionIndex> distribution_index(int pits, IndexFilter filter, int max_seeds);

}  // namespace mancala
