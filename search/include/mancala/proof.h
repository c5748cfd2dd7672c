// Depth-bounded proof search for win/loss games (Imbelece): the exact value of a
// position when the game is decided within a given number of plies, without building
// any table.
//
// Contract. For a win/loss variant and a bound D, prove_within(p, D) returns
//   Win  in d plies  if the side to move can force a win and the shortest forced win
//                    takes d <= D plies (d is then the table's plies of retrograde.h:
//                    the winner's shortest, the loser's longest),
//   Loss in d plies  if every line loses and the longest resistance is d <= D plies,
//   Open             otherwise: neither side can force a win within D plies
//                    (the game is a draw, or decided only in more than D plies).
//
// Method: iterative deepening d = 1, 2, ... on the two predicates
//
//   W(p, d): d >= 1 and some move leads to q with L(q, d - 1)
//   L(q, d): q has no move (the side to move has lost: 0 plies), or d >= 1 and every
//            move leads to p with W(p, d - 1)
//
// The smallest d with W(root, d) is the winner-shortest depth, the smallest d with
// L(root, d) the loser-longest one; both are path independent (a forced result within
// d plies is a finite tree), so a transposition table keyed by the whole position
// keeps, per position and predicate, the smallest d proven true and the largest d
// proven false. Memory: at most `tt_bytes` (about 96 bytes a position), beyond which
// the table is cleared (a cache: results stay exact). Work grows by the branching
// factor per ply: about x2.3 a ply from the Imbelece start with 1 seed per pit.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <functional>
#include <vector>

#include "mancala/search.h"
#include "mancala/variant.h"

namespace mancala {

struct ProofResult {
  enum Outcome { Win, Loss, Open };
  Outcome outcome = Open;
  int plies = 0;       // Win / Loss: plies to the end under optimal play
  int searched = 0;    // every depth up to this one was searched (Open: the bound proven)
  Value value = 0;     // Win / Loss as a value of types.h (kWinValue - plies, ...); Open: 0
  std::vector<Child> pv;  // Win / Loss: a line of optimal moves to the end of the game
  std::uint64_t nodes = 0;
  double seconds = 0;
};

struct ProofProgress {
  int depth = 0;  // the depth being searched
  std::uint64_t nodes = 0;
  std::uint64_t positions = 0;  // positions in the transposition table
  double seconds = 0;
};

struct ProofOptions {
  int max_plies = 20;
  std::uint64_t tt_bytes = 256ull << 20;
  // Cancel flag and deadline (error.h). The deadline reached: the result so far (Open,
  // searched = the deepest depth completed), not an error. No work limit.
  Budget budget;
  std::function<void(const ProofProgress&)> progress;  // after each depth; the core never prints
};

// Errors: BadPosition (malformed, or not a win/loss game), Cancelled, OutOfMemory.
std::expected<ProofResult, SearchError> prove_within(VariantPtr v, const Position& p, ProofOptions options);

}  // namespace mancala
