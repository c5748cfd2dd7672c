// Region retrograde over the reachable part of each class (engine.h), the engine of
// games with cycles under CycleMethod::Region, and of small classes under alpha-beta
// (CyclicEngine derives from it).
#pragma once

#include <bit>
#include <shared_mutex>

#include "engine.h"
#include "mancala/solver_support.h"

namespace mancala::search_detail {

class RegionEngine : public Engine {
 public:
  int value(Ctx& c, const Position& q, const std::string& what) override { return exact_value(c, q, what); }
  // Game-ending moves, then moves leaving the class, then the rest.
  std::vector<int> move_order(Ctx&, const Position& q, const std::vector<Child>& kids) override {
    const ClassKey key = variant->class_of(q);
    std::vector<int> order(kids.size());
    for (std::size_t i = 0; i < kids.size(); ++i) order[i] = static_cast<int>(i);
    auto rank = [&](int i) {
      const Child& ch = kids[static_cast<std::size_t>(i)];
      return ch.game_over ? 0 : !(variant->class_of(ch.next) == key) ? 1 : 2;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank(a) < rank(b); });
    return order;
  }

  std::uint64_t region_budget = 0;  // bytes for the regions and the memo (tt_bytes, or half of it beside alpha-beta)

 protected:
  // Exact values of positions solved by region_solve: by class rank, or whole
  // positions when the class does not index them. Bounded with the region by tt_bytes.
  std::shared_mutex memo_mu;  // the memo (readers share it)
  std::mutex index_mu;        // `indexes`
  std::unordered_map<ClassKey, std::unique_ptr<ClassIndex>, ClassKeyHash> indexes;
  std::unordered_map<ClassKey, std::unordered_map<Index, Value>, ClassKeyHash> memo;
  std::unordered_map<Position, Value, PositionHash> memo_loose;
  std::atomic<std::uint64_t> memo_entries{0};
  static constexpr std::uint64_t kRegionBytes = 320, kMemoBytes = 64;  // measured, see region_solve


  // The index of a class (made once; the thread's own cache first: no lock).
  const ClassIndex& index_of(Ctx& c, const ClassKey& key) {
    const auto cached = c.indexes.find(key);
    if (cached != c.indexes.end()) return *cached->second;
    std::lock_guard lock(index_mu);
    auto& slot = indexes[key];
    if (!slot) slot = std::make_unique<ClassIndex>(*variant, key);
    c.indexes.emplace(key, slot.get());
    return *slot;
  }
  std::optional<int> memo_get(Ctx& c, const Position& q, const ClassKey& key) {
    if (opt.cycles == CycleMethod::AlphaBeta) {  // beside alpha-beta the table is the memo: no lock
      TTData e;
      if (tt.probe(phash(q), e) && e.lo == e.hi) return e.lo;
      return std::nullopt;
    }
    const ClassIndex& idx = index_of(c, key);
    std::shared_lock lock(memo_mu);
    if (variant->tabled(q) && idx.contains(q)) {
      const auto it = memo.find(key);
      if (it == memo.end()) return std::nullopt;
      const auto jt = it->second.find(idx.rank(q));
      if (jt == it->second.end()) return std::nullopt;
      return jt->second;
    }
    const auto it = memo_loose.find(q);
    if (it == memo_loose.end()) return std::nullopt;
    return it->second;
  }

  // Exact v(q) for a variant whose positions can repeat (kStop: stopped).
  int exact_value(Ctx& c, const Position& q, const std::string& what) {
    const ClassKey key = variant->class_of(q);
    if (auto t = leaves.value(c, q, key)) return *t;  // kStop passes through
    if (auto m = memo_get(c, q, key)) return *m;
    return region_solve(c, q, key, what);
  }

  // Values of a region: the bound iteration of retrograde.h from [-B, B], stopped, as
  // there, at the fixpoint of the values (a drawn cycle's win/loss bounds would step
  // one ply per sweep from +-kWinValue; the values stop changing long before).
  // Empty when the search stopped.
  template <class Edge, class G>
  std::vector<int> bound_iteration(Ctx& c, const ClassKey& key, const std::vector<Position>& pos,
                                   const std::vector<std::vector<Edge>>& edges, G&& g) {
    const std::size_t n = pos.size();
    const int bound = variant->value_bound(key.seeds);
    std::vector<int> lo(n, -bound), hi(n, bound);
    for (std::size_t i = 0; i < n; ++i)
      if (edges[i].empty()) lo[i] = hi[i] = variant->terminal_value(pos[i]);
    // g is increasing for a move again (score), decreasing otherwise.
    auto sweep = [&](std::size_t i) {
      if (edges[i].empty()) return false;
      int a = -kInf, b = -kInf;
      for (const Edge& e : edges[i]) {
        if (e.child < 0) {
          a = std::max(a, e.value);
          b = std::max(b, e.value);
          continue;
        }
        const std::size_t ch = static_cast<std::size_t>(e.child);
        const bool up = kind == GameKind::Score && e.same_side;
        a = std::max(a, g(e, up ? lo[ch] : hi[ch]));
        b = std::max(b, g(e, up ? hi[ch] : lo[ch]));
      }
      a = std::max(a, lo[i]);  // bounds only tighten
      b = std::min(b, hi[i]);
      const bool moved = a != lo[i] || b != hi[i];
      lo[i] = a;
      hi[i] = b;
      return moved;
    };
    std::vector<int> value(n);
    for (std::size_t i = 0; i < n; ++i) value[i] = detail::outcome(lo[i], hi[i]);
    for (bool moved = true; moved;) {
      moved = false;
      for (std::size_t i = 0; i < n; ++i) moved |= sweep(i);
      for (std::size_t i = n; i-- > 0;) moved |= sweep(i);
      if (flush(c)) return {};
      bool value_moved = false;
      for (std::size_t i = 0; i < n; ++i) {
        const int v = detail::outcome(lo[i], hi[i]);
        value_moved |= v != value[i];
        value[i] = v;
      }
      if (!value_moved) break;
    }
    return value;
  }

