// The Kalah engine: MTD(f) over fail-soft null-window alpha-beta on KalahBoard
// positions, with enhanced transposition cut-offs, the parity and futility bounds
// of Kalah's values, and parallel splits near the root (engine.h).
#include <tbb/parallel_for.h>

#include <bit>

#include "engine.h"

namespace mancala::search_detail {
namespace {

class KalahEngine final : public Engine {
 public:
  int value(Ctx& c, const Position& q, const std::string& what) override { return kalah_value(c, q, what); }
  bool value_first() const override { return true; }
  // Whether move `ch` of a position is worth at least `v` to the mover (exact): 1 or
  // 0, or kStop.
  int reaches(Ctx& c, const Child& ch, int v) override {
    if (ch.game_over) return move_value(kind, ch, 0) >= v;
    const ClassKey ck = variant->class_of(ch.next);
    std::optional<int> t = leaves.value(c, ch.next, ck);
    if (!t) {
      const auto [ca, cb] = child_window(ch, v - 1, v);
      t = search(c, ch.next, ca, cb, kExactDepth, 1);
    }
    if (*t == kStop) return kStop;
    return apply(ch, *t) >= v;
  }

  // The transposition table's best move first, then the others in order.
  std::vector<int> move_order(Ctx&, const Position& q, const std::vector<Child>& kids) override {
    TTData e;
    const int hint = tt.probe(kpos_hash(board.from(q)), e, near(seeds_of(q))) ? e.best : -1;
    std::vector<int> order(kids.size());
    for (std::size_t i = 0; i < kids.size(); ++i) order[i] = static_cast<int>(i);
    if (hint >= 0 && hint < static_cast<int>(kids.size())) std::swap(order[0], order[static_cast<std::size_t>(hint)]);
    return order;
  }

 private:
  static constexpr int kSplitPlies = 16;  // splits at plies below this
  // Young brothers wait for 1 move at an expected all-node, for this many at an
  // expected cut-node (where the second or third move often cuts off what the first
  // did not: splitting after the first there made 2 threads search 52 % more
  // positions than 1 on Kalah(6,4) standard, 2 % with this).
  static constexpr int kSplitAfterCut = 3;

  //
  // Every seed ends in a store, so v(q) = (seeds the mover will store) - (the rest)
  // has the parity of the k seeds on the board and |v(q)| <= k (the futility bound).
  // Bounds are rounded to that parity: v <= r with r - k odd means v <= r - 1.
  //
  // With the empty capture, the mover of a position that is not over stores at least
  // one seed (the last nonempty pit reaches the store or ends in an empty pit of his
  // and captures), so v(q) >= 2 - k there.
  // Positions of at most kNearSeeds seeds above the tables go to the transposition
  // table's small region (search_tt.h): their subtrees are small. Kalah(6,4) over the
  // tables to 20 seeds, one thread, --tt-mb 256 (16 MiB of it the small region),
  // interleaved runs on a shared machine: 15.0 M positions instead of 13.4 M, but
  // 10-16 % less CPU time (4, 5, 7 seeds and 8 or 32 MiB did less well).
  static constexpr int kNearSeeds = 6;
  bool near(int k) const { return k <= leaves.max_seeds() + kNearSeeds; }
  // Positions of at most kUnkeptSeeds seeds above the tables are neither probed nor
  // stored: all their moves but those that leave every seed on the board reach the
  // tables, and the table found them again rarely. Kalah(6,4) over the tables to 20
  // seeds: of the 2.80 M positions of 21 seeds searched, 0.66 % were in the table;
  // of the 4.46 M probes of such children by their parents, 6.5 % found one.
  static constexpr int kUnkeptSeeds = 1;
  bool kept(int k) const { return k > leaves.max_seeds() + kUnkeptSeeds; }
  int seeds_of(const Position& q) const { return q.seeds_in(0, variant->pits()); }

