// Exact search above the tables: MTD(f) over fail-soft null-window alpha-beta with
// a lock-free transposition table, table leaves and repetition = 0 (see search.h).
#include "mancala/search.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <chrono>
#include <climits>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <fstream>
#include <unordered_map>

#include "mancala/format.h"
#include "mancala/table_writer.h"
#include "mancala/generate.h"
#include "mancala/probe.h"
#include "mancala/rules/kalah.h"
#include "mancala/solver_support.h"
#include "mancala/values.h"

namespace mancala {

namespace {

using Clock = std::chrono::steady_clock;

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

  // In fresh 2 MiB-aligned memory (anonymous pages read as zero: no entry needs
  // writing before the search, and pages are only touched as the search fills them),
  // with transparent huge pages asked for: a probe then misses the cache but rarely
  // the TLB.
  bool allocate(std::uint64_t bytes) {
    std::uint64_t buckets = 1;
    while (buckets * 2 * sizeof(Bucket) <= bytes) buckets *= 2;
    release();
    constexpr std::size_t kHuge = 2u << 20;
    const std::size_t size = (buckets * sizeof(Bucket) + kHuge - 1) / kHuge * kHuge;
    void* mem = mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) return false;
    map_ = mem;
    map_bytes_ = size + kHuge;
    const std::uintptr_t at = (reinterpret_cast<std::uintptr_t>(mem) + kHuge - 1) / kHuge * kHuge;
#ifdef MADV_HUGEPAGE
    madvise(reinterpret_cast<void*>(at), size, MADV_HUGEPAGE);
#endif
    buckets_ = reinterpret_cast<Bucket*>(at);  // implicit-lifetime entries, read as zero
    mask_ = buckets - 1;
    return true;
  }
  TranspositionTable() = default;
  TranspositionTable(const TranspositionTable&) = delete;
  TranspositionTable& operator=(const TranspositionTable&) = delete;
  ~TranspositionTable() { release(); }
  void new_generation() { generation_ = generation_ % 255 + 1; }  // 1..255: data 0 = empty
  int generation() const { return generation_; }

  bool probe(std::uint64_t h, TTData& out) const {
    const Entry* b = buckets_[h & mask_].way;
    for (int i = 0; i < kWays; ++i) {
      const std::uint64_t d = load(b[i].data);
      if ((load(b[i].key) ^ d) == h && d != 0) {
        out = TTData::unpack(d);
        return true;
      }
    }
    return false;
  }
  void prefetch(std::uint64_t h) const { __builtin_prefetch(&buckets_[h & mask_]); }
  // Every entry as (position hash, packed data); not while a search writes.
  template <class F>
  void for_each(F&& f) const {
    for (std::uint64_t i = 0; buckets_ && i <= mask_; ++i)
      for (const Entry& e : buckets_[i].way)
        if (e.data != 0) f(e.key ^ e.data, e.data);
  }

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
      const std::uint64_t d = load(b[i].data);
      if (d != 0 && (load(b[i].key) ^ d) == h) {
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
    std::atomic_ref<std::uint64_t>(victim->data).store(d, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(victim->key).store(h ^ d, std::memory_order_relaxed);
  }

 private:
  struct Entry {  // written by several threads through atomic_ref; zero = empty
    std::uint64_t key;
    std::uint64_t data;
  };
  static std::uint64_t load(const std::uint64_t& x) {
    return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(x)).load(std::memory_order_relaxed);
  }
  void release() {
    if (map_) munmap(map_, map_bytes_);
    map_ = nullptr;
    buckets_ = nullptr;
  }
  struct alignas(64) Bucket {  // one cache line
    Entry way[kWays];
  };
  static_assert(sizeof(Bucket) == 64);
  Bucket* buckets_ = nullptr;
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  std::uint64_t mask_ = 0;
  int generation_ = 1;
};

// A class of the tables, read through the one reader (probe.h: values decoded in
// place from the mapped file).
struct TableSlot {
  std::once_flag once;
  const TableFile* file = nullptr;
  const ClassIndex* index = nullptr;  // with the table's position list, if any
  std::optional<SearchError> error;
  bool plain_rank = false;  // Kalah: rank = the distribution rank of the pits (KalahBoard::rank)
};


