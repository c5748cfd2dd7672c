// The reachable-set enumeration (sorted ranks per class) against the bit-set count,
// which reaches the same positions by another route (one class at a time, in order).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>

#include "mancala/notation.h"
#include "mancala/reachable.h"

using namespace mancala;

namespace {

ParsedPosition parse(const std::string& text) {
  auto p = parse_position(text);
  EXPECT_TRUE(p) << text;
  return *p;
}

// Both methods on one root: the same positions per (seeds, marked pits), class by class.
void expect_same(const std::string& text, std::uint64_t expected_total) {
  const ParsedPosition root = parse(text);
  const Variant& v = *root.variant;
  auto set = enumerate_reachable(v, root.position, 2);
  ASSERT_TRUE(set) << set.error().message;
  std::map<std::pair<int, int>, ReachableCount::Layer> layers;
  for (const auto& [k, ranks] : set->classes) {
    auto& l = layers[{k.seeds, marked_pits(k, v.pits())}];
    l.positions += ranks->size();
    ++l.classes;
  }
  CountOptions opt;
  opt.threads = 2;
  int calls = 0;
  opt.progress = [&](const CountProgress& p) {
    ++calls;
    ASSERT_NE(p.counted, nullptr);
    EXPECT_EQ(p.counted->classes, static_cast<std::uint64_t>(calls));
    EXPECT_GT(p.counted->layers.at({p.key.seeds, p.marked}).classes, 0u);
  };
  auto count = count_reachable(v, root.position, opt);
  ASSERT_TRUE(count) << count.error().message;
  EXPECT_EQ(count->positions, set->positions);
  EXPECT_EQ(count->positions, expected_total);
  EXPECT_EQ(count->classes, set->classes.size());
  EXPECT_EQ(calls, static_cast<int>(set->classes.size()));
  ASSERT_EQ(count->layers.size(), layers.size());
  for (const auto& [k, l] : layers) {
    ASSERT_TRUE(count->layers.contains(k)) << k.first << " seeds, " << k.second << " marks";
    EXPECT_EQ(count->layers.at(k).positions, l.positions) << k.first << " seeds, " << k.second << " marks";
    EXPECT_EQ(count->layers.at(k).classes, l.classes) << k.first << " seeds, " << k.second << " marks";
  }
  EXPECT_GT(count->peak_bytes, 0u);
}

}  // namespace

// The roots of results/reachable.md (their sizes as tabled by `generate --from`).
TEST(CountReachable, ImbeleceSixteenSeedsAsEnumerated) {
  expect_same("imbelece 2,2,2,2,0x,0x,0x,0x/2,2,2,2,0x,0x,0x,0x S", 541'283);
}
TEST(CountReachable, EnkeshuiBullsAsEnumerated) {
  expect_same("enkeshui:8 0S,0,2,2,2,2,0,0/0N,0,2,2,2,2,0,0 S", 1'415'229);
}
// Other marks and flags: Kotu-baendum's ties, Cenne's positions (flagged ones are
// expanded in place, not tabled, by both).
TEST(CountReachable, TiesAndFlaggedPositionsAsEnumerated) {
  expect_same("kotu-baendum 0,1,1,0,0,0,1/3,1,0,2,1,0,1 S", 1'592'116);
  expect_same("cenne:7:7 2,1,1,0,1,1,0/2,1,0,0,0,0,0 S", 314'038);
}
// A first move is expanded, not counted (no table holds it).
TEST(CountReachable, FirstMoveRootIsExpandedNotCounted) {
  const ParsedPosition root = parse("imbelece 1,1,1,0,0,0,0,0/1,1,1,0,0,0,0,0 S first");
  auto count = count_reachable(*root.variant, root.position, {});
  ASSERT_TRUE(count) << count.error().message;
  auto set = enumerate_reachable(*root.variant, root.position);
  ASSERT_TRUE(set);
  EXPECT_GT(set->positions, 0u);
  EXPECT_EQ(count->positions, set->positions);
  EXPECT_EQ(count->classes, set->classes.size());
}

TEST(CountReachable, TooLittleMemoryIsAClearError) {
  const ParsedPosition root = parse("imbelece 2,2,2,2,0x,0x,0x,0x/2,2,2,2,0x,0x,0x,0x S");
  CountOptions opt;
  opt.max_bytes = 16;
  auto count = count_reachable(*root.variant, root.position, opt);
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().code, Error::TableTooSmall);
  EXPECT_NE(count.error().message.find("bit sets"), std::string::npos) << count.error().message;
}

TEST(CountReachable, Cancel) {
  const ParsedPosition root = parse("imbelece 2,2,2,2,0x,0x,0x,0x/2,2,2,2,0x,0x,0x,0x S");
  std::atomic<bool> cancel{true};
  CountOptions opt;
  opt.budget.cancel_on(&cancel);
  auto count = count_reachable(*root.variant, root.position, opt);
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().code, Error::Cancelled);
}

TEST(CountReachable, WorkLimitOfTheBudget) {
  const ParsedPosition root = parse("imbelece 2,2,2,2,0x,0x,0x,0x/2,2,2,2,0x,0x,0x,0x S");
  CountOptions opt;
  opt.budget.work_limit(1000);
  auto count = count_reachable(*root.variant, root.position, opt);
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().code, Error::Limit);
}

TEST(EnumerateReachable, TooManyPositionsAndCancel) {
  const ParsedPosition root = parse("imbelece 2,2,2,2,0x,0x,0x,0x/2,2,2,2,0x,0x,0x,0x S");
  auto capped = enumerate_reachable(*root.variant, root.position, 1, {}, 1000);
  ASSERT_FALSE(capped);
  EXPECT_EQ(capped.error().code, Error::TableTooSmall);
  std::atomic<bool> cancel{true};
  Budget b;
  b.cancel_on(&cancel);
  auto stopped = enumerate_reachable(*root.variant, root.position, 1, {}, 200'000'000, b);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, Error::Cancelled);
}
