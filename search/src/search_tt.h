// The search's transposition table (internal to search/src): a lock-free table of
// proven bounds with their best move, in huge pages, and its file (search.h has the
// file's layout).
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <string>

#include "mancala/error.h"

namespace mancala::search_detail {

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
  // the TLB. `near_bytes` (0: none) of `bytes` go to a second, small region, for
  // positions whose subtrees are small (the caller says which: Kalah's positions just
  // above the tables). Their transpositions are mostly found again soon, within the
  // subtree of a near ancestor, so the small region keeps most of their hits, and it
  // stays in the caches: its probes wait far less than those of the large one.
  bool allocate(std::uint64_t bytes, std::uint64_t near_bytes = 0, bool huge_pages = true) {
    release();
    near_bytes = near_bytes < kMinBytes ? 0 : std::min(near_bytes, bytes / 2);
    const std::uint64_t buckets = buckets_in(bytes - near_bytes), near_buckets = near_bytes ? buckets_in(near_bytes) : 0;
    constexpr std::size_t kHuge = 2u << 20;
    auto whole = [&](std::uint64_t b) { return (b * sizeof(Bucket) + kHuge - 1) / kHuge * kHuge; };
    const std::size_t size = whole(buckets), near_size = whole(near_buckets);
    void* mem = mmap(nullptr, size + near_size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (mem == MAP_FAILED) return false;
    map_ = mem;
    map_bytes_ = size + near_size + kHuge;
    const std::uintptr_t at = (reinterpret_cast<std::uintptr_t>(mem) + kHuge - 1) / kHuge * kHuge;
#ifdef MADV_HUGEPAGE
    if (huge_pages) madvise(reinterpret_cast<void*>(at), size + near_size, MADV_HUGEPAGE);
#endif
    // implicit-lifetime entries, read as zero
    region_[0] = Region{reinterpret_cast<Bucket*>(at), buckets};
    region_[1] = near_buckets ? Region{reinterpret_cast<Bucket*>(at + size), near_buckets} : region_[0];
    return true;
  }
  TranspositionTable() = default;
  TranspositionTable(const TranspositionTable&) = delete;
  TranspositionTable& operator=(const TranspositionTable&) = delete;
  ~TranspositionTable() { release(); }
  void new_generation() { generation_ = generation_ % 255 + 1; }  // 1..255: data 0 = empty
  int generation() const { return generation_; }

  // `near`: the position belongs to the small region (allocate); every call for a
  // position must say the same.
  bool probe(std::uint64_t h, TTData& out, bool near = false) const {
    const Entry* b = bucket(h, near).way;
    for (int i = 0; i < kWays; ++i) {
      const std::uint64_t d = load(b[i].data);
      if ((load(b[i].key) ^ d) == h && d != 0) {
        out = TTData::unpack(d);
        return true;
      }
    }
    return false;
  }
  void prefetch(std::uint64_t h, bool near = false) const { __builtin_prefetch(&bucket(h, near)); }
  // Every entry of the large region as (position hash, packed data); not while a
  // search writes. (The small region's entries are cheap to find again.)
  template <class F>
  void for_each(F&& f) const {
    for (std::uint64_t i = 0; i < region_[0].count; ++i)
      for (const Entry& e : region_[0].buckets[i].way)
        if (e.data != 0) f(e.key ^ e.data, e.data);
  }

  // Stores bounds. Same position: bounds of the same depth are intersected, exact
  // bounds replace depth-limited ones and are never replaced by them, a deeper
  // depth-limited entry replaces a shallower one. Another position: the victim is an
  // empty slot, else an entry of an older search, else the one of least effort, an
  // entry of exact bounds counting as 32 more (2^32 more nodes) than a depth-limited one.
  void store(std::uint64_t h, TTData t, bool near = false) {
    Entry* b = bucket(h, near).way;
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
    region_[0] = region_[1] = Region{};
  }
  struct alignas(64) Bucket {  // one cache line
    Entry way[kWays];
  };
  static_assert(sizeof(Bucket) == 64);
  // The number of buckets of a region of at most `bytes` (at least 1).
  static std::uint64_t buckets_in(std::uint64_t bytes) { return std::max<std::uint64_t>(1, bytes / sizeof(Bucket)); }
  __extension__ typedef unsigned __int128 Wide;
  struct Region {
    Bucket* buckets = nullptr;
    std::uint64_t count = 0;
  };
  // A position's bucket: the high bits of its hash scaled to the region's count
  // (any count, not only powers of two).
  Bucket& bucket(std::uint64_t h, bool near) const {
    const Region& r = region_[near];
    return r.buckets[static_cast<std::uint64_t>((static_cast<Wide>(h) * r.count) >> 64)];
  }
  Region region_[2];  // the large region, the small one (the large one again when there is none)
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  int generation_ = 1;
};

// The table to and from a file (layout in search.h), tagged with the variant's name and
// the table key of its start position (another hash writes another key).
Result<std::uint64_t> save_table_file(const TranspositionTable& tt, const std::filesystem::path& file,
                                      const std::string& name, std::uint64_t start_key);
Result<std::uint64_t> load_table_file(TranspositionTable& tt, const std::filesystem::path& file,
                                      const std::string& name, std::uint64_t start_key, int max_abs);
// The folder of `file` exists and can be written; stale temporaries removed (search.h).
Result<std::uint64_t> check_table_file(const std::filesystem::path& file);

}  // namespace mancala::search_detail
