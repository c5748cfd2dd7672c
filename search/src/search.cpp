// Exact search above the tables: MTD(f) over fail-soft null-window alpha-beta with
// a lock-free transposition table, table leaves and repetition = 0 (see search.h).
#include "mancala/search.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <optional>
#include <unordered_map>

#include "mancala/probe.h"
#include "mancala/solver_support.h"
#include "mancala/values.h"

namespace mancala {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// 64-bit hash of the whole position (pits, marks, flags, jeppe).
std::uint64_t position_hash(const Position& p) {
  static_assert(kMaxPits == 24);
  std::uint64_t w[6];
  std::memcpy(w, p.pits.data(), 24);
  std::memcpy(w + 3, p.marks.data(), 24);
  std::uint64_t h = splitmix(static_cast<std::uint64_t>(p.flags) | (static_cast<std::uint64_t>(static_cast<std::uint8_t>(p.jeppe)) << 8));
  for (std::uint64_t x : w) h = splitmix(h ^ x);
  return h;
}

// A proven interval of v(q), the best child's index and bookkeeping, packed in 64 bits:
//   bits 0-15 lo, 16-31 hi (int16), 32-39 best child (255 none), 40-47 effort, 48-55 generation.
struct TTData {
  int lo = 0, hi = 0, best = -1, effort = 0, generation = 0;
  std::uint64_t pack() const {
    return static_cast<std::uint64_t>(static_cast<std::uint16_t>(lo)) |
           static_cast<std::uint64_t>(static_cast<std::uint16_t>(hi)) << 16 |
           static_cast<std::uint64_t>(best < 0 || best > 254 ? 255 : best) << 32 |
           static_cast<std::uint64_t>(std::min(effort, 255)) << 40 | static_cast<std::uint64_t>(generation & 255) << 48;
  }
  static TTData unpack(std::uint64_t d) {
    TTData t;
    t.lo = static_cast<std::int16_t>(static_cast<std::uint16_t>(d & 0xFFFF));
    t.hi = static_cast<std::int16_t>(static_cast<std::uint16_t>((d >> 16) & 0xFFFF));
    const int b = static_cast<int>((d >> 32) & 255);
    t.best = b == 255 ? -1 : b;
    t.effort = static_cast<int>((d >> 40) & 255);
    t.generation = static_cast<int>((d >> 48) & 255);
    return t;
  }
};

class TranspositionTable {
 public:
  static constexpr int kWays = 4;
  static constexpr std::uint64_t kMinBytes = 1ull << 20;

  bool allocate(std::uint64_t bytes) {
    std::uint64_t buckets = 1;
    while (buckets * 2 * kWays * sizeof(Entry) <= bytes) buckets *= 2;
    try {
      entries_.reset(new Entry[buckets * kWays]());
    } catch (const std::bad_alloc&) {
      return false;
    }
    mask_ = buckets - 1;
    return true;
  }
  void new_generation() { generation_ = generation_ % 255 + 1; }  // 1..255: data 0 = empty
  int generation() const { return generation_; }

  bool probe(std::uint64_t h, TTData& out) const {
    const Entry* b = &entries_[(h & mask_) * kWays];
    for (int i = 0; i < kWays; ++i) {
      const std::uint64_t d = b[i].data.load(std::memory_order_relaxed);
      if ((b[i].key.load(std::memory_order_relaxed) ^ d) == h && d != 0) {
        out = TTData::unpack(d);
        return true;
      }
    }
    return false;
  }

  // Stores a proven interval, intersected with what the entry already holds.
  void store(std::uint64_t h, TTData t) {
    Entry* b = &entries_[(h & mask_) * kWays];
    Entry* victim = nullptr;
    int victim_score = INT_MAX;
    for (int i = 0; i < kWays; ++i) {
      const std::uint64_t d = b[i].data.load(std::memory_order_relaxed);
      if (d != 0 && (b[i].key.load(std::memory_order_relaxed) ^ d) == h) {
        const TTData old = TTData::unpack(d);
        const int lo = std::max(old.lo, t.lo), hi = std::min(old.hi, t.hi);
        if (lo <= hi) {
          t.lo = lo;
          t.hi = hi;
        }
        if (t.best < 0) t.best = old.best;
        t.effort = std::max(t.effort, old.effort);
        victim = &b[i];
        break;
      }
      const TTData old = TTData::unpack(d);
      const int score = d == 0 ? -2 : old.generation != generation_ ? -1 : old.effort;
      if (score < victim_score) {
        victim_score = score;
        victim = &b[i];
      }
    }
    t.generation = generation_;
    const std::uint64_t d = t.pack();
    victim->data.store(d, std::memory_order_relaxed);
    victim->key.store(h ^ d, std::memory_order_relaxed);
  }

