// Retrograde analysis of one class, given every class its moves can leave to.
//
// Contract. For every position p of the class, the result v(p) is the exact value
// of p (types.h) under optimal play, where a game that never ends is worth 0 (score
// games) or a draw (win/loss games):
//
//   v(p) = terminal_value(p)                              if p has no move,
//   v(p) = max over moves m of  value(m)                   otherwise, with
//   value(m) = gains(m) + (same_side ? v(child) : -v(child))   (score; -v is negate_step for win/loss)
//
// and v(p) >= t > 0 iff the mover can force a finite game worth >= t (symmetrically
// for <= -t). Endless play only ever yields 0.
//
// Method (no un-moves). A move either leaves the class (seeds leave play or a mark
// is made: its child is in a solved class, so value(m) is known: an "exit"), or
// stays in it (zero gain, side flips). Think of a lower and an upper bound
// lo <= v <= hi per position:
//
//   lo(p) <- max(e(p), max_in-class c  -hi(c))       e(p) = best exit
//   hi(p) <- max(e(p), max_in-class c  -lo(c))
//
// iterated in place from (-bound, bound) (Gauss-Seidel sweeps, TBB-parallel) until
// nothing moves. By induction over sweeps, lo(p) >= t > 0 exactly when the mover
// can force >= t within the sweeps done, and hi(p) <= -t when the opponent can
// force it: at the fixpoint these are the attractor sets of the threshold games.
// So
//   v(p) = lo(p) if lo(p) > 0,   hi(p) if hi(p) < 0,   0 otherwise.
// Only max(lo, 0) and min(hi, 0) matter, and they follow from their children's
// alone: the solver iterates w = v so far (0 at first) and keeps, per position, one
// code (SweepCodes below: w, the exit when <= 0, final or not; 1 byte up to bound 18).
// Memory: the codes and a bit per position plus the solved classes.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "mancala/error.h"
#include "mancala/values.h"
#include "mancala/variant.h"

