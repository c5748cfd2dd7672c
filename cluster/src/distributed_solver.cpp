// The distributed versions of the two methods of solve_class (see cluster.h and
// retrograde.h). Each rank holds the working arrays of its slice only.
#include <mpi.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/datatype.hpp>
#include <boost/serialization/vector.hpp>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <type_traits>

#include "mancala/cluster.h"
#include "mancala/rules.h"
#include "mancala/solver_support.h"

namespace mancala::cluster::detail {

// "Child `child` got its final value; the move from `parent` to it is worth `worth`
// to the parent's mover." Sent to the owner of `parent`. 18 payload bytes.
struct Notice {
  Index parent = 0;
  Index child = 0;
  Value worth = 0;
  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar & parent & child & worth;
  }
};
constexpr std::size_t kNoticeBytes = 2 * sizeof(Index) + sizeof(Value);

}  // namespace mancala::cluster::detail

BOOST_IS_MPI_DATATYPE(mancala::cluster::detail::Notice)
BOOST_CLASS_TRACKING(mancala::cluster::detail::Notice, track_never)

namespace mancala::cluster {

namespace mpi = boost::mpi;
using detail::Notice;

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

constexpr Value kNone = mancala::detail::kNoExit;
constexpr Index kNoCheck = ~Index{0};  // Notice::child when the parent list is exact

using mancala::detail::ExitCache;
using mancala::detail::load;
using mancala::detail::store;

// Collectives with the watchdog hook and the time spent waiting.
class Wire {
 public:
  Wire(const mpi::communicator& comm, const DistributedOptions& opt, ClusterStats& stats)
      : comm_(comm), opt_(opt), stats_(stats) {}

  template <class T>
  void exchange(std::vector<std::vector<T>>& out, std::vector<std::vector<T>>& in, std::size_t record_bytes,
                const char* phase) {
    for (int r = 0; r < comm_.size(); ++r)
      if (r != comm_.rank()) {
        stats_.records += out[static_cast<std::size_t>(r)].size();
        stats_.bytes += out[static_cast<std::size_t>(r)].size() * record_bytes;
      }
    ++stats_.exchanges;
    const auto t = clock_type::now();
    enter(phase);
    in.clear();
    mpi::all_to_all(comm_, out, in);
    enter(nullptr);
    stats_.seconds_exchanging += since(t);
  }
  template <class T, class Op>
  T reduce(T x, Op op, const char* phase) {
    const auto t = clock_type::now();
    enter(phase);
    T y{};
    mpi::all_reduce(comm_, x, y, op);
    enter(nullptr);
    stats_.seconds_exchanging += since(t);
    return y;
  }

 private:
  void enter(const char* phase) const {
    if (opt_.wait) opt_.wait(phase);
  }
  const mpi::communicator& comm_;
  const DistributedOptions& opt_;
  ClusterStats& stats_;
};

// What both methods share: the class, this rank's slice, exits, thread scratch.
template <class Rules>
class DistBase {
 public:
  DistBase(const mpi::communicator& comm, const Rules& rules, const ClassKey& key, const SolvedClasses& solved,
           const DistributedOptions& opt, ClusterStats& stats)
      : comm_(comm), wire_(comm, opt, stats), rules_(rules), index_(rules, key), solved_(solved), opt_(opt),
        stats_(stats), kind_(rules.kind()), bound_(static_cast<Value>(rules.value_bound(key.seeds))),
        ranks_(static_cast<std::uint64_t>(comm.size())), me_(static_cast<std::uint64_t>(comm.rank())),
        n_(index_.size()), begin_(chunk_start(n_, ranks_, me_)), end_(chunk_start(n_, ranks_, me_ + 1)),
        local_(end_ - begin_), arena_(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic) {}

 protected:
  struct Context {
    explicit Context(const SolvedClasses& s, std::size_t owners) : cache(s), wanted(owners) { kids.reserve(16); }
    std::vector<Child> kids, parent_kids;
    std::vector<Position> parents;
    std::vector<Index> ranks;
    ExitCache cache;
    std::vector<std::vector<Index>> wanted;  // sweep 0: ghost indices per owner
    bool changed = false;
    std::uint64_t open = 0;
  };

