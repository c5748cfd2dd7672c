// Retrograde analysis by bound sweeps; see retrograde.h for the contract and method.
#include "mancala/retrograde.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "mancala/rules.h"

namespace mancala {

namespace {

// A per-thread memo of the last solved classes looked up (exits go to few classes).
class ExitCache {
 public:
  explicit ExitCache(const SolvedClasses& s) : solved_(s) {}
  const ClassValues* find(const ClassKey& k) {
    for (auto& e : slots_)
      if (e.values && e.key == k) return e.values;
    const ClassValues* v = solved_.find(k);
    slots_[next_] = {k, v};
    next_ = (next_ + 1) % slots_.size();
    return v;
  }

 private:
  struct Slot {
    ClassKey key;
    const ClassValues* values = nullptr;
  };
  const SolvedClasses& solved_;
  std::array<Slot, 8> slots_{};
  std::size_t next_ = 0;
};

template <class S>
S load(const S& x) { return std::atomic_ref<const S>(x).load(std::memory_order_relaxed); }
template <class S>
void store(S& x, S v) { std::atomic_ref<S>(x).store(v, std::memory_order_relaxed); }

template <class Rules, class S>
class ClassSolver {
 public:
  ClassSolver(const Rules& rules, const ClassKey& key, const SolvedClasses& solved, const SolveOptions& opt)
      : rules_(rules), index_(rules, key), solved_(solved), opt_(opt), kind_(rules.kind()),
        bound_(static_cast<Value>(rules.value_bound(key.seeds))) {}