namespace mancala {

struct SolveProgress {
  ClassKey key;
  int sweep = 0;               // 0 = first pass (exits), 1.. = in-class sweeps
  std::uint64_t done = 0;      // positions processed in this sweep
  std::uint64_t total = 0;     // positions in the class
  std::uint64_t undecided = 0; // positions with lo < hi after the last sweep
};

// The in-class children of a class's positions as the sweeps kept them (class_solver.h,
// "Kept ranks"), for the distances (distances.h), which then play no move again. By
// piece of kPiece positions: piece k holds positions [k kPiece, (k + 1) kPiece). A
// `listed` piece has an entry for every position with an in-class move, except maybe
// those worth 0 or whose best exit is their (positive) value, which need none: entry
// e is position k kPiece + at[e], its in-class children the next counts[e] ranks, in
// the order of its moves (a child may repeat). Example: at (3, 9), counts (2, 1),
// ranks (7, 8, 2): position 3 moves to 7 and 8, position 9 to 2. A piece not listed
// has no entries (its positions play their moves).
struct KeptChildren {
  static constexpr Index kPiece = 4096;
  struct Piece {
    bool listed = false;
    std::vector<std::uint16_t> at;
    std::vector<std::uint8_t> counts;
    std::vector<std::uint32_t> ranks;
    std::uint64_t bytes() const { return at.capacity() * 2 + counts.capacity() + ranks.capacity() * 4; }
  };
  std::vector<Piece> pieces;
};

struct SolveOptions {
  // Every method gives identical values; Levels needs un-moves
  // (Variant::has_unmoves), Acyclic in-class moves that never repeat.
  // Auto asks the variant: Acyclic (one pass, children first) when its in-class
  // moves never repeat a position and one rank solves the class, Levels when it has
  // un-moves, Sweeps otherwise (class_solver.h).
  enum class Method : std::uint8_t { Auto, Sweeps, Levels, Acyclic };
  Method method = Method::Auto;
  int threads = 0;  // 0 = all cores
  std::function<void(const SolveProgress&)> progress;  // called from worker threads, serialised
  Budget budget;  // the cancel flag and deadline, polled per chunk of positions (no work limit)
  // Sweeps: the most memory kept for the ranks of the open positions' in-class
  // children (class_solver.h, "Kept ranks"; 1 + 4 bytes per open position and child),
  // so that sweeps after the first do not play the moves again. 0: none kept.
  std::uint64_t rank_cache_bytes = std::numeric_limits<std::uint64_t>::max();
  // Sweeps: called once after the first pass, when every exit has been read (later
  // sweeps read only the class itself); returns a new, larger rank_cache_bytes (the
  // caller may free the lower classes for it: generate, LowerStore::release). An
  // error stops the solve with it.
  std::function<Result<std::uint64_t>()> exits_read;
  // Sweeps: where sweep 0 writes the kept ranks that do not fit in rank_cache_bytes
  // (an unlinked file, read back by sweep 1, which then need not play the moves
  // again); empty: none written. solve_distances (distances.h): where its first pass
  // writes the edges of the positions that play their moves (4 bytes an edge in
  // memory instead of 12 while they are put in order by child).
  std::filesystem::path spill_dir;
  // Levels on several ranks: the most bytes a rank's notices for other ranks may take
  // in memory (24 a notice) in a level's first pass before they go out; sets how many
  // positions of the slice a batch has (class_solver.h, kLevelBatch at most). 0: no
  // bound beyond kLevelBatch.
  std::uint64_t notice_bytes = 0;
  // When set and one rank solves the class by levels or sweeps: filled with each
  // position's best exit (the most a move that leaves the class is worth to its mover,
  // kExitNone when no move leaves it, kExitNoMove when it has no move), one byte a
  // position in index order, for the distances (distances.h), which then read no exit
  // again; left empty otherwise (another method, several ranks, an exit beyond a byte).
  std::vector<std::int8_t>* best_exits = nullptr;
  // When set and one rank solves a score game's class by levels: filled with the
  // class's distances (distances.h), 2 bytes a position, little-endian, in index order,
  // found by the levels themselves (each level solved in rounds by distance,
  // class_solver.h, "Levels with distances"); left empty otherwise (another method,
  // several ranks, a class resumed from a checkpoint: solve_distances computes them).
  std::vector<std::uint8_t>* distances = nullptr;
  // When set, with best_exits, and one rank solves a score game's class by sweeps:
  // filled with the in-class children of its positions from the sweeps' kept ranks
  // (KeptChildren above: the lists of the positions each sweep closes are kept instead
  // of dropped), for solve_distances, which then plays no move of a listed piece; left
  // empty otherwise (another method, several ranks, a resumed class).
  KeptChildren* kept_children = nullptr;
};
inline constexpr std::int8_t kExitNone = -128, kExitNoMove = -127;

struct SolveStats {
  int sweeps = 0;
  std::uint64_t positions = 0;
  std::uint64_t in_class_moves = 0;
  std::uint64_t exits = 0;
};

// Solves one class. Errors: MissingTable (a child in a class that is not solved),
// InvalidArgument (a method that cannot solve this variant), Cancelled / Limit (the
// budget), Internal.
Result<std::shared_ptr<ClassValues>> solve_class(const Variant& v, const ClassKey& key, const SolvedClasses& solved,
                                                 const SolveOptions& options = {}, SolveStats* stats = nullptr);

// The same for a class given by its index (e.g. a reachable subset).
Result<std::shared_ptr<ClassValues>> solve_class(const Variant& v, const ClassIndex& index, const SolvedClasses& solved,
                                                 const SolveOptions& options = {}, SolveStats* stats = nullptr);

// Value of a position from the solved classes, or nullopt when its class is not
// there (or the position is not indexed, e.g. a first move).
std::optional<Value> lookup(const Variant& v, const SolvedClasses& solved, const Position& p);

// The level method's code of one position (class_solver.h, "Levels"), for a class
// whose values lie in [-bound, bound] and whose positions have at most `moves`
// distinct in-class moves (Variant::max_moves):
//
//   undecided                        x * moves + (c - 1)   c = in-class moves not yet known
//                                                          to lose (1..moves), x = the best exit e:
//                                                          0 if e < low ("read again"), 1 if none,
//                                                          e - low + 2 if low <= e <= bound
//   decided, parents not yet told    W + v + bound         W = (bound - low + 3) * moves
//   decided, parents told (or v = 0) T + v + bound         T = W + 2 bound + 1
//
// low is as low as one byte of codes allows (at most 1: every positive exit is kept);
// when even low = 1 does not fit one byte, codes take two and low = -bound. Example:
// Oware, class of 20 seeds (bound 20, 6 moves): low = -6, W = 174, T = 215, 256
// codes: one byte. A position with best exit +3 and 2 moves left is (3 + 6 + 2) * 6 +
// 1 = 67; one decided at -4 waiting for level 4 is 174 - 4 + 20 = 190. Oware and
// Kalah(6) fit one byte up to 24 seeds (low = 1 at 24).
struct LevelCodes {
  static constexpr int kNoExit = -0x8000;  // exit(): no move leaves the class (the solver's kNoExit too)
  static constexpr int kAgain = -0x7FFF;   // exit(): the best exit is below low, read it again
  int bound = 0, moves = 1, low = 1;
  unsigned wait = 0, done = 0, end = 0;
  constexpr LevelCodes() = default;
  constexpr LevelCodes(int b, int m) : bound(b), moves(m) {
    auto total = [&](int l) { return static_cast<long>(b - l + 3) * m + 4L * b + 2; };
    low = 1;
    if (total(1) > 0x100)
      low = -b;
    else
      while (low > -b && total(low - 1) <= 0x100) --low;
    wait = static_cast<unsigned>((b - low + 3) * m);
    done = wait + 2 * static_cast<unsigned>(b) + 1;
    end = done + 2 * static_cast<unsigned>(b) + 1;
  }
  constexpr int bytes() const { return end <= 0x100 ? 1 : end <= 0x10000 ? 2 : 0; }  // 0: no code fits
  // e: the best exit, or kNoExit for none.
  constexpr unsigned open(int e, int count) const {
    const int x = e == kNoExit ? 1 : e < low ? 0 : e - low + 2;
    return static_cast<unsigned>(x * moves + count - 1);
  }
  constexpr unsigned waiting_code(int v) const { return wait + static_cast<unsigned>(v + bound); }
  constexpr unsigned told(int v) const { return done + static_cast<unsigned>(v + bound); }
  constexpr bool decided(unsigned c) const { return c >= wait; }
  constexpr bool waiting(unsigned c) const { return c >= wait && c < done; }
  constexpr Value value(unsigned c) const { return static_cast<Value>(static_cast<int>(c - (c >= done ? done : wait)) - bound); }
  constexpr int exit(unsigned c) const {  // undecided: the best exit, kNoExit or kAgain
    const auto x = static_cast<int>(c / static_cast<unsigned>(moves));
    return x == 0 ? kAgain : x == 1 ? kNoExit : x - 2 + low;
  }
  constexpr int count(unsigned c) const { return static_cast<int>(c % static_cast<unsigned>(moves)) + 1; }
};
static_assert(LevelCodes(20, 6).bytes() == 1 && LevelCodes(20, 6).low == -6 && LevelCodes(20, 6).open(3, 2) == 67 &&
              LevelCodes(20, 6).exit(67) == 3 && LevelCodes(20, 6).waiting_code(-4) == 190 &&
              LevelCodes(20, 6).value(190) == -4 && LevelCodes(24, 6).bytes() == 1 && LevelCodes(24, 6).low == 1 &&
              LevelCodes(25, 6).bytes() == 2 && LevelCodes(25, 6).low == -25);

// The sweep method's code of one position (class_solver.h, "Sweeps"), for a class
// whose values lie in [-bound, bound]. The sweeps need of a position only
//   w  its value so far: 0 at first; the best of its exits and of its in-class
//      children's -w, taken again at each visit; once positive it only grows, once
//      negative it only falls (it is then an upper bound, as a positive one is a
//      lower bound);
//   b  its best exit when that is <= 0 (-bound for none; 0 when positive), which a
//      later sweep does not read again: kept while w <= 0;
//   final  w is the position's value (every in-class child was final; or w reached
//      a bound only the value can: +-bound, or w = b < 0; or its children's lower
//      bounds, low() below, show none is worth more than w to it).
// One byte while (bound + 1)(bound + 2) / 2 + 3 bound + 1 <= 256 (bound <= 18):
//   open, w <= 0      i (i + 1) / 2 + j     i = w + bound, j = b + bound (b <= w)
//   open, w > 0       P + w - 1             P = (bound + 1)(bound + 2) / 2
//   final             P + bound + w + bound
// else two bytes (bound <= 127: w, then b, as signed bytes; final: b = +1), else four
// (w, then b, as signed 16-bit words; final: b = +1). Example, bound 2 (P = 6, 13
// codes): the start (w 0, b -2) is 3; w -1 over a best exit -2 is 1; w +1 open is 6;
// final -1 is 9. Cenne 7:7's class of 18 seeds: 245 codes, one byte per position
// against two bounds of one byte each before.
struct SweepCodes {
  int bound = 0, pairs = 0, bytes = 4;
  std::array<std::int8_t, 256> w_of{}, b_of{}, low_of{};  // one byte: decoded
  constexpr SweepCodes() = default;
  constexpr explicit SweepCodes(int b) : bound(b), pairs((b + 1) * (b + 2) / 2) {
    bytes = pairs + 3 * b + 1 <= 0x100 ? 1 : b <= 127 ? 2 : 4;
    if (bytes != 1) return;
    for (int w = -b; w <= 0; ++w)
      for (int e = -b; e <= w; ++e) {
        w_of[open(w, e)] = static_cast<std::int8_t>(w);
        b_of[open(w, e)] = low_of[open(w, e)] = static_cast<std::int8_t>(e);
      }
    for (int w = 1; w <= b; ++w) w_of[open(w, 0)] = low_of[open(w, 0)] = static_cast<std::int8_t>(w);
    for (int w = -b; w <= b; ++w) w_of[final(w)] = low_of[final(w)] = static_cast<std::int8_t>(w);
  }
  constexpr unsigned open(int w, int b) const {
    if (bytes == 1) {
      const int i = w + bound;
      return w > 0 ? static_cast<unsigned>(pairs + w - 1) : static_cast<unsigned>(i * (i + 1) / 2 + b + bound);
    }
    return pack(w, w > 0 ? 0 : b);
  }
  constexpr unsigned final(int w) const {
    return bytes == 1 ? static_cast<unsigned>(pairs + bound + w + bound) : pack(w, 1);
  }
  constexpr unsigned start() const { return open(0, -bound); }
  template <class C>
  constexpr Value value(C c) const {
    if constexpr (sizeof(C) == 1) return w_of[c];
    else if constexpr (sizeof(C) == 2) return static_cast<std::int8_t>(c & 0xFF);
    else return static_cast<std::int16_t>(c & 0xFFFF);
  }
  template <class C>
  constexpr Value base(C c) const {  // open, w <= 0
    if constexpr (sizeof(C) == 1) return b_of[c];
    else if constexpr (sizeof(C) == 2) return static_cast<std::int8_t>(c >> 8);
    else return static_cast<std::int16_t>(c >> 16);
  }
  // A lower bound of the position's value: w when final or positive, else b.
  template <class C>
  constexpr Value low(C c) const {
    if constexpr (sizeof(C) == 1) {
      return low_of[c];
    } else {
      const Value w = value(c), e = base(c);
      return w > 0 || e == 1 ? w : e;
    }
  }
  template <class C>
  constexpr bool is_final(C c) const {
    if constexpr (sizeof(C) == 1) return c >= static_cast<unsigned>(pairs + bound);
    else return base(c) == 1;
  }