  Value neg(Value v) const { return kind_ == GameKind::Score ? static_cast<Value>(-v) : negate_step(v); }
  bool in_class(const Child& c) const {
    return !c.game_over && !c.same_side && rules_.Rules::class_of(c.next) == index_.key();
  }
  bool mine(Index i) const { return i >= begin_ && i < end_; }
  std::size_t owner(Index i) const { return static_cast<std::size_t>(owner_of(n_, ranks_, i)); }

  // Value of an exit (a child outside the class) from the replicated lower classes.
  Value exit_value(const Child& c, Context& ctx) const {
    Value cv = 0;
    if (!c.game_over) {
      const ClassKey ck = rules_.Rules::class_of(c.next);
      const ClassValues* cls = ctx.cache.find(ck);
      if (!cls || !cls->index().allowed(c.next))
        throw std::runtime_error("class " + to_string(ck, rules_.pits()) + " of a child of class " +
                                 to_string(index_.key(), rules_.pits()) + " is not solved or does not index it");
      cv = cls->get(cls->index().rank(c.next));
    }
    return move_value(kind_, c, cv);
  }

  // f(range of local offsets, ctx) over [0, count) on this rank's threads; `merge`
  // runs under a mutex with each finished context.
  template <class F, class M>
  void parallel(Index count, Index grain, F&& f, M&& merge) {
    std::mutex mu;
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<Index>(0, count, grain), [&](const tbb::blocked_range<Index>& r) {
        Context ctx(solved_, static_cast<std::size_t>(ranks_));
        f(r, ctx);
        std::lock_guard lock(mu);
        merge(ctx);
      });
    });
  }

  void maybe_kill() const {
    if (opt_.kill_at_class == opt_.class_number) std::raise(opt_.kill_signal);
  }

  std::vector<std::uint8_t> encode(auto&& value_of) const {
    const std::size_t width = kind_ == GameKind::Score ? 1 : 2;
    std::vector<std::uint8_t> out(static_cast<std::size_t>(local_) * width);
    for (Index u = 0; u < local_; ++u) {
      const auto v = static_cast<std::uint16_t>(static_cast<Value>(value_of(static_cast<std::size_t>(u))));
      if (width == 1) {
        out[static_cast<std::size_t>(u)] = static_cast<std::uint8_t>(v & 0xFF);
      } else {
        out[static_cast<std::size_t>(u) * 2] = static_cast<std::uint8_t>(v & 0xFF);
        out[static_cast<std::size_t>(u) * 2 + 1] = static_cast<std::uint8_t>(v >> 8);
      }
    }
    return out;
  }

  const mpi::communicator& comm_;
  Wire wire_;
  const Rules& rules_;
  ClassIndex index_;
  const SolvedClasses& solved_;
  const DistributedOptions& opt_;
  ClusterStats& stats_;
  GameKind kind_;
  Value bound_;
  std::uint64_t ranks_, me_;
  Index n_, begin_, end_, local_;
  tbb::task_arena arena_;
};

// ---- Bound sweeps with ghost bounds (variants without un-moves) ---------------
template <class Rules, class S>
class DistSweep : DistBase<Rules> {
  using Base = DistBase<Rules>;
  using typename Base::Context;
  using Base::index_, Base::rules_, Base::bound_, Base::local_, Base::begin_, Base::ranks_, Base::wire_;

 public:
  using Base::Base;