  int floor_of(int k) const { return secures_one && k > 0 ? 2 - k : -k; }
  int round_lo(int r, int k) const { return parity && ((r - k) & 1) ? r + 1 : r; }
  int round_hi(int r, int k) const { return parity && ((r - k) & 1) ? r - 1 : r; }

  // Fail-soft alpha-beta of depth `depth` (kExactDepth: to the end of the game; else
  // a depth-limited search whose leaves are worth 0, used only for move order and
  // MTD(f)'s first guess). p (k seeds on the board) is not over, nor tabled but for a
  // bound (an extreme value kept in 4 bits, table_leaves.h). A call
  // returns r:
  //   r <= alpha  =>  v(p) <= r,      r >= beta  =>  v(p) >= r,      else  v(p) == r
  // (of the depth-limited value for a limited depth).
  //
  // Before any move is searched, each move's value is bounded from what is known
  // without search (enhanced transposition cut-off): a game-ending move or a tabled
  // child is exact (but an extreme value, bounded), a child in the transposition
  // table is bounded by its entry, any other child by its seeds on the board. A move
  // whose lower bound reaches beta cuts off at once; a move whose upper bound is at
  // most alpha is not searched.
  //
  // Parallel search (split_threads > 1): a position within kSplitPlies of the root
  // shares its remaining moves among the threads once the first is searched at an
  // expected all-node, the first kSplitAfterCut at an expected cut-node (Knuth and
  // Moore's node types: the first child searched of a cut-node is an all-node, every
  // other child a cut-node; a test's root is taken as a cut-node).
  int search(Ctx& c, const Position& p, int alpha, int beta, int depth, std::size_t ply) {
    const KPos q = board.from(p);
    return ksearch(c, q, p.seeds_in(0, variant->pits()), alpha, beta, depth, ply);
  }

  // A Kalah move's value from the child's value, and the child window (see apply).
  static int kapply(const KKid& ch, int cv) { return ch.again ? ch.gain + cv : ch.gain - cv; }
  static std::pair<int, int> kwindow(const KKid& ch, int alpha, int beta) {
    if (ch.again) return {alpha - ch.gain, beta - ch.gain};
    return {ch.gain - beta, ch.gain - alpha};
  }
  // One position's moves and what is known of them before searching (per ply).
  struct KFrame {
    KKid kids[16];
    int lo[16], hi[16], order[16];
    std::uint64_t hash[16];  // children above the tables: their hash
    Index rank[16];          // tabled children: their rank in slot[i]
    TableSlot* slot[16];
    int tlo[16], thi[16];  // bounds of the children's values: the seeds' or the tables'
  };

