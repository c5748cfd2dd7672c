// Forward enumeration of the positions reachable from a root, class by class, for
// games whose irreversible state has too many combinations to build every class
// (Enkeshui's bulls, Imbelece's closed pits).
//
// Breadth-first in rounds: the frontier's children are generated in parallel (TBB),
// collected as (class, full rank) pairs, sorted, de-duplicated and merged into the
// per-class sorted sets. Memory: 8 bytes per reachable position (its full rank) plus
// the frontier; no position is stored whole. The result gives each class a dense
// index (ClassIndex with a subset).
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <string>
#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <vector>

#include "mancala/error.h"
#include "mancala/index.h"

namespace mancala {

struct ReachableSet {
  // Sorted full ranks of the reachable positions of each class.
  std::map<ClassKey, std::shared_ptr<const std::vector<Index>>> classes;
  std::uint64_t positions = 0;
  int rounds = 0;

  // Classes with at most max_seeds seeds, in a solving order: seeds ascending, and
  // for equal seeds more marks first (a move keeping every seed in play can only
  // add marks), then by state.
  std::vector<ClassKey> solving_order(int pits, int max_seeds) const;
};

struct ReachableProgress {
  int round = 0;
  std::uint64_t frontier = 0;
  std::uint64_t found = 0;
};

// Fails with TableTooSmall once more than `max_positions` positions are found, so a
// root whose reachable set would not fit in memory ends cleanly; with Cancelled or
// Limit when the budget says so (its work: the positions found).
Result<ReachableSet> enumerate_reachable(const Variant& v, const Position& root, int threads = 0,
                                         const std::function<void(const ReachableProgress&)>& progress = {},
                                         std::uint64_t max_positions = 200'000'000, const Budget& budget = {});

// Counting the reachable set without storing it: one bit per position of every
// class the root reaches (its full index, ClassIndex::full_size), classes taken one
// at a time in an order where every class comes after all classes that can move into
// it (marked pits ascending, then seeds descending: a move only adds marks and only
// takes seeds out of play). Inside a class, breadth-first rounds over its bits
// (parallel, TBB); a child in another class sets that class's bit and is expanded
// when its class's turn comes. A class's bits are freed once it is done, so memory
// is the bit sets of the classes reached and not yet done.
//
// Example: Imbelece, 1 seed per pit. The first move's children are in the class of
// 16 seeds and no closed pit (300,540,195 positions, 37.6 MB of bits); its rounds
// find 255,062,588 of them reachable and set bits in the classes of one or two closed
// pits (16 seeds: 8 classes of 290 M positions each, 36 MB), which come next.
//
// The positions counted are those `generate --from` would table (the same set as
// enumerate_reachable, which stores 8 bytes a position instead of 1 bit a potential
// position: use it for roots small enough to table, this to size the others).
struct ReachableCount {
  struct Layer {
    std::uint64_t positions = 0;
    std::uint64_t classes = 0;
  };
  std::map<std::pair<int, int>, Layer> layers;  // (seeds, marked pits) -> reached
  std::uint64_t positions = 0;
  std::uint64_t classes = 0;
  std::uint64_t peak_bytes = 0;  // bit sets held at once, at most
};

struct CountProgress {
  ClassKey key;                       // class just done
  int marked = 0;                     // its marked pits
  std::uint64_t classes_pending = 0;  // reached, not yet done
  std::uint64_t bytes = 0;            // bit sets held now
  const ReachableCount* counted = nullptr;  // the classes done so far, this one included
};

struct CountOptions {
  int threads = 0;                                // 0 = all cores
  std::uint64_t max_bytes = 8'000'000'000;        // bit sets held at once
  std::function<void(const CountProgress&)> progress;  // after each class, from the calling thread
  Budget budget;  // cancel flag, deadline, work limit (positions counted)
};

// Errors: TableTooSmall (more than max_bytes of bit sets needed at once), Internal (a
// move into a class already done: a variant breaking the order above), Cancelled and
// Limit (the budget).
Result<ReachableCount> count_reachable(const Variant& v, const Position& root, const CountOptions& options = {});

// Number of marked pits of a class (used by the solving order).
int marked_pits(const ClassKey& k, int pits);

}  // namespace mancala