  std::vector<std::uint8_t> run() {
    const auto K = static_cast<std::size_t>(ranks_);
    lo_.assign(static_cast<std::size_t>(local_), static_cast<S>(-bound_));
    hi_.assign(static_cast<std::size_t>(local_), static_cast<S>(bound_));
    ghost_index_.assign(K, {});
    ghost_lo_.assign(K, {});
    ghost_hi_.assign(K, {});
    std::vector<std::vector<Index>> serve(K);
    for (int round = 0;; ++round) {
      if (round == 1) {
        // Tell each owner which of its positions this rank reads, once.
        for (auto& g : ghost_index_) {
          std::sort(g.begin(), g.end());
          g.erase(std::unique(g.begin(), g.end()), g.end());
        }
        wire_.exchange(ghost_index_, serve, sizeof(Index), "all_to_all (ghost lists)");
        for (std::size_t r = 0; r < K; ++r) {
          ghost_lo_[r].resize(ghost_index_[r].size());
          ghost_hi_[r].resize(ghost_index_[r].size());
        }
      }
      if (round >= 1) {
        // Current bounds of the positions other ranks read: lo, hi interleaved.
        std::vector<std::vector<S>> out(K), in;
        for (std::size_t r = 0; r < K; ++r) {
          if (r == static_cast<std::size_t>(this->me_)) continue;
          out[r].reserve(serve[r].size() * 2);
          for (Index i : serve[r]) {
            const auto u = static_cast<std::size_t>(i - begin_);
            out[r].push_back(lo_[u]);
            out[r].push_back(hi_[u]);
          }
        }
        wire_.exchange(out, in, sizeof(S), "all_to_all (ghost bounds)");
        for (std::size_t r = 0; r < K; ++r) {
          if (r == static_cast<std::size_t>(this->me_)) continue;
          for (std::size_t j = 0; j < ghost_index_[r].size(); ++j) {
            ghost_lo_[r][j] = in[r][2 * j];
            ghost_hi_[r][j] = in[r][2 * j + 1];
          }
        }
      }
      bool changed = false;
      std::uint64_t open = 0;
      const auto t = clock_type::now();
      this->parallel(
          local_, 4096,
          [&](const tbb::blocked_range<Index>& r, Context& ctx) {
            index_.for_each(begin_ + r.begin(), begin_ + r.end(),
                            [&](Index g, const Position& p) { evaluate(g - begin_, p, round == 0, ctx); });
          },
          [&](Context& ctx) {
            changed |= ctx.changed;
            open += ctx.open;
            if (round == 0)
              for (std::size_t o = 0; o < K; ++o)
                ghost_index_[o].insert(ghost_index_[o].end(), ctx.wanted[o].begin(), ctx.wanted[o].end());
          });
      this->stats_.seconds_solving += since(t);
      if (round == 0) this->maybe_kill();
      changed = wire_.reduce(changed ? 1 : 0, mpi::maximum<int>(), "all_reduce (sweep changed)") != 0;
      open = wire_.reduce(open, std::plus<std::uint64_t>(), "all_reduce (open positions)");
      if ((round >= 1 && !changed) || open == 0) break;
    }
    return this->encode([&](std::size_t u) -> Value {
      const Value l = lo_[u], h = hi_[u];
      return l > 0 ? l : h < 0 ? h : Value{0};
    });
  }

 private:
  void evaluate(Index u, const Position& p, bool first, Context& ctx) {
    const auto uu = static_cast<std::size_t>(u);
    const Value l = load(lo_[uu]), h = load(hi_[uu]);
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
          const Index ci = index_.rank(c.next);
          Value cl, ch;
          if (this->mine(ci)) {
            cl = load(lo_[static_cast<std::size_t>(ci - begin_)]);
            ch = load(hi_[static_cast<std::size_t>(ci - begin_)]);
          } else if (first) {
            cl = static_cast<Value>(-bound_);
            ch = bound_;
            ctx.wanted[this->owner(ci)].push_back(ci);
          } else {
            const std::size_t o = this->owner(ci);
            const auto& g = ghost_index_[o];
            const auto j = static_cast<std::size_t>(std::lower_bound(g.begin(), g.end(), ci) - g.begin());
            cl = ghost_lo_[o][j];
            ch = ghost_hi_[o][j];
          }
          best_lo = std::max(best_lo, this->neg(ch));
          best_hi = std::max(best_hi, this->neg(cl));
        } else if (first) {
          base = std::max(base, this->exit_value(c, ctx));
        }
      }
      const mancala::detail::Bounds b = mancala::detail::next_bounds(base, best_lo, best_hi, first, l, h);
      new_lo = b.lo;
      new_hi = b.hi;
    }
    if (new_lo != new_hi) ++ctx.open;
    if (new_lo == l && new_hi == h) return;
    store(lo_[uu], static_cast<S>(new_lo));
    store(hi_[uu], static_cast<S>(new_hi));
    ctx.changed = true;
  }

  std::vector<S> lo_, hi_;
  std::vector<std::vector<Index>> ghost_index_;  // per owner: sorted global indices read by this rank
  std::vector<std::vector<S>> ghost_lo_, ghost_hi_;
};

