#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "mancala/index.h"
#include "mancala/notation.h"
#include "mancala/rules.h"

using namespace mancala;

TEST(Index, WorkedExample) {
  DistributionIndex plain(3, 10, {});
  EXPECT_EQ(plain.count(2), 6u);
  const Seeds x[3] = {1, 1, 0};
  EXPECT_EQ(plain.rank(x, 2), 4u);
  DistributionIndex filtered(3, 10, {1, 3});
  EXPECT_EQ(filtered.count(2), 5u);
  EXPECT_EQ(filtered.rank(x, 2), 3u);
}

// ---- Exhaustive checks of the perfect hash ----------------------------------------

namespace {

// Binomial coefficient, 0 when k > n.
Index binom(int n, int k) {
  if (k < 0 || n < 0 || k > n) return 0;
  Index r = 1;
  for (int i = 1; i <= k; ++i) r = r * static_cast<Index>(n - k + i) / static_cast<Index>(i);
  return r;
}

// Calls f(x) for every distribution of n seeds over `pits` pits, in lexicographic order.
void for_each_distribution(int pits, int n, const std::function<void(const std::vector<Seeds>&)>& f) {
  std::vector<Seeds> x(static_cast<std::size_t>(pits), 0);
  std::function<void(int, int)> go = [&](int j, int left) {
    if (j == pits - 1) {
      x[static_cast<std::size_t>(j)] = static_cast<Seeds>(left);
      f(x);
      return;
    }
    for (int v = 0; v <= left; ++v) {
      x[static_cast<std::size_t>(j)] = static_cast<Seeds>(v);
      go(j + 1, left - v);
    }
  };
  if (pits > 0) go(0, n);
}

// Every allowed distribution of n seeds: rank is its number in lexicographic order among
// the allowed ones (so ranks cover [0, count) without gaps, checked with a bitmap),
// unrank(rank(x)) == x, and rank(unrank(r)) == r for every r.
void check_exhaustively(const DistributionIndex& idx, int n) {
  const Index count = idx.count(n);
  std::vector<bool> seen(count, false);
  Index next = 0;
  std::vector<Seeds> back(static_cast<std::size_t>(idx.pits()));
  for_each_distribution(idx.pits(), n, [&](const std::vector<Seeds>& x) {
    // The rank read from the pits where they lie (rank_if_allowed_by: the C API's short
    // way), unrolled for 12 pits: the rank where allowed, kLeftOut where not.
    unsigned empty = 0;
    for (std::size_t j = 0; j < x.size(); ++j) empty |= static_cast<unsigned>(x[j] == 0) << j;
    auto pit = [&x](int j) { return static_cast<int>(x[static_cast<std::size_t>(j)]); };
    const Index by = idx.unrolls(12) ? idx.rank_if_allowed_by<12>(pit, n, empty) : idx.rank_if_allowed_by(pit, n, empty);
    ASSERT_EQ(by, idx.allowed(x.data()) ? idx.rank(x.data(), n) : DistributionIndex::kLeftOut);
    if (!idx.allowed(x.data())) return;
    const Index r = idx.rank(x.data(), n);
    ASSERT_LT(r, count);
    EXPECT_FALSE(seen[r]);
    seen[r] = true;
    EXPECT_EQ(r, next);
    ++next;
    idx.unrank(r, n, back.data());
    ASSERT_EQ(back, x);
  });
  EXPECT_EQ(next, count) << idx.pits() << " pits, " << n << " seeds";
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; }));
  for (Index r = 0; r < count; ++r) {
    idx.unrank(r, n, back.data());
    ASSERT_TRUE(idx.allowed(back.data()));
    int sum = 0;
    for (Seeds s : back) sum += s;
    ASSERT_EQ(sum, n);
    ASSERT_EQ(idx.rank(back.data(), n), r);
  }
}

constexpr Index kExhaustiveLimit = 200000;  // distributions per (pits, n) checked one by one

}  // namespace

