// The distance that realises a value (docs/values.md, "Distance to an exit").
//
// Score games whose in-class moves can repeat a position (Oware, Djenon-aboure,
// Kotu-baendum, Cenne, Enkeshui) hold endless play at 0: a margin alone says nothing
// about progress, and two sides that only keep the value may circle for ever. With
// the final values v of a class known, keep only its value-optimal moves (value(m) =
// v(p)). The distance d(p) counts the plies to the next move that leaves the class
// (an exit: seeds leave play, a mark changes, the game ends) along these moves, the
// side ahead (v(p) > 0) taking the shortest, the side behind (v(p) < 0) the longest:
//
//   d(p) = 0                                        v(p) = 0, or p has no move
//   d(p) = min over optimal m of  dist(m)           v(p) > 0
//   d(p) = max over optimal m of  dist(m)           v(p) < 0
//   dist(m) = 1 for an exit, 1 + d(child) for an in-class move
//
// taken as the least fixpoint (a position is decided when the side ahead has one
// decided optimal move, the side behind all of them). It is finite wherever v(p) != 0:
// v(p) = t > 0 means the mover is in the attractor of "a finite game worth >= t"
// (retrograde.h), whose every step is an optimal move of the side ahead and whose
// every reply an optimal move of the side behind leads to a lower rank. An in-class
// optimal move keeps |v| (zero gain, side flips: v(child) = -v(p)), so the side ahead
// playing a move of least dist and the other side any optimal move leave the class
// within d(p) plies with the value kept: the value is realised.
//
// Method: one pass plays the moves of every position worth other than 0 once (values
// read from the class and its exits; the exits not at all when the value solve kept
// each position's best exit, SolveOptions::best_exits, and no move of a position of
// the side ahead whose best exit is its value), decides the positions of distance 1
// and keeps, for each undecided optimal in-class move p -> c, the edge c -> p (by
// child, counted as they come: no sort; a piece listed by the sweeps keeps its edges
// in its own list, KeptChildren); then breadth-first levels k = 1, 2, ...:
// every parent q of a position decided at k is told; q ahead is decided at k + 1 at
// once, q behind when the last of its optimal in-class children is decided. The
// levels are exact, so the result does not depend on the threads nor on the order of
// the edges.
//
// generate takes the distances of a class solved by levels on one rank (Oware) from
// the value solve instead (SolveOptions::distances, class_solver.h, "Levels with
// distances": the levels' own tells, round by round, are the levels below); the
// same numbers (test Distances.LevelsFindTheSameDistancesAsTheirOwnSolver). For a
// class solved by sweeps on one rank (Kotu-baendum, Djenon-aboure, Cenne, Enkeshui)
// the first pass takes the in-class children of each position from the ranks the
// sweeps kept (SolveOptions::kept_children, retrograde.h's KeptChildren) instead of
// playing its moves (test Distances.SweepsKeptChildrenGiveTheSameDistances).
//
// Memory: 3 bytes a position (the distances, written in the result's layout, and the
// side behind's counts), 4 for the edge offsets, 12 an edge while the edges are put
// in order (4 after): distance_bytes() below. The levels (the positions decided at 0
// and 1 by the first pass, then the level told and the next) are lists while short,
// bit sets past n / 32 positions: at most n / 4 bytes together (distances.cpp,
// LevelSet). With SolveOptions::spill_dir the edges
// of the positions that play their moves go to an unlinked file as they are found
// (512 KiB buffers) and are read back to be put in order: 4 bytes an edge in memory.
// Kotu-baendum's classes of 13 seeds (10.4 M positions, 9.8-14.2 M edges): 216 MB of
// working arrays, 132 MB with the edges on disk (results/probe.md, session 23).
#pragma once

#include <cstdint>
#include <vector>

#include "mancala/distance_tables.h"
#include "mancala/retrograde.h"

namespace mancala {

// The distances of the class (has_distance_tables(v), distance_tables.h) `values` (solved, whole in memory) of `v`, 2 bytes a
// position, little-endian, in index order (the layout of a distance table file).
// `solved` holds the classes its exits go to. Uses options.threads and
// options.budget. Errors: MissingTable, Cancelled / Limit, Internal (a distance
// beyond 65535, or a position whose value is not 0 left undecided: the values are
// not those of the class).
// The most memory solve_distances takes for a class of `positions`, beside the class's
// values and the best exits: 8 bytes a position and 12 an edge, taken as one edge a
// position (the undecided optimal in-class moves: Oware's class of 14 seeds 0.71 a
// position, Kotu-baendum's of 10 0.4-0.7). generate --memory-mb counts it.
constexpr std::uint64_t distance_bytes(std::uint64_t positions) { return 20 * positions; }

// The working arrays of solve_distances, kept from one class to the next by a caller
// that solves many (generate): a class no larger than one before it touches no new
// page (Oware up to 14: 83 k page faults against 23 k for the values alone, 0.46 s
// of system time, before they were kept). Their memory stays taken between classes.
struct DistanceScratch {
  std::vector<std::uint8_t> behind;
  std::vector<std::uint32_t> first, parents;
};

// `best_exits`: the value solve's SolveOptions::best_exits for this class (null or
// empty: the exits are read again), freed (left empty) once the first pass has read
// them, before the edges are put in order; `kept`: its SolveOptions::kept_children (with
// best_exits; null or empty: every position plays its moves), each listed piece's
// lists freed once read. The result is the same. `scratch`: arrays to reuse (null:
// its own).
Result<std::vector<std::uint8_t>> solve_distances(const Variant& v, const ClassValues& values,
                                                  const SolvedClasses& solved, const SolveOptions& options = {},
                                                  std::vector<std::int8_t>* best_exits = nullptr,
                                                  DistanceScratch* scratch = nullptr, KeptChildren* kept = nullptr);

}  // namespace mancala