// ---- Levels with child counters and notifications (variants with un-moves) ----
template <class Rules, class S>
class DistLevel : DistBase<Rules> {
  using Base = DistBase<Rules>;
  using typename Base::Context;
  using Base::index_, Base::rules_, Base::bound_, Base::local_, Base::begin_, Base::ranks_, Base::wire_;

  static constexpr std::uint8_t kDecided = 0x80;
  static constexpr std::uint8_t kCountMask = 0x7F;

 public:
  using Base::Base;

  std::vector<std::uint8_t> run() {
    const auto K = static_cast<std::size_t>(ranks_);
    const auto L = static_cast<std::size_t>(local_);
    val_.assign(L, 0);
    state_.assign(L, 0);
    later_.assign(static_cast<std::size_t>(bound_) + 2, {});
    seen_.assign(static_cast<std::size_t>(bound_) + 2, 0);
    level_ = bound_ + 1;
    // Pass 0 (local): exits, counters, positions decided by their exits alone.
    auto t0 = clock_type::now();
    this->parallel(
        local_, 4096,
        [&](const tbb::blocked_range<Index>& r, Context& ctx) {
          index_.for_each(begin_ + r.begin(), begin_ + r.end(), [&](Index g, const Position& p) {
            init(static_cast<std::size_t>(g - begin_), p, ctx);
          });
        },
        [](Context&) {});
    for (std::size_t u = 0; u < L; ++u) {
      if (state_[u] & kDecided) mark_pending(u, val_[u]);
      else if (val_[u] > 0) seen_[static_cast<std::size_t>(val_[u])] = 1;
    }
    this->stats_.seconds_solving += since(t0);
    this->maybe_kill();

    Context ctx(this->solved_, K);
    std::vector<std::vector<Notice>> out(K), in;
    for (int t = bound_ + 1;;) {
      int next = 0;
      for (int s = t - 1; s >= 1; --s)
        if (seen_[static_cast<std::size_t>(s)]) {
          next = s;
          break;
        }
      t = wire_.reduce(next, mpi::maximum<int>(), "all_reduce (next level)");
      if (t <= 0) break;
      level_ = t;
      t0 = clock_type::now();
      // Decided earlier at this level, then the seeds: undecided, best exit exactly t.
      auto& waiting = later_[static_cast<std::size_t>(t)];
      frontier_.insert(frontier_.end(), waiting.begin(), waiting.end());
      std::vector<std::uint32_t>().swap(waiting);
      for (std::size_t u = 0; u < L; ++u)
        if (!(state_[u] & kDecided) && val_[u] == t) decide(u, static_cast<Value>(t));
      this->stats_.seconds_solving += since(t0);
      // Propagate in bulk-synchronous rounds until no rank has a frontier left.
      for (;;) {
        t0 = clock_type::now();
        for (std::uint64_t done = 0; !frontier_.empty() && done < this->opt_.batch; ++done) {
          const std::uint32_t u = frontier_.back();
          frontier_.pop_back();
          propagate(u, ctx, out);
        }
        this->stats_.seconds_solving += since(t0);
        wire_.exchange(out, in, detail::kNoticeBytes, "all_to_all (notifications)");
        for (auto& o : out) o.clear();
        t0 = clock_type::now();
        for (const auto& from : in)
          for (const Notice& m : from) {
            if (m.child == kNoCheck) {
              apply(static_cast<std::size_t>(m.parent - begin_), nullptr, m.worth, ctx);
            } else {
              const Position c = index_.unrank(m.child);
              apply(static_cast<std::size_t>(m.parent - begin_), &c, m.worth, ctx);
            }
          }
        this->stats_.seconds_solving += since(t0);
        if (wire_.reduce(frontier_.empty() ? 0 : 1, mpi::maximum<int>(), "all_reduce (frontier left)") == 0) break;
      }
    }
    return this->encode([&](std::size_t u) -> Value { return (state_[u] & kDecided) ? Value{val_[u]} : Value{0}; });
  }

 private:
  void mark_pending(std::size_t u, Value v) {
    if (v == 0) return;
    const auto a = static_cast<std::size_t>(std::abs(v));
    if (static_cast<int>(a) == level_) frontier_.push_back(static_cast<std::uint32_t>(u));
    else later_[a].push_back(static_cast<std::uint32_t>(u));
    seen_[a] = 1;
  }
  bool decide(std::size_t u, Value v) {
    if (state_[u] & kDecided) return false;
    state_[u] |= kDecided;
    val_[u] = static_cast<S>(v);
    mark_pending(u, v);
    return true;
  }