TEST(Index, WorkedExampleInFull) {
  DistributionIndex plain(3, 10, {});
  const Seeds order[6][3] = {{0, 0, 2}, {0, 1, 1}, {0, 2, 0}, {1, 0, 1}, {1, 1, 0}, {2, 0, 0}};
  for (Index r = 0; r < 6; ++r) {
    EXPECT_EQ(plain.rank(order[r], 2), r);
    Seeds x[3];
    plain.unrank(r, 2, x);
    EXPECT_TRUE(std::equal(x, x + 3, order[r]));
  }
  DistributionIndex filtered(3, 10, {1, 3});
  const Seeds allowed[5][3] = {{0, 0, 2}, {0, 2, 0}, {1, 0, 1}, {1, 1, 0}, {2, 0, 0}};
  EXPECT_FALSE(filtered.allowed(order[1]));
  for (Index r = 0; r < 5; ++r) {
    EXPECT_EQ(filtered.rank(allowed[r], 2), r);
    Seeds x[3];
    filtered.unrank(r, 2, x);
    EXPECT_TRUE(std::equal(x, x + 3, allowed[r]));
  }
}

TEST(Index, DjenonAboureAllDistributions) {
  const VariantPtr v = *make_variant("djenon-aboure");
  for (int n = 0; n <= v->total_seeds(); ++n) {
    const ClassIndex idx(*v, ClassKey{0, n});
    EXPECT_EQ(idx.size(), binom(n + 11, 11)) << n;
  }
  const DistributionIndex& d = *distribution_index(12, {}, 96);
  for (int n = 0; d.count(n) <= kExhaustiveLimit; ++n) check_exhaustively(d, n);
}

TEST(Index, KalahAllDistributions) {
  for (int m = 1; m <= 6; ++m) {
    const VariantPtr v = *make_variant("kalah:" + std::to_string(m) + ":standard");
    for (int n = 0; n <= v->total_seeds(); ++n) {
      const ClassIndex idx(*v, ClassKey{0, n});
      EXPECT_EQ(idx.size(), binom(n + 2 * m - 1, 2 * m - 1)) << "kalah:" << m << " " << n;
    }
    const DistributionIndex& d = *distribution_index(2 * m, v->index_filter(ClassKey{0, 0}), 96);
    for (int n = 0; n <= v->total_seeds() && d.count(n) <= kExhaustiveLimit; ++n) check_exhaustively(d, n);
  }
}

// Oware indexes only the reachable boards: the side that just moved (North's row after
// the turn round) has an empty pit, C(n+11,11) - C(n+5,11) of them.
TEST(Index, OwareReachableCount) {
  const VariantPtr v = *make_variant("oware");
  for (int n = 0; n <= 20; ++n) {
    const ClassIndex idx(*v, ClassKey{0, n});
    EXPECT_EQ(idx.size(), binom(n + 11, 11) - binom(n + 5, 11)) << n;
  }
  const DistributionIndex& d = *distribution_index(12, v->index_filter(ClassKey{0, 0}), 48);
  for (int n = 0; n <= 8; ++n) check_exhaustively(d, n);
}

// The rows at the stride of 32 (unrolls(12): the 12-pit ways unrolled at constant
// offsets) and at a stride of max_seeds + 1 (the loop) rank alike: Oware's filter and
// none, up to 6 seeds, every distribution (allowed or not), by every way.
TEST(Index, StridesRankAlike) {
  for (const IndexFilter f : {IndexFilter{}, make_variant("oware").value()->index_filter(ClassKey{0, 0})}) {
    const DistributionIndex narrow(12, 20, f), wide(12, 48, f);
    ASSERT_TRUE(narrow.unrolls(12));
    ASSERT_FALSE(wide.unrolls(12));
    ASSERT_EQ(wide.stride(), 49u);
    for (int n = 0; n <= 6; ++n)
      for_each_distribution(12, n, [&](const std::vector<Seeds>& x) {
        unsigned empty = 0;
        for (std::size_t j = 0; j < x.size(); ++j) empty |= static_cast<unsigned>(x[j] == 0) << j;
        auto pit = [&x](int j) { return static_cast<int>(x[static_cast<std::size_t>(j)]); };
        const Index by = narrow.rank_if_allowed_by<12>(pit, n, empty);
        ASSERT_EQ(by, wide.rank_if_allowed_by(pit, n, empty));
        ASSERT_EQ(narrow.rank_if_allowed(x.data(), n), wide.rank_if_allowed(x.data(), n));
        ASSERT_EQ(by, narrow.rank_if_allowed(x.data(), n));
        if (by != DistributionIndex::kLeftOut) {
          ASSERT_EQ(narrow.rank(x.data(), n), wide.rank(x.data(), n));
        }
      });
  }
}

