// Exact search for positions above the tables (issue 6).
//
// Contract. For a position p (side to move South) the search returns v(p), the exact
// value of types.h / retrograde.h under optimal play, a game that never ends being
// worth 0 (score) or a draw (win/loss):
//
//   v(p) = table value of p                          if class_of(p) is in the tables,
//   v(p) = terminal_value(p)                         if p has no move,
//   v(p) = max over moves m of value(m)              otherwise,
//   value(m) = move_value(kind, m, v(child))         (variant.h)
//
// and, for every first move m, value(m). No heuristic cut-off: every bound used is
// a proven bound of v.
//
// Three methods, picked by variant and SearchOptions::cycles:
//
// 1. Kalah (positions never repeat: seeds only move forward within a class): MTD(f)
//    over a fail-soft null-window alpha-beta to the end of the game or to a table
//    position (no depth limit, no heuristic). A call search(q, alpha, beta) returns r:
//
//      r <= alpha  =>  v(q) <= r,      r >= beta  =>  v(q) >= r,      else  v(q) == r.
//
//    MTD(f) narrows [lo, hi] (start [-value_bound, +value_bound]) with null windows
//    (gamma-1, gamma) until lo == hi. Move order: the transposition table's best
//    child, game-ending moves, moves again, then by immediate gain.
//    Transposition table: buckets of 4 entries of 16 bytes (at most tt_bytes; a
//    sixteenth of it, at most 16 MiB, a small region that stays in the caches, for
//    the positions within 6 seeds of the tables, whose subtrees are small), each entry a proven interval lo <= v <= hi, the best child's index, the effort
//    (log2 of the subtree's nodes) and a generation. Replacement: the same position,
//    else an older generation, else the least effort. Key: a 64-bit hash of the whole
//    position, written lock-free (key xor data) so a torn entry is never read.
//    (A repetition on the path would score 0 and its result would not be stored; it
//    cannot happen in Kalah, so the check is off there.)
//
// 2. Variants whose positions can repeat (Oware, Djenon-aboure and the rest), by
//    default (CycleMethod::AlphaBeta): MTD(f) over a fail-soft null-window alpha-beta
//    of the first-cycle game, where a move to a position already on the path is worth
//    0 (no seed leaves the board inside a class, so a cycle gains nothing, and endless
//    play is worth 0). Its value at the root is v(root): each side's optimal memoryless
//    strategy of the endless game holds v(root) in it. Three additions:
//    - Depth: a path stays at most `limit` plies in one class (8, 16, ... 1024 by
//      iterative deepening). A position cut there is worth the bound known for it
//      (transposition table, seeds) on the side of one player, the prover: so what
//      the search computes is <= v at the prover's positions and >= v at the other's,
//      and a fail-high (prover) or fail-low (other) is a proven bound of v. MTD(f)
//      tests v >= gamma with the side to move as prover, then with the other.
//    - GHI: a result that a repetition of a position above it helped to prove is
//      path dependent; each result carries the lowest ply such a repetition hit, and
//      only the path-independent ones go to the transposition table (as bounds of v).
//    - Small classes (at most `region_positions` positions) are solved by region
//      retrograde (below), where alpha-beta would wander in long cycles (few seeds
//      going round) and the region is cheap; their values go to the table.
//    A root still undecided at the largest limit is solved by region retrograde.
//    Memory: half of tt_bytes for the table, half for the regions.
//
// 3. The same variants with CycleMethod::Region (and small classes under 2):
//    region retrograde. Path repetition = 0 is exact in value but path dependent, so
//    alpha-beta alone blows up in cyclic regions of few seeds. Instead: for a
//    position q above the tables, R = the positions of q's class
//    reachable from q by moves that stay in the class; every move leaving R is
//    valued exactly (tables, memo, or recursively: its class has fewer seeds or
//    more marks); then the bound iteration of retrograde.h on R,
//
//      lo <- max over moves g(lo or hi of the child),  hi likewise, from [-B, B],
//      v = lo if lo > 0,  hi if hi < 0,  0 otherwise (endless play),
//
//    stopped, as the table sweeps are, once a sweep changes no value v (the bounds
//    of a drawn win/loss cycle would step one ply per sweep from +-kWinValue),
//
//    exact for every position of R, since R is closed under in-class moves. All of R
//    goes to a memo (keyed by class rank, exact; beside alpha-beta the transposition
//    table is the memo); memory is bounded by tt_bytes
//    (about 64 bytes a memo entry, 320 bytes a position of the region being solved),
//    beyond which the memo is dropped, and a region alone larger stops the search
//    with TableTooSmall.
//    No pruning: the work is the reachable part of each class above the tables.
//
// Parallelism: the first moves are solved in parallel (TBB) with the shared table or
// memo (every first move's value is wanted anyway); each thread keeps its own path.
// Each first move is solved from its child alone: value(m) = move_value(m, v(child)).
// Kalah, in every search (the value and best move alone, all_moves = false, and each
// first move's): young brothers wait at every position within 16 plies of the search's
// root (its first move searched alone at an expected all-node, its first three at an
// expected cut-node, the others shared among the threads; a cut-off stops every search
// below it), so a thread with no first move left helps with the others'.
//
// Tables: every position whose class is in the tables and that the class indexes is
// an exact leaf. Classes are loaded into memory whole on first use. If the tables
// of the variant reach N seeds, a tabled position of at most N seeds whose class is
// missing is an error (which class; errors of the search name no command or flag:
// mancala-tb solve adds the generate command that makes the class).
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mancala/error.h"
#include "mancala/variant.h"