// Kalah positions for the search (side to move South, no stores): the mover's pits
// in bytes 0..15, the other side's in bytes 16..31 (pits per side m <= 12), so that
// turning the board round swaps two halves, a lap of seeds is one addition per word,
// and the hash reads four words. Sowing s seeds from pit i puts s / L seeds in every
// pit and the store (L = 2m + 1 steps) and one more in each of the s % L steps after i:
// both are masks precomputed per (i, s % L), with the store's seeds and the last step.
struct KPos {
  std::uint64_t w[4];  // KPos{} is empty
  std::uint8_t* b() { return reinterpret_cast<std::uint8_t*>(w); }
  const std::uint8_t* b() const { return reinterpret_cast<const std::uint8_t*>(w); }
};

__extension__ typedef unsigned __int128 U128;
inline std::uint64_t mum(std::uint64_t a, std::uint64_t b) {
  const U128 r = static_cast<U128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}
inline std::uint64_t kpos_hash(const KPos& p) {
  const std::uint64_t a = mum(p.w[0] ^ 0xA0761D6478BD642Full, p.w[2] ^ 0xE7037ED1A0B428DBull);
  return mum(a ^ p.w[1] ^ 0x8EBC6AF09C88C6E3ull, p.w[3] ^ 0x589965CC75374CC3ull);
}
// Sum of the bytes of a word whose byte sum is below 256.
inline int byte_sum(std::uint64_t x) { return static_cast<int>((x * 0x0101010101010101ull) >> 56); }

// A move of a Kalah position.
struct KKid {
  KPos next;  // turned round unless `again`
  int gain;   // seeds the mover stores (sown and captured)
  int seeds;  // seeds left on the board
  int index;  // the move's index among the moves (the order of Variant::children)
  int pit;
  bool again;
  bool over;  // one side of `next` is empty: the game is over
};

class KalahBoard {
 public:
  KalahBoard() = default;
  // Ranks for up to `max_seeds` seeds on the board.
  KalahBoard(int m, bool empty_capture, int max_seeds) : m_(m), L_(2 * m + 1), empty_(empty_capture), kW(std::max(max_seeds, 0) + 1) {
    for (int i = 0; i < m; ++i) {
      lap_.b()[i] = 1;
      lap_.b()[16 + i] = 1;
    }
    sow_.resize(static_cast<std::size_t>(m * L_));
    for (int i = 0; i < m; ++i)
      for (int rest = 0; rest < L_; ++rest) {
        Sow& s = sow_[static_cast<std::size_t>(i * L_ + rest)];
        for (int k = 1, step = i + 1; k <= rest; ++k, ++step) {
          if (step == L_) step = 0;
          if (step == m) ++s.store;
          else ++s.add.b()[step < m ? step : 16 + step - m - 1];
        }
        s.last = (i + rest) % L_;
      }
    // rank(x) = sum_{j < P-1} B(j, m_j) - B(j, m_j - x_j), B(j, r) = binom(r + P-1-j, P-1-j) (index.h)
    const int P = 2 * m;
    ways_.assign(static_cast<std::size_t>(P) * kW, 0);
    for (int j = 0; j < P; ++j)
      for (int r = 0; r < kW; ++r) {
        const int top = r + P - 1 - j, k = P - 1 - j;
        Index c = 1;
        for (int t = 1; t <= k; ++t) c = c * static_cast<Index>(top - k + t) / static_cast<Index>(t);
        ways_[static_cast<std::size_t>(j * kW + r)] = c;
      }
  }
  int m() const { return m_; }

  KPos from(const Position& p) const {
    KPos q{};
    for (int i = 0; i < m_; ++i) {
      q.b()[i] = p.pits[static_cast<std::size_t>(i)];
      q.b()[16 + i] = p.pits[static_cast<std::size_t>(m_ + i)];
    }
    return q;
  }
  Position to(const KPos& q) const {
    Position p;
    for (int i = 0; i < m_; ++i) {
      p.pits[static_cast<std::size_t>(i)] = q.b()[i];
      p.pits[static_cast<std::size_t>(m_ + i)] = q.b()[16 + i];
    }
    return p;
  }
  static int south(const KPos& q) { return byte_sum(q.w[0]) + byte_sum(q.w[1]); }
  static bool over(const KPos& q) { return (q.w[0] | q.w[1]) == 0 || (q.w[2] | q.w[3]) == 0; }

