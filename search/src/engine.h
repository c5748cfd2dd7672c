// The engines of the search (internal to search/src). One engine is chosen when a
// Searcher is made (search.cpp), by the game:
//   Kalah                   KalahEngine  (kalah_engine.cpp): MTD(f) over alpha-beta
//                                        on KalahBoard, parallel splits near the root
//   cycles, AlphaBeta       CyclicEngine (cyclic_engine.cpp): alpha-beta of the
//                                        first-cycle game, small classes by region
//   cycles, Region          RegionEngine (region_engine.h): region retrograde
// Every engine shares Core: the transposition table, the table leaves, the counts,
// the budget and the first error. The principal variation is built once for all
// (principal_variation.cpp) from what an engine answers.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kalah_board.h"
#include "mancala/search.h"
#include "search_core.h"
#include "search_tt.h"
#include "table_leaves.h"

namespace mancala::search_detail {

struct Core {
  VariantPtr variant;
  SearchOptions opt;
  GameKind kind = GameKind::Score;
  bool parity = false;       // values have the parity of the seeds on the board (Kalah)
  bool secures_one = false;  // the mover always stores a seed (Kalah, empty capture)
  bool kalah = false;        // Kalah positions (KalahBoard: the table key of a position)
  KalahBoard board;
  int split_threads = 1;     // > 1: moves are searched in parallel (split) near the root
  TableLeaves leaves;
  TranspositionTable tt;

  std::atomic<std::uint64_t> nodes{0}, table_hits{0};
  std::atomic<int> root_lo{-kInf}, root_hi{kInf};
  const Position* root_position = nullptr;  // MTD(f)'s proven bounds of the position solved
  std::atomic<bool> aborting{false};
  std::mutex mu;  // error, progress
  std::optional<SearchError> error;
  SearchProgress progress;
  Clock::time_point start, last_report;

  // Records the first error, stops every thread's search; returns kStop.
  int fail(SearchError e) {
    {
      std::lock_guard lock(mu);
      const int lo = root_lo.load(), hi = root_hi.load();
      if (e.code == SearchError::Limit && lo > -kInf && lo < hi)
        e.message += "; proven so far: the value is in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
      if (!error) error = std::move(e);
    }
    aborting.store(true);
    return kStop;
  }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start).count(); }

  void report(const std::function<void(SearchProgress&)>& update) {
    std::lock_guard lock(mu);
    update(progress);
    progress.nodes = nodes.load();
    progress.seconds = seconds();
    last_report = Clock::now();
    if (opt.progress) opt.progress(progress);
  }

  // Progress of one root search: what is searched and the bounds proven so far.
  void say(std::string current, int lower, int upper) {
    report([&](SearchProgress& s) {
      s.current = std::move(current);
      s.lower = lower;
      s.upper = upper;
    });
  }

  // Counts this thread's positions and polls the budget: true when the search is to
  // stop (an error or a stop anywhere, a cut-off above this split, the budget).
  bool flush(Ctx& c) {
    nodes += c.nodes - c.flushed;
    c.flushed = c.nodes;
    if (c.split && c.split->stopped()) return true;
    if (aborting.load(std::memory_order_relaxed)) return true;
    std::optional<SearchError> stop = opt.budget.check("search", nodes.load());
    if (stop && stop->code == SearchError::Limit)
      stop->message = (opt.budget.work_limit() && nodes.load() >= opt.budget.work_limit()
                           ? "gave up after " + std::to_string(opt.budget.work_limit()) + " positions (the node limit)"
                           : "gave up at the time limit after " + std::to_string(static_cast<int>(seconds() + 0.5)) +
                                 " s (" + std::to_string(nodes.load()) + " positions searched)") +
                      "; more tables or time would help";
    if (stop) {
      fail(std::move(*stop));
      return true;
    }
    if (opt.progress && Clock::now() - last_report > std::chrono::milliseconds(250)) report([](SearchProgress&) {});
    return false;
  }

  // Move value from the child's value (g of the header), and the child window such
  // that a fail-soft child result maps to a fail-soft parent result.
  int apply(const Child& ch, int cv) const {
    if (kind == GameKind::WinLoss) return negate_step(static_cast<Value>(cv));
    const int base = ch.gain_mover - ch.gain_opponent;
    return ch.same_side ? base + cv : base - cv;
  }
  // Inverse of negate_step: h(negate_step(x)) == x for every reachable value x.
  static int unstep(int w) {
    if (w >= kInf) return -kInf;
    if (w <= -kInf) return kInf;
    return w < 0 ? 1 - w : w > 0 ? -1 - w : 0;
  }
  std::pair<int, int> child_window(const Child& ch, int alpha, int beta) const {
    if (kind == GameKind::WinLoss) return {unstep(beta), unstep(alpha)};
    const int base = ch.gain_mover - ch.gain_opponent;
    if (ch.same_side) return {alpha - base, beta - base};
    return {base - beta, base - alpha};
  }

  std::uint64_t phash(const Position& p) const { return mum(PositionHash{}(p) | 1, 0x9E3779B97F4A7C15ull); }
  // The transposition table's key of a position (Kalah: of its KalahBoard form).
  std::uint64_t table_key(const Position& p) const { return kalah ? kpos_hash(board.from(p)) : phash(p); }

  // Runs one search step; the error that stopped it, if any (a step that stopped
  // returned kStop and recorded why). The catches are for exceptions of others: an
  // allocation that fails, and a rules engine's own limit on a turn (Enkeshui's
  // length_error: the position is beyond what the rules can play).
  template <class F>
  std::optional<SearchError> guarded(F&& f) {
    try {
      f();
    } catch (const std::bad_alloc&) {
      fail({SearchError::OutOfMemory, "out of memory in the search"});
    } catch (const std::length_error& ex) {
      fail({SearchError::BadPosition, ex.what()});
    }
    std::lock_guard lock(mu);
    return error;
  }

  void begin(const Position* root = nullptr) {
    root_position = root;
    root_lo = -kInf;
    root_hi = kInf;
    nodes = 0;
    table_hits = 0;
    aborting = false;
    error.reset();
    progress = {};
    start = last_report = Clock::now();
    tt.new_generation();
  }

  std::optional<SearchError> check(const Position& p) const {
    const std::string e = variant->check(p);
    if (!e.empty()) return SearchError{SearchError::BadPosition, e};
    return std::nullopt;
  }
};

