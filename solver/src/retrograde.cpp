// Retrograde analysis of one class; see retrograde.h for the contract and methods.
#include "mancala/retrograde.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <mutex>

#include "mancala/rules.h"
#include "mancala/solver_support.h"

namespace mancala {

namespace {

using detail::ExitCache;
using detail::load;
using detail::store;
constexpr Value kNone = detail::kNoExit;

// What both methods share: the class, its exits, the thread-local scratch.
template <class Rules>
class SolverBase {
 public:
  SolverBase(const Rules& rules, const ClassIndex& index, const SolvedClasses& solved, const SolveOptions& opt)
      : rules_(rules), index_(index), solved_(solved), opt_(opt), kind_(rules.kind()),
        bound_(static_cast<Value>(rules.value_bound(index.key().seeds))),
        arena_(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic) {}

 protected:
  struct Context {
    explicit Context(const SolvedClasses& s) : cache(s) { kids.reserve(16); }
    std::vector<Child> kids, parent_kids;
    std::vector<Position> parents;
    std::vector<Index> ranks;
    ExitCache cache;
    std::uint64_t open = 0, in_moves = 0, exits = 0, processed = 0;
    bool changed = false;
    bool value_changed = false;  // the value a position would get (lo > 0 ? lo : hi < 0 ? hi : 0)
  };

  Value neg(Value v) const { return kind_ == GameKind::Score ? static_cast<Value>(-v) : negate_step(v); }
  bool in_class(const Child& c) const {
    return !c.game_over && !c.same_side && rules_.Rules::class_of(c.next) == index_.key();
  }

  void fail(std::string msg) {
    std::lock_guard lock(mu_);
    if (!failed_.exchange(true)) error_ = std::move(msg);
  }
  bool stopped() const { return failed_.load() || (opt_.cancel && opt_.cancel->load()); }

  // Value of an exit (a child outside the class), or kNone after fail().
  Value exit_value(const Child& c, Context& ctx) {
    ++ctx.exits;
    Value cv = 0;
    if (!c.game_over) {
      const ClassKey ck = rules_.Rules::class_of(c.next);
      const ClassValues* cls = ctx.cache.find(ck);
      if (!cls || !cls->index().allowed(c.next)) {
        fail("class " + to_string(ck, rules_.pits()) + " of a child of class " + to_string(index_.key(), rules_.pits()) +
             " is not solved or does not index it");
        return kNone;
      }
      cv = cls->get(cls->index().rank(c.next));
    }
    return move_value(kind_, c, cv);
  }

  void report(std::uint64_t span, int round, std::uint64_t undecided) {
    const std::uint64_t done = std::min<std::uint64_t>(done_.fetch_add(span, std::memory_order_relaxed) + span, index_.size());
    if (opt_.progress && mu_.try_lock()) {
      std::lock_guard lock(mu_, std::adopt_lock);
      opt_.progress(SolveProgress{index_.key(), round, done, index_.size(), undecided});
    }
  }

  template <class F>
  void parallel(Index n, Index grain, F&& f) {
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<Index>(0, n, grain), [&](const tbb::blocked_range<Index>& r) {
        if (stopped()) return;
        Context ctx(solved_);
        f(r, ctx);
        merge(ctx);
      });
    });
  }
  void merge(const Context& ctx) {
    if (ctx.changed) changed_.store(true, std::memory_order_relaxed);
    if (ctx.value_changed) value_changed_.store(true, std::memory_order_relaxed);
    open_.fetch_add(ctx.open, std::memory_order_relaxed);
    in_moves_.fetch_add(ctx.in_moves, std::memory_order_relaxed);
    exits_.fetch_add(ctx.exits, std::memory_order_relaxed);
    processed_.fetch_add(ctx.processed, std::memory_order_relaxed);
  }
  std::expected<std::shared_ptr<ClassValues>, std::string> check_stop() const {
    if (failed_.load()) return std::unexpected(error_);
    return std::unexpected(std::string("cancelled"));
  }
  void fill_stats(SolveStats* stats, int rounds) const {
    if (!stats) return;
    stats->sweeps = rounds;
    stats->positions = index_.size();
    stats->in_class_moves = in_moves_.load();
    stats->exits = exits_.load();
  }

  const Rules& rules_;
  ClassIndex index_;
  const SolvedClasses& solved_;
  const SolveOptions& opt_;
  GameKind kind_;
  Value bound_;
  tbb::task_arena arena_;
  std::atomic<bool> changed_{false}, value_changed_{false}, failed_{false};
  std::atomic<std::uint64_t> open_{0}, done_{0}, in_moves_{0}, exits_{0}, processed_{0};
  std::mutex mu_;
  std::string error_;
};