  // The positions of class `key` reachable from `root` by moves inside the class
  // (R), every move leaving R valued exactly (tables, memo, or recursively: its
  // class has fewer seeds or more marks), then the bound iteration of retrograde.h
  // on R: lo/hi from [-B, B], v = lo if lo > 0, hi if hi < 0, else 0, stopped at the
  // fixpoint of the values.
  // R is closed under in-class moves, so every value of R is exact; all go to the memo.
  int region_solve(Ctx& c, const Position& root, const ClassKey& key, const std::string& what) {
    struct Edge {
      int child;  // region id, or -1: a move leaving the region, worth `value`
      int value;
      std::int16_t gain;
      bool same_side;
    };
    auto g = [&](const Edge& e, int cv) {
      if (kind == GameKind::WinLoss) return static_cast<int>(negate_step(static_cast<Value>(cv)));
      return e.same_side ? e.gain + cv : e.gain - cv;
    };
    std::unordered_map<Position, int, PositionHash> id;
    std::vector<Position> pos{root};
    std::vector<std::vector<Edge>> edges;
    std::vector<Child> kids;
    id.emplace(root, 0);
    for (std::size_t i = 0; i < pos.size(); ++i) {
      if ((++c.nodes & 0xFF) == 0 && flush(c)) return kStop;
      // Memory: about kRegionBytes per region position (the position, its id in the
      // hash map, its move list) and kMemoBytes per memo entry; tt_bytes bounds both.
      const std::uint64_t region_bytes = pos.size() * kRegionBytes;
      if (region_bytes + memo_entries.load(std::memory_order_relaxed) * kMemoBytes > region_budget) {
        // The memo is a cache: drop it; only a region larger than the budget is an error.
        std::unique_lock lock(memo_mu);
        memo.clear();
        memo_loose.clear();
        memo_entries = 0;
      }
      if (region_bytes > region_budget)
        return fail({SearchError::TableTooSmall,
              "the search needs more memory than it is allowed (class " + to_string(key, variant->pits()) +
                  " alone reaches " + std::to_string(pos.size()) + " positions): more memory or tables up to more seeds would help"});
      variant->children(pos[i], kids);
      std::vector<Edge> out;
      out.reserve(kids.size());
      const std::vector<Child> here = kids;  // exact_value below reuses no buffer of ours, but keep a copy
      for (const Child& ch : here) {
        Edge e{-1, 0, static_cast<std::int16_t>(ch.gain_mover - ch.gain_opponent), ch.same_side};
        if (ch.game_over) {
          e.value = move_value(kind, ch, 0);
        } else {
          const ClassKey ck = variant->class_of(ch.next);
          if (ck == key) {
            std::optional<int> known = leaves.value(c, ch.next, ck);
            if (!known) known = memo_get(c, ch.next, ck);
            if (known == kStop) return kStop;
            if (known) {
              e.value = g(e, *known);
            } else {
              const auto [it, fresh] = id.emplace(ch.next, static_cast<int>(pos.size()));
              if (fresh) pos.push_back(ch.next);
              e.child = it->second;
            }
          } else {
            const int v = exact_value(c, ch.next, what);
            if (v == kStop) return kStop;
            e.value = g(e, v);
          }
        }
        out.push_back(e);
      }
      edges.push_back(std::move(out));
    }
    const std::size_t n = pos.size();
    const std::vector<int> final_value = bound_iteration(c, key, pos, edges, g);
    if (final_value.empty()) return kStop;
    if (opt.cycles == CycleMethod::Region) {
      const ClassIndex& idx = index_of(c, key);
      std::unique_lock lock(memo_mu);
      auto& m = memo[key];
      for (std::size_t i = 0; i < n; ++i) {
        const int v = final_value[i];
        if (variant->tabled(pos[i]) && idx.contains(pos[i])) m[idx.rank(pos[i])] = static_cast<Value>(v);
        else memo_loose[pos[i]] = static_cast<Value>(v);
      }
      memo_entries += n;
    } else {  // beside alpha-beta the transposition table is the memo: csearch finds them without a lock
      const int effort = static_cast<int>(std::bit_width(n));
      for (std::size_t i = 0; i < n; ++i)
        tt.store(phash(pos[i]), TTData{final_value[i], final_value[i], -1, effort, 0, kExactDepth});
    }
    if (opt.progress)
      report([&](SearchProgress& s) {
        s.current = what + ", class " + to_string(key, variant->pits()) + ": " + std::to_string(n) + " positions";
      });
    return final_value[0];
  }
};

}  // namespace mancala::search_detail