  // The moves of q (k seeds on the board, not over), in pit order: Kalah::children.
  int children(const KPos& q, int k, KKid* out) const {
    int n = 0;
    const std::uint8_t* a = q.b();
    for (int i = 0; i < m_; ++i) {
      const int s = a[i];
      if (s == 0) continue;
      KKid& c = out[n];
      c.index = n++;
      c.pit = i;
      KPos r = q;
      r.b()[i] = 0;
      const int laps = s / L_, rest = s - laps * L_;
      const Sow& w = sow_[static_cast<std::size_t>(i * L_ + rest)];
      const std::uint64_t l = static_cast<std::uint64_t>(laps);
      for (int j = 0; j < 4; ++j) r.w[j] += l * lap_.w[j] + w.add.w[j];
      int gain = laps + w.store;
      c.again = w.last == m_;
      if (w.last < m_ && r.b()[w.last] == 1) {
        std::uint8_t& f = r.b()[16 + m_ - 1 - w.last];
        if (f > 0 || empty_) {
          gain += f + 1;
          f = 0;
          r.b()[w.last] = 0;
        }
      }
      if (c.again) {
        c.next = r;
      } else {
        c.next.w[0] = r.w[2];
        c.next.w[1] = r.w[3];
        c.next.w[2] = r.w[0];
        c.next.w[3] = r.w[1];
      }
      c.gain = gain;
      c.seeds = k - gain;
      c.over = over(c.next);
    }
    return n;
  }

  // The rank of q among the distributions of `seeds` seeds over the 2m pits in the
  // order of Position (ClassIndex of a plain class; checked by rank_matches).
  Index rank(const KPos& q, int seeds) const {
    const std::uint8_t* a = q.b();
    const Index* b = ways_.data();
    Index r = 0;
    int left = seeds;
    const int P = 2 * m_;
    for (int j = 0; j < P - 1; ++j, b += kW) {
      const int x = a[j < m_ ? j : 16 + j - m_];
      r += b[left] - b[left - x];
      left -= x;
    }
    return r;
  }

 private:
  struct Sow {
    KPos add{};
    int store = 0, last = 0;
  };
  int m_ = 0, L_ = 1;
  bool empty_ = true;
  int kW = 1;
  KPos lap_{};
  std::vector<Sow> sow_;
  std::vector<Index> ways_;
};

// The search's stop, propagated by return through the call chain (no exception): a
// function returning a value returns kStop, one returning a slot returns null, and
// every caller returns at once on seeing it, storing nothing. Why it stopped is in
// Impl::error (an error, the budget, the cancel flag) or, under a parallel split, the
// split's cut-off (then no error: the split's owner folds what its tasks finished).
constexpr int kStop = INT_MIN;

// A position whose moves are searched in parallel: a cut-off sets `cut`, and every
// search under it (at any depth of splits) stops.
struct SplitPoint {
  std::atomic<bool> cut{false};
  const SplitPoint* parent = nullptr;
  bool stopped() const {
    for (const SplitPoint* s = this; s; s = s->parent)
      if (s->cut.load(std::memory_order_relaxed)) return true;
    return false;
  }
};

// One position of the path of a search of a variant with cycles (alpha-beta with
// repetition = 0): its moves, and what the repetition check needs.
struct CMove {  // what is known of one move of a CPly before and after searching it
  int lo, hi;
  std::size_t dep;  // the lowest ply of the path a repetition behind the bounds hit
  std::uint64_t hash;
  ClassKey key;
};
struct CPly {
  std::vector<Child> kids;
  std::vector<CMove> moves;  // per kid
  std::vector<int> order;    // the kids to search, best first
  Position pos;
  std::uint64_t hash = 0;
  std::size_t class_start = 0;  // the first ply of the path in this position's class
  ClassKey key;
};

