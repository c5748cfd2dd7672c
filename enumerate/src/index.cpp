#include "mancala/index.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <mutex>
#include <tuple>

namespace mancala {

DistributionIndex::DistributionIndex(int pits, int max_seeds, IndexFilter filter)
    : pits_(pits), max_seeds_(max_seeds), filter_(filter) {
  const std::size_t M = static_cast<std::size_t>(max_seeds) + 1;
  counts_.assign(static_cast<std::size_t>(pits + 1) * M * 2, 0);
  table_.assign(static_cast<std::size_t>(pits + 1) * M * (M + 1) * 2, 0);
  auto C = [&](int j, int m, int z) -> Index& { return counts_[((static_cast<std::size_t>(j) * M) + static_cast<std::size_t>(m)) * 2 + static_cast<std::size_t>(z)]; };
  // Past the last pit: one (empty) way if no seeds are left and the filter is met.
  for (int z = 0; z < 2; ++z) C(pits, 0, z) = (!filter.active() || z) ? 1 : 0;
  for (int j = pits - 1; j >= 0; --j)
    for (int m = 0; m <= max_seeds; ++m)
      for (int z = 0; z < 2; ++z) {
        Index total = 0;
        for (int x = 0; x <= m; ++x) {
          const std::size_t at = (((static_cast<std::size_t>(j) * M + static_cast<std::size_t>(m)) * (M + 1)) + static_cast<std::size_t>(x)) * 2 + static_cast<std::size_t>(z);
          table_[at] = total;
          total += C(j + 1, m - x, next_z(j, x, z));
        }
        table_[(((static_cast<std::size_t>(j) * M + static_cast<std::size_t>(m)) * (M + 1)) + static_cast<std::size_t>(m + 1)) * 2 + static_cast<std::size_t>(z)] = total;
        C(j, m, z) = total;
      }
  if (filter.active()) {  // B(j, m) padded with zeros below m = 0, and c_j (index.h)
    shift_ = max_seeds + pits;
    stride_ = shift_ + max_seeds + 1;
    padded_.assign(static_cast<std::size_t>(pits + 1) * static_cast<std::size_t>(stride_), 0);
    auto B = [&](int j, int m) -> Index& { return padded_[static_cast<std::size_t>(j) * static_cast<std::size_t>(stride_) + static_cast<std::size_t>(shift_ + m)]; };
    B(pits, 0) = 1;
    for (int j = pits - 1; j >= 0; --j)
      for (int m = 0; m <= max_seeds; ++m) B(j, m) = (m > 0 ? B(j, m - 1) : 0) + B(j + 1, m);
    const int a = std::min(filter.zero_from, pits), b = std::min(filter.zero_to, pits);
    set_aside_.resize(static_cast<std::size_t>(pits));
    for (int j = 0; j < pits; ++j) set_aside_[static_cast<std::size_t>(j)] = std::max(0, b - std::max(a, j + 1));
  } else {  // E(j, s) = [j < P-1] B(j, s) - [j > 0] B(j-1, s), B(j, s) = C(j, s, 0)
    steps_.assign(static_cast<std::size_t>(pits) * M, 0);
    for (int j = 0; j < pits; ++j)
      for (int m = 0; m <= max_seeds; ++m)
        steps_[static_cast<std::size_t>(j) * M + static_cast<std::size_t>(m)] =
            (j < pits - 1 ? C(j, m, 0) : 0) - (j > 0 ? C(j - 1, m, 0) : 0);
  }
}

Index DistributionIndex::rank_filtered(const Seeds* x, int n) const {
  Index r = 0;
  // U(x) - F(x) (see index.h); b[j * stride_ + m] = B(j, m).
  const Index* b = padded_.data() + shift_;
  const int a = std::min(filter_.zero_from, pits_ - 1), e = std::min(filter_.zero_to, pits_ - 1);
  const std::size_t S = static_cast<std::size_t>(stride_);
  int m = n, j = 0;
  for (; j < a; ++j, b += S) {  // before the filtered pits: c_j = b - a
    const int rest = m - x[j], mc = m - set_aside_[static_cast<std::size_t>(j)];
    r += b[m] - b[rest] - b[mc] + b[mc - x[j]];
    m = rest;
  }
  for (; j < e; ++j, b += S) {  // in the filtered pits, while every one so far is non-empty
    const int rest = m - x[j];
    r += b[m] - b[rest];
    if (x[j] == 0) {
      m = rest;
      for (++j, b += S; j < pits_ - 1; ++j, b += S) {
        const int rest2 = m - x[j];
        r += b[m] - b[rest2];
        m = rest2;
      }
      return r;
    }
    const int mc = m - set_aside_[static_cast<std::size_t>(j)];
    r -= b[mc] - b[mc - x[j]] - b[static_cast<std::ptrdiff_t>(S) + mc];
    m = rest;
  }
  for (; j < pits_ - 1; ++j, b += S) {  // after them (the prefix kept them non-empty)
    const int rest = m - x[j], mc = m - set_aside_[static_cast<std::size_t>(j)];
    r += b[m] - b[rest] - b[mc] + b[mc - x[j]];
    m = rest;
  }
  return r;
}

void DistributionIndex::unrank(Index r, int n, Seeds* x) const {
  int m = n, z = 0;
  for (int j = 0; j < pits_ - 1; ++j) {
    // Largest v with T[j][m][v][z] <= r (and a non-empty block of completions).
    int v = 0;
    while (v < m && t(j, m, v + 1, z) <= r) ++v;
    r -= t(j, m, v, z);
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
  if (subset_) size_ = subset_->size();
}

bool ClassIndex::contains(const Position& p) const {
  return variant_->class_of(p) == key_ && allowed(p);
}

}  // namespace mancala