namespace mancala {

class Tablebase;

// The library's one error type (mancala/error.h): MissingTable, TableTooSmall, Limit,
// Cancelled, BadPosition, OutOfMemory, and a table's own code (Io, Corrupt, ...) when
// reading one fails.
using SearchError = Error;

struct SearchProgress {
  int root_moves = 0;       // first moves in all
  int root_moves_done = 0;  // first moves whose value is known
  std::string current;      // what is being searched ("move 3", "pv")
  int lower = 0, upper = 0; // proven bounds of the value of `current` (MTD(f))
  std::uint64_t nodes = 0;  // positions searched so far (all threads)
  double seconds = 0;
};

// How the search handles games whose positions can repeat (every variant but Kalah):
// alpha-beta with repetition = 0 (a transposition table of path-independent results),
// or retrograde over the reachable part of each class (no pruning).
enum class CycleMethod { AlphaBeta, Region };

struct SearchOptions {
  std::shared_ptr<const Tablebase> tables;  // may be null: search to the end of the game
  std::uint64_t tt_bytes = 64ull << 20;     // transposition table memory (at least 1 MiB)
  // 2 MiB pages (Linux transparent huge pages, MADV_HUGEPAGE) for the transposition table
  // and the table leaves: one TLB entry per 2 MiB of their random reads. Off: 4 KiB pages,
  // cheaper to obtain on virtual machines whose host takes freed memory back (free page
  // reporting), where a fresh huge page costs about 2 ms a MB of system time.
  bool huge_pages = true;
  int threads = 0;                          // 0 = all cores
  // Deadline, positions searched (the work limit) and cancel flag (error.h): a stop
  // ends the call with Limit (the bounds proven so far in the message) or Cancelled.
  Budget budget;
  bool principal_variation = true;
  // Every first move's exact value (true), or the value and one best move only
  // (false; Kalah; games with cycles always give every first move).
  bool all_moves = true;
  // Kalah: MTD(f)'s first guess by iterative deepening, depth-limited MTD(f) at 3, 6,
  // ... plies up to this many (0: guess 0).
  int guess_depth = 21;
  CycleMethod cycles = CycleMethod::AlphaBeta;
  // Alpha-beta: a class of at most this many positions is solved by region retrograde.
  std::uint64_t region_positions = 1u << 17;
  std::function<void(const SearchProgress&)> progress;  // serialised; the core never prints
};

struct RootMoveValue {
  Move move;
  Value value = 0;  // value of the move for the mover (move_value of variant.h)
  Child child;
};

struct SearchResult {
  Value value = 0;
  std::vector<RootMoveValue> moves;  // best first; ties keep move order
  // Principal variation: a line of optimal moves from the position; `pv_end` says why
  // it stops: "game over", "endless play" (the line repeats a position) or "limit".
  std::vector<Child> pv;
  std::string pv_end;
  std::uint64_t nodes = 0;
  std::uint64_t table_hits = 0;  // exact leaves from the tables
  double seconds = 0;
};

// A searcher keeps its transposition table and loaded tables across positions.
// Not thread-safe itself (it uses threads inside).
class Searcher {
 public:
  static std::expected<std::unique_ptr<Searcher>, SearchError> create(VariantPtr v, SearchOptions options);
  ~Searcher();