// One thread's search state.
struct Ctx {
  std::uint64_t nodes = 0, flushed = 0, table_hits = 0;
  const SplitPoint* split = nullptr;  // the innermost parallel split this search is part of
  // Cyclic alpha-beta: the path from the root (one allocation per ply, kept: references
  // stay valid as it grows; nothing allocated for a Kalah search).
  std::vector<std::unique_ptr<CPly>> path;
  CPly& at(std::size_t ply) {
    while (path.size() <= ply) path.push_back(std::make_unique<CPly>());
    return *path[ply];
  }
  std::unordered_map<ClassKey, bool, ClassKeyHash> small_class;  // cyclic alpha-beta: solved by region
  std::unordered_map<ClassKey, const ClassIndex*, ClassKeyHash> indexes;  // Impl::indexes seen by this thread
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
  bool kalah = false;        // the search of Kalah positions (KalahBoard)
  KalahBoard board;
  int split_threads = 1;     // > 1: moves are searched in parallel (split) near the root
  int split_plies = 16;      // splits at plies below this
  // Young brothers wait for 1 move at an expected all-node, for this many at an
  // expected cut-node (where the second or third move often cuts off what the first
  // did not: splitting after the first there made 2 threads search 52 % more
  // positions than 1 on Kalah(6,4) standard, 2 % with this).
  static constexpr int kSplitAfterCut = 3;
  std::unordered_map<ClassKey, std::unique_ptr<TableSlot>, ClassKeyHash> tables;
  int tables_max = -1;
  // tables.find(key) of the classes with no marks or flags, by seeds.
  std::vector<std::unordered_map<ClassKey, std::unique_ptr<TableSlot>, ClassKeyHash>::iterator> plain_tables;
  TranspositionTable tt;
  // Exact values of positions solved by region_solve: by class rank, or whole
  // positions when the class does not index them. Bounded with the region by tt_bytes.
  std::shared_mutex memo_mu;  // the memo (readers share it)
  std::mutex index_mu;        // `indexes`
  std::unordered_map<ClassKey, std::unique_ptr<ClassIndex>, ClassKeyHash> indexes;
  std::unordered_map<ClassKey, std::unordered_map<Index, Value>, ClassKeyHash> memo;
  std::unordered_map<Position, Value, PositionHash> memo_loose;
  std::atomic<std::uint64_t> memo_entries{0};
  static constexpr std::uint64_t kRegionBytes = 320, kMemoBytes = 64;  // measured, see region_solve
  std::uint64_t region_budget = 0;  // bytes for the regions and the memo (tt_bytes, or half of it beside alpha-beta)

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

  // The class's slot with its file and index open (once), or null (the error recorded).
  TableSlot* open_slot(const ClassKey& key, TableSlot& slot) {
    std::call_once(slot.once, [&] {
      auto t = opt.tables->table(*variant, key);
      if (!t) {
        slot.error = t.error();
        return;
      }
      slot.file = *t;
      slot.index = (*t)->ready_index();
      slot.plain_rank = kalah_rank_matches(*slot.index, key.seeds);
    });
    if (slot.error) {
      fail(*slot.error);
      return nullptr;
    }
    return &slot;
  }

  // The value of rank `rank` of an open slot (kStop: the table could not be read).
  int slot_value(Ctx& c, TableSlot& slot, Index rank) {
    auto x = slot.file->value(rank);
    if (!x) return fail(x.error());
    ++c.table_hits;
    return *x;
  }

  int missing_table(const ClassKey& key) {
    const std::string dir = opt.tables->dir().string();
    return fail({SearchError::MissingTable, "the tables in " + dir + " reach " + std::to_string(tables_max) +
                                         " seeds but lack class " + to_string(key, variant->pits()) + " of " +
                                         variant->name() + "; make it with: " + generate_hint(*variant, tables_max, dir)});
  }