 private:
  struct Entry {
    std::atomic<std::uint64_t> key{0};
    std::atomic<std::uint64_t> data{0};
  };
  std::unique_ptr<Entry[]> entries_;
  std::uint64_t mask_ = 0;
  int generation_ = 1;
};

struct TableSlot {
  std::once_flag once;
  std::shared_ptr<const ClassValues> values;
  std::optional<SearchError> error;
};

struct Abort {};

// One thread's search state: the path from the position being solved, child buffers.
struct Ctx {
  std::vector<Position> path;
  std::vector<ClassKey> path_key;
  std::deque<std::vector<Child>> kids;  // per ply; a deque keeps references stable
  std::deque<std::vector<int>> order;
  std::uint64_t nodes = 0, flushed = 0, table_hits = 0;
  std::vector<Child>& kids_at(std::size_t ply) {
    while (kids.size() <= ply) kids.emplace_back();
    return kids[ply];
  }
  std::vector<int>& order_at(std::size_t ply) {
    while (order.size() <= ply) order.emplace_back();
    return order[ply];
  }
};

constexpr int kInf = kWinValue + 2;

std::string generate_hint(const Variant& v, int seeds, const std::string& dir) {
  return "mancala-tb generate " + v.name() + " --max-seeds " + std::to_string(seeds) + " --out " + dir;
}

}  // namespace

struct Searcher::Impl {
  VariantPtr variant;
  SearchOptions opt;
  GameKind kind = GameKind::Score;
  bool may_repeat = true;
  std::unordered_map<ClassKey, std::unique_ptr<TableSlot>, ClassKeyHash> tables;
  int tables_max = -1;
  TranspositionTable tt;
  // Exact values of positions solved by region_solve: by class rank, or whole
  // positions when the class does not index them. Bounded with the region by tt_bytes.
  std::mutex memo_mu;
  std::unordered_map<ClassKey, std::unique_ptr<ClassIndex>, ClassKeyHash> indexes;
  std::unordered_map<ClassKey, std::unordered_map<Index, Value>, ClassKeyHash> memo;
  std::unordered_map<Position, Value, PositionHash> memo_loose;
  std::atomic<std::uint64_t> memo_entries{0};
  static constexpr std::uint64_t kRegionBytes = 320, kMemoBytes = 64;  // measured, see region_solve

  std::atomic<std::uint64_t> nodes{0}, table_hits{0};
  std::atomic<bool> aborting{false};
  std::mutex mu;  // error, progress
  std::optional<SearchError> error;
  SearchProgress progress;
  Clock::time_point start, last_report;