  int ksearch(Ctx& c, const KPos& p, int k, int alpha, int beta, int depth, std::size_t ply, bool all_node = false) {
    if ((++c.nodes & 0xFFF) == 0 && flush(c)) return kStop;
    const int bound = k, floor = floor_of(k);
    if (depth == 0) return 0;
    const bool exact_search = depth == kExactDepth;
    const int child_depth = exact_search ? kExactDepth : depth - 1;

    const std::uint64_t h = kpos_hash(p);
    TTData e;
    int hint = -1;
    const bool here_near = near(k), here_kept = kept(k);
    if (here_kept && tt.probe(h, e, here_near)) {
      if (e.usable(depth)) {
        if (e.lo >= beta) return e.lo;
        if (e.hi <= alpha) return e.hi;
        if (e.lo == e.hi) return e.lo;
      }
      hint = e.best;
    }

    KFrame F;
    const int n = board.children(p, k, F.kids);
    if (n == 0) return 2 * KalahBoard::south(p) - k;
    for (int i = 0; i < n; ++i) {  // start the children's reads at once (tables or transposition table)
      const KKid& ch = F.kids[i];
      if (ch.over) continue;
      if (ch.seeds <= leaves.max_seeds()) {
        TableSlot* s = F.slot[i] = leaves.kalah_slot(ch.seeds);
        if (!s) return kStop;
        if (s->plain_rank) {
          F.rank[i] = board.rank(ch.next, ch.seeds);
          TableLeaves::prefetch(*s, F.rank[i]);
        }
      } else if (kept(ch.seeds)) {
        tt.prefetch(F.hash[i] = kpos_hash(ch.next), near(ch.seeds));
      }
    }
    int nord = 0;
    const int alpha0 = alpha;
    const std::uint64_t nodes0 = c.nodes;
    int best = -kInf, best_i = -1, upper = -kInf;  // upper: the largest upper bound of a move not searched
    auto finish = [&](int r) {
      if (exact_search) r = r >= beta ? round_lo(r, k) : r <= alpha0 ? round_hi(r, k) : r;
      TTData t;
      t.lo = r <= alpha0 ? floor : r;   // fail low: v <= r
      t.hi = r >= beta ? bound : r;     // fail high: v >= r
      // A fail low names no best move: every move failed, and the one of the largest
      // bound is a poor guess; the entry keeps the move an earlier search stored
      // (TranspositionTable::store). Positions searched over the 20-seed tables, one
      // thread: Kalah(6,4) 12.02 M -> 11.26 M, Kalah(6,4) standard 29.92 M -> 28.76 M,
      // Kalah(5,5) 28.36 M -> 27.97 M; Kalah(6,3) and (5,4) 1-2 % more (55.9 k, 366 k).
      t.best = r <= alpha0 ? -1 : best_i;
      t.depth = depth;
      t.effort = static_cast<int>(std::bit_width(c.nodes - nodes0));
      if (here_kept) tt.store(h, t, here_near);
      return r;
    };
    // Peek at every move: first those of exact value (the game ends, or the tables
    // hold the child), which may cut off at once and give the transposition table's
    // prefetches time, then the others, bounded by their seeds and their entries.
    int pending[16], npending = 0;
    for (int i = 0; i < n; ++i) {
      const KKid& ch = F.kids[i];
      std::optional<int> t;
      F.tlo[i] = floor_of(ch.seeds);
      F.thi[i] = ch.seeds;
      if (ch.over) {
        t = 2 * KalahBoard::south(ch.next) - ch.seeds;
      } else if (ch.seeds <= leaves.max_seeds()) {
        TableSlot& s = *F.slot[i];
        if (s.plain_rank) {
          int lo, hi;
          if (leaves.bounds(c, s, F.rank[i], lo, hi) == kStop) return kStop;
          if (lo == hi) {
            t = lo;
          } else {  // an extreme value, bounded: searched if need be
            F.tlo[i] = std::max(F.tlo[i], lo);
            F.thi[i] = std::min(F.thi[i], hi);
            F.hash[i] = kpos_hash(ch.next);
          }
        } else {
          t = leaves.kalah_value(c, ch.next, ch.seeds);
          if (!t) F.hash[i] = kpos_hash(ch.next);
        }
      }
      if (!t) {
        pending[npending++] = i;
        continue;
      }
      if (*t == kStop) return kStop;
      const int v = kapply(ch, *t);
      F.lo[i] = F.hi[i] = v;
      if (v > best) {
        best = v;
        best_i = i;
      }
      if (v >= beta) return finish(v);
      upper = std::max(upper, v);
    }
    for (int j = 0; j < npending; ++j) {
      const int i = pending[j];
      const KKid& ch = F.kids[i];
      int clo = F.tlo[i], chi = F.thi[i];
      int lo = kapply(ch, ch.again ? clo : chi);
      int hi = kapply(ch, ch.again ? chi : clo);
      TTData ce;  // the table only where the seeds leave the move undecided
      if (lo < beta && hi > alpha && kept(ch.seeds) && tt.probe(F.hash[i], ce, near(ch.seeds))) {
        if (ce.usable(child_depth)) {
          clo = std::max(clo, ce.lo);
          chi = std::min(chi, ce.hi);
          lo = kapply(ch, ch.again ? clo : chi);
          hi = kapply(ch, ch.again ? chi : clo);
        }
      }
      F.lo[i] = lo;
      F.hi[i] = hi;
      if (lo > best) {
        best = lo;
        best_i = i;
      }
      if (lo >= beta) return finish(lo);
      if (lo == hi) upper = std::max(upper, hi);
      else F.order[nord++] = i;
    }
    if (best > alpha) alpha = best;
    // Order: the table's best move, moves again, each group by the middle of the peeked
    // bounds (the child's entry in the transposition table, else the immediate gain),
    // ties nearest the store first. Ordering the moves again by their bounds too, not
    // by their pit alone: Kalah(6,4) over the 20-seed tables 12.0 M positions instead
    // of 15.0 M, Kalah(6,4) standard 29.9 M instead of 100.2 M, Kalah(6,3) 55 k instead
    // of 91 k (ties farthest from the store first: 152 M for Kalah(6,4); the order is
    // sensitive).
    int pr[16];
    for (int j = 0; j < nord; ++j) {
      const int i = F.order[j];
      pr[i] = (i == hint ? 1 << 20 : 0) + (F.kids[i].again ? 1 << 12 : 0) + (F.lo[i] + F.hi[i]) * 16 + i;
    }
    for (int j = 1; j < nord; ++j) {  // insertion sort, stable
      const int x = F.order[j];
      int t = j;
      while (t > 0 && pr[F.order[t - 1]] < pr[x]) {
        F.order[t] = F.order[t - 1];
        --t;
      }
      F.order[t] = x;
    }
    for (int j = 0; j < nord; ++j) {
      if (j == (all_node ? 1 : kSplitAfterCut) && split_threads > 1 && ply < static_cast<std::size_t>(kSplitPlies) && nord > j + 1 && best < beta) {
        // Young brothers wait: the first move(s) searched alone, the others shared
        // among the threads (each with its own state); a cut-off stops the rest.
        if (split(c, F, j, nord, alpha, beta, child_depth, ply, best, best_i, upper)) return kStop;
        break;
      }
      const int i = F.order[j];
      if (F.hi[i] <= alpha) {
        upper = std::max(upper, F.hi[i]);
        continue;
      }
      const KKid& ch = F.kids[i];
      const auto [ca, cb] = kwindow(ch, alpha, beta);
      const int r = ksearch(c, ch.next, ch.seeds, ca, cb, child_depth, ply + 1, !all_node && j == 0);
      if (r == kStop) return kStop;
      const int w = std::clamp(kapply(ch, r), F.lo[i], F.hi[i]);
      if (w > best) {
        best = w;
        best_i = i;
      }
      if (best >= beta) break;
      if (best > alpha) alpha = best;
    }
    return finish(best >= beta || best > alpha0 ? best : std::max(best, upper));
  }

