// The retrograde analysis of one class, written once for every transport.
//
// The positions [0, n) of the class are split over the K ranks of a transport by
// the pure function chunk() of retrograde.h: rank r owns [chunk_start(n, K, r),
// chunk_start(n, K, r + 1)) and keeps the working arrays of that slice only. Threads
// run the per-position work over the slice (TBB); what a rank must learn about
// positions of other ranks crosses the transport in bulk-synchronous rounds:
//
//   LocalTransport (K = 1: solve_class, generate, search): nothing ever crosses.
//   cluster's MpiTransport (mancala-tb-mpi): boost::mpi all_to_all / all_reduce.
//
// The methods (contract and proofs in retrograde.h), each one function per position:
//
//  * Acyclic (variants whose in-class moves can never return to a position, e.g.
//    Kalah: seeds only move towards the mover's store; one rank only): one pass in
//    index order; a position's value is computed after those of its in-class
//    children, depth first (the depth is bounded by the potential "sum over seeds of
//    the distance to their owner's store", which every in-class move lowers). One
//    byte per position, the value itself (kUnset until known); no counters, no
//    propagation. Rules that move one side at a time (Kalah: side_move) get a kernel
//    of their own: sides as words, each side's moves found once for a whole tile,
//    ranks without a class look-up, the pass in tiles in an order where every
//    in-class child is decided before its parent (no depth-first recursion).
//
//  * Levels (variants with un-moves, Variant::has_unmoves): pass 0 gives each
//    position its best exit and the number of its distinct in-class moves; levels
//    t = B..1 then decide positions worth +-t and tell their parents (un-moves): a
//    parent of a child lost for its mover wins t; a parent whose in-class moves are
//    all known to lose takes the best of them. A parent owned by another rank gets a
//    Notice {parent, child, worth}; its owner checks (for a Superset parent list)
//    that the parent really moves to the child, then applies it. One code per
//    position holds all of it (LevelCodes, retrograde.h: 1 byte for Oware up to 24
//    seeds, else 2).
//
//  * Sweeps (the others): the value so far of each position (the outcome of its
//    lower and upper bounds), Gauss-Seidel sweeps over the slice until a sweep
//    changes no value; one code per position (SweepCodes, retrograde.h: 1 byte up to
//    bound 18). The codes of in-class children of other ranks ("ghosts") are fetched
//    from their owners at the start of each sweep; each owner learnt in sweep 0
//    which of its positions each rank reads.
//
// Every rank leaves a phase with the same verdict: the stop/failure flags and the
// tallies go through the transport's all-reduce, so an error or a cancel on one rank
// ends the class on all of them with an error, never a hang.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <sys/mman.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <deque>
#include <expected>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "mancala/ghost_set.h"
#include "mancala/retrograde.h"
#include "mancala/rules.h"
#include "mancala/solver_support.h"
#include "mancala/temp_file.h"

namespace mancala::core {

// "Child `child` got its final value; the move from `parent` to it is worth `worth`
// to the parent's mover." For the owner of `parent`; child == kNoCheck when the
// parent list was exact (no check needed). 18 payload bytes.
struct Notice {
  Index parent = 0;
  Index child = 0;
  Value worth = 0;
  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar & parent & child & worth;
  }
};
constexpr Index kNoCheck = ~Index{0};
constexpr std::size_t kNoticeBytes = 2 * sizeof(Index) + sizeof(Value);

// Counts every rank adds up after each phase.
struct Tally {
  std::uint64_t changed = 0;  // sweeps: positions whose value moved; levels: positions told
  std::uint64_t open = 0;     // positions still undecided
  std::uint64_t stopped = 0;  // ranks that failed or were cancelled
};

enum class Method : std::uint8_t { Acyclic, Levels, Sweeps };

// One process: K = 1, nothing crosses. The interface every transport implements.
struct LocalTransport {
  std::uint64_t ranks() const { return 1; }
  std::uint64_t rank() const { return 0; }
  // Records out[r] go to rank r; in[r] receives rank r's records for this rank.
  template <class T>
  void exchange(std::vector<std::vector<T>>& out, std::vector<std::vector<T>>& in, std::size_t /*record_bytes*/,
                const char* /*phase*/) {
    in.swap(out);
    out.assign(in.size(), {});
  }
  // As exchange, but f(records) is called with each rank's records for this rank in
  // turn (the cluster's transport keeps a rank's packed until its turn).
  template <class T, class F>
  void exchange_each(std::vector<std::vector<T>>& out, std::size_t record_bytes, const char* phase, F&& f) {
    std::vector<std::vector<T>> in;
    exchange(out, in, record_bytes, phase);
    for (auto& from : in) {
      f(from);
      std::vector<T>().swap(from);
    }
  }
  Tally sum(const Tally& t, const char* /*phase*/) { return t; }
  int max(int x, const char* /*phase*/) { return x; }
  void after_first_pass() {}  // a test hook of the cluster transport
  // Checkpoints inside a class (the cluster's transport keeps them; here none). Between
  // two steps of a method the whole state of this rank's slice is its codes (one per
  // position, `code_bytes` each, native byte order):
  //   Levels: step t, at the start of level search below t (every level >= t and
  //           every notice done; t = bound + 1 right after pass 0);
  //   Sweeps: step r, after sweep r (sweeps 0..r done).
  // checkpoint() is called at every such boundary and decides whether to keep one
  // (every rank calls it, the same number of times). resume() is called once, before
  // pass 0: it fills `codes` with this rank's slice of the class's last checkpoint
  // and returns its step, or -1 (nothing to resume; `codes` may have been written).
  int resume(Method /*method*/, std::span<std::uint8_t> /*codes*/, std::size_t /*code_bytes*/) { return -1; }
  void checkpoint(Method /*method*/, int /*step*/, std::span<const std::uint8_t> /*codes*/, std::size_t /*code_bytes*/) {}
};

// The method of a class (SolveOptions::Method::Auto asks the variant).
inline Result<Method> pick_method(const Variant& v, SolveOptions::Method m, std::uint64_t ranks) {
  switch (m) {
    case SolveOptions::Method::Sweeps: return Method::Sweeps;
    case SolveOptions::Method::Levels:
      if (!v.has_unmoves()) return fail_with(Error::InvalidArgument, v.name() + " has no un-moves: the level method cannot solve it (use sweeps)");
      return Method::Levels;
    case SolveOptions::Method::Acyclic:
      if (!v.in_class_acyclic())
        return fail_with(Error::InvalidArgument, v.name() + " has in-class cycles: the acyclic method cannot solve it");
      if (ranks > 1) return fail_with(Error::InvalidArgument, "the acyclic method runs on one rank (use levels)");
      return Method::Acyclic;
    case SolveOptions::Method::Auto: break;
  }
  if (v.in_class_acyclic() && ranks == 1) return Method::Acyclic;
  return v.has_unmoves() ? Method::Levels : Method::Sweeps;
}

template <class Rules, class S, class Transport>
class ClassSolver {
  using Bytes = std::vector<std::uint8_t>;
  using Offset = GhostSet::Offset;  // a position's offset in its owner's slice (ghosts)
  static constexpr Value kNone = detail::kNoExit;
  static_assert(LevelCodes::kNoExit == kNone, "level codes decode no exit as the solver's kNone");
  static constexpr S kUnset = std::numeric_limits<S>::min();  // acyclic: not yet known
  static constexpr int kMaxDepth = 1 << 12;                   // acyclic: a longer chain means a cycle
  enum : std::uint8_t { kInClass, kExit1, kExit2, kOther };   // acyclic: where a child's value is

 public:
  ClassSolver(const Rules& rules, const ClassIndex& index, const SolvedClasses& solved, const SolveOptions& opt,
              Transport& transport)
      : rules_(rules), index_(index), solved_(solved), opt_(opt), tr_(transport), kind_(rules.kind()),
        bound_(static_cast<Value>(rules.value_bound(index.key().seeds))), ranks_(transport.ranks()),
        me_(transport.rank()), n_(index.size()), begin_(chunk_start(n_, ranks_, me_)),
        end_(chunk_start(n_, ranks_, me_ + 1)), local_(end_ - begin_),
        arena_(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic) {}

  // This rank's slice of the values, in the byte layout of ClassValues.
  Result<Bytes> run(Method method, SolveStats* stats) {
    if (opt_.best_exits) {
      opt_.best_exits->clear();
      if (ranks_ == 1 && method != Method::Acyclic) {
        opt_.best_exits->assign(static_cast<std::size_t>(n_), kExitNone);
        best_exit_ = opt_.best_exits->data();
      }
    }
    if (opt_.kept_children) {
      opt_.kept_children->pieces.clear();
      if (ranks_ == 1 && method == Method::Sweeps && kind_ == GameKind::Score && best_exit_) kept_ = opt_.kept_children;
    }
    if (opt_.distances) {
      opt_.distances->clear();
      if (ranks_ == 1 && method == Method::Levels && kind_ == GameKind::Score) {
        detail::fill_on_huge_pages(*opt_.distances, 2 * static_cast<std::size_t>(n_), std::uint8_t{0});  // written at random, like the codes
        dist_ = opt_.distances->data();
      }
    }
    Result<Bytes> out;
    switch (method) {
      case Method::Acyclic: out = acyclic(); break;
      case Method::Levels: out = levels(); break;
      case Method::Sweeps: out = sweeps(); break;
    }
    if (best_exit_ && (!out || exit_too_wide_.load())) opt_.best_exits->clear();
    if (kept_ && (!out || !best_exit_ || exit_too_wide_.load())) kept_->pieces.clear();  // the distances need both
    kept_ = nullptr;
    if (dist_ && !out) opt_.distances->clear();
    dist_ = nullptr;
    if (stats) {
      stats->sweeps = rounds_;
      stats->positions = n_;
      stats->in_class_moves = in_moves_.load();
      stats->exits = exits_.load();
    }
    return out;
  }

 private:
  struct Frame {  // acyclic: one position's children and their value slots
    std::vector<Child> kids;
    std::vector<const void*> slots;  // where each child's value is (null: game over or missing)
    std::vector<std::uint8_t> tags;  // kInClass, kExit1 / kExit2 (value width), kOther
    void reserve(std::size_t n) {
      kids.reserve(n);
      slots.reserve(n);
      tags.reserve(n);
    }
  };
  struct Context {
    Context(const SolvedClasses& s, std::size_t owners) : cache(s), outbox(owners) {
      kids.reserve(16);
    }
    std::vector<Child> kids, parent_kids;
    std::vector<Position> parents;
    std::vector<Index> ranks;
    detail::ExitCache cache;
    std::vector<std::vector<Notice>> outbox;  // levels: notices per owner
    std::deque<Frame> stack;                  // acyclic: children per depth (stable references)
    Tally tally;
    std::uint64_t in_moves = 0, exits = 0;
  };

  // ---- what every method shares -------------------------------------------------
  Value neg(Value v) const { return kind_ == GameKind::Score ? static_cast<Value>(-v) : negate_step(v); }
  bool in_class(const Child& c) const {
    return !c.game_over && !c.same_side && rules_.Rules::class_of(c.next) == index_.key();
  }
  bool mine(Index i) const { return i >= begin_ && i < end_; }
  std::size_t owner(Index i) const { return static_cast<std::size_t>(owner_of(n_, ranks_, i)); }

  void fail(std::string msg, Error::Code code = Error::Internal) {
    std::lock_guard lock(mu_);
    if (!failed_.exchange(true)) error_ = Error{code, std::move(msg)};
  }
  bool stopped() const { return failed_.load() || opt_.budget.stopped(); }
  Error stop_reason() const {
    if (failed_.load()) return error_;
    if (auto stop = opt_.budget.check("class " + to_string(index_.key(), rules_.pits()))) return *stop;
    return Error{Error::Cancelled, "stopped by another rank (it failed or was cancelled)"};
  }

  // Where the value of an exit (a child outside the class, game not over) is in its
  // solved class, and its width; null when the class is missing or does not index it,
  // or when a paged class's block cannot be read (ctx.cache.error() says why). A class
  // kept whole is read in place (a plain array load); a paged one through the
  // context's cache (generate --memory-mb), its value copied where it stays valid.
  const std::uint8_t* exit_slot(const Child& c, Context& ctx, int& width) const {
    return exit_slot(c, rules_.Rules::class_of(c.next), ctx, width);
  }
  // The same for a child whose class `key` is known.
  const std::uint8_t* exit_slot(const Child& c, const ClassKey& key, Context& ctx, int& width) const {
    const ClassValues* cls = ctx.cache.find(key);
    if (!cls || !cls->index().allowed(c.next)) return nullptr;
    width = cls->width();
    const Index i = cls->index().rank(c.next);
    if (cls->whole()) [[likely]]
      return cls->bytes().data() + i * static_cast<Index>(width);
    return ctx.cache.paged(*cls, i);
  }
  // A value in the byte layout of ClassValues.
  static Value read_value(const std::uint8_t* b, int width) {
    return width == 1 ? Value{static_cast<std::int8_t>(b[0])} : static_cast<Value>(static_cast<std::uint16_t>(b[0] | (b[1] << 8)));
  }
  // SolveOptions::best_exits left empty (a class resumed from a checkpoint does not play pass 0).
  void drop_exits() {
    kept_ = nullptr;  // nor does it list the in-class children
    if (!best_exit_) return;
    best_exit_ = nullptr;
    opt_.best_exits->clear();
  }
  // Keeps position u's best exit e (kNone: none) for SolveOptions::best_exits.
  void keep_exit(Index u, Value e) {
    if (!best_exit_) return;
    if (e != kNone && (e <= kExitNoMove || e > std::numeric_limits<std::int8_t>::max())) exit_too_wide_.store(true);
    best_exit_[static_cast<std::size_t>(u)] = e == kNone ? kExitNone : static_cast<std::int8_t>(e);
  }
  // Value of an exit, or kNone after fail().
  Value exit_value(const Child& c, Context& ctx) {
    ++ctx.exits;
    if (c.game_over) return move_value(kind_, c, 0);
    int width = 0;
    const std::uint8_t* at = exit_slot(c, ctx, width);
    if (!at) {
      const std::string where = "class " + to_string(rules_.Rules::class_of(c.next), rules_.pits()) +
                                " of a child of class " + to_string(index_.key(), rules_.pits());
      const bool missing = ctx.cache.error().empty();
      fail(missing ? where + " is not solved or does not index it" : where + " cannot be read: " + ctx.cache.error(),
           missing ? Error::MissingTable : Error::Io);
      return kNone;
    }
    const Value x = read_value(at, width);
    ctx.cache.done_with(at);  // read at once: a paged value's slot is not kept
    return move_value(kind_, c, x);
  }