// ---- Method 1: bound sweeps (variants without un-moves) ---------------------
template <class Rules, class S>
class SweepSolver : SolverBase<Rules> {
  using Base = SolverBase<Rules>;
  using typename Base::Context;
  using Base::index_, Base::rules_, Base::kind_, Base::bound_;

 public:
  using Base::Base;

  std::expected<std::shared_ptr<ClassValues>, std::string> run(SolveStats* stats) {
    const Index n = index_.size();
    lo_.assign(static_cast<std::size_t>(n), static_cast<S>(-bound_));
    hi_.assign(static_cast<std::size_t>(n), static_cast<S>(bound_));
    std::uint64_t undecided = n;
    int round = 0;
    for (;; ++round) {
      this->changed_.store(false);
      this->value_changed_.store(false);
      this->open_.store(0);
      this->done_.store(0);
      this->parallel(n, 4096, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
        index_.for_each(r.begin(), r.end(), [&](Index i, const Position& p) { evaluate(i, p, round == 0, ctx); });
        this->report(r.size(), round, undecided);
      });
      if (this->stopped()) return this->check_stop();
      undecided = this->open_.load();
      if ((round >= 1 && !this->changed_.load()) || undecided == 0) break;
      // Win/loss: the bounds of a drawn cycle step one ply per sweep from +-kWinValue
      // towards 0 (15,000 sweeps). But a position's value (lo if lo > 0, hi if hi < 0,
      // else draw) depends only on its children's values: a won position needs a child
      // with hi < 0, a lost one children with lo > 0, and no other bound reaches them.
      // So a sweep that changes no value is the fixpoint of the values: stop there.
      if (kind_ == GameKind::WinLoss && round >= 1 && !this->value_changed_.load()) break;
    }
    this->fill_stats(stats, round + 1);
    auto out = std::make_shared<ClassValues>(index_, kind_);
    for (Index i = 0; i < n; ++i) {
      const Value l = lo_[static_cast<std::size_t>(i)], h = hi_[static_cast<std::size_t>(i)];
      out->set(i, detail::outcome(l, h));
    }
    return out;
  }

 private:
  void evaluate(Index r, const Position& p, bool first, Context& ctx) {
    const auto ur = static_cast<std::size_t>(r);
    const Value l = load(lo_[ur]), h = load(hi_[ur]);
    if (!first && l == h) return;
    rules_.Rules::children(p, ctx.kids);
    Value new_lo, new_hi;
    if (ctx.kids.empty()) {
      new_lo = new_hi = rules_.Rules::terminal_value(p);
    } else {
      Value base = first ? kNone : l;
      Value best_lo = kNone, best_hi = kNone;
      for (const Child& c : ctx.kids) {
        if (this->in_class(c)) {
          const auto ci = static_cast<std::size_t>(index_.rank(c.next));
          best_lo = std::max(best_lo, this->neg(load(hi_[ci])));
          best_hi = std::max(best_hi, this->neg(load(lo_[ci])));
          ++ctx.in_moves;
        } else if (first) {
          const Value x = this->exit_value(c, ctx);
          if (this->stopped()) return;
          base = std::max(base, x);
        }
      }
      const detail::Bounds b = detail::next_bounds(base, best_lo, best_hi, first, l, h);
      new_lo = b.lo;
      new_hi = b.hi;
    }
    if (new_lo != new_hi) ++ctx.open;
    if (new_lo == l && new_hi == h) return;
    if (detail::outcome(new_lo, new_hi) != detail::outcome(l, h)) ctx.value_changed = true;
    store(lo_[ur], static_cast<S>(new_lo));
    store(hi_[ur], static_cast<S>(new_hi));
    ctx.changed = true;
  }

  std::vector<S> lo_, hi_;
};