  // The moves F.order[from..to) of a position searched in parallel with the window
  // (alpha, beta) (alpha as it stands: the tasks do not raise it; MTD(f)'s windows are
  // null windows anyway), results folded into best / best_i / upper as the serial
  // loop does. Each task has its own state under a split point that a cut-off sets.
  // Returns true when the search stopped (from above: an error, the budget, a cut-off
  // of an outer split), false when the moves were searched or one cut off.
  bool split(Ctx& c, KFrame& F, int from, int to, int alpha, int beta, int child_depth, std::size_t ply, int& best,
             int& best_i, int& upper) {
    SplitPoint sp;
    sp.parent = c.split;
    std::mutex fold;
    bool aborted = false;
    std::uint64_t sub = 0;  // the tasks' positions (the parent's effort)
    tbb::parallel_for(
        tbb::blocked_range<int>(from, to, 1),
        [&](const tbb::blocked_range<int>& r) {
          for (int j = r.begin(); j != r.end(); ++j) {
            const int i = F.order[j];
            if (sp.cut.load()) return;
            if (F.hi[i] <= alpha) {
              std::lock_guard lock(fold);
              upper = std::max(upper, F.hi[i]);
              continue;
            }
            Ctx t;
            t.split = &sp;
            const KKid& ch = F.kids[i];
            const auto [ca, cb] = kwindow(ch, alpha, beta);
            const int v = ksearch(t, ch.next, ch.seeds, ca, cb, child_depth, ply + 1);
            const bool done = v != kStop;
            const int w = done ? std::clamp(kapply(ch, v), F.lo[i], F.hi[i]) : 0;
            nodes += t.nodes - t.flushed;
            table_hits += t.table_hits;
            std::lock_guard lock(fold);
            sub += t.nodes;
            if (!done) {
              if (!sp.cut.load()) aborted = true;  // stopped from above (a cut-off there, error, limit, cancel)
              continue;
            }
            if (w > best) {
              best = w;
              best_i = i;
            }
            if (best >= beta) sp.cut = true;
          }
        },
        tbb::simple_partitioner());
    c.nodes += sub;  // counted already
    c.flushed += sub;
    return aborted;
  }