class Engine : public Core {
 public:
  virtual ~Engine() = default;
  // Exact v(q) (kStop: stopped); `what` names the search in progress reports.
  virtual int value(Ctx& c, const Position& q, const std::string& what) = 0;
  // Whether move ch of a position is worth at least v to the mover (exact): 1 or 0,
  // or kStop.
  virtual int reaches(Ctx& c, const Child& ch, int v) {
    const int w = exact(c, ch, "principal variation");
    return w == kStop ? kStop : w >= v;
  }
  // The moves of q (indices into kids) in the order a best move is looked for.
  virtual std::vector<int> move_order(Ctx& c, const Position& q, const std::vector<Child>& kids) = 0;
  // Kalah: the root's value first (MTD(f), its moves shared among the threads), then
  // a best move, and every first move only when asked. Otherwise every first move.
  virtual bool value_first() const { return false; }

  // The exact value of a move (kStop: stopped).
  int exact(Ctx& c, const Child& ch, const std::string& what) {
    if (ch.game_over) return move_value(kind, ch, 0);
    const int v = value(c, ch.next, what);
    return v == kStop ? kStop : apply(ch, v);
  }
  // A move of q worth v(q) = v, the first of move_order that reaches it (-1: none,
  // kStop: stopped).
  int best_move(Ctx& c, const Position& q, int v) {
    std::vector<Child> kids;
    variant->children(q, kids);
    for (int i : move_order(c, q, kids))
      if (const int r = reaches(c, kids[static_cast<std::size_t>(i)], v); r != 0) return r == kStop ? kStop : i;
    return -1;
  }
};

// The engines, unconfigured: Searcher::create fills Core and opens the tables.
std::unique_ptr<Engine> make_kalah_engine();
std::unique_ptr<Engine> make_cyclic_engine();
std::unique_ptr<Engine> make_region_engine();

// A line of optimal moves from `root` (worth `value`), into out.pv and out.pv_end.
void principal_variation(Engine& e, Ctx& c, const Position& root, int value, SearchResult& out);

}  // namespace mancala::search_detail