  // Value of every first move, the value, and a principal variation.
  std::expected<SearchResult, SearchError> solve(const Position& p);
  // The value only (one thread, MTD(f) at the root).
  std::expected<Value, SearchError> value(const Position& p);

  // The transposition table to and from a file, so that a long search stopped by a
  // time limit, a signal or the end of a cluster job goes on later from what it had
  // proven: each entry is a proven bound of a position's exact value, or a move-order
  // hint from a depth-limited search, whatever tables or search found it. Only
  // between searches. save_table replaces `file` atomically (format.h replace_file)
  // and returns the entries written (Kalah: those of the large region, not of the
  // positions just above the tables, which are cheap to find again); load_table adds a file's entries to the table
  // (those that fit: a smaller table keeps the expensive ones) and returns how many
  // it read. Errors: Io; Corrupt (size, checksums, impossible bounds: checked
  // chunk by chunk before a chunk's entries are used); Mismatch (another variant,
  // format version, or a build that hashes positions otherwise).
  //
  // Layout (little-endian):
  //   header: "MTBSEARC", u32 version (1), u32 name length L, the variant's name
  //           (L <= 64 bytes), u64 the table key of the variant's start position (a
  //           build with another hash writes another), u64 N entries, u32 CRC-32 of
  //           the header's bytes before it;
  //   chunks of 65,536 entries (the last one shorter): each entry the position's
  //           64-bit hash and the packed entry (bounds, best move, effort,
  //           generation, depth), 8 bytes each; then the chunk's CRC-32.
  // Example: kalah:6:empty (L = 13) with 100,000 entries: 49 bytes of header, a chunk
  // of 65,536 entries (1,048,580 bytes with its CRC) and one of 34,464 (551,428):
  // 1,600,057 bytes.
  Result<std::uint64_t> save_table(const std::filesystem::path& file) const;
  // Before a search whose table goes to `file`: its folder exists and can be written
  // (else Io, so that a long search is not lost at its end). Temporaries of
  // save_table left by a process that is gone (`file`.tmp.PID after a SIGKILL during
  // the save) are removed, here and by save_table; returns how many.
  static Result<std::uint64_t> check_table_file(const std::filesystem::path& file);
  Result<std::uint64_t> load_table(const std::filesystem::path& file);

  struct Impl;

 private:
  explicit Searcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// One-shot convenience: Searcher::create(v, options)->solve(p).
std::expected<SearchResult, SearchError> solve_position(VariantPtr v, const Position& p, SearchOptions options = {});

}  // namespace mancala

namespace mancala {

// Tables made on the spot for a position small enough (issue 16), written to `dir`:
// the classes up to the position's seeds when they hold at most `max_positions`
// positions (generate.h `generate_classes`; only the classes whose seeds differ from
// the position's by a multiple of the step its moves show, e.g. 4 in Cenne where a
// capture takes 4 seeds: a wrong guess is caught by the generation, which then makes
// every class if those fit too), else the positions reachable from it if they are at
// most that many (`generate_reachable`: the walk of reachable.h, class by class over
// bit sets). The core never prints: `how` says what was made.
// Errors: TableTooSmall when neither fits (the caller then searches without
// tables); Limit / Cancelled when `budget` stops it (the message says what was made
// by then); BadPosition; a table's own error reading the folder back.
struct SmallTables {
  std::shared_ptr<const Tablebase> tables;
  std::string how;              // "every class up to 12 seeds" / "the positions reachable from it"
  std::uint64_t positions = 0;  // positions solved
  double seconds = 0;
};
Result<SmallTables> make_small_tables(const Variant& v, const Position& root, const std::filesystem::path& dir,
                                      std::uint64_t max_positions = 12'000'000, int threads = 0,
                                      const Budget& budget = {});

}  // namespace mancala