  void report(std::uint64_t span, int round, std::uint64_t undecided) {
    const std::uint64_t done = std::min<std::uint64_t>(done_.fetch_add(span, std::memory_order_relaxed) + span, local_);
    if (opt_.progress && progress_mu_.try_lock()) {
      std::lock_guard lock(progress_mu_, std::adopt_lock);
      opt_.progress(SolveProgress{index_.key(), round, done, local_, undecided});
    }
  }

  // f(range of local offsets, ctx) over [0, count) on this rank's threads; each
  // finished context is merged under a mutex.
  template <class F>
  void parallel(Index count, Index grain, F&& f) {
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<Index>(0, count, grain), [&](const tbb::blocked_range<Index>& r) {
        if (stopped()) return;
        Context ctx(solved_, static_cast<std::size_t>(ranks_));
        f(r, ctx);
        merge(ctx);
      });
    });
  }
  void merge(Context& ctx) {
    in_moves_.fetch_add(ctx.in_moves, std::memory_order_relaxed);
    exits_.fetch_add(ctx.exits, std::memory_order_relaxed);
    std::lock_guard lock(mu_);
    tally_.changed += ctx.tally.changed;
    tally_.open += ctx.tally.open;
    for (std::size_t o = 0; o < ctx.outbox.size(); ++o) {
      // A task's notices are moved when none wait yet (one thread: every batch's
      // first task), not copied: a copy had held them twice, 24 bytes each and up to
      // as much again of spare capacity in each vector (Oware up to 16 on 2 ranks:
      // 11.4 of the 36.1 MiB at a rank's heap peak, heaptrack).
      if (ctx.outbox[o].empty()) continue;  // (outbox_ is sized by the methods that send notices)
      if (outbox_[o].empty()) outbox_[o].swap(ctx.outbox[o]);
      else outbox_[o].insert(outbox_[o].end(), ctx.outbox[o].begin(), ctx.outbox[o].end());
    }
  }
  // Ends a phase on every rank: the tallies summed, the stop flags agreed.
  Tally finish_phase(const char* phase) {
    tally_.stopped = stopped() ? 1 : 0;
    Tally t = tr_.sum(tally_, phase);
    tally_ = Tally{};
    return t;
  }

  // This rank's values in the byte layout of ClassValues. Written a chunk at a time,
  // and the pages of the working arrays already encoded are given back to the system
  // as it goes (their contents are not read again), so that the values and the arrays
  // are not both whole in memory at the end of a class (generate --memory-mb).
  Bytes encode(auto&& value_of) {
    const std::size_t width = kind_ == GameKind::Score ? 1 : 2;
    const auto n = static_cast<std::size_t>(local_);
    Bytes out;
    out.reserve(n * width);  // pages are touched chunk by chunk below; kept as a lower class, read at random
    detail::want_huge_pages(out.data(), out.capacity());
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    for (std::size_t a = 0; a < n; a += kChunk) {
      const std::size_t b = std::min(n, a + kChunk);
      out.resize(b * width);
      for (std::size_t u = a; u < b; ++u) {
        const auto v = static_cast<std::uint16_t>(static_cast<Value>(value_of(u)));
        if (width == 1) {
          out[u] = static_cast<std::uint8_t>(v & 0xFF);
        } else {
          out[u * 2] = static_cast<std::uint8_t>(v & 0xFF);
          out[u * 2 + 1] = static_cast<std::uint8_t>(v >> 8);
        }
      }
      release_prefix(val_, b);
      release_prefix(codes8_, b);
      release_prefix(codes16_, b);
      release_prefix(codes32_, b);
    }
    return out;
  }
  // Gives the whole pages of arr[0, end) back to the system (when arr has a value per
  // position of the slice and is large; Linux: MADV_DONTNEED).
  template <class T>
  void release_prefix(std::vector<T>& arr, std::size_t end) {
#if defined(__linux__)
    if (arr.size() != static_cast<std::size_t>(local_) || arr.size() * sizeof(T) < (std::size_t{4} << 20)) return;
    constexpr std::uintptr_t kPage = 4096;
    const auto lo = (reinterpret_cast<std::uintptr_t>(arr.data()) + kPage - 1) & ~(kPage - 1);
    const auto hi = reinterpret_cast<std::uintptr_t>(arr.data() + end) & ~(kPage - 1);
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
#else
    (void)arr;
    (void)end;
#endif
  }

  // ---- Acyclic: one pass, children first ------------------------------------------
  //
  // Order (the generic pass; the compact kernel below goes by tiles). The pass
  // visits the positions turned round: step r takes p = rotate(u_r),
  // u_r the position of rank r. An in-class move changes only the mover's side and
  // turns the board, so every in-class child of p has u_r's first half (p's other
  // side) as its leading pits: for consecutive r they share their leading index
  // digits and fall in one small block of ranks (Kalah(6), 20 seeds: at most C(25,5)
  // = 53,130 positions), which stays in cache. Exits that sow round the board share
  // them nearly as much. In index order the children would be scattered. (An index
  // with a subset or a filter need not hold u_r turned round: then u_r itself is visited.)
  Result<Bytes> acyclic() {
    if constexpr (kCompactRules) {
      if (compact_ready()) {
        // The kernel's values are the class's bytes (an int8 value is its byte): it
        // writes them in the array it returns (no copy by encode(), whose fresh pages
        // had cost as much again as the solve's).
        Bytes out;
        detail::fill_on_huge_pages(out, static_cast<std::size_t>(local_), static_cast<std::uint8_t>(kUnset));
        cval_ = reinterpret_cast<S*>(out.data());  // int8 through uint8 storage: allowed aliasing
        make_tiles();
        // One worker per thread; each takes the next pair of layers (largest first) and
        // solves its tiles in order: pairs do not read each other, so no thread waits.
        std::atomic<std::size_t> next{0};
        const auto workers = std::min<Index>(pairs_.size(), static_cast<Index>(arena_.max_concurrency()));
        parallel(workers, 1, [&](const tbb::blocked_range<Index>&, Context& ctx) {
          std::deque<Sown> frames(kCompactBatch);  // the batch's, then one per depth (stable references)
          std::vector<Move> vmoves;
          for (std::size_t p; (p = next.fetch_add(1)) < pairs_.size() && !stopped();)
            for (std::size_t k = pairs_[p].first; k < pairs_[p].end; ++k) {
              if (pits_ == 12) compact_tile<6>(tiles_[k], frames, vmoves, ctx);
              else compact_tile<0>(tiles_[k], frames, vmoves, ctx);
              report(tiles_[k].positions, 0, 0);
            }
        });
        rounds_ = 1;
        cval_ = nullptr;
        if (finish_phase("all_reduce (acyclic pass)").stopped) return std::unexpected(stop_reason());
        if (kind_ == GameKind::Score) return out;  // one byte a value: these bytes
        return encode([&](std::size_t u) -> Value { return static_cast<S>(out[u]); });
      }
    }
    detail::fill_on_huge_pages(val_, static_cast<std::size_t>(local_), static_cast<S>(kUnset));
    // Positions go in batches: their own (scattered) slots are prefetched first.
    constexpr int kBatch = 16;
    parallel(local_, 4096, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
      Position batch[kBatch];
      S* slots[kBatch];
      int filled = 0;
      auto flush = [&] {
        for (int k = 0; k < filled; ++k)
          if (detail::load(*slots[k]) == kUnset && !stopped())
            detail::store(*slots[k], static_cast<S>(acyclic_value(batch[k], 0, ctx)));
        filled = 0;
        ctx.cache.release();  // no exit slot is held any more
      };
      index_.for_each(r.begin(), r.end(), [&](Index, const Position& u) {
        batch[filled] = rules_.Rules::rotate(u);
        if (!index_.allowed(batch[filled])) batch[filled] = u;  // a reachable set (or filter) need not hold it
        slots[filled] = &val_[static_cast<std::size_t>(index_.rank(batch[filled]))];
        __builtin_prefetch(slots[filled]);
        if (++filled == kBatch) flush();
      });
      flush();
      report(r.size(), 0, 0);
    });
    rounds_ = 1;
    if (finish_phase("all_reduce (acyclic pass)").stopped) return std::unexpected(stop_reason());
    return encode([&](std::size_t u) -> Value { return val_[u]; });
  }
  // The value of p, its in-class children's values computed first (and kept). The
  // children's slots are found (and prefetched) before any is read, so their cache
  // misses overlap.
  Value acyclic_value(const Position& p, int depth, Context& ctx) {
    if (depth >= kMaxDepth) {
      fail("in-class moves of " + rules_.name() + " repeat a position: the acyclic method cannot solve it");
      return 0;
    }
    if (ctx.stack.size() <= static_cast<std::size_t>(depth)) ctx.stack.emplace_back().reserve(16);
    Frame& f = ctx.stack[static_cast<std::size_t>(depth)];
    rules_.Rules::children(p, f.kids);
    if (f.kids.empty()) return rules_.Rules::terminal_value(p);
    f.slots.clear();
    f.tags.clear();
    for (const Child& c : f.kids) {
      const void* at = nullptr;
      std::uint8_t tag = kOther;
      if (in_class(c)) {
        at = &val_[static_cast<std::size_t>(index_.rank(c.next))];
        tag = kInClass;
      } else if (!c.game_over) {
        int width = 0;
        at = exit_slot(c, ctx, width);
        if (at) tag = width == 1 ? kExit1 : kExit2;
      }
      if (at) __builtin_prefetch(at);
      f.slots.push_back(at);
      f.tags.push_back(tag);
    }
    Value best = kNone;
    for (std::size_t k = 0; k < f.kids.size(); ++k) {
      const Child& c = f.kids[k];
      Value x;
      if (f.tags[k] == kInClass) {
        ++ctx.in_moves;
        auto& slot = *static_cast<S*>(const_cast<void*>(f.slots[k]));
        Value cv = detail::load(slot);
        if (cv == kUnset) {
          cv = acyclic_value(c.next, depth + 1, ctx);
          detail::store(slot, static_cast<S>(cv));
        }
        x = neg(cv);
      } else if (f.tags[k] != kOther) {  // an exit found in its class: read where it was prefetched
        ++ctx.exits;
        x = move_value(kind_, c, read_value(static_cast<const std::uint8_t*>(f.slots[k]), f.tags[k] == kExit1 ? 1 : 2));
      } else {
        x = exit_value(c, ctx);  // game over, or a class missing (an error)
      }
      if (stopped()) return 0;
      best = std::max(best, x);
    }
    return best;
  }

  // ---- Acyclic kernel on compact boards (rules that sow without marks: Kalah) ------
  //
  // Picked once per class when the rules type gives the moves of one side alone
  // (Rules::side_move(side, pit) and captures(facing seeds): kalah.h), values are
  // bytes (score games), the class index is the plain distribution rank and every
  // lower class 0..n-1 is solved with a plain index. Otherwise acyclic_value() above
  // runs. Per child there is no Child, no class_of, no class look-up, no full rank:
  //  * a side is a word, pit k in byte k (m <= 8 pits); a position is (mover's side,
  //    other side), the board of rank rank(mover | other);
  //  * a child's class is the parent's n seeds less the move's gain (seeds sown into
  //    the store or captured): gain 0 stays in the class; otherwise the values of
  //    class n - gain are a plain byte array, lower_[n - gain];
  //  * ranks, one look-up per pit: the telescoped rank of index.h
  //    (DistributionIndex::steps), rank(x) = sum_{j < P} E(j, s_j) with s_j = x_j +
  //    ... + x_{P-1} (s_0 = n); E does not depend on the class, so the table of the
  //    class being solved ranks the children in the lower classes too. A rank is
  //    head + tail: head(mover) sums the pits j < m (from s_0 = the board's seeds),
  //    tail(other) the pits m..P-1 (from s_m = the other side's seeds).
  //    Worked example (m = 2, P = 4, n = 3): parent (1,1 | 0,1), South sows pit 0:
  //    S' = (0,2), child (0,1 | 0,2), s = (3,3,2,2). B(0,s) = binom(s+3,3), B(1,s) =
  //    binom(s+2,2), B(2,s) = s+1. head(0,1) = E(0,3) + E(1,3) = 20 + (10 - 20) =
  //    10; tail(0,2) = E(2,2) + E(3,2) = (3 - 6) - 3 = -6: rank 4, the fifth
  //    distribution of 3 seeds over 4 pits in lexicographic order: (0,0,0,3)
  //    (0,0,1,2) (0,0,2,1) (0,0,3,0) (0,1,0,2).
  //  * the moves of a side (Move: side_move() and what its ranks need) are found
  //    once per side and serve every position of a tile with that mover: a move from
  //    (x | y) leaves own on the mover's side and y + other on the other, so a child
  //    costs an addition, the capture test and, for an exit that turns the board, the
  //    head of its mover y + other (its tail, tail(own), is the move's);
  //  * the pass goes tile by tile (compact_tile below), in batches of kCompactBatch
  //    positions: every child slot of the batch's unknown positions is found and
  //    prefetched before any is read (the lower classes are read at random).
  static constexpr bool kCompactRules =
      requires(const Rules& r, std::uint64_t x) {
        r.side_move(x, 0);
        r.captures(0);
      } && std::is_same_v<S, std::int8_t>;
  static constexpr int kSide = 8;  // pits a side (16-pit boards)
  static constexpr int kCompactBatch = 32;
  static constexpr int kTile = 64;  // sides v per tile (compact_tile)
  struct Move {  // one move of a side: side_move(), and the ranks it fixes
    std::uint64_t own = 0, other = 0;  // the mover's side after it; what it sows on the other
    Index tail_own = 0, tail_cap = 0;  // tail(own); tail(own, pit `last` emptied): a capture
    Index head_again = 0;              // head(own) from n - store seeds (it ends in the store)
    std::int16_t store = 0;
    std::int8_t last = -1;  // as in side_move()
    bool again = false;
    // r > 0: the move sows one seed into each of the other side's pits 0..r-1 and one
    // into the store, and ends there (no lap, no capture, no move again): gain 1, the
    // child (y + ones(r) | own), whose head is heads[r] of the other side y (heads()).
    std::int8_t ones = 0;
  };
  struct Sown {  // one position's children: found and prefetched before any is read
    const S* at[kSide];  // each child's value: in cval_ (gain 0) or in a lower class
    Index tail[kSide];   // each child's tail
    std::int16_t gain[kSide];
    bool again[kSide];
    std::uint64_t mover = 0, other = 0;  // the position
    const Move* moves = nullptr;         // its mover's moves (one per child)
    Move own_moves[kSide];               // a recursion's moves
    int count = 0;  // 0: the game is over
  };

  // The kernel's tables when it applies to this class (see above).
  bool compact_ready() {
    if constexpr (!kCompactRules) {
      return false;
    } else {
      if (!index_.plain_distribution() || rules_.pits() > 2 * kSide) return false;
      const int n = index_.key().seeds;
      lower_.assign(static_cast<std::size_t>(n), nullptr);
      for (int c = 0; c < n; ++c) {
        const ClassValues* v = solved_.find(ClassKey{index_.key().state, c});
        if (!v || !v->whole() || v->width() != 1 || !v->index().plain_distribution()) return false;  // paged: acyclic_value()
        lower_[static_cast<std::size_t>(c)] = reinterpret_cast<const S*>(v->bytes().data());
      }
      pits_ = rules_.pits();
      steps_ = index_.distribution().steps();  // E(j, s) of index.h, for s <= n: every lower class's too
      stride_ = index_.distribution().stride();
      return true;
    }
  }
  // sum_{from <= j < from + count} E(j, s_j), s_from = s and s_{j+1} = s_j - x_j, for
  // the pits x_from.. in the bytes of w (byte k: x_{from+k}; count <= 8). The seeds
  // before each pit are w's prefix sums, found at once: byte k of (w * 0x0101..01) << 8
  // is x_from + ... + x_{from+k-1} (no carry: a board holds fewer than 256 seeds), so
  // the look-ups do not wait for each other (pit by pit, each one waited for the last).
  // Example (the worked one above): head(0,1) with s = 3: w = bytes (0, 1), prefix
  // bytes (0, 0, 1, ..): s_0 = 3 - 0, s_1 = 3 - 0: E(0, 3) + E(1, 3) = 10.
  // M: the pits a side (count = M), or 0 for count = side_pits<0>() found at run time:
  // the kernel is compiled for M = 6 (Kalah(6)) apart, its loops then of a fixed length
  // (picked once, in acyclic()).
  template <int M>
  Index digits(std::uint64_t w, int from, int s) const {
    const int count = side_pits<M>();
    const std::uint64_t before = (w * 0x0101010101010101ULL) << 8;
    const Index* e = steps_ + static_cast<std::size_t>(from) * stride_;
    Index r = 0;
    for (int k = 0; k < count; ++k, e += stride_) r += e[s - static_cast<int>((before >> (8 * k)) & 0xFF)];
    return r;
  }
  template <int M>
  int side_pits() const {
    if constexpr (M > 0) return M;
    else return pits_ / 2;
  }
  static int seeds_of(std::uint64_t w) { return static_cast<int>((w * 0x0101010101010101ULL) >> 56); }
  static int pit_of(std::uint64_t w, int k) { return static_cast<int>((w >> (8 * k)) & 0xFF); }
  // The moves of side x as the mover's (n seeds on the board), one per non-empty pit.
  template <int M>
  int side_moves(std::uint64_t x, Move* out) const {
    const int m = side_pits<M>(), n = index_.key().seeds;
    int count = 0;
    for (int i = 0; i < m; ++i) {
      if (pit_of(x, i) == 0) continue;
      const auto s = rules_.Rules::side_move(x, i);
      Move& d = out[count++];
      d.own = s.own;
      d.other = s.other;
      d.store = static_cast<std::int16_t>(s.store);
      d.last = static_cast<std::int8_t>(s.last);
      d.again = s.again;
      const int seeds = seeds_of(s.own);
      d.tail_own = digits<M>(s.own, m, seeds);
      d.tail_cap = s.last >= 0 ? digits<M>(s.own & ~(std::uint64_t{0xFF} << (8 * s.last)), m, seeds - 1) : 0;
      d.head_again = s.again ? digits<M>(s.own, 0, n - s.store) : 0;
      d.ones = 0;
      if (!s.again && s.last < 0 && s.store == 1 && s.other != 0) {
        const int r = static_cast<int>((std::bit_width(s.other) + 7) / 8);
        if (r <= m && s.other == ones_word(r)) d.ones = static_cast<std::int8_t>(r);
      }
    }
    return count;
  }
  // Bytes 0..r-1 set to 1 (0 < r <= 8).
  static std::uint64_t ones_word(int r) { return 0x0101010101010101ULL >> (8 * (8 - r)); }
  // The heads of the children in lower classes that most moves of a mover facing y
  // have, found once for the positions of a tile that face y (the rank of each such
  // child took one look-up per pit), kHeads of them:
  //   out[r] = head(y + ones(r)) from n - 1 seeds, r = 1..m: a move of `ones` = r;
  //   out[kSide + 1 + f] = head(y with pit f emptied) from n - 1 - y_f: a capture of
  //   pit f by a move that sowed nothing on y (gain y_f + 1; no seed reached the store).
  // Only those a child can have are written (|y| + r <= n - 1; |y| <= n - 1 for the
  // captures: the mover has a seed); no move reads the others. Example (m = 2, n = 3,
  // the worked one of the ranks): y = (0,1): out[1] = head(1,1) from 2 = E(0, 2) +
  // E(1, 1); out[kSide + 2] (pit 1 captured) = head(0,0) from 1 = E(0, 1) + E(1, 1).
  static constexpr int kHeads = 2 * kSide + 1;
  template <int M>
  void heads(std::uint64_t y, Index* out) const {
    const int m = side_pits<M>(), n = index_.key().seeds, ys = seeds_of(y);
    for (int r = 1; r <= std::min(m, n - 1 - ys); ++r) out[r] = digits<M>(y + ones_word(r), 0, n - 1);
    if (ys <= n - 1)
      for (int f = 0; f < m; ++f)
        out[kSide + 1 + f] = digits<M>(y & ~(std::uint64_t{0xFF} << (8 * f)), 0, n - 1 - pit_of(y, f));
  }
  // Finds the slots of the children of (mover x, other y) and prefetches them: `own`
  // is tail(y), `prefix` head(y) from n (the in-class children's head), `moves` x's.
  // `yheads`: heads() of y, or null (found here).
  template <int M>
  void expand(std::uint64_t x, std::uint64_t y, Index own, Index prefix, const Move* moves, int count,
              const Index* yheads, Sown& f) const {
    f.mover = x;
    f.other = y;
    f.moves = moves;
    f.count = 0;
    if (x == 0 || y == 0) return;  // the game is over
    const int m = side_pits<M>(), n = index_.key().seeds;
    for (int k = 0; k < count; ++k) {
      const Move& d = moves[k];
      std::uint64_t y1 = y + d.other;  // no byte overflows (fewer than 256 seeds)
      int gain = d.store;
      Index tail;
      const S* at;
      if (d.again) {  // (own | y1), n - store seeds
        tail = d.other == 0 ? own : digits<M>(y1, m, seeds_of(y1));
        at = lower_[static_cast<std::size_t>(n - gain)] + (d.head_again + tail);
      } else {  // turned: (y1 | own), after a capture if any
        tail = d.tail_own;
        int facing = -1;  // the pit captured
        if (d.last >= 0) {
          const int f1 = m - 1 - d.last, seeds = pit_of(y1, f1);
          if (rules_.Rules::captures(seeds)) {
            gain += seeds + 1;
            y1 &= ~(std::uint64_t{0xFF} << (8 * f1));
            tail = d.tail_cap;
            facing = f1;
          }
        }
        // The child's head: from heads() of y where it has it (a move of `ones`, a
        // capture of a move that sowed nothing on y), else pit by pit.
        Index head;
        if (gain == 0) head = prefix;  // y1 = y: head(y) from n, in the class
        else if (yheads && d.ones > 0) head = yheads[d.ones];
        else if (yheads && facing >= 0 && d.other == 0 && d.store == 0) head = yheads[kSide + 1 + facing];
        else head = digits<M>(y1, 0, n - gain);
        at = gain == 0 ? &cval_[static_cast<std::size_t>(head + tail)] : lower_[static_cast<std::size_t>(n - gain)] + (head + tail);
      }
      // Into the second-level cache (prefetcht1): the batch's reads are more than the
      // first level's misses in flight, which a prefetch into it waited for (the hottest
      // instruction of the kernel was the one after it). Kalah(6) up to 20, one thread,
      // ten alternated pairs: 2-3 % less time at the median, the same tables.
      __builtin_prefetch(at, 0, 2);
      f.at[k] = at;
      f.tail[k] = tail;
      f.gain[k] = static_cast<std::int16_t>(gain);
      f.again[k] = d.again;
    }
    f.count = count;
  }
  // The value of a position from its expanded children f; an unknown in-class child is
  // computed first (depth first, frames[depth] and up) and kept.
  template <int M>
  Value resolve(const Sown& f, int depth, std::deque<Sown>& frames, Context& ctx) {
    if (f.count == 0) {
      const int m = std::min(pits_ / 2, kSide);
      Position p;
      for (int k = 0; k < m; ++k) {
        p.pits[static_cast<std::size_t>(k)] = static_cast<Seeds>(pit_of(f.mover, k));
        p.pits[static_cast<std::size_t>(m + k)] = static_cast<Seeds>(pit_of(f.other, k));
      }
      return rules_.Rules::terminal_value(p);
    }
    Value best = kNone;
    for (int k = 0; k < f.count; ++k) {
      Value x;
      if (f.gain[k] == 0) {
        ++ctx.in_moves;
        S& slot = *const_cast<S*>(f.at[k]);
        Value v = detail::load(slot);
        if (v == kUnset) {  // only when the order of the tiles did not decide it first
          if (depth >= kCompactBatch + kMaxDepth) {
            fail("in-class moves of " + rules_.name() + " repeat a position: the acyclic method cannot solve it");
            return 0;
          }
          if (frames.size() <= static_cast<std::size_t>(depth)) frames.emplace_back();
          Sown& g = frames[static_cast<std::size_t>(depth)];
          const std::uint64_t x1 = f.other, y1 = f.moves[k].own;  // the child (y | own)
          const int count = side_moves<M>(x1, g.own_moves);
          expand<M>(x1, y1, f.tail[k], digits<M>(y1, 0, index_.key().seeds), g.own_moves, count, nullptr, g);
          v = resolve<M>(g, depth + 1, frames, ctx);
          detail::store(slot, static_cast<S>(v));
        }
        x = static_cast<Value>(-v);
      } else {  // a lower class: read only
        ++ctx.exits;
        const Value v = *f.at[k];
        x = static_cast<Value>(f.gain[k] + (f.again[k] ? v : -v));
      }
      best = std::max(best, x);
    }
    return best;
  }
  // The pass in tiles, in an order where every in-class child is decided before its
  // parent (the recursion of resolve() is then only a fallback). An in-class move
  // moves seeds only on the mover's side, towards its store: from (S, N) (mover's side
  // S, other side N) it goes to (N, S'), |S'| = |S|, S' before S in lexicographic
  // order (pit i emptied, later pits raised). Take seed counts a >= n - a, the sides v
  // of a seeds and u of n - a seeds, each numbered in lexicographic order, and on the
  // plane (u, v):
  //   P(u, v) = (S_u, N_v): its in-class children are Q(u', v), u' < u;
  //   Q(u, v) = (N_v, S_u): its in-class children are P(u, v'), v' < v.
  // A tile is up to kTile consecutive v of a seeds, times every u; the tiles of a pair
  // a, n - a go in order of v, each one u by u (ascending), and at each u first P(u, v)
  // for the tile's v, then Q(u, v): P(u, v) reads Q of a smaller u (earlier in the
  // tile), Q(u, v) reads P(u, v' < v) (this u's P, or an earlier tile's). For a = n - a
  // the two are one layer and Q(u, v) = P(v, u): every position is a P of one tile;
  // Q(u, v) is visited (for the order) from the tile's first v on (a smaller u: an
  // earlier tile's P) and skipped when known. The pairs of layers are independent:
  // one thread solves a pair's tiles in order, the threads take pairs largest first
  // (Kalah(6), 20 seeds: 11 pairs, the largest a = 11 and 9 with 17.5 M of the 84.7 M
  // positions).
  // Worked example (m = 2, n = 3, a = 2): v = 0, 1, 2 for (0,2) (1,1) (2,0), u = 0, 1
  // for (0,1) (1,0). P(1, 1) = (1,0 | 1,1) sows pit 0 to S' = (0,1): child (1,1 |
  // 0,1) = Q(0, 1), decided at u = 0. Q(1, 1) = (1,1 | 1,0) sows pit 0 to N' = (0,2):
  // child (1,0 | 0,2) = P(1, 0), decided just before it at u = 1.
  // Memory: at each u the tile's P(u, v) have consecutive ranks head(S_u) + tail(N_v)
  // (one cache line), its Q(u, v) ranks head(N_v) + tail(S_u) (kTile runs, each one
  // rank further per u); P's in-class children fall in the kTile blocks head(N_v) +
  // [0, C(n - a + m-1, m-1)), which stay in cache, Q's in P(u, v' < v) (this u's line,
  // or one line of an earlier tile: a miss, prefetched in the batch like the exits).
  // The moves of S_u are found once per u, those of the tile's N_v once per tile.
  struct Tile {
    int a = 0;              // seeds on the tile's sides v (a >= n - a)
    std::size_t first = 0;  // its first v in sides_[a]
    Index positions = 0;    // the positions it decides
  };
  struct Pair {
    std::size_t first = 0, end = 0;  // its tiles in tiles_
    Index positions = 0;
  };
  // sides_[a]: the distributions of a seeds over m pits in lexicographic order (one
  // word each, byte k: pit k); the tiles of the class, pair by pair, and the pairs,
  // largest first.
  void make_tiles() {
    const int m = pits_ / 2, n = index_.key().seeds;
    sides_.assign(static_cast<std::size_t>(n) + 1, {});
    for (int a = 0; a <= n; ++a) {
      Seeds x[kSide] = {};
      x[m - 1] = static_cast<Seeds>(a);  // the first: every seed in the last pit
      for (;;) {
        std::uint64_t w = 0;
        std::memcpy(&w, x, sizeof w);
        sides_[static_cast<std::size_t>(a)].push_back(w);
        int k = m - 1;  // the next distribution (ClassIndex::next)
        while (k > 0 && x[k] == 0) --k;
        if (k == 0) break;
        const int rest = x[k] - 1;
        x[k] = 0;
        ++x[k - 1];
        x[m - 1] = static_cast<Seeds>(rest);
      }
    }
    tiles_.clear();
    pairs_.clear();
    for (int a = n; 2 * a >= n; --a) {
      const std::size_t count = sides_[static_cast<std::size_t>(a)].size();
      const Index us = sides_[static_cast<std::size_t>(n - a)].size();
      const Index layers = 2 * a == n ? 1 : 2;  // A and B, or one layer
      for (std::size_t g = 0; g < count; g += kTile)
        tiles_.push_back(Tile{a, g, static_cast<Index>(std::min<std::size_t>(kTile, count - g)) * us * layers});
      pairs_.push_back(Pair{pairs_.empty() ? 0 : pairs_.back().end, tiles_.size(), count * us * layers});
    }
    std::stable_sort(pairs_.begin(), pairs_.end(), [](const Pair& x, const Pair& y) { return x.positions > y.positions; });
  }
  template <int M>
  void compact_tile(const Tile& t, std::deque<Sown>& frames, std::vector<Move>& vmoves, Context& ctx) {
    const int m = side_pits<M>(), n = index_.key().seeds;
    const auto& vs = sides_[static_cast<std::size_t>(t.a)];
    const auto& us = sides_[static_cast<std::size_t>(n - t.a)];
    const int g_count = static_cast<int>(std::min<std::size_t>(kTile, vs.size() - t.first));
    const bool square = 2 * t.a == n;
    const std::uint64_t* v = &vs[t.first];
    // head(x) = sum_{j < m} E(j, s_j) of a side x as the mover's (s_0 = n), tail(y) =
    // sum_{m <= j < P} E(j, s_j) of a side y as the other (s_m = |y|); v's moves.
    Index vhead[kTile], vtail[kTile], vheads[kTile][kHeads];
    int vcount[kTile];
    vmoves.resize(static_cast<std::size_t>(kTile) * kSide);
    for (int g = 0; g < g_count; ++g) {
      vhead[g] = digits<M>(v[g], 0, n);
      vtail[g] = digits<M>(v[g], m, t.a);
      vcount[g] = side_moves<M>(v[g], &vmoves[static_cast<std::size_t>(g) * kSide]);
      heads<M>(v[g], vheads[g]);
    }
    // The moves of u, by u modulo kCompactBatch + 1: a batch holds positions of at most
    // kCompactBatch consecutive u (each u adds one at least), so a slot is rewritten
    // only once no position of the batch reads it.
    Move umoves[kCompactBatch + 1][kSide];
    Index uheads[kCompactBatch + 1][kHeads];
    struct Entry {  // a position of the batch: (mover | other)
      std::uint64_t mover, other;
      S* own;           // its value
      Index own_tail;   // tail(other)
      Index prefix;     // head(other) from n
      const Move* moves;
      const Index* other_heads;  // heads() of other
      int count;
    };
    Entry batch[kCompactBatch];
    int filled = 0;
    auto flush = [&] {
      if (stopped()) {  // cancelled or failed: the rest of the tile is dropped
        filled = 0;
        return;
      }
      for (int k = 0; k < filled; ++k) {
        const Entry& e = batch[k];
        auto& f = frames[static_cast<std::size_t>(k)];
        if (detail::load(*e.own) == kUnset)
          expand<M>(e.mover, e.other, e.own_tail, e.prefix, e.moves, e.count, e.other_heads, f);
        else f.count = -1;  // known already
      }
      for (int k = 0; k < filled; ++k) {
        const auto& f = frames[static_cast<std::size_t>(k)];
        if (f.count < 0 || detail::load(*batch[k].own) != kUnset) continue;
        detail::store(*batch[k].own, static_cast<S>(resolve<M>(f, kCompactBatch, frames, ctx)));
      }
      filled = 0;
    };
    // (mover | other), of rank head(mover) + tail(other)
    auto add = [&](std::uint64_t mover, std::uint64_t other, Index mover_head, Index other_head, Index other_tail,
                   const Move* moves, const Index* other_heads, int count) {
      S* own = &cval_[static_cast<std::size_t>(mover_head + other_tail)];
      __builtin_prefetch(own, 0, 2);  // (into the second level: expand())
      batch[filled] = Entry{mover, other, own, other_tail, other_head, moves, other_heads, count};
      if (++filled == kCompactBatch) flush();
    };
    for (std::size_t k = 0; k < us.size(); ++k) {
      const std::uint64_t u = us[k];
      const Index uhead = digits<M>(u, 0, n), utail = digits<M>(u, m, n - t.a);
      const Move* um = umoves[k % (kCompactBatch + 1)];
      const int ucount = side_moves<M>(u, umoves[k % (kCompactBatch + 1)]);
      for (int g = 0; g < g_count; ++g)  // P(u, v)
        add(u, v[g], uhead, vhead[g], vtail[g], um, vheads[g], ucount);
      if (square && k < t.first) continue;  // Q(u, v) = P(v, u) of an earlier tile
      Index* uh = uheads[k % (kCompactBatch + 1)];
      heads<M>(u, uh);
      for (int g = 0; g < g_count; ++g)  // Q(u, v)
        add(v[g], u, vhead[g], uhead, utail, &vmoves[static_cast<std::size_t>(g) * kSide], uh, vcount[g]);
    }
    flush();
  }

  // ---- Sweeps: one code per position, ghost codes of other ranks ------------------
  //
  // The sweeps iterate a lower bound lo and an upper bound hi of every position
  // (lo = max(best exit, max over in-class children of -hi), hi = the same over -lo),
  // from (-bound, bound), until a sweep changes nothing. The value read at the end is
  // lo if lo > 0, hi if hi < 0, else 0 (a drawn cycle). That value needs only
  // lo+ = max(lo, 0) and hi- = min(hi, 0), and these need only their children's:
  // with w = lo+ if lo+ > 0, else hi- (never both non-zero), a visit sets
  //   m = max(e, max over in-class children c of -w_c),   e = the best exit,
  //   w = max(w, m) if w > 0,  min(w, m) if w < 0,  m if w = 0,
  // the bounds' iteration seen through the value: it reaches the same fixpoint, so
  // the same values (every table byte-identical to the two bounds of one byte each
  // per position before). A later sweep does not read the exits again, so e is kept
  // while w <= 0 (b; a positive e is in w). One code per position holds w, b and
  // whether w is final (SweepCodes, retrograde.h, with a worked example): one byte up
  // to bound 18 (Cenne 7:7 up to 18, Kotu-baendum up to 16), against two. A position
  // is final when its in-class children all are, or when its children's lower bounds
  // (SweepCodes::low) say none can be worth more than w to it; sweeps after the first
  // visit only the positions still open (a bitmap, one bit per position). The
  // original bounds closed some positions earlier (a negative lo is not kept): Kotu-
  // baendum up to 11, one thread, 3,598 sweeps against 3,548, 6 % more time.
  //
  // A position's in-class children are all ranked and their codes prefetched before
  // any is read, so their cache misses overlap.
  //
  // Kept ranks. After sweep 0 a position is visited for its in-class children only
  // (the exits are in its code), and every later sweep would play its moves again to find
  // them (Kotu-baendum up to 11 seeds: 59 % of the visits are in later sweeps, and
  // the rules' work - sowing, turning, class and rank of each child - is 64 % of the
  // time). So the ranks of the in-class children of the open positions are kept, per
  // piece of kPieceWords bitmap words, as a list in the order of the open bits:
  //   counts = (c_0, c_1, ...), ranks = (r_0_1 .. r_0_c0, r_1_1 .. r_1_c1, ...)
  // for the open positions u_0 < u_1 < ... of the piece. A sweep then walks the open
  // bits and the list together, and keeps (moves down, in place) the entries of the
  // positions still open, so the list stays the open bits' list. Example: open bits
  // {3, 9, 12} with in-class children {7, 8}, {2}, {5, 7, 30}: counts (2, 1, 3),
  // ranks (7, 8, 2, 5, 7, 30); position 9 closes in the sweep: counts (2, 3), ranks
  // (7, 8, 5, 7, 30). The lists take 1 + 4c bytes per open position with c in-class
  // children, at most SolveOptions::rank_cache_bytes in all: a piece that does not
  // fit plays its moves as before, and takes its list in a later sweep when the
  // lists have shrunk enough. Its children's codes are prefetched kAhead list
  // entries before they are read. Same values: the same children, read in the same
  // order.
  //
  // Under a memory budget (generate) sweep 0 has little room: the lower classes its
  // exits read fill the budget. So (SolveOptions::spill_dir) sweep 0 writes the lists
  // that do not fit to a spill file, piece after piece at offsets taken from a
  // counter, and after it (SolveOptions::exits_read) generate frees the lower
  // classes, which no later sweep reads: sweep 1 reads each list back, walks it and
  // keeps what is left in the room freed. Kotu-baendum's 5 largest classes of 16
  // seeds (60.8 M and 67.9 M positions) at 1 GiB, 2 threads: 150 s with sweep 1
  // playing the moves again, 100 s with the lists from the file, 92 s with no bound.
  //
  // With distances (SolveOptions::kept_children) the lists are the distances' first
  // pass's in-class children (distances.h), which then plays no move: a piece kept
  // from sweep 0 on also keeps, in `closed` (KeptChildren::Piece, its offsets in the
  // piece beside them), the entry of each position as it closes (sweep 0: those worth
  // other than 0 that the distances need), and what is still open at the end joins
  // them. The open lists, which the sweeps walk, stay as short as without; the room
  // the closed entries hold counts in rank_cache_bytes. A piece not kept in sweep 0
  // (no room, spilled) is not listed: the distances play its moves.
  static constexpr Index kPieceWords = 64;  // 4,096 positions
  static_assert(kPieceWords * 64 == KeptChildren::kPiece, "a kept piece is a piece of KeptChildren");
  static constexpr std::size_t kAhead = 16;
  struct Piece {
    std::vector<std::uint8_t> counts;
    std::vector<std::uint32_t> ranks;
    bool kept = false;
    bool spilled = false;  // its list of sweep 0 is in the spill file: counts, then ranks
    std::uint64_t spill_at = 0;
    std::uint32_t spill_counts = 0, spill_ranks = 0;
    KeptChildren::Piece closed;  // with distances: the entries of the positions closed (listed: kept since sweep 0)
    std::uint64_t bytes() const { return counts.capacity() + ranks.capacity() * sizeof(std::uint32_t); }
  };
  // Whether closed position u (local) of a listed piece needs its entry for the
  // distances: not when it is worth 0 or its best exit is its (positive) value.
  template <class C>
  bool needs_entry(Index u) {
    const auto v = static_cast<Value>(sc_.value(codes<C>()[static_cast<std::size_t>(u)]));
    return v != 0 && !(v > 0 && best_exit_[static_cast<std::size_t>(u)] == v);
  }
  // Adds the entry of local position u (in piece w0 / kPieceWords) to `to`.
  static void add_entry(KeptChildren::Piece& to, Index u, Index w0, const std::uint32_t* ranks, std::size_t count) {
    to.at.push_back(static_cast<std::uint16_t>(u - w0 * 64));
    to.counts.push_back(static_cast<std::uint8_t>(count));
    to.ranks.insert(to.ranks.end(), ranks, ranks + count);
  }
  // Takes the list just built for a piece if it fits in what is left of the budget
  // (sweep 0 with distances: with the entries of the positions it closed, `closed`).
  void keep_ranks(Piece& piece, std::vector<std::uint8_t>& counts, std::vector<std::uint32_t>& ranks,
                  const KeptChildren::Piece* closed = nullptr) {
    std::uint64_t need = counts.size() + ranks.size() * sizeof(std::uint32_t);
    if (closed) need += closed->at.size() * 2 + closed->counts.size() + closed->ranks.size() * sizeof(std::uint32_t);
    std::uint64_t used = rank_bytes_.load(std::memory_order_relaxed);
    do {
      if (used + need > rank_cap_) return;
    } while (!rank_bytes_.compare_exchange_weak(used, used + need, std::memory_order_relaxed));
    piece.counts.assign(counts.begin(), counts.end());  // exact sizes
    piece.ranks.assign(ranks.begin(), ranks.end());
    piece.kept = true;
    if (closed) {
      piece.closed.at.assign(closed->at.begin(), closed->at.end());
      piece.closed.counts.assign(closed->counts.begin(), closed->counts.end());
      piece.closed.ranks.assign(closed->ranks.begin(), closed->ranks.end());
      piece.closed.listed = true;
    }
  }
  // Writes the list of sweep 0 that did not fit in memory to the spill file.
  void spill_ranks(Piece& piece, const std::vector<std::uint8_t>& counts, const std::vector<std::uint32_t>& ranks) {
    const std::uint64_t bytes = counts.size() + ranks.size() * sizeof(std::uint32_t);
    const std::uint64_t at = spill_end_.fetch_add(bytes, std::memory_order_relaxed);
    auto w = spill_->write(at, std::as_bytes(std::span(counts)));
    if (w) w = spill_->write(at + counts.size(), std::as_bytes(std::span(ranks)));
    if (!w) return fail(w.error().message, w.error().code);
    piece.spilled = true;
    piece.spill_at = at;
    piece.spill_counts = static_cast<std::uint32_t>(counts.size());
    piece.spill_ranks = static_cast<std::uint32_t>(ranks.size());
  }

  Result<Bytes> sweeps() {
    sc_ = SweepCodes(bound_);
    switch (sc_.bytes) {
      case 1: return sweeps_with<std::uint8_t>();
      case 2: return sweeps_with<std::uint16_t>();
      default: return sweeps_with<std::uint32_t>();
    }
  }
  template <class C>
  Result<Bytes> sweeps_with() {
    const auto K = static_cast<std::size_t>(ranks_);
    auto& codes = this->codes<C>();
    detail::fill_on_huge_pages(codes, static_cast<std::size_t>(local_), static_cast<C>(sc_.start()));  // read at random
    open_.assign(static_cast<std::size_t>(local_ / 64 + 1), 0);
    const Index words = open_.size();
    const Index pieces = (words + kPieceWords - 1) / kPieceWords;
    pieces_.assign(static_cast<std::size_t>(pieces), Piece{});
    rank_bytes_.store(0);
    rank_cap_ = opt_.rank_cache_bytes;
    const bool keep = n_ <= std::numeric_limits<std::uint32_t>::max();  // ranks kept in 32 bits
    spill_end_.store(0);
    if (keep && !opt_.spill_dir.empty()) {
      if (auto f = TempFile::create(opt_.spill_dir, "the kept ranks of class " + to_string(index_.key(), rules_.pits())))
        spill_ = std::move(*f);
      else
        fail(f.error().message, f.error().code);  // every rank stops at the end of sweep 0
    }
    // The ghosts each rank reads, as bitmaps of the other slices while sweep 0 finds
    // them (1/8 byte a position of the class), then as GhostSets (ghost_set.h). They
    // come out of the kept ranks' room (rank_cache_bytes), as do, from sweep 1 on,
    // the sets, the ghosts' codes and the codes sent each sweep (send_ghosts).
    ghost_build_.clear();
    ghosts_.assign(K, {});
    serve_.assign(K, {});
    ghost_codes_.assign(K, {});
    std::uint64_t ghost_charge = 0, cap = rank_cap_;
    auto charge = [&](std::uint64_t bytes) {
      ghost_charge = bytes;
      rank_cap_ = cap > bytes ? cap - bytes : 0;
    };
    if (K > 1)
      for (std::size_t o = 0; o < K; ++o) {
        const auto [first, end] = chunk(n_, ranks_, o);
        ghost_build_.emplace_back(o == static_cast<std::size_t>(me_) ? 0 : end - first);
        ghost_charge += ghost_build_.back().bytes();
      }
    charge(ghost_charge);
    outbox_.assign(K, {});
    std::uint64_t undecided = local_;
    int round = 0;
    if (const int done = tr_.resume(Method::Sweeps, bytes_of(codes), sizeof(C)); done >= 0) {
      // A checkpoint after sweep `done`: the open positions are those not final, and
      // the ghosts (this rank's partition may differ from the checkpoint's) are
      // listed again from their in-class children.
      round = done + 1;
      drop_exits();  // sweep 0 is not run again
      undecided = 0;
      for (Index u = 0; u < local_; ++u)
        if (!sc_.is_final(codes[static_cast<std::size_t>(u)])) {
          open_[static_cast<std::size_t>(u / 64)] |= std::uint64_t{1} << (u % 64);
          ++undecided;
        }
      if (K > 1) find_ghosts<C>();
    } else {
      codes.assign(static_cast<std::size_t>(local_), static_cast<C>(sc_.start()));
    }
    const int ghosts_sent = std::max(round, 1);  // the first sweep that reads ghosts
    for (;; ++round) {
      if (K > 1 && round == ghosts_sent) {
        charge(send_ghosts<C>());  // (the bitmaps of sweep 0 are gone)
      }
      if (K > 1 && round >= 1) refresh_ghosts<C>();
      done_.store(0);
      // Tasks own whole pieces: positions 64 kPieceWords k .. 64 kPieceWords (k + 1) - 1.
      parallel(pieces, 1, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
        std::vector<std::uint8_t> counts;  // the list of a piece not kept yet
        std::vector<std::uint32_t> ranks;
        KeptChildren::Piece closed;  // sweep 0 with distances: the entries of the positions it closes
        for (Index k = r.begin(); k < r.end(); ++k) {
          Piece& piece = pieces_[static_cast<std::size_t>(k)];
          const Index w0 = k * kPieceWords, w1 = std::min(words, w0 + kPieceWords);
          const Index from = w0 * 64, to = std::min<Index>(w1 * 64, local_);
          // Sweep 0 lists every piece when what does not fit can go to the spill file.
          const bool build = keep && !piece.kept && !(round > 0 && piece.spilled) &&
                             (rank_bytes_.load(std::memory_order_relaxed) < rank_cap_ || (round == 0 && spill_));
          counts.clear();
          ranks.clear();
          const bool list_closed = kept_ && build && round == 0;
          if (list_closed) {
            closed.at.clear();
            closed.counts.clear();
            closed.ranks.clear();
          }
          auto record = [&] {  // p stays open: its in-class children are ctx.ranks
            if (!build) return;
            counts.push_back(static_cast<std::uint8_t>(std::min<std::size_t>(ctx.ranks.size(), 255)));
            for (Index ci : ctx.ranks) ranks.push_back(static_cast<std::uint32_t>(ci));
          };
          if (round == 0) {
            index_.for_each(begin_ + from, begin_ + to, [&](Index g, const Position& p) {
              const Index u = g - begin_;
              if (sweep_position<C>(u, p, true, ctx)) {
                open_[static_cast<std::size_t>(u / 64)] |= std::uint64_t{1} << (u % 64);
                record();
              } else if (list_closed && best_exit_[static_cast<std::size_t>(u)] != kExitNoMove && !ctx.ranks.empty() &&
                         needs_entry<C>(u)) {  // (ctx.ranks: this position's, it has moves)
                closed.at.push_back(static_cast<std::uint16_t>(u - w0 * 64));
                closed.counts.push_back(static_cast<std::uint8_t>(std::min<std::size_t>(ctx.ranks.size(), 255)));
                for (Index ci : ctx.ranks) closed.ranks.push_back(static_cast<std::uint32_t>(ci));
              }
            });
          } else if (piece.kept) {
            sweep_kept<C>(piece, w0, w1, ctx);
          } else if (piece.spilled) {
            sweep_spilled<C>(piece, w0, w1, ctx);
          } else {
            Position p;
            Index at = local_;  // the index of p (local_: none yet)
            for (Index w = w0; w < w1; ++w) {
              std::uint64_t& word = open_[static_cast<std::size_t>(w)];
              for (std::uint64_t bits = word; bits; bits &= bits - 1) {
                const Index u = w * 64 + static_cast<Index>(std::countr_zero(bits));
                if (at < u && u - at <= 4) {  // a few steps of next() cost less than an unrank
                  for (; at < u; ++at) index_.next(p);
                } else {
                  p = index_.unrank(begin_ + u);
                  at = u;
                }
                if (sweep_position<C>(u, p, false, ctx))
                  record();
                else
                  word &= ~(std::uint64_t{1} << (u % 64));
              }
            }
          }
          if (build && !stopped() && std::find(counts.begin(), counts.end(), std::uint8_t{255}) == counts.end() &&
              !(list_closed && std::find(closed.counts.begin(), closed.counts.end(), std::uint8_t{255}) != closed.counts.end())) {
            keep_ranks(piece, counts, ranks, list_closed ? &closed : nullptr);
            if (!piece.kept && round == 0 && spill_ && !counts.empty()) spill_ranks(piece, counts, ranks);
          }
          report(to > from ? to - from : 0, round, undecided);
        }
      });
      if (round == 0) tr_.after_first_pass();
      const Tally t = finish_phase("all_reduce (sweep)");
      if (t.stopped) return std::unexpected(stop_reason());
      undecided = t.open;
      // A sweep that changes no value on any rank is the fixpoint (ghosts hold the
      // codes of the sweep before: such a sweep read current ones).
      if ((round >= 1 && t.changed == 0) || t.open == 0) break;
      if (round == 0 && opt_.exits_read) {  // later sweeps read no exit: more room for kept ranks
        if (auto more = opt_.exits_read(); !more)
          fail(more.error().message, more.error().code);  // every rank stops at the next phase
        else
          cap = std::max(cap, *more);
        charge(ghost_charge);
      }
      tr_.checkpoint(Method::Sweeps, round, bytes_of(codes), sizeof(C));
    }
    rounds_ = round + 1;
    if (kept_) list_children<C>();
    std::vector<Piece>().swap(pieces_);
    spill_.reset();
    // The kept ranks are many small arrays: given back before the values are encoded
    // (Cenne 7:7 up to 18 at 1 GiB peaked at 1,240 MiB with them still resident).
    if (keep) detail::give_back_freed_memory();
    return encode([&](std::size_t u) -> Value { return sc_.value(codes[u]); });
  }

  // With distances: each listed piece's entries, those of the positions still open
  // (in the order of the open bits) after those closed, to SolveOptions::kept_children.
  template <class C>
  void list_children() {
    kept_->pieces.assign(pieces_.size(), {});
    const Index words = open_.size();
    parallel(pieces_.size(), 16, [&](const tbb::blocked_range<Index>& r, Context&) {
      for (Index k = r.begin(); k < r.end(); ++k) {
        Piece& piece = pieces_[static_cast<std::size_t>(k)];
        if (!piece.closed.listed) continue;
        const Index w0 = k * kPieceWords, w1 = std::min(words, w0 + kPieceWords);
        std::size_t read = 0, entry = 0;
        for (Index w = w0; w < w1; ++w)
          for (std::uint64_t bits = open_[static_cast<std::size_t>(w)]; bits; bits &= bits - 1) {
            const Index u = w * 64 + static_cast<Index>(std::countr_zero(bits));
            const std::size_t c = piece.counts[entry++];
            if (needs_entry<C>(u)) add_entry(piece.closed, u, w0, piece.ranks.data() + read, c);
            read += c;
          }
        std::vector<std::uint8_t>().swap(piece.counts);
        std::vector<std::uint32_t>().swap(piece.ranks);
        kept_->pieces[static_cast<std::size_t>(k)] = std::move(piece.closed);
      }
    });
  }

  // A resumed class: the ghosts of the open positions (their in-class children owned
  // by other ranks, which the later sweeps read), listed as sweep 0 lists them.
  template <class C>
  void find_ghosts() {
    parallel(local_, 4096, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
      index_.for_each(begin_ + r.begin(), begin_ + r.end(), [&](Index g, const Position& p) {
        const Index u = g - begin_;
        if (!((open_[static_cast<std::size_t>(u / 64)] >> (u % 64)) & 1)) return;
        rules_.Rules::children(p, ctx.kids);
        for (const Child& c : ctx.kids) {
          if (!in_class(c)) continue;
          const Index ci = index_.rank(c.next);
          if (mine(ci)) continue;
          const std::size_t o = owner(ci);
          ghost_build_[o].set(static_cast<Offset>(ci - chunk_start(n_, ranks_, o)));
        }
      });
    });
  }

  // After sweep 0 (or a resumed class's find_ghosts): each rank's ghosts in this
  // rank's slice (serve_) from the sets the others found. Returns the bytes the ghosts
  // hold from then on: the sets both ways, and the codes received and sent each sweep
  // (refresh_ghosts; one-byte codes once each, wider ones twice: packed copies).
  template <class C>
  std::uint64_t send_ghosts() {
    const auto K = static_cast<std::size_t>(ranks_);
    std::vector<std::vector<Offset>> ask(K), in;
    for (std::size_t o = 0; o < K; ++o) {
      ghosts_[o] = std::move(ghost_build_[o]).finish();
      if (o != static_cast<std::size_t>(me_)) ask[o] = ghosts_[o].to_wire();
    }
    std::vector<GhostSet::Builder>().swap(ghost_build_);
    tr_.exchange(ask, in, sizeof(Offset), "all_to_all (ghost lists)");
    std::uint64_t held = 0;
    const std::uint64_t copies = sizeof(C) == 1 ? 1 : 2;  // wider codes: packed and unpacked copies
    for (std::size_t r = 0; r < K; ++r) {
      if (r == static_cast<std::size_t>(me_)) continue;
      try {
        serve_[r] = GhostSet::from_wire(in[r], static_cast<std::uint64_t>(local_));
      } catch (const std::exception& e) {
        fail(e.what());  // every rank stops at the end of the sweep
      }
      std::vector<Offset>().swap(in[r]);
      held += ghosts_[r].bytes() + serve_[r].bytes() + copies * (ghosts_[r].count() + serve_[r].count()) * sizeof(C);
    }
    return held;
  }

  // The current codes of the positions other ranks read.
  template <class C>
  void refresh_ghosts() {
    const auto K = static_cast<std::size_t>(ranks_);
    const auto& codes = this->codes<C>();
    std::vector<std::vector<C>> out(K), in;
    for (std::size_t r = 0; r < K; ++r) {
      if (r == static_cast<std::size_t>(me_)) continue;
      out[r].reserve(static_cast<std::size_t>(serve_[r].count()));
      serve_[r].for_each([&](Offset u) { out[r].push_back(codes[u]); });
    }
    // The codes of the sweep before are all replaced: let go of them before the new
    // ones arrive (one-byte codes are then moved in, not copied).
    for (auto& g : ghost_codes_) std::vector<std::uint8_t>().swap(g);
    tr_.exchange(out, in, sizeof(C), "all_to_all (ghost codes)");
    for (std::size_t r = 0; r < K; ++r) {
      if (r == static_cast<std::size_t>(me_)) continue;
      if (in[r].size() != ghosts_[r].count()) {
        fail("rank " + std::to_string(r) + " sent " + std::to_string(in[r].size()) + " ghost codes, not " +
             std::to_string(ghosts_[r].count()));
        in[r].resize(static_cast<std::size_t>(ghosts_[r].count()));  // read until every rank stops
      }
      if constexpr (std::is_same_v<C, std::uint8_t>) {
        ghost_codes_[r].swap(in[r]);
      } else {
        ghost_codes_[r].resize(in[r].size() * sizeof(C));
        if (!in[r].empty()) std::memcpy(ghost_codes_[r].data(), in[r].data(), in[r].size() * sizeof(C));
        std::vector<C>().swap(in[r]);
      }
    }
  }

  // The code of in-class child ci: here, or a ghost (sweep 0: the start, and asked for).
  template <class C>
  C child_code(Index ci, bool first) {
    if (mine(ci)) return std::atomic_ref<C>(codes<C>()[static_cast<std::size_t>(ci - begin_)]).load(std::memory_order_relaxed);
    const std::size_t o = owner(ci);
    const auto off = static_cast<Offset>(ci - chunk_start(n_, ranks_, o));  // a slice holds under 2^32 (cluster.h)
    if (first) {
      ghost_build_[o].set(off);
      return static_cast<C>(sc_.start());
    }
    const std::size_t j = ghosts_[o].index_of(off);
    C code;
    std::memcpy(&code, ghost_codes_[o].data() + j * sizeof(C), sizeof(C));
    return code;
  }

  // A later sweep over the open positions of a kept piece (words w0..w1-1): the
  // bounds from the kept ranks, the list kept for those still open.
  template <class C>
  void sweep_kept(Piece& piece, Index w0, Index w1, Context& ctx) {
    const std::uint64_t before = piece.bytes() + piece.closed.bytes();
    sweep_list<C>(piece, w0, w1, ctx);
    if (piece.bytes() > 2 * (piece.counts.size() + piece.ranks.size() * sizeof(std::uint32_t)) + 256) {  // give the room back
      piece.counts.shrink_to_fit();
      piece.ranks.shrink_to_fit();
    }
    // (modulo 2^64: the closed entries, moved from the open list, may hold more than it gave back)
    rank_bytes_.fetch_sub(before - (piece.bytes() + piece.closed.bytes()), std::memory_order_relaxed);
  }
  // The same for a piece whose list sweep 0 wrote to the spill file: read back,
  // walked, then kept in memory if it fits (else the piece plays its moves again).
  template <class C>
  void sweep_spilled(Piece& piece, Index w0, Index w1, Context& ctx) {
    Piece list;
    list.counts.resize(piece.spill_counts);
    list.ranks.resize(piece.spill_ranks);
    piece.spilled = false;
    auto r = spill_->read(piece.spill_at, std::as_writable_bytes(std::span(list.counts)));
    if (r) r = spill_->read(piece.spill_at + piece.spill_counts, std::as_writable_bytes(std::span(list.ranks)));
    if (!r) return fail(r.error().message, r.error().code);
    sweep_list<C>(list, w0, w1, ctx);
    keep_ranks(piece, list.counts, list.ranks);
  }
  // Walks a piece's list (kept or read back) and the open bits together.
  template <class C>
  void sweep_list(Piece& piece, Index w0, Index w1, Context& ctx) {
    const std::size_t total = piece.ranks.size();
    const std::uint32_t* ranks = piece.ranks.data();
    std::size_t read = 0, write = 0, ahead = 0, entry = 0;
    auto prefetch_to = [&](std::size_t end) {
      for (end = std::min(end, total); ahead < end; ++ahead)
        if (mine(ranks[ahead])) __builtin_prefetch(&codes<C>()[static_cast<std::size_t>(ranks[ahead] - begin_)]);
    };
    std::size_t kept_entries = 0;
    for (Index w = w0; w < w1; ++w) {
      std::uint64_t& word = open_[static_cast<std::size_t>(w)];
      for (std::uint64_t bits = word; bits; bits &= bits - 1) {
        const Index u = w * 64 + static_cast<Index>(std::countr_zero(bits));
        const std::size_t c = piece.counts[entry++];
        prefetch_to(read + c + kAhead);
        if (sweep_ranks<C>(u, piece.ranks.data() + read, c, ctx)) {
          std::memmove(piece.ranks.data() + write, piece.ranks.data() + read, c * sizeof(std::uint32_t));
          piece.counts[kept_entries++] = static_cast<std::uint8_t>(c);
          write += c;
        } else {
          word &= ~(std::uint64_t{1} << (u % 64));
          if (piece.closed.listed && needs_entry<C>(u)) add_entry(piece.closed, u, w0, piece.ranks.data() + read, c);
        }
        read += c;
      }
    }
    piece.counts.resize(kept_entries);
    piece.ranks.resize(write);
  }

  // New code of local position u (a later sweep) from its in-class children's
  // ranks; true while it stays open.
  template <class C>
  bool sweep_ranks(Index u, const std::uint32_t* ranks, std::size_t count, Context& ctx) {
    const C old = codes<C>()[static_cast<std::size_t>(u)];
    if (sc_.is_final(old)) return false;
    Value best = kNone, upper = kNone;
    bool final = true;
    for (std::size_t k = 0; k < count; ++k) {
      const C c = child_code<C>(ranks[k], false);
      best = std::max(best, neg(sc_.value(c)));
      upper = std::max(upper, neg(sc_.low(c)));
      final = final && sc_.is_final(c);
    }
    ctx.in_moves += count;
    return settle<C>(u, old, false, kNone, best, upper, final, ctx);
  }
  // Stores the new code of local position u from its old one, its best exit (sweep
  // 0: the exits read; later sweeps keep it in the code), the best -w of its in-class
  // children, an upper bound of what they are worth to it (from their lower bounds,
  // SweepCodes::low) and whether they were all final; true while it stays open.
  template <class C>
  bool settle(Index u, C old, bool first, Value exit, Value best, Value upper, bool children_final, Context& ctx) {
    const Value w0 = first ? 0 : sc_.value(old);
    const Value b = first ? (exit == kNone ? static_cast<Value>(-bound_) : std::min<Value>(exit, 0))
                          : (w0 > 0 ? 0 : sc_.base(old));
    const Value m = std::max<Value>(first ? (exit == kNone ? b : exit) : (w0 > 0 ? w0 : b), best);
    const Value w = w0 > 0 ? std::max(w0, m) : w0 < 0 ? std::min(w0, m) : m;
    // Final: w is the value when the children can be worth no more than w to it (w > 0,
    // or w = 0 with an exit worth 0), or w = b < 0 (the best exit, and no move does
    // better: w is an upper bound).
    const bool final = children_final || w >= bound_ || w <= -bound_ || (w < 0 && w == b) ||
                       (w > 0 && upper <= w) || (w == 0 && b == 0 && upper <= 0);
    const C code = static_cast<C>(final ? sc_.final(w) : sc_.open(w, b));
    if (!final) ++ctx.tally.open;
    if (code == old && !first) return !final;
    if (w != w0 || first) ++ctx.tally.changed;
    std::atomic_ref<C>(codes<C>()[static_cast<std::size_t>(u)]).store(code, std::memory_order_relaxed);
    return !final;
  }

  // New code of local position u; true while it stays open.
  template <class C>
  bool sweep_position(Index u, const Position& p, bool first, Context& ctx) {
    const C old = codes<C>()[static_cast<std::size_t>(u)];
    if (!first && sc_.is_final(old)) return false;
    // After sweep 0 only the in-class children are read (the exits are in the code): rules
    // that can leave out the children ending the game (Cenne's claim) do so.
    if constexpr (requires { rules_.Rules::children_in_play(p, ctx.kids); }) {
      if (first)
        rules_.Rules::children(p, ctx.kids);
      else
        rules_.Rules::children_in_play(p, ctx.kids);
    } else {
      rules_.Rules::children(p, ctx.kids);
    }
    if (ctx.kids.empty()) {
      if (first && best_exit_) best_exit_[static_cast<std::size_t>(u)] = kExitNoMove;
      const Value v = rules_.Rules::terminal_value(p);
      return settle<C>(u, old, first, v, kNone, kNone, true, ctx);
    }
    {
      // First the in-class children's ranks (their codes prefetched) and, in sweep 0,
      // the exits' value slots (prefetched); then the reads.
      constexpr std::size_t kSlots = 32;
      std::array<const std::uint8_t*, kSlots> exit_at;
      std::array<std::uint8_t, kSlots> exit_width;
      std::array<bool, kSlots> moves_in;
      const std::size_t nk = ctx.kids.size();
      ctx.ranks.clear();
      for (std::size_t k = 0; k < nk; ++k) {
        const Child& c = ctx.kids[k];
        const bool over = c.game_over || c.same_side;
        const ClassKey key = over ? ClassKey{} : rules_.Rules::class_of(c.next);
        const bool in = !over && key == index_.key();  // in_class(c), its class asked once
        if (k < kSlots) {
          moves_in[k] = in;
          exit_at[k] = nullptr;
        }
        if (in) {
          const Index ci = index_.rank(c.next);
          if (mine(ci)) __builtin_prefetch(&codes<C>()[static_cast<std::size_t>(ci - begin_)]);
          ctx.ranks.push_back(ci);
        } else if (first && k < kSlots && !c.game_over) {
          int w = 0;
          exit_at[k] = c.same_side ? exit_slot(c, ctx, w) : exit_slot(c, key, ctx, w);
          exit_width[k] = static_cast<std::uint8_t>(w);
          if (exit_at[k]) __builtin_prefetch(exit_at[k]);
        }
      }
      Value base = kNone, best = kNone, upper = kNone;
      bool final = true;
      std::size_t next_rank = 0;
      for (std::size_t k = 0; k < nk; ++k) {
        const Child& c = ctx.kids[k];
        if (k < kSlots ? moves_in[k] : in_class(c)) {
          const C cc = child_code<C>(ctx.ranks[next_rank++], first);
          best = std::max(best, neg(sc_.value(cc)));
          upper = std::max(upper, neg(sc_.low(cc)));
          final = final && sc_.is_final(cc);
          ++ctx.in_moves;
        } else if (first) {
          Value x;
          if (k < kSlots && exit_at[k]) {
            ++ctx.exits;
            x = move_value(kind_, c, read_value(exit_at[k], exit_width[k]));
          } else {
            x = exit_value(c, ctx);  // game over, or a class missing (an error)
            if (stopped()) return false;
          }
          base = std::max(base, x);
        }
      }
      if (first) keep_exit(u, base);
      return settle<C>(u, old, first, base, best, upper, final, ctx);
    }
  }

  // ---- Levels: one code per position, un-moves, notices ----------------------------
  //
  // One code per position (LevelCodes of retrograde.h: one byte when the class's
  // values and moves fit, else two): undecided (the best exit if positive, and the
  // in-class moves not yet known to lose), decided with its parents still to tell
  // ("waiting"), or decided and told. Level t is solved by one pass over the slice,
  // 64 positions at a time: the waiting positions worth +-t (decided at a lower level
  // earlier) and the undecided ones whose best exit is worth t are claimed (the code
  // turns to "told") and put on the task's work stack; the stack is drained at once,
  // kTellBatch positions at a time (their parents found and ranked first, the
  // parents' codes prefetched, then told), and a parent that decides at t in turn
  // goes on the same stack. Only what a task cannot keep (a stack past kDrainLimit)
  // and the notices for other ranks wait for a next round, which claims the waiting
  // positions worth +-t in a pass over the slice when some were left waiting (a
  // notice applied in a round decides at once onto a work stack: Oware up to 16 on 2
  // ranks, 2,674 rounds, spent 6 s more solving when every round scanned the
  // slice). Whoever claims a position tells its parents, so each parent hears of
  // each child once.
  //
  // An undecided code keeps its best exit only from LevelCodes::low up (one byte for
  // Oware's class of 20 seeds: exits -6..20 and none): a lower one is read again
  // (exits_of) when the position's last in-class move turns out to lose, for the
  // value max(best exit, that move). One byte per position for Oware up to 24 seeds,
  // against 2.25 bytes for a value, a state and two bit maps before (Oware up to 20:
  // 106 MB less for the class of 20 seeds).
  // A local parent (its position: parents[at]) to tell that its in-class child (slot
  // `child` of the batch, or kExact: no check needed) is worth `worth` to it.
  struct Told {
    Index parent;
    std::uint32_t child, at;
    Value worth;
  };
  static constexpr std::uint32_t kExact = ~std::uint32_t{0};
  static constexpr std::size_t kTellBatch = 32;
  static constexpr std::size_t kDrainLimit = std::size_t{1} << 16;
  // Levels on several ranks: the positions of a slice whose notices are sent before
  // the pass goes on (a multiple of 64). 2^18: at most a few MiB of notices a batch
  // (Oware: 1.4 notices a position, about 3 bytes each packed, 24 in memory).
  static constexpr Index kLevelBatch = Index{1} << 18;
  // A batch's words of 64 positions: kLevelBatch, or fewer where SolveOptions::
  // notice_bytes bounds a batch's notices (counted at 2 a position for other ranks,
  // 24 bytes each, and as much again for the notices received).
  Index level_batch_words() const {
    constexpr Index kMost = kLevelBatch / 64, kPerWord = 64 * 2 * 2 * sizeof(Notice);
    if (opt_.notice_bytes == 0) return kMost;
    return std::clamp<Index>(opt_.notice_bytes / kPerWord, 1, kMost);
  }
  // Per task: the positions decided at the level solved whose parents are not yet
  // told, with their positions (a parent found by un-moves is not unranked again).
  struct Work {
    std::vector<Index> stack;
    std::vector<Position> stack_pos;
    // Levels with distances (layered): what decide() and start_level() put aside for
    // the next round (distance k + 1) instead of the stack, with their positions while
    // the round's quota lasts (kept_pos; the others are unranked again), and the
    // positions claimed at distance 0.
    bool layered = false;
    std::vector<Index> next, zero, kept;
    std::vector<Position> kept_pos;
    std::size_t quota = 0;
    std::vector<Told> told;
    std::vector<Position> parents;          // of the batch's children, for told[].at
    std::array<Position, kTellBatch> kids;  // the batch's positions (for Superset checks)
    Work() {
      stack.reserve(256);
      stack_pos.reserve(256);
      told.reserve(kTellBatch * 8);
      parents.reserve(kTellBatch * 8);
    }
    void push(Index u, const Position& p) {
      stack.push_back(u);
      stack_pos.push_back(p);
    }
  };
  template <class C>
  std::vector<C>& codes() {
    if constexpr (sizeof(C) == 1)
      return codes8_;
    else if constexpr (sizeof(C) == 2)
      return codes16_;
    else
      return codes32_;
  }
  template <class C>
  static std::span<std::uint8_t> bytes_of(std::vector<C>& codes) {
    return {reinterpret_cast<std::uint8_t*>(codes.data()), codes.size() * sizeof(C)};
  }
  template <class C>
  std::atomic_ref<C> code_of(Index u) {
    return std::atomic_ref<C>(codes<C>()[static_cast<std::size_t>(u)]);
  }

  Result<Bytes> levels() {
    coder_ = LevelCodes(bound_, rules_.Rules::max_moves());
    switch (coder_.bytes()) {
      case 1: return levels_with<std::uint8_t>();
      case 2: return levels_with<std::uint16_t>();
      default:
        return fail_with(Error::InvalidArgument, rules_.name() + ": values up to " + std::to_string(bound_) +
                                                     " do not fit the level method's codes (use sweeps)");
    }
  }
  template <class C>
  Result<Bytes> levels_with() {
    const auto K = static_cast<std::size_t>(ranks_);
    const auto L = static_cast<std::size_t>(local_);
    auto& codes = this->codes<C>();
    detail::fill_on_huge_pages(codes, L, C{0});  // parents are told at random: 2 MiB pages (one TLB entry each)
    level_ = bound_ + 1;
    level_seen_.assign(static_cast<std::size_t>(bound_) + 2, 0);
    outbox_.assign(K, {});
    int t = tr_.resume(Method::Levels, bytes_of(codes), sizeof(C));
    if (t >= 0) {
      drop_exits();  // pass 0 is not run again
      if (dist_) opt_.distances->clear();  // nor the levels above t: solve_distances computes the distances
      dist_ = nullptr;
      // A checkpoint: the levels still to search are those the codes wait at, and the
      // best exits of undecided positions (a level none is left at would change nothing).
      for (const C c : codes)
        if (coder_.waiting(c))
          level_seen_[static_cast<std::size_t>(std::abs(coder_.value(c)))] = 1;
        else if (!coder_.decided(c) && coder_.exit(c) > 0)
          level_seen_[static_cast<std::size_t>(coder_.exit(c))] = 1;
    } else {
      codes.assign(L, C{0});
      // Pass 0: exits, counters, positions decided by their exits alone.
      parallel(local_, 4096, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
        index_.for_each(begin_ + r.begin(), begin_ + r.end(), [&](Index g, const Position& p) { init<C>(g - begin_, p, ctx); });
        report(r.size(), 0, local_);
      });
      tr_.after_first_pass();
      if (finish_phase("all_reduce (pass 0)").stopped) return std::unexpected(stop_reason());
      t = bound_ + 1;
    }
    rounds_ = 1;
    const Index words = (local_ + 63) / 64;
    for (;;) {
      tr_.checkpoint(Method::Levels, t, bytes_of(codes), sizeof(C));  // every notice of the levels above t applied
      int next = 0;
      for (int s = t - 1; s >= 1; --s)
        if (detail::load(level_seen_[static_cast<std::size_t>(s)])) {
          next = s;
          break;
        }
      t = tr_.max(next, "all_reduce (next level)");
      if (t <= 0) break;
      level_ = t;
      ++rounds_;
      // The notices for other ranks go out, and those for this rank are applied.
      auto deliver = [&] {
        tr_.exchange_each(outbox_, kNoticeBytes, "all_to_all (notices)", [&](std::vector<Notice>& from) {
          parallel(from.size(), 4096, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
            Work work;
            for (Index k = r.begin(); k < r.end(); ++k) {
              const Notice& m = from[static_cast<std::size_t>(k)];
              if (m.child == kNoCheck) {
                apply<C>(m.parent - begin_, nullptr, nullptr, m.worth, work, ctx);
              } else {
                const Position c = index_.unrank(m.child);
                apply<C>(m.parent - begin_, nullptr, &c, m.worth, work, ctx);
              }
              if (work.stack.size() >= kTellBatch) drain<C>(work, ctx);
            }
            drain<C>(work, ctx);
          });
        });
      };
      // The level's first pass, kLevelBatch positions of the slice at a time on several
      // ranks: between two batches the notices go out, so that a rank never holds more
      // than what one batch (and its local cascade) told. Every rank runs as many
      // batches as the rank with the most (the exchanges are collective).
      const Index batch = K > 1 ? level_batch_words() : std::max<Index>(words, 1);
      const Index batches = K > 1 ? static_cast<Index>(tr_.max(static_cast<int>((words + batch - 1) / batch), "all_reduce (level batches)"))
                                  : 1;
      if (dist_) layered_level<C>(t, words);
      for (Index b = 0; b < batches && !dist_; ++b) {
        const Index w0 = std::min(words, b * batch), w1 = std::min(words, w0 + batch);
        parallel(w1 - w0, 16, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
          Work work;
          for (Index w = w0 + r.begin(); w < w0 + r.end(); ++w) {
            start_level<C>(w, t, true, work, ctx);
            drain<C>(work, ctx);
          }
        });
        if (b + 1 < batches) deliver();
      }
      // Rounds for what the pass could not finish: notices for other ranks, stacks
      // that overflowed.
      for (;;) {
        const Tally tally = finish_phase("all_reduce (propagation round)");
        if (tally.stopped) return std::unexpected(stop_reason());
        if (tally.changed == 0) break;
        ++rounds_;
        if (K > 1) deliver();
        if (left_waiting_.exchange(false))  // a pass for the positions left waiting at t (else none are)
          parallel(words, 16, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
            Work work;
            for (Index w = r.begin(); w < r.end(); ++w) {
              start_level<C>(w, t, false, work, ctx);
              drain<C>(work, ctx);
            }
          });
      }
    }
    return encode([&](std::size_t u) -> Value {
      const unsigned c = codes[u];
      return coder_.decided(c) ? coder_.value(c) : Value{0};
    });
  }

  // ---- Levels with distances (SolveOptions::distances, one rank) ---------------------
  //
  // Level t in rounds by distance, with no work stack carried from a round to the
  // next. Round 0 claims the positions waiting at +-t and decides the undecided whose
  // best exit is worth t, telling no parent yet: those without a move are at distance
  // 0, the others at 1 (an exit realises the value; decide() wrote 1 for a position
  // decided before its level, by its exits alone). Round k then tells the parents of
  // the positions at distance k; a parent decided at t in round k is at distance
  // k + 1: the side ahead at its first optimal in-class child (the nearest), the side
  // behind at its last (the farthest: its code counts its in-class moves, and those
  // told before level t are worth more than t to their mover, not optimal ones). That
  // is the least fixpoint of distances.h, whatever the threads do within a round, and
  // it needs no edge list and no move played again: the levels' own tells are the
  // distances' breadth-first levels.
  static constexpr std::size_t kSmallRound = 2048;  // a round this small runs on the calling thread
  // The positions a round keeps for the next (unranked again past it: 2^18 of 50 bytes,
  // 12.5 MiB), taken by tasks kQuotaStep at a time.
  static constexpr std::size_t kKeptPositions = std::size_t{1} << 18, kQuotaStep = 256;
  // A round's lists hold a position's offset with its value's sign in the top bit
  // (the value is +-level_): set when the position is behind.
  static constexpr Index kBehind = Index{1} << 63;
  static Index behind(Value v) { return v < 0 ? kBehind : 0; }
  void set_distance(Index u, unsigned d) {
    dist_[2 * static_cast<std::size_t>(u)] = static_cast<std::uint8_t>(d & 0xFF);
    dist_[2 * static_cast<std::size_t>(u) + 1] = static_cast<std::uint8_t>(d >> 8);
  }
  unsigned distance(Index u) const {
    return dist_[2 * static_cast<std::size_t>(u)] | (unsigned{dist_[2 * static_cast<std::size_t>(u) + 1]} << 8);
  }
  // A task's kept positions for the next round (moved, not copied, into the round's list).
  struct Kept {
    std::vector<Index> at;
    std::vector<Position> pos;
  };
  bool take_quota(Work& work) {
    if (kept_count_.fetch_add(kQuotaStep, std::memory_order_relaxed) >= kKeptPositions) return false;
    work.quota = kQuotaStep;
    return true;
  }
  template <class C>
  void layered_level(int t, Index words) {
    std::vector<Index> cur, next;
    std::vector<Kept> cur_kept, next_kept;
    std::vector<std::size_t> starts{0};  // starts[c]: the round's offset of cur_kept[c]; back(): their total
    layer_ = 0;
    kept_count_.store(0);
    parallel(words, 16, [&](const tbb::blocked_range<Index>& r, Context& ctx) {
      Work work;
      work.layered = true;
      for (Index w = r.begin(); w < r.end(); ++w) start_level<C>(w, t, true, work, ctx);
      std::lock_guard lock(layer_mu_);
      cur.insert(cur.end(), work.zero.begin(), work.zero.end());
      next.insert(next.end(), work.next.begin(), work.next.end());  // (start_level keeps no position)
    });
    // Round positions [r.begin(), r.end()) of cur_kept's then cur (one list of both).
    auto tell = [&](const tbb::blocked_range<Index>& r, Context& ctx) {
      Work work;
      work.layered = true;
      const std::size_t kept = starts.back();
      std::size_t c = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), r.begin()) - starts.begin()) - 1;
      for (Index f = r.begin(); f < r.end(); ++f) {
        const auto k = static_cast<std::size_t>(f);
        if (k < kept) {
          while (k >= starts[c + 1]) ++c;
          work.stack.push_back(cur_kept[c].at[k - starts[c]]);
          work.stack_pos.push_back(cur_kept[c].pos[k - starts[c]]);
        } else {
          const Index u = cur[k - kept];
          work.stack.push_back(u);
          work.stack_pos.push_back(index_.unrank(begin_ + (u & ~kBehind)));
        }
        if (work.stack.size() == kTellBatch) drain<C>(work, ctx);
      }
      drain<C>(work, ctx);
      std::lock_guard lock(layer_mu_);
      next.insert(next.end(), work.next.begin(), work.next.end());
      if (!work.kept.empty()) next_kept.push_back(Kept{std::move(work.kept), std::move(work.kept_pos)});
    };
    for (std::uint32_t k = 0; !cur.empty() || !cur_kept.empty() || !next.empty() || !next_kept.empty(); ++k) {
      if (stopped()) return;
      if (k >= std::numeric_limits<std::uint16_t>::max()) {
        fail("class " + to_string(index_.key(), rules_.pits()) + ": a distance beyond 65535");
        return;
      }
      layer_ = static_cast<std::uint16_t>(k);
      kept_count_.store(0);
      starts.resize(1);
      for (const Kept& kc : cur_kept) starts.push_back(starts.back() + kc.at.size());
      const std::size_t size = starts.back() + cur.size();
      if (size <= kSmallRound) {
        Context ctx(solved_, static_cast<std::size_t>(ranks_));
        tell(tbb::blocked_range<Index>(0, size), ctx);
        merge(ctx);
      } else {
        parallel(size, 256, tell);
      }
      cur.swap(next);
      next.clear();
      cur_kept.swap(next_kept);
      next_kept.clear();
    }
  }

  // Level t, positions 64w..64w+63: the waiting ones worth +-t are claimed and, on
  // the level's first pass (`first`), the undecided whose best exit is worth t are
  // decided; both go on the work stack.
  template <class C>
  void start_level(Index w, int t, bool first, Work& work, Context& ctx) {
    const Index end = std::min<Index>(w * 64 + 64, local_);
    // The codes looked for, found without a division: waiting at +-t, and (first
    // pass) undecided with best exit t, any count.
    const auto up = static_cast<C>(coder_.waiting_code(t)), down = static_cast<C>(coder_.waiting_code(-t));
    const unsigned open = coder_.open(t, 1), opens = first ? static_cast<unsigned>(coder_.moves) : 0;
    for (Index i = w * 64; i < end; ++i) {
      auto cell = code_of<C>(i);
      C c = cell.load(std::memory_order_relaxed);
      if (c == up || c == down) {
        if (cell.compare_exchange_strong(c, static_cast<C>(coder_.told(coder_.value(c))), std::memory_order_relaxed)) {
          if (work.layered)
            (distance(i) == 0 ? work.zero : work.next).push_back(i | behind(coder_.value(c)));  // no move: distance 0
          else
            work.push(i, index_.unrank(begin_ + i));
        }
      } else if (static_cast<unsigned>(c) - open < opens) {
        decide<C>(i, static_cast<Value>(t), nullptr, &work, ctx);
      }
    }
  }

  // Sets the final value v of an undecided local position; false if another thread
  // won. At the level being solved it goes on the work stack (p: its position, or
  // null) or, past kDrainLimit or without one, waits for a next round; at a lower
  // level it waits for its level. A draw tells no parent.
  template <class C>
  bool decide(Index u, Value v, const Position* p, Work* work, Context& ctx) {
    const int a = std::abs(v);
    const bool now = a == level_ && work && (work->layered || work->stack.size() < kDrainLimit);
    const auto to = static_cast<C>(now || v == 0 ? coder_.told(v) : coder_.waiting_code(v));
    auto cell = code_of<C>(u);
    C c = cell.load(std::memory_order_relaxed);
    do {
      if (coder_.decided(c)) return false;
    } while (!cell.compare_exchange_weak(c, to, std::memory_order_relaxed));
    if (v == 0) return true;
    // Levels with distances: decided in round k of its level, distance k + 1; decided
    // before its level, by its exits alone (an exit realises the value), distance 1
    // (init() puts 0 back for a position without a move).
    if (dist_) set_distance(u, now ? layer_ + 1u : 1u);
    if (now) {
      if (!work->layered)
        work->push(u, p ? *p : index_.unrank(begin_ + u));
      else if (p && (work->quota > 0 || take_quota(*work))) {
        --work->quota;
        work->kept.push_back(u | behind(v));
        work->kept_pos.push_back(*p);
      } else {
        work->next.push_back(u | behind(v));
      }
      return true;
    }
    if (a == level_) {  // a next round tells its parents
      ++ctx.tally.changed;
      left_waiting_.store(true, std::memory_order_relaxed);
    }
    detail::store(level_seen_[static_cast<std::size_t>(a)], std::uint8_t{1});
    return true;
  }

  // The best exit of a position from its moves `kids` (kNone: none; after fail(),
  // kNone too); with `ranks`, the ranks of its in-class children go to ctx.ranks. The
  // exits' slots are found and prefetched before any is read, so that the cache
  // misses of a position's exits (random places in lower classes) overlap.
  Value exits_of(const std::vector<Child>& kids, bool ranks, Context& ctx) {
    constexpr std::size_t kSlots = 32;
    enum : std::uint8_t { kMove, kFound, kOtherExit };
    std::array<const std::uint8_t*, kSlots> at;
    std::array<std::uint8_t, kSlots> tag, width;
    const std::size_t nk = std::min(kids.size(), kSlots);
    if (ranks) ctx.ranks.clear();
    for (std::size_t k = 0; k < kids.size(); ++k) {
      const Child& c = kids[k];
      if (in_class(c)) {
        if (ranks) {
          ctx.ranks.push_back(index_.rank(c.next));
          ++ctx.in_moves;
        }
        if (k < nk) tag[k] = kMove;
      } else if (k < nk) {
        int w = 0;
        at[k] = c.game_over ? nullptr : exit_slot(c, ctx, w);
        tag[k] = at[k] ? kFound : kOtherExit;
        width[k] = static_cast<std::uint8_t>(w);
        if (at[k]) __builtin_prefetch(at[k]);
      }
    }
    Value e = kNone;
    for (std::size_t k = 0; k < kids.size(); ++k) {
      const Child& c = kids[k];
      if (k < nk ? tag[k] == kMove : in_class(c)) continue;
      if (k < nk && tag[k] == kFound) {
        ++ctx.exits;
        e = std::max(e, move_value(kind_, c, read_value(at[k], width[k])));
      } else {
        e = std::max(e, exit_value(c, ctx));  // game over, or a class missing (an error)
        if (stopped()) return kNone;
      }
    }
    ctx.cache.release();  // no exit slot is held any more
    return e;
  }

  template <class C>
  void init(Index u, const Position& p, Context& ctx) {
    rules_.Rules::children(p, ctx.kids);
    if (ctx.kids.empty()) {
      if (best_exit_) best_exit_[static_cast<std::size_t>(u)] = kExitNoMove;
      decide<C>(u, rules_.Rules::terminal_value(p), &p, nullptr, ctx);
      if (dist_) set_distance(u, 0);
      return;
    }
    const Value e = exits_of(ctx.kids, true, ctx);
    if (stopped()) return;
    keep_exit(u, e);
    std::sort(ctx.ranks.begin(), ctx.ranks.end());
    const auto distinct = static_cast<std::size_t>(std::unique(ctx.ranks.begin(), ctx.ranks.end()) - ctx.ranks.begin());
    if (distinct == 0) {
      decide<C>(u, e, &p, nullptr, ctx);
      return;
    }
    if (distinct > static_cast<std::size_t>(coder_.moves) || e > bound_) {
      fail("a position of class " + to_string(index_.key(), rules_.pits()) + " has " + std::to_string(distinct) +
           " distinct in-class moves (at most " + std::to_string(coder_.moves) + ") and best exit " + std::to_string(e) +
           " (at most " + std::to_string(bound_) + ")");
      return;
    }
    code_of<C>(u).store(static_cast<C>(coder_.open(e, static_cast<int>(distinct))), std::memory_order_relaxed);
    if (e > 0) detail::store(level_seen_[static_cast<std::size_t>(e)], std::uint8_t{1});
  }

  // Tells the parents of every position on the work stack, kTellBatch at a time.
  template <class C>
  void drain(Work& work, Context& ctx) {
    while (!work.stack.empty() && !stopped()) {
      work.told.clear();
      work.parents.clear();
      const std::size_t take = std::min(work.stack.size(), kTellBatch);
      for (std::size_t k = 0; k < take; ++k) {
        work.kids[k] = work.stack_pos.back();
        const Index u = work.stack.back();
        work.stack.pop_back();
        work.stack_pos.pop_back();
        find_parents<C>(u, static_cast<std::uint32_t>(k), work, ctx);
      }
      for (const Told& t : work.told)
        apply<C>(t.parent, &work.parents[t.at], t.child == kExact ? nullptr : &work.kids[t.child], t.worth, work, ctx);
    }
  }

  // Local child u (its position: work.kids[slot]) has its final value: its local
  // parents go on work.told (their codes prefetched), the others' owners get notices.
  template <class C>
  void find_parents(Index u, std::uint32_t slot, Work& work, Context& ctx) {
    Value x = 0;  // the move to c, to a parent
    if (work.layered) {  // a round's list says the value (+-level_) in u's top bit: c's code is not read
      x = static_cast<Value>(u & kBehind ? level_ : -level_);
      u &= ~kBehind;
    } else {
      x = neg(coder_.value(code_of<C>(u).load(std::memory_order_relaxed)));
    }
    const Index ci = begin_ + u;
    const Position& c = work.kids[slot];
    const bool exact = rules_.Rules::in_class_parents(c, ctx.parents) == Variant::Parents::Exact;
    auto& codes = this->codes<C>();
    ctx.ranks.clear();
    for (const Position& q : ctx.parents) {
      if (!index_.allowed(q)) continue;
      const Index qi = index_.rank(q);
      if (!exact) {  // a superset, maybe with repeats: each q once, checked where it is applied
        if (std::find(ctx.ranks.begin(), ctx.ranks.end(), qi) != ctx.ranks.end()) continue;
        ctx.ranks.push_back(qi);
      }
      if (mine(qi)) {
        __builtin_prefetch(&codes[static_cast<std::size_t>(qi - begin_)], 1);
        work.told.push_back(Told{qi - begin_, exact ? kExact : slot, static_cast<std::uint32_t>(work.parents.size()), x});
        work.parents.push_back(q);
      } else {
        ctx.outbox[owner(qi)].push_back(Notice{qi, exact ? kNoCheck : ci, x});
        ++ctx.tally.changed;  // its owner applies it in a next round
      }
    }
  }

  // Parent u (local; its position: self, or null) hears that its in-class child c is
  // worth x to it (c == nullptr: the parent list was exact; else u is checked to
  // really move to c).
  template <class C>
  void apply(Index u, const Position* self, const Position* c, Value x, Work& work, Context& ctx) {
    auto cell = code_of<C>(u);
    C code = cell.load(std::memory_order_relaxed);
    if (coder_.decided(code)) return;
    if (c) {
      rules_.Rules::children(self ? *self : index_.unrank(begin_ + u), ctx.parent_kids);
      bool moves_to_c = false;
      for (const Child& k : ctx.parent_kids)
        if (!k.game_over && !k.same_side && k.next == *c) moves_to_c = true;
      if (!moves_to_c) return;
    }
    if (x > 0) {  // c is lost for its mover: u wins exactly x (no better option is left)
      decide<C>(u, x, self, &work, ctx);
      return;
    }
    // c is won for its mover: one fewer move of u that may still be good for u.
    for (;;) {
      if (coder_.decided(code)) return;
      if (coder_.count(code) == 1) break;
      if (cell.compare_exchange_weak(code, static_cast<C>(code - 1), std::memory_order_relaxed)) return;
    }
    // Every in-class move of u loses; c, told last, is the least bad of them. A best
    // exit below coder_.low was not kept: the exits are read again.
    const int kept = coder_.exit(code);
    auto e = static_cast<Value>(kept);  // kNone when no move leaves the class
    if (kept == LevelCodes::kAgain) {
      if (!c) rules_.Rules::children(self ? *self : index_.unrank(begin_ + u), ctx.parent_kids);  // (c: listed above)
      e = exits_of(ctx.parent_kids, false, ctx);
      if (stopped()) return;
    }
    decide<C>(u, std::max<Value>(e, x), self, &work, ctx);
  }
  const Rules& rules_;
  const ClassIndex& index_;
  const SolvedClasses& solved_;
  const SolveOptions& opt_;
  Transport& tr_;
  GameKind kind_;
  Value bound_;
  std::uint64_t ranks_, me_;
  Index n_, begin_, end_, local_;
  tbb::task_arena arena_;

  std::mutex mu_, progress_mu_, layer_mu_;
  std::atomic<bool> failed_{false};
  Error error_;
  Tally tally_;
  std::atomic<std::uint64_t> done_{0}, in_moves_{0}, exits_{0};
  std::int8_t* best_exit_ = nullptr;  // SolveOptions::best_exits, while it is filled
  KeptChildren* kept_ = nullptr;      // SolveOptions::kept_children, while it is filled (sweeps)
  std::atomic<bool> exit_too_wide_{false};
  int rounds_ = 0;

  // Acyclic: the values (kUnset until known).
  std::vector<S> val_;
  S* cval_ = nullptr;  // the compact kernel's values (acyclic())
  // Acyclic kernel on compact boards: lower classes' values by seed count, E(j, s).
  std::vector<const S*> lower_;
  const Index* steps_ = nullptr;  // the class index's E(j, s), row stride stride_
  std::size_t stride_ = 0;
  int pits_ = 0;
  std::vector<std::vector<std::uint64_t>> sides_;
  std::vector<Tile> tiles_;
  std::vector<Pair> pairs_;
  // Sweeps.
  SweepCodes sc_;
  std::vector<std::uint64_t> open_;  // positions not final
  std::vector<Piece> pieces_;        // kept ranks of the open positions' in-class children
  std::atomic<std::uint64_t> rank_bytes_{0};
  std::uint64_t rank_cap_ = 0;  // the most rank_bytes_ may reach (opt_.rank_cache_bytes, then exits_read)
  std::unique_ptr<TempFile> spill_;  // sweep 0's lists that do not fit (SolveOptions::spill_dir)
  std::atomic<std::uint64_t> spill_end_{0};
  std::vector<GhostSet::Builder> ghost_build_;  // sweep 0, per owner: the ghosts found so far
  std::vector<GhostSet> ghosts_;                 // per owner: the offsets in its slice this rank reads
  std::vector<GhostSet> serve_;                  // per rank: the offsets in this slice it reads
  // Per owner: the codes of ghosts_, sizeof(C) bytes each (one for Kotu-baendum up
  // to 18 seeds, where a uint32 each took 3 bytes a ghost more).
  std::vector<std::vector<std::uint8_t>> ghost_codes_;
  // Levels.
  LevelCodes coder_;
  std::vector<std::uint8_t> codes8_;  // one code per position of the slice (coder_.bytes() == 1)
  std::vector<std::uint16_t> codes16_;  // (coder_.bytes() == 2)
  std::vector<std::uint32_t> codes32_;  // sweeps only (SweepCodes::bytes == 4: win/loss)
  std::vector<std::vector<Notice>> outbox_;  // notices for other ranks
  std::vector<std::uint8_t> level_seen_;
  std::atomic<bool> left_waiting_{false};  // a position was left waiting at the level being solved
  int level_ = 0;
  // Levels with distances (SolveOptions::distances): a distance a position, 0 until
  // decided (and for a value of 0 or no move), in the distance file's layout (2 bytes,
  // little-endian: SolveOptions::distances itself), and the round of the level being solved.
  std::uint8_t* dist_ = nullptr;
  std::uint16_t layer_ = 0;
  std::atomic<std::size_t> kept_count_{0};  // the positions the round's tasks took for the next
};

// Solves `index` with `transport`; this rank's slice of the values.
template <class Transport>
Result<std::vector<std::uint8_t>> solve_slice(const Variant& v, const ClassIndex& index, const SolvedClasses& solved,
                                              const SolveOptions& opt, Transport& transport, SolveStats* stats) {
  const auto method = pick_method(v, opt.method, transport.ranks());
  if (!method) return std::unexpected(method.error());
  return with_rules(v, [&](const auto& rules) -> Result<std::vector<std::uint8_t>> {
    using R = std::decay_t<decltype(rules)>;
    if (v.kind() == GameKind::Score)
      return ClassSolver<R, std::int8_t, Transport>(rules, index, solved, opt, transport).run(*method, stats);
    return ClassSolver<R, std::int16_t, Transport>(rules, index, solved, opt, transport).run(*method, stats);
  });
}

}  // namespace mancala::core
