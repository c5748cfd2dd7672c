// Exact search above the tables: MTD(f) over fail-soft null-window alpha-beta with
// a lock-free transposition table, table leaves and repetition = 0 (see search.h).
#include "mancala/search.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <chrono>
#include <climits>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <optional>
#include <unordered_map>

#include "mancala/generate.h"
#include "mancala/probe.h"
#include "mancala/rules/kalah.h"
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

// A proven interval of v(q) (or, for a depth-limited search, of its depth-limited
// value), the best child's index and bookkeeping, packed in 64 bits:
//   bits 0-15 lo, 16-31 hi (int16), 32-39 best child (255 none), 40-47 effort,
//   48-55 generation, 56-63 depth (kExactDepth: bounds of the exact value v).
constexpr int kExactDepth = 255;
struct TTData {
  int lo = 0, hi = 0, best = -1, effort = 0, generation = 0, depth = kExactDepth;
  std::uint64_t pack() const {
    return static_cast<std::uint64_t>(static_cast<std::uint16_t>(lo)) |
           static_cast<std::uint64_t>(static_cast<std::uint16_t>(hi)) << 16 |
           static_cast<std::uint64_t>(best < 0 || best > 254 ? 255 : best) << 32 |
           static_cast<std::uint64_t>(std::min(effort, 255)) << 40 | static_cast<std::uint64_t>(generation & 255) << 48 |
           static_cast<std::uint64_t>(depth & 255) << 56;
  }
  static TTData unpack(std::uint64_t d) {
    TTData t;
    t.lo = static_cast<std::int16_t>(static_cast<std::uint16_t>(d & 0xFFFF));
    t.hi = static_cast<std::int16_t>(static_cast<std::uint16_t>((d >> 16) & 0xFFFF));
    const int b = static_cast<int>((d >> 32) & 255);
    t.best = b == 255 ? -1 : b;
    t.effort = static_cast<int>((d >> 40) & 255);
    t.generation = static_cast<int>((d >> 48) & 255);
    t.depth = static_cast<int>((d >> 56) & 255);
    return t;
  }
  bool exact_bounds() const { return depth == kExactDepth; }
  // Whether the bounds may cut a search of `d` plies (kExactDepth: to the end).
  bool usable(int d) const { return depth == kExactDepth || (d != kExactDepth && depth >= d); }
};

class TranspositionTable {
 public:
  static constexpr int kWays = 4;
  static constexpr std::uint64_t kMinBytes = 1ull << 20;

  // In 2 MiB-aligned memory, with transparent huge pages asked for: a probe then
  // misses the cache but rarely the TLB.
  bool allocate(std::uint64_t bytes) {
    std::uint64_t buckets = 1;
    while (buckets * 2 * sizeof(Bucket) <= bytes) buckets *= 2;
    constexpr std::size_t kHuge = 2u << 20;
    const std::size_t size = (buckets * sizeof(Bucket) + kHuge - 1) / kHuge * kHuge;
    void* mem = std::aligned_alloc(kHuge, size);
    if (!mem) return false;
#ifdef MADV_HUGEPAGE
    madvise(mem, size, MADV_HUGEPAGE);
#endif
    buckets_.reset(new (mem) Bucket[buckets]());
    mask_ = buckets - 1;
    return true;
  }
  void new_generation() { generation_ = generation_ % 255 + 1; }  // 1..255: data 0 = empty
  int generation() const { return generation_; }

  bool probe(std::uint64_t h, TTData& out) const {
    const Entry* b = buckets_[h & mask_].way;
    for (int i = 0; i < kWays; ++i) {
      const std::uint64_t d = b[i].data.load(std::memory_order_relaxed);
      if ((b[i].key.load(std::memory_order_relaxed) ^ d) == h && d != 0) {
        out = TTData::unpack(d);
        return true;
      }
    }
    return false;
  }
  void prefetch(std::uint64_t h) const { __builtin_prefetch(&buckets_[h & mask_]); }