 private:
  constexpr unsigned pack(int w, int b) const {
    const int half = bytes == 2 ? 8 : 16;
    const unsigned mask = (1u << half) - 1;
    return (static_cast<unsigned>(w) & mask) | ((static_cast<unsigned>(b) & mask) << half);
  }
};
static_assert(SweepCodes(2).bytes == 1 && SweepCodes(2).start() == 3 && SweepCodes(2).open(-1, -2) == 1 &&
              SweepCodes(2).open(1, 0) == 6 && SweepCodes(2).final(-1) == 9 && SweepCodes(2).value(std::uint8_t{9}) == -1 &&
              SweepCodes(2).is_final(std::uint8_t{9}) && !SweepCodes(2).is_final(std::uint8_t{7}) &&
              SweepCodes(2).base(std::uint8_t{1}) == -2 && SweepCodes(18).bytes == 1 && SweepCodes(19).bytes == 2 &&
              SweepCodes(30000).bytes == 4 && SweepCodes(30000).value(SweepCodes(30000).final(-29990)) == -29990);

// The split of [0, n) into `parts` contiguous chunks used by threads and MPI ranks:
// chunk i is [n*i/parts, n*(i+1)/parts).
constexpr std::uint64_t chunk_start(std::uint64_t n, std::uint64_t parts, std::uint64_t i) {
  return (n / parts) * i + ((n % parts) * i) / parts;  // = floor(n*i/parts) without overflow
}
constexpr std::pair<std::uint64_t, std::uint64_t> chunk(std::uint64_t n, std::uint64_t parts, std::uint64_t i) {
  return {chunk_start(n, parts, i), chunk_start(n, parts, i + 1)};
}
// The chunk holding index i < n (the inverse of chunk()). r = floor(i*parts/n) is at
// most one off; the loops correct it. Example: n = 10, parts = 3 -> chunks [0,3),
// [3,6), [6,10); owner_of(10, 3, 5) = 1, owner_of(10, 3, 6) = 2.
constexpr std::uint64_t owner_of(std::uint64_t n, std::uint64_t parts, std::uint64_t i) {
  __extension__ using Wide = unsigned __int128;
  auto r = static_cast<std::uint64_t>(static_cast<Wide>(i) * parts / n);
  if (r >= parts) r = parts - 1;
  while (r + 1 < parts && chunk_start(n, parts, r + 1) <= i) ++r;
  while (r > 0 && chunk_start(n, parts, r) > i) --r;
  return r;
}
static_assert(owner_of(10, 3, 5) == 1 && owner_of(10, 3, 6) == 2 && owner_of(10, 3, 0) == 0);

}  // namespace mancala
