// The engine of games with cycles: alpha-beta with repetition = 0 (the first-cycle
// game), small classes by region retrograde (engine.h).
#include "region_engine.h"

namespace mancala::search_detail {
namespace {

class CyclicEngine final : public RegionEngine {
 public:
  int value(Ctx& c, const Position& q, const std::string& what) override { return cyclic_value(c, q, what); }

 private:
  // A move to a position already on the path from the root is worth 0 from there
  // (the play would cycle: no seed leaves the board inside a class, so there is no
  // gain on the cycle either). The value of this first-cycle game at the root is
  // v(root): each side's optimal memoryless strategy of the endless game holds v(root)
  // in it (against a play that repeats a position a, the side that could cycle forever
  // under the other's optimal strategy gets 0, no worse for the other than v(a)).
  //
  // Three things keep the search finite, pruned and its table sound:
  // - Depth: a path may stay in one class only `limit` plies (iterative deepening
  //   doubles it). A position cut there is worth what its entry or its seeds give,
  //   taken on the side of one player, the prover: his lower bound at his positions,
  //   his opponent's upper bound at the opponent's. So every value the search computes
  //   at a position of the prover is <= v, at a position of the opponent >= v: a
  //   fail-high at the prover's positions and a fail-low at the opponent's are proven
  //   bounds of v, and cut-offs work as in any alpha-beta. MTD(f) tests v >= gamma with
  //   the side to move as prover, then, undecided, v < gamma with the other.
  // - Bounds known before searching (transposition table, seeds, the end of the game,
  //   the tables, a repetition) bound each move; the value computed for a move is kept
  //   within them, which keeps both inequalities above.
  // - Path dependence (GHI): an inner position's result depends on the path above it
  //   when a repetition in its subtree hit a position above it. Each result carries
  //   `dep`, the lowest ply of the path that a repetition behind it hit (kNoDep: none);
  //   a proven bound with dep >= ply holds for the position alone and goes to the
  //   transposition table (a bound of v, whatever the limit). A fail-high depends on
  //   the move that cut off, a fail-low on every move.
  // Small classes (at most opt.region_positions positions) are solved exactly by
  // region retrograde instead (exact_value): there alpha-beta wanders in long cycles
  // (Oware's few seeds going round) where the region is cheap.
  static constexpr std::size_t kNoDep = SIZE_MAX;
  // The path's length (the recursion's depth: a TBB worker's stack holds it with room
  // to spare) and the largest in-class limit; a root still undecided then is solved by
  // region retrograde (exact_value).
  static constexpr std::size_t kMaxPath = 1024;
  static constexpr int kMaxLimit = 1024;

  // Whether class `key` is solved by region retrograde rather than searched (the
  // thread's own cache first).
  bool small_class(Ctx& c, const ClassKey& key) {
    const auto it = c.small_class.find(key);
    if (it != c.small_class.end()) return it->second;
    const bool small = index_of(c, key).size() <= opt.region_positions;
    c.small_class.emplace(key, small);
    return small;
  }

  // The proven bounds of a position: its entry in the table within its seeds' bounds.
  std::pair<int, int> cknown(const ClassKey& key, std::uint64_t h, int* hint = nullptr) {
    const int bound = variant->value_bound(key.seeds);
    int lo = -bound, hi = bound;
    TTData e;
    if (tt.probe(h, e)) {
      lo = std::max(lo, e.lo);
      hi = std::min(hi, e.hi);
      if (hint) *hint = e.best;
    }
    return {lo, hi};
  }
  // A move's bounds from its child's (apply is increasing for a move again of a score
  // game, decreasing otherwise).
  std::pair<int, int> move_bounds(const Child& ch, int lo, int hi) const {
    if (kind == GameKind::Score && ch.same_side) return {apply(ch, lo), apply(ch, hi)};
    return {apply(ch, hi), apply(ch, lo)};
  }