  std::expected<std::shared_ptr<ClassValues>, std::string> run(SolveStats* stats) {
    const Index n = index_.size();
    lo_.assign(static_cast<std::size_t>(n), static_cast<S>(-bound_));
    hi_.assign(static_cast<std::size_t>(n), static_cast<S>(bound_));
    tbb::task_arena arena(opt_.threads > 0 ? opt_.threads : tbb::task_arena::automatic);
    std::uint64_t undecided = n;
    int sweep = 0;
    for (;; ++sweep) {
      changed_.store(false);
      open_.store(0);
      done_.store(0);
      arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<Index>(0, n, 4096), [&](const tbb::blocked_range<Index>& r) {
          sweep_range(r.begin(), r.end(), sweep, undecided);
        });
      });
      if (failed_.load()) return std::unexpected(error_);
      if (opt_.cancel && opt_.cancel->load()) return std::unexpected(std::string("cancelled"));
      undecided = open_.load();
      if (!changed_.load() && sweep > 0) break;
      if (undecided == 0) break;
    }
    if (stats) {
      stats->sweeps = sweep + 1;
      stats->positions = n;
      stats->in_class_moves = in_moves_.load();
      stats->exits = exits_.load();
    }
    auto out = std::make_shared<ClassValues>(index_, kind_);
    for (Index i = 0; i < n; ++i) {
      const Value l = lo_[static_cast<std::size_t>(i)], h = hi_[static_cast<std::size_t>(i)];
      out->set(i, l > 0 ? l : h < 0 ? h : Value{0});
    }
    lo_ = {};
    hi_ = {};
    return out;
  }

 private:
  Value neg(Value v) const { return kind_ == GameKind::Score ? static_cast<Value>(-v) : negate_step(v); }

  void fail(std::string msg) {
    std::lock_guard lock(mu_);
    if (!failed_.exchange(true)) error_ = std::move(msg);
  }

  void sweep_range(Index begin, Index end, int sweep, std::uint64_t undecided) {
    std::vector<Child> kids;
    kids.reserve(16);
    ExitCache cache(solved_);
    const bool first = sweep == 0;
    const bool backward = (sweep % 2) == 0;
    std::uint64_t open = 0, in_moves = 0, exits = 0;
    bool changed = false;
    constexpr Value kNone = INT16_MIN;
    for (Index k = begin; k < end; ++k) {
      const Index r = backward ? end - 1 - (k - begin) : k;
      const auto ur = static_cast<std::size_t>(r);
      const Value l = load(lo_[ur]), h = load(hi_[ur]);
      if (!first && l == h) continue;
      const Position p = index_.unrank(r);
      rules_.Rules::children(p, kids);
      Value new_lo, new_hi;
      if (kids.empty()) {
        new_lo = new_hi = rules_.Rules::terminal_value(p);
      } else {
        Value base = first ? kNone : l;
        Value best_lo = kNone, best_hi = kNone;
        for (const Child& c : kids) {
          if (!c.game_over && !c.same_side) {
            const ClassKey ck = rules_.Rules::class_of(c.next);
            if (ck == index_.key()) {
              const auto ci = static_cast<std::size_t>(index_.rank(c.next));
              best_lo = std::max(best_lo, neg(load(hi_[ci])));
              best_hi = std::max(best_hi, neg(load(lo_[ci])));
              ++in_moves;
              continue;
            }
          }
          if (!first) continue;
          ++exits;
          Value cv = 0;
          if (!c.game_over) {
            const ClassKey ck = rules_.Rules::class_of(c.next);
            const ClassValues* cls = cache.find(ck);
            if (!cls || !cls->index().contains(c.next)) {
              fail("class " + to_string(ck, rules_.pits()) + " of a child of " + to_string(index_.key(), rules_.pits()) +
                   " is not solved or does not index it");
              return;
            }
            cv = cls->get(cls->index().rank(c.next));
          }
          base = std::max(base, move_value(kind_, c, cv));
        }
        if (best_lo == kNone) {  // only exits
          new_lo = new_hi = base;
        } else {
          new_lo = std::max(base, best_lo);
          new_hi = std::max(base, best_hi);
        }
      }
      if (!first) {
        new_lo = std::max(new_lo, l);
        new_hi = std::min(new_hi, h);
      }
      if (new_lo != l || new_hi != h) {
        store(lo_[ur], static_cast<S>(new_lo));
        store(hi_[ur], static_cast<S>(new_hi));
        changed = true;
      }
      if (new_lo != new_hi) ++open;
    }
    if (changed) changed_.store(true, std::memory_order_relaxed);
    open_.fetch_add(open, std::memory_order_relaxed);
    in_moves_.fetch_add(in_moves, std::memory_order_relaxed);
    exits_.fetch_add(exits, std::memory_order_relaxed);
    const std::uint64_t done = done_.fetch_add(end - begin, std::memory_order_relaxed) + (end - begin);
    if (opt_.progress && mu_.try_lock()) {
      std::lock_guard lock(mu_, std::adopt_lock);
      opt_.progress(SolveProgress{index_.key(), sweep, done, index_.size(), undecided});
    }
  }

  const Rules& rules_;
  ClassIndex index_;
  const SolvedClasses& solved_;
  const SolveOptions& opt_;
  GameKind kind_;
  Value bound_;
  std::vector<S> lo_, hi_;
  std::atomic<bool> changed_{false}, failed_{false};
  std::atomic<std::uint64_t> open_{0}, done_{0}, in_moves_{0}, exits_{0};
  std::mutex mu_;
  std::string error_;
};

}  // namespace

std::expected<std::shared_ptr<ClassValues>, std::string> solve_class(const Variant& v, const ClassKey& key,
                                                                     const SolvedClasses& solved,
                                                                     const SolveOptions& options, SolveStats* stats) {
  return with_rules(v, [&](const auto& rules) -> std::expected<std::shared_ptr<ClassValues>, std::string> {
    using R = std::decay_t<decltype(rules)>;
    if (v.kind() == GameKind::Score) return ClassSolver<R, std::int8_t>(rules, key, solved, options).run(stats);
    return ClassSolver<R, std::int16_t>(rules, key, solved, options).run(stats);
  });
}

std::optional<Value> lookup(const Variant& v, const SolvedClasses& solved, const Position& p) {
  if (!v.tabled(p)) return std::nullopt;
  const ClassValues* cls = solved.find(v.class_of(p));
  if (!cls || !cls->index().contains(p)) return std::nullopt;
  return cls->get(cls->index().rank(p));
}

}  // namespace mancala