  // Stores bounds. Same position: bounds of the same depth are intersected, exact
  // bounds replace depth-limited ones and are never replaced by them, a deeper
  // depth-limited entry replaces a shallower one. Another position: the victim is an
  // empty slot, else an entry of an older search, else the one of least effort, an
  // entry of exact bounds counting as 32 more (2^32 more nodes) than a depth-limited one.
  void store(std::uint64_t h, TTData t) {
    Entry* b = buckets_[h & mask_].way;
    Entry* victim = nullptr;
    int victim_score = INT_MAX;
    for (int i = 0; i < kWays; ++i) {
      const std::uint64_t d = b[i].data.load(std::memory_order_relaxed);
      if (d != 0 && (b[i].key.load(std::memory_order_relaxed) ^ d) == h) {
        const TTData old = TTData::unpack(d);
        if (old.depth == t.depth) {
          const int lo = std::max(old.lo, t.lo), hi = std::min(old.hi, t.hi);
          if (lo <= hi) {
            t.lo = lo;
            t.hi = hi;
          }
          t.effort = std::max(t.effort, old.effort);
        } else if (old.exact_bounds() || (!t.exact_bounds() && old.depth > t.depth)) {
          if (old.best >= 0 || t.best < 0) return;  // keep the better entry
          t = TTData{old.lo, old.hi, t.best, old.effort, 0, old.depth};
        }
        if (t.best < 0) t.best = old.best;
        victim = &b[i];
        break;
      }
      const TTData old = TTData::unpack(d);
      const int score = d == 0 ? -2 : old.generation != generation_ ? -1 : old.effort + (old.exact_bounds() ? 32 : 0);
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
  struct alignas(64) Bucket {  // one cache line
    Entry way[kWays];
  };
  static_assert(sizeof(Bucket) == 64);
  struct Free {
    void operator()(Bucket* b) const { std::free(b); }  // Bucket is trivially destructible
  };
  std::unique_ptr<Bucket[], Free> buckets_;
  std::uint64_t mask_ = 0;
  int generation_ = 1;
};

// A class of the tables, its blocks decompressed on first use (a search touches few
// positions of the large classes) into one array of the whole class (huge pages asked
// for: table reads are random).
struct TableSlot {
  std::once_flag once;
  std::shared_ptr<TableFile> file;
  std::shared_ptr<const ClassIndex> index;  // with the table's position list, if any
  std::optional<SearchError> error;
  std::uint64_t block_positions = 1;
  int width = 1;
  std::unique_ptr<std::atomic<bool>[]> loaded;  // per block
  struct Free {
    void operator()(std::uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<std::uint8_t[], Free> values;
  std::mutex mu;
};

struct Abort {};

// One thread's search state: move lists, orders and peeked bounds per ply.
struct Ply {
  std::vector<Child> kids;
  std::vector<int> order;
  std::vector<int> lo, hi;  // bounds of each move's value known before searching it
  std::vector<std::uint64_t> hash;
};
struct Ctx {
  std::deque<Ply> plies;  // a deque keeps references stable
  std::uint64_t nodes = 0, flushed = 0, table_hits = 0;
  int helper = 0;                            // 0: the main thread; > 0: a helper of a parallel search
  const std::atomic<bool>* stop = nullptr;   // a helper stops when this is set
  Ply& at(std::size_t ply) {
    while (plies.size() <= ply) plies.emplace_back();
    return plies[ply];
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
  bool parity = false;  // values have the parity of the seeds on the board (Kalah)
  bool secures_one = false;  // the mover always stores a seed (Kalah, empty capture)
  int split_threads = 1;     // > 1: the root's moves are shared among threads (split_root)
  std::unordered_map<ClassKey, std::unique_ptr<TableSlot>, ClassKeyHash> tables;
  int tables_max = -1;
  // tables.find(key) of the classes with no marks or flags, by seeds.
  std::vector<std::unordered_map<ClassKey, std::unique_ptr<TableSlot>, ClassKeyHash>::iterator> plain_tables;
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
  std::atomic<int> root_lo{-kInf}, root_hi{kInf};
  const Position* root_position = nullptr;  // MTD(f)'s proven bounds of the position solved
  std::atomic<bool> aborting{false};
  std::mutex mu;  // error, progress
  std::optional<SearchError> error;
  SearchProgress progress;
  Clock::time_point start, last_report;

  void fail(SearchError e) {
    {
      std::lock_guard lock(mu);
      const int lo = root_lo.load(), hi = root_hi.load();
      if (e.code == SearchError::Limit && lo > -kInf && lo < hi)
        e.message += "; proven so far: the value is in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
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
    if (c.stop && c.stop->load(std::memory_order_relaxed)) throw Abort{};
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
    if (tables_max < 0 || key.seeds > tables_max || !variant->tabled(p)) return std::nullopt;
    const auto it = key.state == 0 ? plain_tables[static_cast<std::size_t>(key.seeds)] : tables.find(key);
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
      auto idx = (*t)->index(*variant);
      if (!idx) {
        slot.error = SearchError{SearchError::TableError, idx.error().message};
        return;
      }
      slot.file = *t;
      slot.index = *idx;
      const TableHeader& h = (*t)->header();
      slot.block_positions = h.block_positions;
      slot.width = static_cast<int>(h.value_width);
      slot.loaded.reset(new std::atomic<bool>[h.blocks()]());
      constexpr std::size_t kHuge = 2u << 20;
      const std::size_t bytes = (static_cast<std::size_t>(h.positions) * h.value_width + kHuge - 1) / kHuge * kHuge;
      slot.values.reset(static_cast<std::uint8_t*>(std::aligned_alloc(kHuge, std::max(bytes, kHuge))));
      if (!slot.values) {
        slot.error = SearchError{SearchError::TableTooSmall, "out of memory for the table of class " + to_string(key, variant->pits())};
        return;
      }
#ifdef MADV_HUGEPAGE
      madvise(slot.values.get(), std::max(bytes, kHuge), MADV_HUGEPAGE);
#endif
    });
    if (slot.error) fail(*slot.error);
    if (!slot.index->contains(p)) return std::nullopt;
    const Index rank = slot.index->rank(p);
    const std::size_t b = static_cast<std::size_t>(rank / slot.block_positions);
    if (!slot.loaded[b].load(std::memory_order_acquire)) {
      std::lock_guard lock(slot.mu);
      if (!slot.loaded[b].load(std::memory_order_acquire)) {
        auto blk = slot.file->read_block(b);
        if (!blk) fail({SearchError::TableError, blk.error().message});
        std::memcpy(slot.values.get() + b * slot.block_positions * static_cast<std::size_t>(slot.width), blk->data(), blk->size());
        slot.loaded[b].store(true, std::memory_order_release);
      }
    }
    ++c.table_hits;
    const std::uint8_t* data = slot.values.get();
    const std::size_t at = static_cast<std::size_t>(rank) * static_cast<std::size_t>(slot.width);
    if (slot.width == 1) return static_cast<std::int8_t>(data[at]);
    return static_cast<Value>(static_cast<std::uint16_t>(data[at] | (data[at + 1] << 8)));
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

  // ---- Kalah: MTD(f) over fail-soft null-window alpha-beta ----
  //
  // Every seed ends in a store, so v(q) = (seeds the mover will store) - (the rest)
  // has the parity of the k seeds on the board and |v(q)| <= k (the futility bound).
  // Bounds are rounded to that parity: v <= r with r - k odd means v <= r - 1.
  //
  // With the empty capture, the mover of a position that is not over stores at least
  // one seed (the last nonempty pit reaches the store or ends in an empty pit of his
  // and captures), so v(q) >= 2 - k there.
  int floor_of(int k) const { return secures_one && k > 0 ? 2 - k : -k; }
  bool over(const Position& q) const {
    const int m = variant->south_pits(q), n = variant->pits();
    return q.seeds_in(0, m) == 0 || q.seeds_in(m, n) == 0;
  }
  int round_lo(int r, int k) const { return parity && ((r - k) & 1) ? r + 1 : r; }
  int round_hi(int r, int k) const { return parity && ((r - k) & 1) ? r - 1 : r; }

  // Fail-soft alpha-beta of depth `depth` (kExactDepth: to the end of the game; else
  // a depth-limited search whose leaves are worth 0, used only for move order and
  // MTD(f)'s first guess). p is neither over nor tabled. A call returns r:
  //   r <= alpha  =>  v(p) <= r,      r >= beta  =>  v(p) >= r,      else  v(p) == r
  // (of the depth-limited value for a limited depth).
  //
  // Before any move is searched, each move's value is bounded from what is known
  // without search (enhanced transposition cut-off): a game-ending move or a tabled
  // child is exact, a child in the transposition table is bounded by its entry, any
  // other child by its seeds on the board. A move whose lower bound reaches beta cuts
  // off at once; a move whose upper bound is at most alpha is not searched.
  int search(Ctx& c, const Position& p, int alpha, int beta, int depth, std::size_t ply) {
    if ((++c.nodes & 0xFFF) == 0) flush(c);
    int k = 0;
    for (int i = 0; i < variant->pits(); ++i) k += p.pits[static_cast<std::size_t>(i)];
    const int bound = variant->value_bound(k), floor = floor_of(k);
    if (depth == 0) return 0;
    const bool exact_search = depth == kExactDepth;
    const int child_depth = exact_search ? kExactDepth : depth - 1;

    const std::uint64_t h = position_hash(p);
    TTData e;
    int hint = -1;
    if (tt.probe(h, e)) {
      if (e.usable(depth)) {
        if (e.lo >= beta) return e.lo;
        if (e.hi <= alpha) return e.hi;
        if (e.lo == e.hi) return e.lo;
      }
      hint = e.best;
    }

    Ply& P = c.at(ply);
    variant->children(p, P.kids);
    const std::size_t n = P.kids.size();
    if (n == 0) return variant->terminal_value(p);
    P.lo.resize(n);
    P.hi.resize(n);
    P.hash.resize(n);
    P.order.clear();
    for (std::size_t i = 0; i < n; ++i)  // start the children's table reads at once
      if (!P.kids[i].game_over) tt.prefetch(P.hash[i] = position_hash(P.kids[i].next));
    const int alpha0 = alpha;
    const std::uint64_t nodes0 = c.nodes;
    int best = -kInf, best_i = -1, upper = -kInf;  // upper: the largest upper bound of a move not searched
    auto finish = [&](int r) {
      if (exact_search) r = r >= beta ? round_lo(r, k) : r <= alpha0 ? round_hi(r, k) : r;
      TTData t;
      t.lo = r <= alpha0 ? floor : r;   // fail low: v <= r
      t.hi = r >= beta ? bound : r;     // fail high: v >= r
      t.best = best_i;
      t.depth = depth;
      t.effort = static_cast<int>(std::bit_width(c.nodes - nodes0));
      tt.store(h, t);
      return r;
    };
    // Peek at every move.
    for (std::size_t i = 0; i < n; ++i) {
      const Child& ch = P.kids[i];
      int lo, hi;
      if (ch.game_over) {
        lo = hi = move_value(kind, ch, 0);
      } else if (over(ch.next)) {
        lo = hi = apply(ch, variant->terminal_value(ch.next));
      } else {
        const ClassKey ck = variant->class_of(ch.next);
        if (auto t = table_value(c, ch.next, ck)) {
          lo = hi = apply(ch, *t);
        } else {
          const int cb = variant->value_bound(ck.seeds);
          int clo = floor_of(ck.seeds), chi = cb;
          lo = apply(ch, ch.same_side ? clo : chi);
          hi = apply(ch, ch.same_side ? chi : clo);
          TTData ce;  // the table only where the seeds leave the move undecided
          if (lo < beta && hi > alpha && tt.probe(P.hash[i], ce)) {
            if (ce.usable(child_depth)) {
              clo = std::max(clo, ce.lo);
              chi = std::min(chi, ce.hi);
              lo = apply(ch, ch.same_side ? clo : chi);
              hi = apply(ch, ch.same_side ? chi : clo);
            }
          }
        }
      }
      P.lo[i] = lo;
      P.hi[i] = hi;
      if (lo > best) {
        best = lo;
        best_i = static_cast<int>(i);
      }
      if (lo >= beta) return finish(lo);
      if (lo == hi) upper = std::max(upper, hi);
      else P.order.push_back(static_cast<int>(i));
    }
    if (best > alpha) alpha = best;
    // Order: the table's best move, moves again (nearest the store first), then by the
    // middle of the peeked bounds (the child's exact entry in the transposition table,
    // else the immediate gain).
    auto priority = [&](int i) {
      const Child& ch = P.kids[static_cast<std::size_t>(i)];
      int pr = (i == hint ? 1 << 20 : 0) + (ch.same_side ? (1 << 12) + i : 0) +
               (P.lo[static_cast<std::size_t>(i)] + P.hi[static_cast<std::size_t>(i)]) * 4;
      if (c.helper && ply < 6) pr ^= static_cast<int>(splitmix(h + static_cast<std::uint64_t>(c.helper * 131 + i)) & 63);
      return pr;
    };
    std::stable_sort(P.order.begin(), P.order.end(), [&](int a, int b) { return priority(a) > priority(b); });
    for (std::size_t j = 0; j < P.order.size(); ++j) {
      if (j == 1 && ply == 0 && split_threads > 1 && best < beta) {
        // Root split: the first move searched alone, the others shared among the
        // threads (each with its own state); a cut-off stops the rest.
        split_root(P, j, alpha, beta, child_depth, best, best_i, upper);
        break;
      }
      const int i = P.order[j];  // P stays valid: deeper plies are added at the deque's end
      Ply& Q = P;
      const std::size_t u = static_cast<std::size_t>(i);
      if (Q.hi[u] <= alpha) {
        upper = std::max(upper, Q.hi[u]);
        continue;
      }
      const Child& ch = Q.kids[u];
      const auto [ca, cb] = child_window(ch, alpha, beta);
      const int w = std::clamp(apply(ch, search(c, ch.next, ca, cb, child_depth, ply + 1)), Q.lo[u], Q.hi[u]);
      if (w > best) {
        best = w;
        best_i = i;
      }
      if (best >= beta) break;
      if (best > alpha) alpha = best;
    }
    return finish(best >= beta || best > alpha0 ? best : std::max(best, upper));
  }

  // The moves P.order[from..] of the root searched in parallel with the window
  // (alpha, beta) (alpha as it stands: the tasks do not raise it), results folded into
  // best / best_i / upper as the serial loop does.
  void split_root(Ply& P, std::size_t from, int alpha, int beta, int child_depth, int& best, int& best_i, int& upper) {
    std::atomic<bool> cut{false};
    std::mutex fold;
    bool aborted = false;
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(from, P.order.size(), 1),
        [&](const tbb::blocked_range<std::size_t>& r) {
          for (std::size_t j = r.begin(); j != r.end(); ++j) {
            const int i = P.order[j];
            const std::size_t u = static_cast<std::size_t>(i);
            if (cut.load()) return;
            if (P.hi[u] <= alpha) {
              std::lock_guard lock(fold);
              upper = std::max(upper, P.hi[u]);
              continue;
            }
            Ctx t;
            t.stop = &cut;
            int w = 0;
            bool done = false;
            try {
              const Child& ch = P.kids[u];
              const auto [ca, cb] = child_window(ch, alpha, beta);
              w = std::clamp(apply(ch, search(t, ch.next, ca, cb, child_depth, 1)), P.lo[u], P.hi[u]);
              done = true;
            } catch (const Abort&) {
            }
            nodes += t.nodes - t.flushed;
            table_hits += t.table_hits;
            std::lock_guard lock(fold);
            if (!done) {
              if (!cut.load()) aborted = true;  // the whole search stops (error, limit, cancel)
              continue;
            }
            if (w > best) {
              best = w;
              best_i = i;
            }
            if (best >= beta) cut = true;
          }
        },
        tbb::simple_partitioner());
    if (aborted) throw Abort{};
  }

  // MTD(f) at depth `depth`: the (depth-limited) value of q, from a first guess.
  int mtdf(Ctx& c, const Position& q, int guess, int depth, const std::string& what) {
    int k = 0;
    for (int i = 0; i < variant->pits(); ++i) k += q.pits[static_cast<std::size_t>(i)];
    const int bound = variant->value_bound(k);
    int lo = floor_of(k), hi = bound;
    TTData e;
    if (tt.probe(position_hash(q), e) && e.usable(depth)) {
      lo = std::max(lo, e.lo);
      hi = std::min(hi, e.hi);
    }
    while (lo < hi) {
      int gamma = std::clamp(guess, lo + 1, hi);  // test v >= gamma
      if (depth == kExactDepth && parity && ((gamma - k) & 1)) ++gamma;  // lo, hi have k's parity
      const int r = search(c, q, gamma - 1, gamma, depth, 0);
      if (r >= gamma) lo = std::max(lo, r);
      else hi = std::min(hi, r);
      if (depth == kExactDepth && &q == root_position) {
        root_lo = std::max(root_lo.load(), lo);
        root_hi = std::min(root_hi.load(), hi);
      }
      guess = r;
      if (opt.progress && depth == kExactDepth)
        report([&](SearchProgress& s) {
          s.current = what;
          s.lower = lo;
          s.upper = hi;
        });
    }
    return lo;
  }

  // Exact v(q) of a Kalah position: the tables, the end of the game, or MTD(f) from
  // a first guess made by iterative deepening (depth-limited MTD(f) at 3, 6, ...
  // plies up to opt.guess_depth; each fills the transposition table's move order).
  int kalah_value(Ctx& c, const Position& q, const std::string& what) {
    const ClassKey key = variant->class_of(q);
    if (auto t = table_value(c, q, key)) return *t;
    std::vector<Child> kids;
    variant->children(q, kids);
    if (kids.empty()) return variant->terminal_value(q);
    int guess = 0;
    TTData e;
    if (tt.probe(position_hash(q), e) && e.exact_bounds() && e.lo > -kInf) {
      guess = (e.lo + e.hi) / 2;
    } else {
      for (int d = 3; d <= opt.guess_depth; d += 3) guess = mtdf(c, q, guess, d, what);
    }
    return mtdf(c, q, guess, kExactDepth, what);
  }

  // Whether move `ch` of a position is worth at least `v` to the mover (exact).
  bool move_reaches(Ctx& c, const Child& ch, int v) {
    if (ch.game_over) return move_value(kind, ch, 0) >= v;
    const ClassKey ck = variant->class_of(ch.next);
    if (auto t = table_value(c, ch.next, ck)) return apply(ch, *t) >= v;
    const auto [ca, cb] = child_window(ch, v - 1, v);
    return apply(ch, search(c, ch.next, ca, cb, kExactDepth, 1)) >= v;
  }

  // A move of q worth v(q) = v: the transposition table's best move first.
  int best_move(Ctx& c, const Position& q, int v) {
    std::vector<Child> kids;
    variant->children(q, kids);
    TTData e;
    const int hint = tt.probe(position_hash(q), e) ? e.best : -1;
    std::vector<int> order(kids.size());
    for (std::size_t i = 0; i < kids.size(); ++i) order[i] = static_cast<int>(i);
    if (hint >= 0 && hint < static_cast<int>(kids.size())) std::swap(order[0], order[static_cast<std::size_t>(hint)]);
    for (int i : order)
      if (move_reaches(c, kids[static_cast<std::size_t>(i)], v)) return i;
    return -1;
  }

  // Kalah's principal variation: from each position a move reaching its value.
  void kalah_pv(Ctx& c, const Position& root, int value, SearchResult& out) {
    Position cur = root;
    int val = value;
    for (int step = 0; step < 2000; ++step) {
      std::vector<Child> kids;
      variant->children(cur, kids);
      if (kids.empty()) {
        out.pv_end = "game over";
        return;
      }
      const int i = best_move(c, cur, val);
      if (i < 0) {
        out.pv_end = "internal error: no move reaches the value";
        return;
      }
      const Child ch = kids[static_cast<std::size_t>(i)];
      out.pv.push_back(ch);
      if (ch.game_over) {
        out.pv_end = "game over";
        return;
      }
      const int base = ch.gain_mover - ch.gain_opponent;
      val = ch.same_side ? val - base : base - val;
      cur = ch.next;
    }
    out.pv_end = "limit";
  }

  int solve_one(Ctx& c, const Position& q, const std::string& what) {
    return may_repeat ? exact_value(c, q, what) : kalah_value(c, q, what);
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

Searcher::Searcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Searcher::~Searcher() = default;

std::expected<std::unique_ptr<Searcher>, SearchError> Searcher::create(VariantPtr v, SearchOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->variant = v;
  impl->kind = v->kind();
  impl->may_repeat = v->id() != VariantId::Kalah;  // Kalah: seeds only move forward in a class
  impl->parity = v->id() == VariantId::Kalah;      // Kalah: every seed ends in a store
  if (const auto* kalah = dynamic_cast<const Kalah*>(v.get())) impl->secures_one = kalah->capture() == Kalah::Capture::Empty;
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
    for (int n = 0; n <= impl->tables_max; ++n) impl->plain_tables.push_back(impl->tables.find(ClassKey{0, n}));
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
  s.begin(&p);
  int v = 0;
  Ctx c;
  if (auto e = s.guarded([&] { v = s.solve_one(c, p, "position"); })) return std::unexpected(*e);
  return static_cast<Value>(v);
}

std::expected<SearchResult, SearchError> Searcher::solve(const Position& p) {
  Impl& s = *impl_;
  if (auto e = s.check(p)) return std::unexpected(*e);
  s.begin(&p);
  SearchResult out;
  std::vector<Child> kids;
  s.variant->children(p, kids);
  std::vector<int> values(kids.size(), 0);
  std::vector<bool> known(kids.size(), false);
  std::atomic<int> done{0};
  s.progress.root_moves = static_cast<int>(kids.size());
  const int threads = s.opt.threads > 0 ? s.opt.threads : tbb::this_task_arena::max_concurrency();
  auto absorb = [&](Ctx& c) {
    s.nodes += c.nodes - c.flushed;
    c.flushed = c.nodes;
    s.table_hits += c.table_hits;
    c.table_hits = 0;
  };
  auto failed = [&]() -> std::optional<SearchError> {
    std::lock_guard lock(s.mu);
    return s.error;
  };

  if (!s.may_repeat && !kids.empty()) {
    // Kalah: the value first, by MTD(f); with several threads every search of the root
    // shares its moves after the first among them (split_root).
    std::atomic<int> root_value{0};
    Ctx main;
    s.split_threads = std::max(1, threads);
    auto run = [&] { s.guarded([&] { root_value = s.kalah_value(main, p, "position"); }); };
    if (threads <= 1) {
      run();
    } else {
      tbb::task_arena arena(threads);
      arena.execute(run);
    }
    s.split_threads = 1;
    absorb(main);
    if (auto e = failed()) return std::unexpected(*e);
    out.value = static_cast<Value>(root_value.load());
    Ctx c;
    int best = -1;
    if (auto e = s.guarded([&] { best = s.best_move(c, p, out.value); })) return std::unexpected(*e);
    absorb(c);
    if (best < 0) return std::unexpected(SearchError{SearchError::BadPosition, "internal error: no move reaches the value"});
    values[static_cast<std::size_t>(best)] = out.value;
    known[static_cast<std::size_t>(best)] = true;
    done = 1;
  }

  if (s.may_repeat || s.opt.all_moves) {
    // Every first move's exact value, the first moves shared among the threads.
    auto root_task = [&](std::size_t i) {
      if (known[i]) return;
      Ctx c;
      s.guarded([&] { values[i] = s.exact(c, kids[i], "move " + s.variant->move_name(kids[i].move)); });
      absorb(c);
      known[i] = true;
      const int d = ++done;
      if (s.opt.progress) s.report([&](SearchProgress& pr) { pr.root_moves_done = d; });
    };
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
    if (auto e = failed()) return std::unexpected(*e);
  }
  for (std::size_t i = 0; i < kids.size(); ++i)
    if (known[i]) out.moves.push_back(RootMoveValue{kids[i].move, static_cast<Value>(values[i]), kids[i]});
  std::stable_sort(out.moves.begin(), out.moves.end(),
                   [](const RootMoveValue& a, const RootMoveValue& b) { return a.value > b.value; });
  out.value = kids.empty() ? s.variant->terminal_value(p) : out.moves.front().value;
  if (s.opt.principal_variation) {
    Ctx c;
    if (auto e = s.guarded([&] {
          if (s.may_repeat) s.principal_variation(c, p, out.value, out);
          else s.kalah_pv(c, p, out.value, out);
        }))
      return std::unexpected(*e);
    absorb(c);
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