  // Fail-soft null-window alpha-beta of the first-cycle game (see above) for the
  // position at c.path[ply] (pos, hash, key, class_start set by the caller); `prover`:
  // its side to move is the prover. kStop when the search stopped.
  int csearch(Ctx& c, std::size_t ply, int alpha, int beta, int limit, bool prover, std::size_t& dep) {
    dep = kNoDep;
    if ((++c.nodes & 0xFFF) == 0 && flush(c)) return kStop;
    CPly& P = c.at(ply);
    const int bound = variant->value_bound(P.key.seeds);
    int hint = -1;
    const auto [klo, khi] = cknown(P.key, P.hash, &hint);
    if (klo >= beta) return klo;
    if (khi <= alpha) return khi;
    if (klo == khi) return klo;
    if (ply - P.class_start >= static_cast<std::size_t>(limit) || ply >= kMaxPath)
      return prover ? klo : khi;  // cut: the prover's side of what is known
    variant->children(P.pos, P.kids);
    const int n = static_cast<int>(P.kids.size());
    if (n == 0) return variant->terminal_value(P.pos);
    CPly& Q = c.at(ply + 1);
    std::vector<CMove>& ms = P.moves;
    ms.resize(static_cast<std::size_t>(n));
    const std::uint64_t nodes0 = c.nodes;
    const int alpha0 = alpha;
    int best = -kInf, best_i = -1, upper = -kInf;  // upper: the largest upper bound of a move not searched
    std::size_t low_dep = kNoDep;                  // a fail-low depends on every move
    auto finish = [&](int r, std::size_t d) {
      dep = d;
      // Proven: a fail-high at the prover's position, a fail-low at the other's.
      const bool high = r >= beta, low = r <= alpha0;
      if ((d == kNoDep || d >= ply) && (prover ? high : low)) {
        TTData t;
        t.lo = high ? r : -bound;
        t.hi = low ? r : bound;
        t.best = best_i;
        t.effort = static_cast<int>(std::bit_width(c.nodes - nodes0));
        tt.store(P.hash, t);
      }
      return r;
    };
    // Peek at every move: the end of the game, the tables, a repetition, a small class
    // (exact), or the child's entry and seeds.
    std::vector<int>& order = P.order;
    order.clear();
    for (int i = 0; i < n; ++i) {  // the children's entries: start their reads at once
      const Child& ch = P.kids[static_cast<std::size_t>(i)];
      if (ch.game_over) continue;
      CMove& m = ms[static_cast<std::size_t>(i)];
      m.hash = phash(ch.next);
      tt.prefetch(m.hash);
    }
    for (int i = 0; i < n; ++i) {
      const Child& ch = P.kids[static_cast<std::size_t>(i)];
      CMove& m = ms[static_cast<std::size_t>(i)];
      m.dep = kNoDep;
      if (ch.game_over) {
        m.lo = m.hi = move_value(kind, ch, 0);
      } else {
        m.key = variant->class_of(ch.next);
        const auto t = leaves.value(c, ch.next, m.key);
        if (t && *t == kStop) return kStop;
        int lo, hi;
        if (t) {
          lo = hi = *t;
        } else {
          std::size_t rep = kNoDep;
          if (m.key == P.key)
            for (std::size_t j = ply + 1; j-- > P.class_start;)
              if (c.path[j]->hash == m.hash && c.path[j]->pos == ch.next) {
                rep = j;
                break;
              }
          if (rep != kNoDep) {
            lo = hi = 0;  // the cycle is worth 0
            m.dep = rep;
          } else {
            std::tie(lo, hi) = cknown(m.key, m.hash);
            if (lo < hi && small_class(c, m.key)) {  // neither tabled nor in the table: solve its region
              const int v = region_solve(c, ch.next, m.key, "region");
              if (v == kStop) return kStop;
              lo = hi = v;
              tt.store(m.hash, TTData{v, v, -1, 20, 0, kExactDepth});  // kept like a search of 2^20 positions
            }
          }
        }
        std::tie(m.lo, m.hi) = move_bounds(ch, lo, hi);
      }
      if (m.lo > best) {
        best = m.lo;
        best_i = i;
      }
      if (m.lo >= beta) return finish(m.lo, m.dep);
      if (m.lo == m.hi) {
        upper = std::max(upper, m.hi);
        low_dep = std::min(low_dep, m.dep);
      } else {
        order.push_back(i);
      }
    }
    if (best > alpha) alpha = best;
    // Order: the table's best move, then by the middle of the peeked bounds, then
    // moves again.
    auto pr = [&](int i) {
      const CMove& m = ms[static_cast<std::size_t>(i)];
      return (i == hint ? 1 << 20 : 0) + (m.lo + m.hi) * 4 + (P.kids[static_cast<std::size_t>(i)].same_side ? 1 : 0);
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return pr(a) > pr(b); });
    for (int i : order) {
      const CMove& m = ms[static_cast<std::size_t>(i)];
      if (m.hi <= alpha) {
        upper = std::max(upper, m.hi);
        continue;
      }
      const Child& ch = P.kids[static_cast<std::size_t>(i)];
      Q.pos = ch.next;
      Q.hash = m.hash;
      Q.key = m.key;
      Q.class_start = m.key == P.key ? P.class_start : ply + 1;
      const auto [ca, cb] = child_window(ch, alpha, beta);
      std::size_t d = kNoDep;
      const int r = csearch(c, ply + 1, ca, cb, limit, ch.same_side ? prover : !prover, d);
      if (r == kStop) return kStop;
      const int w = std::clamp(apply(ch, r), m.lo, m.hi);
      if (w > best) {
        best = w;
        best_i = i;
      }
      if (best >= beta) return finish(best, d);
      low_dep = std::min(low_dep, d);
      if (best > alpha) alpha = best;
    }
    return finish(best > alpha0 ? best : std::max(best, upper), low_dep);
  }