// ---- Method 2: levels with child counters (variants with un-moves) ----------
template <class Rules, class S>
class LevelSolver : SolverBase<Rules> {
  using Base = SolverBase<Rules>;
  using typename Base::Context;
  using Base::index_, Base::rules_, Base::kind_, Base::bound_;

  static constexpr std::uint8_t kDecided = 0x80;
  static constexpr std::uint8_t kCountMask = 0x7F;

 public:
  using Base::Base;

  std::expected<std::shared_ptr<ClassValues>, std::string> run(SolveStats* stats) {
    const Index n = index_.size();
    val_.assign(static_cast<std::size_t>(n), 0);
    state_.assign(static_cast<std::size_t>(n), 0);
    later_.assign(static_cast<std::size_t>(n / 64 + 1), 0);
    frontier_.assign(static_cast<std::size_t>(n / 64 + 1), 0);
    level_ = bound_ + 1;
    level_seen_.assign(static_cast<std::size_t>(bound_) + 2, 0);
    // Pass 0: exits, counters, positions decided by their exits alone.
    this->parallel(n, 4096, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
      index_.for_each(r.begin(), r.end(), [&](Index i, const Position& p) { init(i, p, ctx); });
      this->report(r.size(), 0, n);
    });
    if (this->stopped()) return this->check_stop();
    int rounds = 1;
    const Index words = later_.size();
    for (int t = bound_; t >= 1; --t) {
      if (!load(level_seen_[static_cast<std::size_t>(t)])) continue;
      level_ = t;
      // Decided earlier at this level (exits alone, or all in-class moves lost):
      // move them from `later` to the frontier. Then the seeds: undecided positions
      // whose best exit is worth exactly t.
      this->parallel(words, 1024, [&](const tbb::blocked_range<Index>& r, Context&) {
        for (Index w = r.begin(); w < r.end(); ++w) {
          std::uint64_t bits = load(later_[static_cast<std::size_t>(w)]);
          std::uint64_t take = 0;
          for (std::uint64_t b = bits; b;) {
            const Index i = w * 64 + static_cast<Index>(std::countr_zero(b));
            b &= b - 1;
            if (std::abs(load(val_[static_cast<std::size_t>(i)])) == t) take |= std::uint64_t{1} << (i % 64);
          }
          if (take) {
            std::atomic_ref<std::uint64_t>(later_[static_cast<std::size_t>(w)]).fetch_and(~take, std::memory_order_relaxed);
            std::atomic_ref<std::uint64_t>(frontier_[static_cast<std::size_t>(w)]).fetch_or(take, std::memory_order_relaxed);
          }
        }
      });
      this->parallel(n, 1 << 16, [&](const tbb::blocked_range<Index>& r, Context&) {
        for (Index i = r.begin(); i < r.end(); ++i) {
          const auto u = static_cast<std::size_t>(i);
          if (!(load(state_[u]) & kDecided) && load(val_[u]) == t) decide(i, static_cast<Value>(t));
        }
      });
      // Propagate the frontier until nothing new appears at this level.
      for (bool again = true; again;) {
        ++rounds;
        this->changed_.store(false);
        this->parallel(words, 64, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
          for (Index w = r.begin(); w < r.end(); ++w) {
            auto& word = frontier_[static_cast<std::size_t>(w)];
            if (load(word) == 0) continue;  // most words are empty: no atomic write for them
            std::uint64_t bits = std::atomic_ref<std::uint64_t>(word).exchange(0, std::memory_order_relaxed);
            while (bits) {
              const Index i = w * 64 + static_cast<Index>(std::countr_zero(bits));
              bits &= bits - 1;
              propagate(i, load(val_[static_cast<std::size_t>(i)]), ctx);
              ctx.changed = true;
            }
          }
        });
        if (this->stopped()) return this->check_stop();
        again = this->changed_.load();
      }
    }
    this->fill_stats(stats, rounds);
    auto out = std::make_shared<ClassValues>(index_, kind_);
    for (Index i = 0; i < n; ++i) {
      const auto u = static_cast<std::size_t>(i);
      out->set(i, (state_[u] & kDecided) ? val_[u] : Value{0});
    }
    return out;
  }

 private:
  // A decided position whose parents must hear of it: at the level being solved it
  // joins the frontier, at a lower level it waits in `later`.
  void mark_pending(Index i, Value v) {
    if (v == 0) return;
    auto& bits = std::abs(v) == level_ ? frontier_ : later_;
    std::atomic_ref<std::uint64_t>(bits[static_cast<std::size_t>(i / 64)])
        .fetch_or(std::uint64_t{1} << (i % 64), std::memory_order_relaxed);
    store(level_seen_[static_cast<std::size_t>(std::abs(v))], std::uint8_t{1});
  }
  // Sets the final value of an undecided position; false if another thread won.
  bool decide(Index i, Value v) {
    const auto u = static_cast<std::size_t>(i);
    std::atomic_ref<std::uint8_t> st(state_[u]);
    std::uint8_t s = st.load(std::memory_order_relaxed);
    do {
      if (s & kDecided) return false;
    } while (!st.compare_exchange_weak(s, static_cast<std::uint8_t>(s | kDecided), std::memory_order_relaxed));
    store(val_[u], static_cast<S>(v));
    mark_pending(i, v);
    return true;
  }

  void init(Index i, const Position& p, Context& ctx) {
    rules_.Rules::children(p, ctx.kids);
    if (ctx.kids.empty()) {
      decide(i, rules_.Rules::terminal_value(p));
      return;
    }
    Value e = kNone;
    ctx.ranks.clear();
    for (const Child& c : ctx.kids) {
      if (this->in_class(c)) {
        ctx.ranks.push_back(index_.rank(c.next));
        ++ctx.in_moves;
      } else {
        e = std::max(e, this->exit_value(c, ctx));
        if (this->stopped()) return;
      }
    }
    std::sort(ctx.ranks.begin(), ctx.ranks.end());
    const auto distinct = static_cast<std::size_t>(std::unique(ctx.ranks.begin(), ctx.ranks.end()) - ctx.ranks.begin());
    if (distinct > kCountMask) {
      this->fail("a position has more than 127 distinct moves inside its class");
      return;
    }
    if (distinct == 0) {
      decide(i, e);
      return;
    }
    const auto u = static_cast<std::size_t>(i);
    // Undecided: val_ holds the best exit, clamped into S (kNone -> -bound-1).
    store(val_[u], static_cast<S>(std::max<int>(e, -bound_ - 1)));
    store(state_[u], static_cast<std::uint8_t>(distinct));
    if (e > 0) store(level_seen_[static_cast<std::size_t>(e)], std::uint8_t{1});
  }

  // Child c (index ci) got its final value v; tell its parents.
  void propagate(Index ci, Value v, Context& ctx) {
    const Position c = index_.unrank(ci);
    const bool exact = rules_.Rules::in_class_parents(c, ctx.parents) == Variant::Parents::Exact;
    const Value x = this->neg(v);  // what the move to c is worth to a parent
    ctx.ranks.clear();
    for (const Position& q : ctx.parents) {
      if (!index_.allowed(q)) continue;
      const Index qi = index_.rank(q);
      const auto uq = static_cast<std::size_t>(qi);
      if (load(state_[uq]) & kDecided) continue;
      if (!exact) {
        // A superset of the parents: keep q only once, and only if it moves to c.
        if (std::find(ctx.ranks.begin(), ctx.ranks.end(), qi) != ctx.ranks.end()) continue;
        ctx.ranks.push_back(qi);
        rules_.Rules::children(q, ctx.parent_kids);
        bool moves_to_c = false;
        for (const Child& k : ctx.parent_kids)
          if (!k.game_over && !k.same_side && k.next == c) moves_to_c = true;
        if (!moves_to_c) continue;
      }
      ++ctx.processed;
      if (x > 0) {  // c is lost for its mover: q wins exactly x (no better option is left)
        decide(qi, x);
        continue;
      }
      // c is won for its mover: one fewer move of q that may still be good for q.
      std::atomic_ref<std::uint8_t> st(state_[uq]);
      const std::uint8_t before = st.fetch_sub(1, std::memory_order_relaxed);
      if ((before & kDecided) || (before & kCountMask) != 1) continue;
      // Every in-class move of q loses; c, decided last, is the least bad of them.
      const Value e = load(val_[uq]);
      const Value best = std::max<Value>(e < -bound_ ? kNone : e, x);
      std::uint8_t s = st.load(std::memory_order_relaxed);
      if (!(s & kDecided) && st.compare_exchange_strong(s, static_cast<std::uint8_t>(s | kDecided), std::memory_order_relaxed)) {
        store(val_[uq], static_cast<S>(best));
        mark_pending(qi, best);
      }
    }
  }

  std::vector<S> val_;                 // best exit while undecided, the value once decided
  std::vector<std::uint8_t> state_;    // bit 7: decided; bits 0-6: in-class moves not yet known to lose for q
  std::vector<std::uint64_t> later_;    // decided, parents not yet told, at a lower level
  std::vector<std::uint64_t> frontier_; // decided at the current level, parents not yet told
  int level_ = 0;
  std::vector<std::uint8_t> level_seen_;
};

}  // namespace