  // Pass 0 for one local position; writes only its own entries (thread-safe).
  void init(std::size_t u, const Position& p, Context& ctx) {
    rules_.Rules::children(p, ctx.kids);
    if (ctx.kids.empty()) {
      val_[u] = static_cast<S>(rules_.Rules::terminal_value(p));
      state_[u] = kDecided;
      return;
    }
    Value e = kNone;
    ctx.ranks.clear();
    for (const Child& c : ctx.kids) {
      if (this->in_class(c)) ctx.ranks.push_back(index_.rank(c.next));
      else e = std::max(e, this->exit_value(c, ctx));
    }
    std::sort(ctx.ranks.begin(), ctx.ranks.end());
    const auto distinct = static_cast<std::size_t>(std::unique(ctx.ranks.begin(), ctx.ranks.end()) - ctx.ranks.begin());
    if (distinct > kCountMask) throw std::runtime_error("a position has more than 127 distinct moves inside its class");
    if (distinct == 0) {
      val_[u] = static_cast<S>(e);
      state_[u] = kDecided;
      return;
    }
    val_[u] = static_cast<S>(std::max<int>(e, -bound_ - 1));  // best exit, kNone -> -bound-1
    state_[u] = static_cast<std::uint8_t>(distinct);
  }

  // Local child u got its final value: tell its parents (here, or their owners).
  void propagate(std::uint32_t u, Context& ctx, std::vector<std::vector<Notice>>& out) {
    const Index ci = begin_ + u;
    const Position c = index_.unrank(ci);
    const bool exact = rules_.Rules::in_class_parents(c, ctx.parents) == Variant::Parents::Exact;
    const Value x = this->neg(val_[u]);
    ctx.ranks.clear();
    for (const Position& q : ctx.parents) {
      if (!index_.allowed(q)) continue;
      const Index qi = index_.rank(q);
      const bool local = this->mine(qi);
      if (local && (state_[static_cast<std::size_t>(qi - begin_)] & kDecided)) continue;
      if (!exact) {  // a superset, maybe with repeats: each q once, checked by its owner
        if (std::find(ctx.ranks.begin(), ctx.ranks.end(), qi) != ctx.ranks.end()) continue;
        ctx.ranks.push_back(qi);
      }
      if (local) apply(static_cast<std::size_t>(qi - begin_), exact ? nullptr : &c, x, ctx);
      else out[this->owner(qi)].push_back(Notice{qi, exact ? kNoCheck : ci, x});
    }
  }

  // On the owner of parent u: child c (final) is worth x to u, if u really moves to c
  // (c == nullptr: the parent list was exact, no check needed).
  void apply(std::size_t u, const Position* c, Value x, Context& ctx) {
    if (state_[u] & kDecided) return;
    if (c) {
      rules_.Rules::children(index_.unrank(begin_ + u), ctx.parent_kids);
      bool moves_to_c = false;
      for (const Child& k : ctx.parent_kids)
        if (!k.game_over && !k.same_side && k.next == *c) moves_to_c = true;
      if (!moves_to_c) return;
    }
    if (x > 0) {  // c is lost for its mover: u wins exactly x
      decide(u, x);
      return;
    }
    const std::uint8_t left = static_cast<std::uint8_t>((state_[u] & kCountMask) - 1);
    state_[u] = left;
    if (left != 0) return;
    // Every in-class move of u loses; c, decided last, is the least bad of them.
    const Value e = val_[u];
    decide(u, std::max<Value>(e < -bound_ ? kNone : e, x));
  }

  std::vector<S> val_;                           // best exit while undecided, the value once decided
  std::vector<std::uint8_t> state_;              // bit 7: decided; bits 0-6: in-class moves not known to lose
  std::vector<std::vector<std::uint32_t>> later_;  // per level: decided, parents not yet told
  std::vector<std::uint32_t> frontier_;          // decided at the current level, parents not yet told
  std::vector<std::uint8_t> seen_;               // levels with something to do on this rank
  int level_ = 0;
};

}  // namespace

