#include "mancala/index.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <map>
#include <mutex>
#include <tuple>

namespace mancala {

DistributionIndex::DistributionIndex(int pits, int max_seeds, IndexFilter filter)
    : pits_(pits), max_seeds_(max_seeds), filter_(filter) {
  const std::size_t M = static_cast<std::size_t>(max_seeds) + 1;
  counts_.assign(static_cast<std::size_t>(pits + 1) * M * 2, 0);
  auto C = [&](int j, int m, int z) -> Index& { return counts_[((static_cast<std::size_t>(j) * M) + static_cast<std::size_t>(m)) * 2 + static_cast<std::size_t>(z)]; };
  // Past the last pit: one (empty) way if no seeds are left and the filter is met.
  for (int z = 0; z < 2; ++z) C(pits, 0, z) = (!filter.active() || z) ? 1 : 0;
  for (int j = pits - 1; j >= 0; --j)
    for (int m = 0; m <= max_seeds; ++m)
      for (int z = 0; z < 2; ++z) {
        Index total = 0;
        for (int x = 0; x <= m; ++x) total += C(j + 1, m - x, next_z(j, x, z));
        C(j, m, z) = total;
      }
  // The rows at a fixed stride (index.h): P + 1 blocks with a filter, one without.
  stride_ = static_cast<std::size_t>(max_seeds) < kFlatStride ? kFlatStride : M;
  filtered_ = filter.active();
  const std::size_t P = static_cast<std::size_t>(pits), blocks = filter.active() ? P + 1 : 1;
  rows_.assign(blocks * P * stride_, 0);
  if (filter.active()) {  // the three states' rows of the telescoped U(x) - F(x) (index.h)
    auto B = [&](int j, int m) -> Index { return m < 0 || j < 0 ? 0 : C(j, m, 1); };  // z = 1: no constraint left
    const int a = std::min(filter.zero_from, pits), b = std::min(filter.zero_to, pits), e = std::min(b, pits - 1);
    auto d = [&](int j) { return std::max(0, b - std::max(a, j + 1)); };  // c_j
    auto in_filter = [&](int j) { return j >= a && j < e; };               // j in [a, b), below the last pit
    std::vector<Index> state(3 * P * M, 0);  // state s's row of pit j at (s * P + j) * M
    for (int j = 0; j < pits; ++j)
      for (int m = 0; m <= max_seeds; ++m) {
        // U: B(j, m_j), the head of U_j, less B(j-1, m_j), the tail of U_{j-1}.
        const Index u = (j <= pits - 2 ? B(j, m) : 0) - (j >= 1 ? B(j - 1, m) : 0);
        // F_j's head (with its v = 0 term in the filtered pits) and F_{j-1}'s tail.
        const Index head = j <= pits - 2 ? B(j, m - d(j)) - (in_filter(j) ? B(j + 1, m - d(j)) : 0) : 0;
        const Index tail = j >= 1 ? B(j - 1, m - d(j - 1)) : 0;
        auto at = [&](std::size_t s) -> Index& { return state[(s * P + static_cast<std::size_t>(j)) * M + static_cast<std::size_t>(m)]; };
        at(0) = u - head + tail;
        // Pit j-1 was the first empty filtered pit: F_{j-1} = 0, so its tail cancels its
        // head and the v = 0 term the head held, B(j, m_j - c_{j-1}) (m_j = m_{j-1}), is taken back.
        at(1) = u + tail - (j >= 1 ? B(j, m - d(j - 1)) : 0);
        at(2) = u;
      }
    // Block z: pit j in state 0 up to z, 1 at z + 1, 2 after.
    for (int z = 0; z <= pits; ++z)
      for (int j = 0; j < pits; ++j) {
        const std::size_t s = j <= z ? 0 : j == z + 1 ? 1 : 2;
        std::copy_n(state.begin() + static_cast<std::ptrdiff_t>((s * P + static_cast<std::size_t>(j)) * M), M,
                    rows_.begin() + (row(z, j) - rows_.data()));
      }
    for (int j = std::max(filter.zero_from, 0); j < std::min(filter.zero_to, pits) && j < 32; ++j) filter_bits_ |= 1u << j;
  } else {  // E(j, s) = [j < P-1] B(j, s) - [j > 0] B(j-1, s), B(j, s) = C(j, s, 0)
    for (int j = 0; j < pits; ++j)
      for (int m = 0; m <= max_seeds; ++m)
        rows_[static_cast<std::size_t>(j) * stride_ + static_cast<std::size_t>(m)] =
            (j < pits - 1 ? C(j, m, 0) : 0) - (j > 0 ? C(j - 1, m, 0) : 0);
  }
}

Index DistributionIndex::rank_filtered(const Seeds* x, int n, bool check) const {
  // U(x) - F(x) telescoped (index.h): one look-up per pit in the table of the pit's
  // state (0: every filtered pit before it non-empty, 1: the pit before it was the
  // first empty one, 2: later). The first empty filtered pit z is found first (a
  // backward scan without branches), so that every pit's row is known at once
  // (row(z, .)): carried from pit to pit, the state had made each look-up wait for the
  // one before.
  int z = pits_;
  for (int j = std::min(filter_.zero_to, pits_) - 1; j >= filter_.zero_from; --j) z = x[j] == 0 ? j : z;
  if (check && z == pits_) return kLeftOut;  // no filtered pit empty: not allowed()
  return sum_block(static_cast<std::size_t>(z), [x](int j) { return static_cast<int>(x[j]); }, n);
}

void DistributionIndex::unrank(Index r, int n, Seeds* x) const {
  int m = n, z = 0;
  for (int j = 0; j < pits_ - 1; ++j) {
    // Largest v with T[j][m][v][z] <= r: T[j][m][v + 1][z] = T[j][m][v][z] + C(j+1,
    // m-v, z'), the block of the distributions with x_j = v; empty blocks are passed.
    int v = 0;
    Index below = 0;  // T[j][m][v][z]
    for (Index block; v < m && below + (block = c(j + 1, m - v, next_z(j, v, z))) <= r; ++v) below += block;
    r -= below;
    x[j] = static_cast<Seeds>(v);
    z = next_z(j, v, z);
    m -= v;
  }
  if (pits_ > 0) x[pits_ - 1] = static_cast<Seeds>(m);
}

bool DistributionIndex::allowed(const Seeds* x) const {
  if (!filter_.active()) return true;
  for (int j = filter_.zero_from; j < filter_.zero_to && j < pits_; ++j)
    if (x[j] == 0) return true;
  return false;
}

std::shared_ptr<const DistributionIndex> distribution_index(int pits, IndexFilter filter, int max_seeds) {
  static std::mutex mu;
  static std::map<std::tuple<int, int, int, int>, std::shared_ptr<const DistributionIndex>> cache;
  // The most seeds any variant has in play: Kalah(6, 8) (2 x 6 x 8 = 96, Kalah::total_seeds).
  std::lock_guard lock(mu);
  auto& slot = cache[{pits, filter.zero_from, filter.zero_to, max_seeds}];
  if (!slot) slot = std::make_shared<DistributionIndex>(pits, max_seeds, filter);
  return slot;
}

ClassIndex::ClassIndex(const Variant& v, const ClassKey& key) : key_(key), pits_(v.pits()), variant_(&v) {
  skeleton_[0] = skeleton_of(key, pits_);
  skeleton_[1] = v.rotate(skeleton_[0]);
  two_ = pack_state(skeleton_[1], pits_) != key.state;
  for (int o = 0; o < 2; ++o)
    for (int i = 0; i < pits_; ++i)
      if (skeleton_[o].marks[static_cast<std::size_t>(i)] == Mark::None) live_[o].push_back(i);
  // Tables sized to this class's seeds: the rank of a distribution does not depend
  // on the table size, and a small table stays in cache.
  dist_ = distribution_index(static_cast<int>(live_[0].size()), v.index_filter(key), std::max(key.seeds, 1));
  assert(key.seeds <= dist_->max_seeds());
  per_ = dist_->count(key.seeds);
  plain_ = !two_ && static_cast<int>(live_[0].size()) == pits_;
  full_size_ = size_ = two_ ? 2 * per_ : per_;
}

ClassIndex::ClassIndex(const Variant& v, const ClassKey& key, std::shared_ptr<const std::vector<Index>> subset)
    : ClassIndex(v, key) {
  subset_ = std::move(subset);
  if (!subset_) return;
  size_ = subset_->size();
  if (full_size_ / 64 <= size_) {  // dense: bits and block ranks
    const std::size_t words = static_cast<std::size_t>((full_size_ + 511) / 512 * 8);
    auto bits = std::make_shared<std::vector<std::uint64_t>>(words, 0);
    for (const Index f : *subset_) (*bits)[static_cast<std::size_t>(f >> 6)] |= std::uint64_t{1} << (f & 63);
    auto block_rank = std::make_shared<std::vector<Index>>(words / 8 + 1, 0);
    for (std::size_t b = 0; b < words / 8; ++b) {
      Index n = 0;
      for (std::size_t i = 8 * b; i < 8 * b + 8; ++i) n += static_cast<Index>(std::popcount((*bits)[i]));
      (*block_rank)[b + 1] = (*block_rank)[b] + n;
    }
    bits_ = std::move(bits);
    block_rank_ = std::move(block_rank);
    return;
  }
  const Index buckets = size_ / 8 + 1;
  while ((full_size_ >> shift_) + 1 > buckets) ++shift_;
  auto dir = std::make_shared<std::vector<Index>>((full_size_ >> shift_) + 2, size_);
  // dir[b] = the first entry of bucket b or later; the last one, size_, ends the last bucket.
  Index i = 0;
  for (std::size_t b = 0; b + 1 < dir->size(); ++b) {
    while (i < size_ && ((*subset_)[static_cast<std::size_t>(i)] >> shift_) < b) ++i;
    (*dir)[b] = i;
  }
  dir_ = std::move(dir);
}

bool ClassIndex::contains(const Position& p) const {
  return variant_->class_of(p) == key_ && allowed(p);
}

}  // namespace mancala