  // Exact value of p from the tables, nullopt if its class is not tabled or p not
  // indexed; kStop if the tables fail (a missing class, a read error).
  std::optional<int> table_value(Ctx& c, const Position& p, const ClassKey& key) {
    if (tables_max < 0 || key.seeds > tables_max || !variant->tabled(p)) return std::nullopt;
    const auto it = key.state == 0 ? plain_tables[static_cast<std::size_t>(key.seeds)] : tables.find(key);
    if (it == tables.end()) return missing_table(key);
    TableSlot* slot = open_slot(key, *it->second);
    if (!slot) return kStop;
    if (!slot->index->contains(p)) return std::nullopt;
    return slot_value(c, *slot, slot->index->rank(p));
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
  // MTD(f)'s first guess). p (k seeds on the board) is neither over nor tabled. A call
  // returns r:
  //   r <= alpha  =>  v(p) <= r,      r >= beta  =>  v(p) >= r,      else  v(p) == r
  // (of the depth-limited value for a limited depth).
  //
  // Before any move is searched, each move's value is bounded from what is known
  // without search (enhanced transposition cut-off): a game-ending move or a tabled
  // child is exact, a child in the transposition table is bounded by its entry, any
  // other child by its seeds on the board. A move whose lower bound reaches beta cuts
  // off at once; a move whose upper bound is at most alpha is not searched.
  //
  // Parallel search (split_threads > 1): a position within split_plies of the root
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
  // The exact value of a tabled position of `seeds` seeds (<= tables_max), or nullopt
  // where the tables do not index it (kStop: the tables failed).
  std::optional<int> ktable(Ctx& c, const KPos& q, int seeds) {
    TableSlot* slot = kslot(seeds);
    if (!slot) return kStop;
    if (slot->plain_rank) return slot_value(c, *slot, board.rank(q, seeds));
    const Position p = board.to(q);
    if (!slot->index->contains(p)) return std::nullopt;
    return slot_value(c, *slot, slot->index->rank(p));
  }
  // The open slot of the class of `seeds` seeds (<= tables_max), or null (missing or
  // unreadable: the error recorded).
  TableSlot* kslot(int seeds) {
    const auto it = plain_tables[static_cast<std::size_t>(seeds)];
    if (it == tables.end()) {
      missing_table(ClassKey{0, seeds});
      return nullptr;
    }
    return open_slot(ClassKey{0, seeds}, *it->second);
  }
  // Whether a plain class's index ranks positions as KalahBoard::rank does (a few
  // positions checked; otherwise the index's own rank is used).
  bool kalah_rank_matches(const ClassIndex& idx, int seeds) const {
    if (!kalah || idx.subset() || idx.live_pits() != variant->pits() || seeds > tables_max) return false;
    const Index n = idx.size();
    if (n == 0) return false;
    for (Index r : {Index{0}, n / 3, n / 2, n - 1}) {
      const Position p = idx.unrank(r);
      if (board.rank(board.from(p), seeds) != r) return false;
    }
    return true;
  }

  // One position's moves and what is known of them before searching (per ply).
  struct KFrame {
    KKid kids[16];
    int lo[16], hi[16], order[16];
    std::uint64_t hash[16];  // children above the tables: their hash
    Index rank[16];          // tabled children: their rank in slot[i]
    TableSlot* slot[16];
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
    if (tt.probe(h, e)) {
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
      if (ch.seeds <= tables_max) {
        TableSlot* s = F.slot[i] = kslot(ch.seeds);
        if (!s) return kStop;
        if (s->plain_rank) {
          F.rank[i] = board.rank(ch.next, ch.seeds);
          s->file->prefetch(F.rank[i]);
        }
      } else {
        tt.prefetch(F.hash[i] = kpos_hash(ch.next));
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
      t.best = best_i;
      t.depth = depth;
      t.effort = static_cast<int>(std::bit_width(c.nodes - nodes0));
      tt.store(h, t);
      return r;
    };
    // Peek at every move: first those of exact value (the game ends, or the tables
    // hold the child), which may cut off at once and give the transposition table's
    // prefetches time, then the others, bounded by their seeds and their entries.
    int pending[16], npending = 0;
    for (int i = 0; i < n; ++i) {
      const KKid& ch = F.kids[i];
      std::optional<int> t;
      if (ch.over) {
        t = 2 * KalahBoard::south(ch.next) - ch.seeds;
      } else if (ch.seeds <= tables_max) {
        TableSlot& s = *F.slot[i];
        if (s.plain_rank) {
          t = slot_value(c, s, F.rank[i]);
        } else {
          t = ktable(c, ch.next, ch.seeds);
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
      int clo = floor_of(ch.seeds), chi = ch.seeds;
      int lo = kapply(ch, ch.again ? clo : chi);
      int hi = kapply(ch, ch.again ? chi : clo);
      TTData ce;  // the table only where the seeds leave the move undecided
      if (lo < beta && hi > alpha && tt.probe(F.hash[i], ce)) {
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
    // Order: the table's best move, moves again (nearest the store first), then by the
    // middle of the peeked bounds (the child's exact entry in the transposition table,
    // else the immediate gain).
    int pr[16];
    for (int j = 0; j < nord; ++j) {
      const int i = F.order[j];
      pr[i] = (i == hint ? 1 << 20 : 0) + (F.kids[i].again ? (1 << 12) + i : 0) + (F.lo[i] + F.hi[i]) * 4;
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
      if (j == (all_node ? 1 : kSplitAfterCut) && split_threads > 1 && ply < static_cast<std::size_t>(split_plies) && nord > j + 1 && best < beta) {
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
    int k = 0;
    for (int i = 0; i < variant->pits(); ++i) k += q.pits[static_cast<std::size_t>(i)];
    const int bound = variant->value_bound(k);
    int lo = floor_of(k), hi = bound;
    TTData e;
    if (tt.probe(kpos_hash(board.from(q)), e) && e.usable(depth)) {
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
    if (auto t = table_value(c, q, key)) return *t;  // kStop passes through
    std::vector<Child> kids;
    variant->children(q, kids);
    if (kids.empty()) return variant->terminal_value(q);
    // Always by iterative deepening: the midpoint of the bounds a search of the parent
    // left (tried before) was a poor guess for the first moves' exact values (every
    // first move of Kalah(6,4): 200 M positions, against 129 M so).
    TTData e;
    if (tt.probe(kpos_hash(board.from(q)), e) && e.exact_bounds() && e.lo == e.hi) return e.lo;
    int guess = 0;
    for (int d = 3; d <= opt.guess_depth; d += 3)
      if ((guess = mtdf(c, q, guess, d, what)) == kStop) return kStop;
    return mtdf(c, q, guess, kExactDepth, what);
  }

  // Whether move `ch` of a position is worth at least `v` to the mover (exact): 1 or
  // 0, or kStop.
  int move_reaches(Ctx& c, const Child& ch, int v) {
    if (ch.game_over) return move_value(kind, ch, 0) >= v;
    const ClassKey ck = variant->class_of(ch.next);
    std::optional<int> t = table_value(c, ch.next, ck);
    if (!t) {
      const auto [ca, cb] = child_window(ch, v - 1, v);
      t = search(c, ch.next, ca, cb, kExactDepth, 1);
    }
    if (*t == kStop) return kStop;
    return apply(ch, *t) >= v;
  }

  // A move of q worth v(q) = v: the transposition table's best move first (-1: none,
  // kStop: stopped).
  int best_move(Ctx& c, const Position& q, int v) {
    std::vector<Child> kids;
    variant->children(q, kids);
    TTData e;
    const int hint = tt.probe(kpos_hash(board.from(q)), e) ? e.best : -1;
    std::vector<int> order(kids.size());
    for (std::size_t i = 0; i < kids.size(); ++i) order[i] = static_cast<int>(i);
    if (hint >= 0 && hint < static_cast<int>(kids.size())) std::swap(order[0], order[static_cast<std::size_t>(hint)]);
    for (int i : order)
      if (const int r = move_reaches(c, kids[static_cast<std::size_t>(i)], v); r != 0) return r == kStop ? kStop : i;
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
      if (i == kStop) return;
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
    if (!may_repeat) return kalah_value(c, q, what);
    return opt.cycles == CycleMethod::Region ? exact_value(c, q, what) : cyclic_value(c, q, what);
  }
  int exact(Ctx& c, const Child& ch, const std::string& what) {
    if (ch.game_over) return move_value(kind, ch, 0);
    const int v = solve_one(c, ch.next, what);
    return v == kStop ? kStop : apply(ch, v);
  }

  // ---- Variants with cycles: alpha-beta with repetition = 0 (first-cycle game) ----
  //
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
  std::uint64_t phash(const Position& p) const { return mum(PositionHash{}(p) | 1, 0x9E3779B97F4A7C15ull); }
  // The transposition table's key of a position (Kalah: of its KalahBoard form).
  std::uint64_t table_key(const Position& p) const { return kalah ? kpos_hash(board.from(p)) : phash(p); }

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
        const auto t = table_value(c, ch.next, m.key);
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
    if (auto t = table_value(c, q, key)) return *t;  // kStop passes through
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

  // ---- Variants with cycles: retrograde over the reachable part of each class ----

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
    if (auto t = table_value(c, q, key)) return *t;  // kStop passes through
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
        const int v = exact(c, ch, "principal variation");
        if (v == kStop) return;
        if (v != val) continue;
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
        if (val == kStop) return;
      } else {
        const int base = ch.gain_mover - ch.gain_opponent;
        val = ch.same_side ? val - base : base - val;
      }
      cur = ch.next;
    }
    out.pv_end = "limit";
  }

  // Runs one search step; the error that stopped it, if any (a step that stopped
  // returned kStop and recorded why). The catches are for exceptions of others: an
  // allocation that fails, and a rules engine's own limit on a turn (Enkeshui's
  // length_error: the position is beyond what the rules can play).
  template <class F>
  std::optional<SearchError> guarded(F&& f) {
    try {
      f();
    } catch (const std::bad_alloc&) {
      fail({SearchError::OutOfMemory, "out of memory in the search (lower --tt-mb or --threads)"});
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
  // Games with cycles: region retrograde alone takes the whole budget (no table); beside
  // alpha-beta the table takes half and the regions of small classes and their memo
  // the other half.
  const bool region = impl->may_repeat && options.cycles == CycleMethod::Region;
  const std::uint64_t tt_bytes = !impl->may_repeat ? options.tt_bytes
                                 : region          ? TranspositionTable::kMinBytes
                                                   : std::max(TranspositionTable::kMinBytes, options.tt_bytes / 2);
  impl->region_budget = region ? options.tt_bytes : std::max(options.tt_bytes - tt_bytes, options.tt_bytes / 2);
  if (!impl->tt.allocate(tt_bytes))
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
  if (const auto* kalah = dynamic_cast<const Kalah*>(v.get())) {
    impl->kalah = true;
    impl->board = KalahBoard(kalah->pits_per_side(), kalah->capture() == Kalah::Capture::Empty, impl->tables_max);
  }
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

// ---- The transposition table in a file (layout in search.h) ----

namespace {

constexpr char kTableFileMagic[8] = {'M', 'T', 'B', 'S', 'E', 'A', 'R', 'C'};
constexpr std::uint32_t kTableFileVersion = 1;
constexpr std::size_t kTableFileChunk = 65536;  // entries a chunk (1 MiB), each with its CRC-32

std::uint32_t crc_of(const std::string& s) { return crc32(s.data(), s.size()); }
std::uint32_t le32(const std::string& s, std::size_t at) { return get32(reinterpret_cast<const unsigned char*>(s.data() + at)); }
std::uint64_t le64(const std::string& s, std::size_t at) { return get64(reinterpret_cast<const unsigned char*>(s.data() + at)); }

}  // namespace

Result<std::uint64_t> Searcher::save_table(const std::filesystem::path& file) const {
  const Impl& s = *impl_;
  // The header, whose size the name fixes, goes last (with the count of entries), in
  // one pass over the table: room for it first, then the chunks.
  const std::string name = s.variant->name();
  auto header = [&](std::uint64_t n) {
    std::string head(kTableFileMagic, sizeof kTableFileMagic);
    put32(head, kTableFileVersion);
    put32(head, static_cast<std::uint32_t>(name.size()));
    head += name;
    put64(head, s.table_key(s.variant->start()));
    put64(head, n);
    put32(head, crc_of(head));
    return head;
  };
  std::uint64_t n = 0;
  auto written = replace_file(file, [&](int fd, const FileSink& write) -> Result<void> {
    if (auto w = write(std::string(header(0).size(), '\0')); !w) return w;
    std::string chunk;
    std::uint64_t in_chunk = 0;
    Result<void> status;
    auto flush = [&] {
      if (in_chunk == 0 || !status) return;
      put32(chunk, crc_of(chunk));
      status = write(chunk);
      chunk.clear();
      in_chunk = 0;
    };
    s.tt.for_each([&](std::uint64_t key, std::uint64_t data) {
      put64(chunk, key);
      put64(chunk, data);
      ++n;
      if (++in_chunk == kTableFileChunk) flush();
    });
    flush();
    if (!status) return status;
    if (::lseek(fd, 0, SEEK_SET) != 0)
      return std::unexpected(Error{Error::Io, file.string() + ": cannot seek back to the header while writing"});
    return write(header(n));
  });
  if (!written) return std::unexpected(written.error());
  return n;
}

Result<std::uint64_t> Searcher::load_table(const std::filesystem::path& file) {
  Impl& s = *impl_;
  const std::string where = file.string() + ": ";
  auto corrupt = [&](const std::string& why) { return std::unexpected(Error{Error::Corrupt, where + why}); };
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec) return std::unexpected(Error{Error::Io, where + "cannot read: " + ec.message()});
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(Error{Error::Io, where + "cannot open"});
  auto read = [&](std::size_t bytes) -> std::optional<std::string> {
    std::string b(bytes, '\0');
    if (!in.read(b.data(), static_cast<std::streamsize>(bytes))) return std::nullopt;
    return b;
  };
  // Header: magic, version and the name's length first, then the rest it fixes.
  constexpr std::size_t kFixed = sizeof kTableFileMagic + 8;
  auto fixed = size >= kFixed ? read(kFixed) : std::nullopt;
  if (!fixed) return corrupt("too short for a transposition table file (" + std::to_string(size) + " bytes)");
  if (std::memcmp(fixed->data(), kTableFileMagic, sizeof kTableFileMagic) != 0)
    return corrupt("not a transposition table file of mancala-tb solve --tt-file (its first bytes)");
  const std::uint64_t version = le32(*fixed, 8), name_bytes = le32(*fixed, 12);
  if (version != kTableFileVersion)
    return std::unexpected(Error{Error::Mismatch, where + "format version " + std::to_string(version) + ", this build reads " +
                                                    std::to_string(kTableFileVersion)});
  if (name_bytes > 64 || size < kFixed + name_bytes + 20) return corrupt("header cut short or a variant name of " + std::to_string(name_bytes) + " bytes");
  auto rest = read(name_bytes + 20);
  if (!rest) return corrupt("cannot read the header");
  const std::string head = *fixed + *rest;
  if (le32(head, head.size() - 4) != crc32(head.data(), head.size() - 4)) return corrupt("header checksum");
  const std::string name = rest->substr(0, name_bytes);
  if (name != s.variant->name())
    return std::unexpected(Error{Error::Mismatch, where + "a table of " + name + ", not " + s.variant->name()});
  if (le64(*rest, name_bytes) != s.table_key(s.variant->start()))
    return std::unexpected(Error{Error::Mismatch, where + "written by a build that hashes positions otherwise"});
  const std::uint64_t n = le64(*rest, name_bytes + 8);
  const std::uint64_t chunks = (n + kTableFileChunk - 1) / kTableFileChunk;
  if (n > (size / 16) || size != head.size() + n * 16 + chunks * 4)
    return corrupt(std::to_string(n) + " entries do not fill its " + std::to_string(size) + " bytes");
  // Entries, a chunk at a time (each checked before any of it is used).
  std::vector<std::pair<std::uint64_t, TTData>> entries;
  std::uint64_t left = n, stored = 0;
  while (left > 0) {
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(left, kTableFileChunk));
    auto chunk = read(m * 16 + 4);
    if (!chunk) return corrupt("cut short in its entries");
    if (le32(*chunk, m * 16) != crc32(chunk->data(), m * 16)) return corrupt("entry checksum");
    entries.clear();
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint64_t data = le64(*chunk, 16 * i + 8);
      const TTData t = TTData::unpack(data);
      if (data == 0 || t.lo > t.hi || t.lo < -kInf || t.hi > kInf) return corrupt("an entry with impossible bounds");
      entries.emplace_back(le64(*chunk, 16 * i), t);
    }
    for (const auto& [key, t] : entries) s.tt.store(key, t);
    stored += m;
    left -= m;
  }
  return stored;
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
      // Isolated: a thread waiting for a split of this move's search takes no other
      // first move meanwhile (that would hold the split up for a whole search).
      tbb::this_task_arena::isolate([&] {
        s.guarded([&] { values[i] = s.exact(c, kids[i], "move " + s.variant->move_name(kids[i].move)); });
      });
      absorb(c);
      known[i] = true;
      const int d = ++done;
      if (s.opt.progress) s.report([&](SearchProgress& pr) { pr.root_moves_done = d; });
    };
    if (threads <= 1 || kids.size() <= 1) {
      for (std::size_t i = 0; i < kids.size(); ++i) root_task(i);
    } else {
      // Kalah: the searches of the first moves split too, so a thread with no first
      // move left helps with the others' positions near their roots.
      if (!s.may_repeat) s.split_threads = threads;
      tbb::task_arena arena(threads);
      arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, kids.size(), 1),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                            for (std::size_t i = r.begin(); i != r.end(); ++i) root_task(i);
                          },
                          tbb::simple_partitioner());
      });
      s.split_threads = 1;
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
