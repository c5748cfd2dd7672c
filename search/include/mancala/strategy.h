// Strategy proofs for win/loss games (Imbelece): whether a side can avoid losing, by
// building one strategy for it and checking every reply of the other side, instead of
// valuing every reachable position.
//
// Contract. For a win/loss variant, a position p and a defender (the side to move in
// p, or the other one), prove_safe returns
//   Safe  the defender has a strategy that never loses from p: a set C of positions
//         (the certificate) with p in C such that every defender position in C has a
//         legal move (the strategy's) to a position of C, every attacker position in C
//         has all its moves into C, or none (the attacker cannot move: he has lost);
//         then the defender never reaches a position without a move, whatever the
//         attacker plays (he may still win, or the game may go on for ever: a draw);
//   Lost  the attacker forces the defender's loss from p (a finite proof: every
//         defender move of every line was tried);
// and the value of p follows from two calls (decide_win_loss):
//   defender = mover Lost                     -> p is lost for the mover,
//   defender = opponent Lost                  -> p is won for the mover,
//   both Safe                                 -> p is a draw (nobody can force a win).
//
// Method (a lazy safety game). A graph of positions (with the side to move being the
// defender or not) grows from p. Attacker positions are expanded with all their moves;
// defender positions with one move, the strategy's, chosen by a rule of thumb (a
// position already in the graph first, then the move leaving the attacker the fewest
// moves). A = the attacker's attractor over the graph (least fixpoint):
//
//   defender position in A  if it has no move, or all its moves lead into A,
//   attacker position in A  if one of its moves leads into A.
//
// A defender position is put into A only when all its moves were looked at, so A is
// exact: every position of A is lost for the defender. When the strategy's move of a
// defender position enters A, the position chooses again among its moves not in A
// (or enters A itself). Each position keeps a list of the positions that reached it
// (its parents), so entering A propagates upwards at once; a position whose parents
// are all in A, or chose another move since, is not expanded (until a parent wants it
// again: that halves the graph of the 20-seed root of results/reachable.md). The
// search stops when p is in A (Lost), or when no position is left to expand and no
// choice is left to remake: then the positions reachable from p by the strategy's
// moves and all attacker moves are the certificate (Safe), which is walked once more
// with the rules to check it.
//
// Memory: about 70 bytes a position of the graph (a 16-byte key, 1.5 hash slots,
// parent links, the strategy move; measured 18.5 GB for 260 M positions), bounded by
// memory_bytes (TableTooSmall beyond). Positions are keyed by their contents packed into 128
// bits (seeds in unary with a separator per pit, 2 bits of mark per pit, flags, side),
// so boards with pits + seeds + 2 * pits + 9 > 128 bits are refused (Imbelece: 16
// pits and up to 55 seeds).
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <functional>

#include "mancala/search.h"
#include "mancala/variant.h"

namespace mancala {

struct SafetyResult {
  enum Outcome { Safe, Lost };
  Outcome outcome = Safe;
  std::uint64_t certificate = 0;  // Safe: positions in the checked certificate
  std::uint64_t positions = 0;    // positions in the graph
  std::uint64_t expanded = 0;     // positions whose moves were generated
  std::uint64_t rechosen = 0;     // strategy moves made again (their position entered A)
  std::uint64_t attractor = 0;    // positions proven lost for the defender
  std::uint64_t skipped = 0;      // positions left unexpanded: no parent needed them any more
  double seconds = 0;
};

struct SafetyProgress {
  std::uint64_t positions = 0, expanded = 0, pending = 0, attractor = 0, rechosen = 0;
  double seconds = 0;
};

struct SafetyOptions {
  std::uint64_t memory_bytes = 1ull << 30;
  Budget budget;  // cancel flag and deadline (error.h), polled about every million expansions
  std::function<void(const SafetyProgress&)> progress;  // about every million expansions
};

// Errors: BadPosition (malformed, not a win/loss game, too many seeds for the key),
// TableTooSmall (memory_bytes reached), Limit (the budget's deadline), Cancelled,
// OutOfMemory, Internal (the certificate did not check: a bug).
std::expected<SafetyResult, SearchError> prove_safe(VariantPtr v, const Position& p, bool defender_is_mover,
                                                   SafetyOptions options);

struct WinLossDecision {
  enum Outcome { Win, Draw, Loss };  // for the side to move
  Outcome outcome = Draw;
  SafetyResult mover, opponent;  // the two proofs (opponent not run when the mover is Lost)
};
std::expected<WinLossDecision, SearchError> decide_win_loss(VariantPtr v, const Position& p, SafetyOptions options);

}  // namespace mancala