std::expected<std::vector<std::uint8_t>, std::string> solve_class_distributed(const mpi::communicator& comm,
                                                                              const Variant& v, const ClassKey& key,
                                                                              const SolvedClasses& solved,
                                                                              const DistributedOptions& opt,
                                                                              ClusterStats& stats) {
  try {
    return with_rules(v, [&](const auto& rules) -> std::vector<std::uint8_t> {
      using R = std::decay_t<decltype(rules)>;
      {
        const ClassIndex idx(rules, key);
        const std::uint64_t K = static_cast<std::uint64_t>(comm.size());
        const auto [first, last] = chunk(idx.size(), K, 0);
        if (last - first >= (std::uint64_t{1} << 32) - 1)
          throw std::runtime_error("a slice of class " + to_string(key, rules.pits()) +
                                   " has 2^32 positions or more; run on more ranks");
      }
      std::vector<Position> probe;
      const bool unmoves = rules.R::in_class_parents(rules.R::start(1), probe) != Variant::Parents::None;
      if (v.kind() == GameKind::Score) {
        if (unmoves) return DistLevel<R, std::int8_t>(comm, rules, key, solved, opt, stats).run();
        return DistSweep<R, std::int8_t>(comm, rules, key, solved, opt, stats).run();
      }
      if (unmoves) return DistLevel<R, std::int16_t>(comm, rules, key, solved, opt, stats).run();
      return DistSweep<R, std::int16_t>(comm, rules, key, solved, opt, stats).run();
    });
  } catch (const std::exception& e) {
    return std::unexpected(std::string(e.what()));
  }
}

std::shared_ptr<ClassValues> gather_class(const mpi::communicator& comm, const Variant& v, const ClassKey& key,
                                          const std::vector<std::uint8_t>& slice, const DistributedOptions& opt,
                                          ClusterStats& stats) {
  auto cls = std::make_shared<ClassValues>(ClassIndex(v, key), v.kind());
  const auto K = static_cast<std::uint64_t>(comm.size());
  const auto width = static_cast<std::uint64_t>(cls->width());
  const std::uint64_t n = cls->size();
  // Slice r = bytes [width*chunk_start(n,K,r), width*chunk_start(n,K,r+1)). Rounds of
  // at most `step` bytes per rank keep every count and displacement below INT_MAX.
  const std::uint64_t step = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(INT_MAX) / K);
  std::uint64_t largest = 0;
  for (std::uint64_t r = 0; r < K; ++r) largest = std::max(largest, width * (chunk_start(n, K, r + 1) - chunk_start(n, K, r)));
  const auto t = clock_type::now();
  if (opt.wait) opt.wait("all_gather (class slices)");
  std::vector<int> counts(K), displs(K);
  std::vector<std::uint8_t> buffer;
  for (std::uint64_t at = 0; at < largest || (at == 0 && largest == 0); at += step) {
    if (largest == 0) break;
    int total = 0;
    for (std::uint64_t r = 0; r < K; ++r) {
      const std::uint64_t len = width * (chunk_start(n, K, r + 1) - chunk_start(n, K, r));
      counts[r] = static_cast<int>(at < len ? std::min(step, len - at) : 0);
      displs[r] = total;
      total += counts[r];
    }
    buffer.resize(static_cast<std::size_t>(total));
    const auto me = static_cast<std::size_t>(comm.rank());
    const int rc = MPI_Allgatherv(slice.data() + std::min<std::uint64_t>(at, slice.size()), counts[me], MPI_BYTE,
                                  buffer.data(), counts.data(), displs.data(), MPI_BYTE, MPI_Comm(comm));
    if (rc != MPI_SUCCESS) throw std::runtime_error("MPI_Allgatherv failed");
    for (std::uint64_t r = 0; r < K; ++r) {
      const std::uint64_t first = width * chunk_start(n, K, r) + at;
      std::copy_n(buffer.begin() + displs[r], counts[r], cls->bytes().begin() + static_cast<std::ptrdiff_t>(first));
      if (r != me) stats.gathered_bytes += static_cast<std::uint64_t>(counts[r]);
    }
  }
  if (opt.wait) opt.wait(nullptr);
  stats.seconds_gathering += since(t);
  return cls;
}

}  // namespace mancala::cluster
