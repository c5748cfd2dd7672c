// GhostSet (ghost_set.h): the two forms, the place of each offset, the wire form and
// its checks, against a plain sorted list.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "mancala/ghost_set.h"

namespace mancala::core {
namespace {

GhostSet make(std::uint64_t size, const std::set<GhostSet::Offset>& offs) {
  GhostSet::Builder b(size);
  for (auto o : offs) b.set(o);
  return std::move(b).finish();
}

void expect_same(const GhostSet& g, const std::set<GhostSet::Offset>& offs) {
  ASSERT_EQ(g.count(), offs.size());
  std::vector<GhostSet::Offset> seen;
  g.for_each([&](GhostSet::Offset o) { seen.push_back(o); });
  EXPECT_EQ(seen, std::vector<GhostSet::Offset>(offs.begin(), offs.end()));
  std::size_t i = 0;
  for (auto o : offs) EXPECT_EQ(g.index_of(o), i++) << o;
}

TEST(GhostSet, TheWorkedExampleOfTheHeader) {
  const std::set<GhostSet::Offset> offs{1, 3, 64, 129};
  const GhostSet g = make(130, offs);
  EXPECT_FALSE(g.is_bitmap());  // 16 bytes as a list, 36 as a bitmap
  EXPECT_EQ(g.index_of(64), 2u);
  expect_same(g, offs);
  std::set<GhostSet::Offset> forty;
  for (GhostSet::Offset o = 0; o < 130 && forty.size() < 40; o += 3) forty.insert(o);
  const GhostSet dense = make(130, forty);
  EXPECT_TRUE(dense.is_bitmap());
  EXPECT_EQ(dense.bytes(), GhostSet::bitmap_bytes(130));
  expect_same(dense, forty);
}

TEST(GhostSet, RandomSetsOfEveryDensityAndTheirWireForm) {
  std::mt19937_64 rng(7);
  for (std::uint64_t size : {0u, 1u, 63u, 64u, 65u, 1000u, 4097u, 100000u}) {
    for (double density : {0.0, 0.001, 0.02, 0.1, 0.5, 1.0}) {
      std::set<GhostSet::Offset> offs;
      std::bernoulli_distribution pick(density);
      for (std::uint64_t o = 0; o < size; ++o)
        if (pick(rng)) offs.insert(static_cast<GhostSet::Offset>(o));
      const GhostSet g = make(size, offs);
      expect_same(g, offs);
      EXPECT_LE(g.bytes(), std::max<std::uint64_t>(4 * offs.size(), GhostSet::bitmap_bytes(size)));
      const GhostSet back = GhostSet::from_wire(g.to_wire(), size);
      EXPECT_EQ(back.is_bitmap(), g.is_bitmap());
      expect_same(back, offs);
    }
  }
}

TEST(GhostSet, AWireFormOutOfItsSliceIsRefused) {
  using V = std::vector<GhostSet::Offset>;
  EXPECT_THROW(GhostSet::from_wire(V{0, 5, 10}, 10), std::runtime_error);   // past the slice
  EXPECT_THROW(GhostSet::from_wire(V{0, 5, 5}, 10), std::runtime_error);    // not increasing
  EXPECT_THROW(GhostSet::from_wire(V{1, 0}, 130), std::runtime_error);      // a bitmap of the wrong length
  EXPECT_THROW(GhostSet::from_wire(V{1, 0, 4}, 33), std::runtime_error);    // bit 34 of a 33-offset slice
  EXPECT_THROW(GhostSet::from_wire(V{2, 0, 0}, 64), std::runtime_error);    // no such form
  EXPECT_EQ(GhostSet::from_wire(V{}, 64).count(), 0u);
  EXPECT_EQ(GhostSet::from_wire(V{1, 0, 1}, 33).index_of(32), 0u);
}

}  // namespace
}  // namespace mancala::core
