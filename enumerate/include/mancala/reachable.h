// The positions reachable from a root, class by class, for games whose irreversible
// state has too many combinations to build every class (Enkeshui's bulls,
// Imbelece's closed pits): counted (count_reachable) or enumerated as sorted ranks
// per class (enumerate_reachable, which `generate --from` tables). Both are one walk
// (described at count_reachable) and differ only in what they keep of a finished
// class: its number of positions, or its ranks read off its bit set in order.
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
  std::uint64_t peak_bytes = 0;  // bit sets held at once while walking, at most

  // Classes with at most max_seeds seeds, in a solving order: seeds ascending, and
  // for equal seeds more marks first (a move keeping every seed in play can only
  // add marks), then by state.
  std::vector<ClassKey> solving_order(int pits, int max_seeds) const;
};

struct ReachableProgress {
  std::uint64_t classes_done = 0;
  std::uint64_t classes_pending = 0;  // reached, not yet done
  std::uint64_t found = 0;            // positions of the classes done
  std::uint64_t bytes = 0;            // bit sets held now
};

// The bit sets an enumeration may hold at once: max(1 GB, 16 bytes x max_positions).
// (Kotu-baendum 2 seeds per pit: 3.44 GB of bits for 294 M positions, 11.7 bytes a
// position; Enkeshui 2x8 1 seed per pit: 1.02 GB for 793 M.)
std::uint64_t enumeration_bit_bytes(std::uint64_t max_positions);

// The walk of count_reachable keeping each class's ranks: memory is 8 bytes a
// reachable position (exactly: each class's vector is sized by its count) plus the
// bit sets of the walk. Fails with TableTooSmall once more than `max_positions`
// positions are found (checked between rounds) or more than
// enumeration_bit_bytes(max_positions) of bit sets are needed at once, so a root
// whose reachable set would not fit in memory ends cleanly; with Cancelled or Limit
// when the budget says so (its work: the positions of the classes done). `progress`
// is called after each class, from the calling thread.
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
// The positions counted are those `generate --from` tables (enumerate_reachable is
// the same walk, keeping the ranks: 8 bytes a reachable position more).
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