  // MTD(f) at depth `depth`: the (depth-limited) value of q, from a first guess (kStop:
  // stopped).
  int mtdf(Ctx& c, const Position& q, int guess, int depth, const std::string& what) {
    const int k = seeds_of(q);
    const int bound = variant->value_bound(k);
    int lo = floor_of(k), hi = bound;
    TTData e;
    if (tt.probe(kpos_hash(board.from(q)), e, near(k)) && e.usable(depth)) {
      lo = std::max(lo, e.lo);
      hi = std::min(hi, e.hi);
    }
    // Progress: what is searched, and the bounds proven at the root so far (a first
    // guess proves none: the seeds' bounds until MTD(f) at full depth tightens them).
    if (opt.progress && &q == root_position && depth != kExactDepth)
      say(what + ", first guess at " + std::to_string(depth) + " plies", std::max(floor_of(k), root_lo.load()),
          std::min(bound, root_hi.load()));
    while (lo < hi) {
      int gamma = std::clamp(guess, lo + 1, hi);  // test v >= gamma
      if (depth == kExactDepth && parity && ((gamma - k) & 1)) ++gamma;  // lo, hi have k's parity
      if (opt.progress && depth == kExactDepth)  // the test under way (it may be the long part)
        say(what + ", testing v >= " + std::to_string(gamma), lo, hi);
      const int r = search(c, q, gamma - 1, gamma, depth, 0);
      if (r == kStop) return kStop;
      if (r >= gamma) lo = std::max(lo, r);
      else hi = std::min(hi, r);
      if (depth == kExactDepth && &q == root_position) {
        root_lo = std::max(root_lo.load(), lo);
        root_hi = std::min(root_hi.load(), hi);
      }
      guess = r;
      if (opt.progress && depth == kExactDepth) say(what, lo, hi);
    }
    return lo;
  }

  // Exact v(q) of a Kalah position: the tables, the end of the game, or MTD(f) from
  // a first guess made by iterative deepening (depth-limited MTD(f) at 3, 6, ...
  // plies up to opt.guess_depth; each fills the transposition table's move order).
  int kalah_value(Ctx& c, const Position& q, const std::string& what) {
    const ClassKey key = variant->class_of(q);
    if (auto t = leaves.value(c, q, key)) return *t;  // kStop passes through
    std::vector<Child> kids;
    variant->children(q, kids);
    if (kids.empty()) return variant->terminal_value(q);
    // Always by iterative deepening: the midpoint of the bounds a search of the parent
    // left (tried before) was a poor guess for the first moves' exact values (every
    // first move of Kalah(6,4): 200 M positions, against 129 M so).
    TTData e;
    if (tt.probe(kpos_hash(board.from(q)), e, near(seeds_of(q))) && e.exact_bounds() && e.lo == e.hi) return e.lo;
    int guess = 0;
    for (int d = 3; d <= opt.guess_depth; d += 3)
      if ((guess = mtdf(c, q, guess, d, what)) == kStop) return kStop;
    return mtdf(c, q, guess, kExactDepth, what);
  }

};

}  // namespace

std::unique_ptr<Engine> make_kalah_engine() { return std::make_unique<KalahEngine>(); }

}  // namespace mancala::search_detail