// The filtered rank is the unfiltered rank less the filtered-out distributions before
// it (index.h): every filter [a, b) of up to 6 pits (up to 7 seeds) and of 8 to 16 pits
// (up to 3 seeds; Oware has 12), including filters past the last pit.
TEST(Index, EveryFilterInLexicographicOrder) {
  for (int pits = 1; pits <= 16; pits += pits == 6 ? 2 : 1)
    for (int a = 0; a <= pits; ++a)
      for (int b = a + 1; b <= pits + 1; ++b) {
        const int most = pits <= 6 ? 7 : 3;
        const DistributionIndex d(pits, most, IndexFilter{a, b});
        for (int n = 0; n <= most; ++n) check_exhaustively(d, n);
      }
}

TEST(Index, ClassIndexRoundTrips) {
  for (const char* spec : {"djenon-aboure", "oware", "kalah:3:empty", "kalah:6:standard"}) {
    const VariantPtr v = *make_variant(spec);
    for (int n = 0; n <= 6; ++n) {
      const ClassIndex idx(*v, ClassKey{0, n});
      for (Index r = 0; r < idx.size(); ++r) {
        const Position p = idx.unrank(r);
        ASSERT_TRUE(idx.contains(p)) << spec;
        ASSERT_EQ(v->class_of(p), idx.key());
        ASSERT_EQ(idx.rank(p), r) << spec;
      }
    }
  }
}

// A reachable-set index (subset of full ranks: bit set and block ranks when dense, bucket
// directory when sparse):
// dense ranks for the members, not allowed for the others, for sparse, dense, skewed
// and tiny subsets.
TEST(Index, SubsetRanksDenseAndSparse) {
  const VariantPtr v = *make_variant("kalah:3:empty");
  const ClassKey key{0, 12};  // 6,188 full ranks
  const ClassIndex whole(*v, key);
  const Index n = whole.full_size();
  std::vector<std::vector<Index>> subsets = {{}, {0}, {n - 1}, {0, n - 1}};
  for (Index every : {1, 2, 3, 7, 63, 64, 65, 500}) {
    std::vector<Index> s;
    for (Index f = every / 2; f < n; f += every) s.push_back(f);
    subsets.push_back(s);
  }
  std::vector<Index> skewed;  // every rank of the first tenth, then a few
  for (Index f = 0; f < n; ++f)
    if (f < n / 10 || f % 997 == 0) skewed.push_back(f);
  subsets.push_back(skewed);
  for (const auto& s : subsets) {
    const ClassIndex idx(*v, key, std::make_shared<const std::vector<Index>>(s));
    ASSERT_EQ(idx.size(), s.size());
    std::size_t next = 0;
    for (Index f = 0; f < n; ++f) {
      const Position p = whole.full_unrank(f);
      const bool member = next < s.size() && s[next] == f;
      ASSERT_EQ(idx.allowed(p), member) << "full rank " << f << " of a subset of " << s.size();
      if (member) {
        ASSERT_EQ(idx.rank(p), next);
        ASSERT_EQ(idx.unrank(next), p);
        ++next;
      }
    }
  }
}

// Every Oware turn from an indexed position leads to an indexed position (the filter
// only drops boards no turn can reach).
TEST(Index, OwareChildrenAreIndexed) {
  const VariantPtr v = *make_variant("oware");
  std::vector<Child> kids;
  std::vector<ClassIndex> classes;
  for (int n = 0; n <= 8; ++n) classes.emplace_back(*v, ClassKey{0, n});
  std::size_t checked = 0;
  for (const ClassIndex& idx : classes) {
    for (Index r = 0; r < idx.size(); ++r) {
      v->children(idx.unrank(r), kids);
      for (const Child& c : kids) {
        const int seeds = c.next.seeds_in(0, v->pits());
        ASSERT_LE(seeds, idx.key().seeds);
        ASSERT_TRUE(classes[static_cast<std::size_t>(seeds)].contains(c.next)) << format_position(*v, c.next, Side::South);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100000u);
}
