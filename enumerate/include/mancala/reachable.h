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

#include <cstdint>
#include <expected>
#include <string>
#include <functional>
#include <map>
#include <memory>
#include <vector>

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

// Fails (an error message) once more than `max_positions` positions are found, so a
// root whose reachable set would not fit in memory ends cleanly.
std::expected<ReachableSet, std::string> enumerate_reachable(
    const Variant& v, const Position& root, int threads = 0,
    const std::function<void(const ReachableProgress&)>& progress = {}, std::uint64_t max_positions = 200'000'000);

// Number of marked pits of a class (used by the solving order).
int marked_pits(const ClassKey& k, int pits);

}  // namespace mancala
