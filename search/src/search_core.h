// What every engine of the search shares (internal to search/src): the stop value,
// a thread's state, the parallel split point.
#pragma once

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "mancala/index.h"
#include "mancala/values.h"
#include "mancala/variant.h"

namespace mancala::search_detail {

using Clock = std::chrono::steady_clock;

// The search's stop, propagated by return through the call chain (no exception): a
// function returning a value returns kStop, one returning a slot returns null, and
// every caller returns at once on seeing it, storing nothing. Why it stopped is in
// Impl::error (an error, the budget, the cancel flag) or, under a parallel split, the
// split's cut-off (then no error: the split's owner folds what its tasks finished).
constexpr int kStop = INT_MIN;

// A position whose moves are searched in parallel: a cut-off sets `cut`, and every
// search under it (at any depth of splits) stops.
struct SplitPoint {
  std::atomic<bool> cut{false};
  const SplitPoint* parent = nullptr;
  bool stopped() const {
    for (const SplitPoint* s = this; s; s = s->parent)
      if (s->cut.load(std::memory_order_relaxed)) return true;
    return false;
  }
};

// One position of the path of a search of a variant with cycles (alpha-beta with
// repetition = 0): its moves, and what the repetition check needs.
struct CMove {  // what is known of one move of a CPly before and after searching it
  int lo, hi;
  std::size_t dep;  // the lowest ply of the path a repetition behind the bounds hit
  std::uint64_t hash;
  ClassKey key;
};
struct CPly {
  std::vector<Child> kids;
  std::vector<CMove> moves;  // per kid
  std::vector<int> order;    // the kids to search, best first
  Position pos;
  std::uint64_t hash = 0;
  std::size_t class_start = 0;  // the first ply of the path in this position's class
  ClassKey key;
};

// One thread's search state.
struct Ctx {
  std::uint64_t nodes = 0, flushed = 0, table_hits = 0;
  const SplitPoint* split = nullptr;  // the innermost parallel split this search is part of
  // Cyclic alpha-beta: the path from the root (one allocation per ply, kept: references
  // stay valid as it grows; nothing allocated for a Kalah search).
  std::vector<std::unique_ptr<CPly>> path;
  CPly& at(std::size_t ply) {
    while (path.size() <= ply) path.push_back(std::make_unique<CPly>());
    return *path[ply];
  }
  std::unordered_map<ClassKey, bool, ClassKeyHash> small_class;  // cyclic alpha-beta: solved by region
  std::unordered_map<ClassKey, const ClassIndex*, ClassKeyHash> indexes;  // Impl::indexes seen by this thread
};

constexpr int kInf = kWinValue + 2;

}  // namespace mancala::search_detail