  // Exact v(q) of a variant with cycles: MTD(f) over csearch from q alone, each test
  // v >= gamma tried with the side to move as prover, then with the other; the
  // in-class limit doubled whenever both leave it undecided.
  int cyclic_value(Ctx& c, const Position& q, const std::string& what) {
    const ClassKey key = variant->class_of(q);
    if (auto t = leaves.value(c, q, key)) return *t;  // kStop passes through
    if (small_class(c, key)) return exact_value(c, q, what);
    CPly& R = c.at(0);
    R.pos = q;
    R.hash = phash(q);
    R.key = key;
    R.class_start = 0;
    auto [lo, hi] = cknown(key, R.hash);
    int guess = 0;
    for (int limit = 8; lo < hi; limit *= 2) {
      if (limit > kMaxLimit) return exact_value(c, q, what);
      while (lo < hi) {
        const int gamma = std::clamp(guess, lo + 1, hi);  // test v >= gamma
        if (opt.progress) say(what + ", " + std::to_string(limit) + " plies a class, testing v >= " + std::to_string(gamma), lo, hi);
        std::size_t d = kNoDep;
        int r = csearch(c, 0, gamma - 1, gamma, limit, true, d);
        if (r == kStop) return kStop;
        if (r >= gamma) {
          lo = std::max(lo, r);
        } else {
          r = csearch(c, 0, gamma - 1, gamma, limit, false, d);
          if (r == kStop) return kStop;
          if (r < gamma) hi = std::min(hi, r);
        }
        if (&q == root_position) {
          root_lo = std::max(root_lo.load(), lo);
          root_hi = std::min(root_hi.load(), hi);
        }
        if (lo >= gamma || hi < gamma) guess = r;
        else break;  // undecided at this limit
      }
    }
    return lo;
  }
};

}  // namespace

std::unique_ptr<Engine> make_cyclic_engine() { return std::make_unique<CyclicEngine>(); }

}  // namespace mancala::search_detail