std::expected<std::shared_ptr<ClassValues>, std::string> solve_class(const Variant& v, const ClassIndex& index,
                                                                     const SolvedClasses& solved,
                                                                     const SolveOptions& options, SolveStats* stats) {
  return with_rules(v, [&](const auto& rules) -> std::expected<std::shared_ptr<ClassValues>, std::string> {
    using R = std::decay_t<decltype(rules)>;
    std::vector<Position> probe;
    const bool has_unmoves = rules.R::in_class_parents(rules.R::start(1), probe) != Variant::Parents::None;
    if (options.method == SolveOptions::Method::Levels && !has_unmoves)
      return std::unexpected(v.name() + " has no un-moves: the level method cannot solve it (use sweeps)");
    const bool unmoves = has_unmoves && options.method != SolveOptions::Method::Sweeps;
    if (v.kind() == GameKind::Score) {
      if (unmoves) return LevelSolver<R, std::int8_t>(rules, index, solved, options).run(stats);
      return SweepSolver<R, std::int8_t>(rules, index, solved, options).run(stats);
    }
    if (unmoves) return LevelSolver<R, std::int16_t>(rules, index, solved, options).run(stats);
    return SweepSolver<R, std::int16_t>(rules, index, solved, options).run(stats);
  });
}

std::expected<std::shared_ptr<ClassValues>, std::string> solve_class(const Variant& v, const ClassKey& key,
                                                                     const SolvedClasses& solved,
                                                                     const SolveOptions& options, SolveStats* stats) {
  return solve_class(v, ClassIndex(v, key), solved, options, stats);
}

std::optional<Value> lookup(const Variant& v, const SolvedClasses& solved, const Position& p) {
  if (!v.tabled(p)) return std::nullopt;
  const ClassValues* cls = solved.find(v.class_of(p));
  if (!cls || !cls->index().contains(p)) return std::nullopt;
  return cls->get(cls->index().rank(p));
}

}  // namespace mancala