  void fail(SearchError e) {
    {
      std::lock_guard lock(mu);
      if (!error) error = std::move(e);
    }
    aborting.store(true);
    throw Abort{};
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

  void flush(Ctx& c) {
    nodes += c.nodes - c.flushed;
    c.flushed = c.nodes;
    if (aborting.load(std::memory_order_relaxed)) throw Abort{};
    if (opt.cancel && opt.cancel->load()) fail({SearchError::Cancelled, "search cancelled"});
    const double s = seconds();
    if (opt.time_limit > 0 && s > opt.time_limit)
      fail({SearchError::Limit, "gave up after the time limit of " + std::to_string(opt.time_limit) + " s (" +
                                    std::to_string(nodes.load()) + " positions searched); more tables or time would help"});
    if (opt.max_nodes && nodes.load() > opt.max_nodes)
      fail({SearchError::Limit, "gave up after " + std::to_string(opt.max_nodes) + " positions (the node limit)"});
    if (opt.progress && Clock::now() - last_report > std::chrono::milliseconds(250)) report([](SearchProgress&) {});
  }

  // Exact value of p from the tables, nullopt if its class is not tabled or p not indexed.
  std::optional<int> table_value(Ctx& c, const Position& p, const ClassKey& key) {
    if (tables_max < 0 || !variant->tabled(p)) return std::nullopt;
    const auto it = tables.find(key);
    if (it == tables.end()) {
      if (key.seeds <= tables_max) {
        const std::string dir = opt.tables->dir().string();
        fail({SearchError::MissingTable, "the tables in " + dir + " reach " + std::to_string(tables_max) +
                                             " seeds but lack class " + to_string(key, variant->pits()) + " of " +
                                             variant->name() + "; make it with: " + generate_hint(*variant, tables_max, dir)});
      }
      return std::nullopt;
    }
    TableSlot& slot = *it->second;
    std::call_once(slot.once, [&] {
      auto t = opt.tables->table(*variant, key);
      if (!t) {
        slot.error = SearchError{SearchError::TableError, t.error().message};
        return;
      }
      auto bytes = (*t)->read_all();
      if (!bytes) {
        slot.error = SearchError{SearchError::TableError, bytes.error().message};
        return;
      }
      auto cv = std::make_shared<ClassValues>(ClassIndex(*variant, key), kind);
      if (cv->bytes().size() != bytes->size()) {
        slot.error = SearchError{SearchError::TableError, (*t)->path().string() + ": wrong number of values"};
        return;
      }
      cv->bytes() = std::move(*bytes);
      slot.values = std::move(cv);
    });
    if (slot.error) fail(*slot.error);
    const ClassValues& cls = *slot.values;
    if (!cls.index().contains(p)) return std::nullopt;
    ++c.table_hits;
    return cls.get(cls.index().rank(p));
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

  // Fail-soft alpha-beta over the repetition game (search.h). `rep` receives the
  // smallest path index of a position repeated in the subtree.
  int search(Ctx& c, const Position& p, int alpha, int beta, int& rep) {
    if ((++c.nodes & 0xFFF) == 0) flush(c);
    const std::size_t ply = c.path.size();
    const ClassKey key = variant->class_of(p);
    if (auto t = table_value(c, p, key)) return *t;
    if (may_repeat)
      for (std::size_t i = ply; i-- > 0 && c.path_key[i] == key;)
        if (c.path[i] == p) {
          rep = std::min(rep, static_cast<int>(i));
          return 0;
        }
    std::vector<Child>& kids = c.kids_at(ply);
    variant->children(p, kids);
    if (kids.empty()) return variant->terminal_value(p);
    const int bound = kind == GameKind::Score ? variant->value_bound(key.seeds) : kWinValue;
    if (bound <= alpha) return bound;
    if (-bound >= beta) return -bound;

    const std::uint64_t h = position_hash(p);
    TTData e;
    int hint = -1;
    if (tt.probe(h, e)) {
      if (e.lo >= beta) return e.lo;
      if (e.hi <= alpha) return e.hi;
      if (e.lo == e.hi) return e.lo;
      hint = e.best;
    }

    // Order: the table's best child, then moves again (Kalah), then by immediate gain.
    std::vector<int>& order = c.order_at(ply);
    order.resize(kids.size());
    for (std::size_t i = 0; i < kids.size(); ++i) order[i] = static_cast<int>(i);
    auto priority = [&](int i) {
      const Child& ch = kids[static_cast<std::size_t>(i)];
      return (i == hint ? 1 << 20 : 0) + (ch.game_over ? 1 << 12 : 0) + (ch.same_side ? 1 << 10 : 0) +
             (ch.gain_mover - ch.gain_opponent) * 8;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return priority(a) > priority(b); });

    const int alpha0 = alpha;
    int best = -kInf, best_i = -1, sub_rep = INT_MAX;
    const std::uint64_t nodes0 = c.nodes;
    c.path.push_back(p);
    c.path_key.push_back(key);
    for (int i : order) {
      const Child& ch = kids[static_cast<std::size_t>(i)];
      int w;
      if (ch.game_over) {
        w = move_value(kind, ch, 0);
      } else {
        const auto [ca, cb] = child_window(ch, alpha, beta);
        w = apply(ch, search(c, ch.next, ca, cb, sub_rep));
      }
      if (w > best) {
        best = w;
        best_i = i;
      }
      if (best > alpha) alpha = best;
      if (best >= beta) break;
    }
    c.path.pop_back();
    c.path_key.pop_back();
    rep = std::min(rep, sub_rep);
    if (sub_rep >= static_cast<int>(ply)) {  // no strict ancestor repeated: a bound of v(p) itself
      TTData t;
      t.lo = best <= alpha0 ? -bound : best;  // fail low: v <= best
      t.hi = best >= beta ? bound : best;      // fail high: v >= best
      t.best = best_i;
      t.effort = static_cast<int>(std::bit_width(c.nodes - nodes0));
      tt.store(h, t);
    }
    return best;
  }

  // MTD(f): exact v(q), q alone on the path.
  int mtdf(Ctx& c, const Position& q, const std::string& what) {
    const ClassKey key = variant->class_of(q);
    const int bound = kind == GameKind::Score ? variant->value_bound(key.seeds) : kWinValue;
    int lo = -bound, hi = bound, guess = 0;
    TTData e;
    if (tt.probe(position_hash(q), e)) {
      lo = std::max(lo, e.lo);
      hi = std::min(hi, e.hi);
      guess = std::clamp(0, lo, hi);
    }
    c.path.clear();
    c.path_key.clear();
    while (lo < hi) {
      const int gamma = std::clamp(guess, lo + 1, hi);
      int rep = INT_MAX;
      const int r = search(c, q, gamma - 1, gamma, rep);
      if (r >= gamma) lo = std::max(lo, r);
      else hi = std::min(hi, r);
      guess = r;
      if (opt.progress)
        report([&](SearchProgress& s) {
          s.current = what;
          s.lower = lo;
          s.upper = hi;
        });
    }
    return lo;
  }

  int solve_one(Ctx& c, const Position& q, const std::string& what) {
    return may_repeat ? exact_value(c, q, what) : mtdf(c, q, what);
  }
  int exact(Ctx& c, const Child& ch, const std::string& what) {
    if (ch.game_over) return move_value(kind, ch, 0);
    return apply(ch, solve_one(c, ch.next, what));
  }

  // ---- Variants with cycles: retrograde over the reachable part of each class ----

  const ClassIndex& index_of(const ClassKey& key) {
    std::lock_guard lock(memo_mu);
    auto& slot = indexes[key];
    if (!slot) slot = std::make_unique<ClassIndex>(*variant, key);
    return *slot;
  }
  std::optional<int> memo_get(const Position& q, const ClassKey& key) {
    const ClassIndex& idx = index_of(key);
    std::lock_guard lock(memo_mu);
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

  // Exact v(q) for a variant whose positions can repeat.
  int exact_value(Ctx& c, const Position& q, const std::string& what) {
    const ClassKey key = variant->class_of(q);
    if (auto t = table_value(c, q, key)) return *t;
    if (auto m = memo_get(q, key)) return *m;
    return region_solve(c, q, key, what);
  }

  // Values of a region: the bound iteration of retrograde.h from [-B, B], stopped, as
  // there, at the fixpoint of the values (a drawn cycle's win/loss bounds would step
  // one ply per sweep from +-kWinValue; the values stop changing long before).
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
      flush(c);
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
      if ((++c.nodes & 0xFF) == 0) flush(c);
      // Memory: about kRegionBytes per region position (the position, its id in the
      // hash map, its move list) and kMemoBytes per memo entry; tt_bytes bounds both.
      const std::uint64_t region_bytes = pos.size() * kRegionBytes;
      if (region_bytes + memo_entries.load(std::memory_order_relaxed) * kMemoBytes > opt.tt_bytes) {
        // The memo is a cache: drop it; only a region larger than the budget is an error.
        std::lock_guard lock(memo_mu);
        memo.clear();
        memo_loose.clear();
        memo_entries = 0;
      }
      if (region_bytes > opt.tt_bytes)
        fail({SearchError::TableTooSmall,
              "the search needs more memory than --tt-mb allows (class " + to_string(key, variant->pits()) +
                  " alone reaches " + std::to_string(pos.size()) + " positions); raise --tt-mb or generate tables up to more seeds"});
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
            std::optional<int> known = table_value(c, ch.next, ck);
            if (!known) known = memo_get(ch.next, ck);
            if (known) {
              e.value = g(e, *known);
            } else {
              const auto [it, fresh] = id.emplace(ch.next, static_cast<int>(pos.size()));
              if (fresh) pos.push_back(ch.next);
              e.child = it->second;
            }
          } else {
            e.value = g(e, exact_value(c, ch.next, what));
          }
        }
        out.push_back(e);
      }
      edges.push_back(std::move(out));
    }
    const std::size_t n = pos.size();
    const std::vector<int> final_value = bound_iteration(c, key, pos, edges, g);
    const ClassIndex& idx = index_of(key);
    {
      std::lock_guard lock(memo_mu);
      auto& m = memo[key];
      for (std::size_t i = 0; i < n; ++i) {
        const int v = final_value[i];
        if (variant->tabled(pos[i]) && idx.contains(pos[i])) m[idx.rank(pos[i])] = static_cast<Value>(v);
        else memo_loose[pos[i]] = static_cast<Value>(v);
      }
      memo_entries += n;
    }
    if (opt.progress)
      report([&](SearchProgress& s) {
        s.current = what + ", class " + to_string(key, variant->pits()) + ": " + std::to_string(n) + " positions";
      });
    return final_value[0];
  }

  void principal_variation(Ctx& c, const Position& root, int value, SearchResult& out) {
    Position cur = root;
    int val = value;
    std::vector<Position> seen;
    for (int step = 0; step < 2000; ++step) {
      std::vector<Child> kids;
      variant->children(cur, kids);
      if (kids.empty()) {
        out.pv_end = "game over";
        return;
      }
      const ClassKey key = variant->class_of(cur);
      // Candidates: game-ending moves, then moves leaving the class, then the rest.
      std::vector<int> order(kids.size());
      for (std::size_t i = 0; i < kids.size(); ++i) order[i] = static_cast<int>(i);
      auto rank = [&](int i) {
        const Child& ch = kids[static_cast<std::size_t>(i)];
        return ch.game_over ? 0 : !(variant->class_of(ch.next) == key) ? 1 : 2;
      };
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank(a) < rank(b); });
      int chosen = -1, repeat = -1;
      for (int i : order) {
        const Child& ch = kids[static_cast<std::size_t>(i)];
        if (exact(c, ch, "principal variation") != val) continue;
        if (!ch.game_over && std::find(seen.begin(), seen.end(), ch.next) != seen.end()) {
          if (repeat < 0) repeat = i;
          continue;
        }
        chosen = i;
        break;
      }
      if (chosen < 0 && repeat >= 0) {
        out.pv.push_back(kids[static_cast<std::size_t>(repeat)]);
        out.pv_end = val == 0 ? "endless play" : "cut: every optimal move repeats a position of the line";
        return;
      }
      if (chosen < 0) {
        out.pv_end = "internal error: no move reaches the value";
        return;
      }
      const Child ch = kids[static_cast<std::size_t>(chosen)];
      out.pv.push_back(ch);
      if (ch.game_over) {
        out.pv_end = "game over";
        return;
      }
      seen.push_back(cur);
      if (kind == GameKind::WinLoss) {
        val = solve_one(c, ch.next, "principal variation");
      } else {
        const int base = ch.gain_mover - ch.gain_opponent;
        val = ch.same_side ? val - base : base - val;
      }
      cur = ch.next;
    }
    out.pv_end = "limit";
  }

  template <class F>
  std::optional<SearchError> guarded(F&& f) {
    try {
      f();
    } catch (const Abort&) {
    } catch (const std::exception& ex) {
      std::lock_guard lock(mu);
      if (!error) error = SearchError{SearchError::BadPosition, ex.what()};
      aborting.store(true);
    }
    std::lock_guard lock(mu);
    return error;
  }

  void begin() {
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

Searcher::Searcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Searcher::~Searcher() = default;

std::expected<std::unique_ptr<Searcher>, SearchError> Searcher::create(VariantPtr v, SearchOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->variant = v;
  impl->kind = v->kind();
  impl->may_repeat = v->id() != VariantId::Kalah;  // Kalah: seeds only move forward in a class
  if (options.tt_bytes < TranspositionTable::kMinBytes)
    return std::unexpected(SearchError{SearchError::TableTooSmall,
                                       "the transposition table needs at least 1 MiB, got " +
                                           std::to_string(options.tt_bytes) + " bytes (use --tt-mb 1 or more)"});
  if (!impl->tt.allocate(impl->may_repeat ? TranspositionTable::kMinBytes : options.tt_bytes))
    return std::unexpected(SearchError{SearchError::TableTooSmall, "could not allocate a transposition table of " +
                                                                      std::to_string(options.tt_bytes >> 20) + " MiB"});
  if (options.tables) {
    const auto keys = options.tables->classes(v->name());
    if (keys.empty())
      return std::unexpected(SearchError{
          SearchError::MissingTable, options.tables->dir().string() + " holds no tables for " + v->name() +
                                         "; make some with: " + generate_hint(*v, 8, options.tables->dir().string()) +
                                         " (or solve without --tables)"});
    for (const ClassKey& k : keys) {
      impl->tables.emplace(k, std::make_unique<TableSlot>());
      impl->tables_max = std::max(impl->tables_max, k.seeds);
    }
  }
  // Cyclic variants: the transposition table is not used; the memory goes to the memo
  // (about 64 bytes an entry) and the region being solved (about 320 bytes a position).
  if (impl->may_repeat) impl->tt.allocate(TranspositionTable::kMinBytes);
  impl->opt = std::move(options);
  return std::unique_ptr<Searcher>(new Searcher(std::move(impl)));
}

std::expected<Value, SearchError> Searcher::value(const Position& p) {
  Impl& s = *impl_;
  if (auto e = s.check(p)) return std::unexpected(*e);
  s.begin();
  int v = 0;
  Ctx c;
  if (auto e = s.guarded([&] { v = s.solve_one(c, p, "position"); })) return std::unexpected(*e);
  return static_cast<Value>(v);
}

std::expected<SearchResult, SearchError> Searcher::solve(const Position& p) {
  Impl& s = *impl_;
  if (auto e = s.check(p)) return std::unexpected(*e);
  s.begin();
  SearchResult out;
  std::vector<Child> kids;
  s.variant->children(p, kids);
  std::vector<int> values(kids.size(), 0);
  std::atomic<int> done{0};
  s.progress.root_moves = static_cast<int>(kids.size());
  auto root_task = [&](std::size_t i) {
    Ctx c;
    s.guarded([&] {
      values[i] = s.exact(c, kids[i], "move " + s.variant->move_name(kids[i].move));
    });
    s.nodes += c.nodes - c.flushed;
    s.table_hits += c.table_hits;
    const int d = ++done;
    if (s.opt.progress) s.report([&](SearchProgress& pr) { pr.root_moves_done = d; });
  };
  const int threads = s.opt.threads > 0 ? s.opt.threads : tbb::this_task_arena::max_concurrency();
  if (threads <= 1 || kids.size() <= 1) {
    for (std::size_t i = 0; i < kids.size(); ++i) root_task(i);
  } else {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, kids.size(), 1),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t i = r.begin(); i != r.end(); ++i) root_task(i);
                        },
                        tbb::simple_partitioner());
    });
  }
  {
    std::lock_guard lock(s.mu);
    if (s.error) return std::unexpected(*s.error);
  }
  for (std::size_t i = 0; i < kids.size(); ++i)
    out.moves.push_back(RootMoveValue{kids[i].move, static_cast<Value>(values[i]), kids[i]});
  std::stable_sort(out.moves.begin(), out.moves.end(),
                   [](const RootMoveValue& a, const RootMoveValue& b) { return a.value > b.value; });
  out.value = kids.empty() ? s.variant->terminal_value(p) : out.moves.front().value;
  if (s.opt.principal_variation) {
    Ctx c;
    if (auto e = s.guarded([&] { s.principal_variation(c, p, out.value, out); })) return std::unexpected(*e);
    s.nodes += c.nodes - c.flushed;
    s.table_hits += c.table_hits;
  }
  out.nodes = s.nodes.load();
  out.table_hits = s.table_hits.load();
  out.seconds = s.seconds();
  return out;
}

std::expected<SearchResult, SearchError> solve_position(VariantPtr v, const Position& p, SearchOptions options) {
  auto s = Searcher::create(std::move(v), std::move(options));
  if (!s) return std::unexpected(s.error());
  return (*s)->solve(p);
}

}  // namespace mancala
