// The search's one way to the tables (internal to search/src): every exact leaf of
// every engine is read here, through the probe library's reader (Tablebase::table,
// TableFile::read_block). A class's blocks are decoded on first use (a search
// touches few positions of the large classes) into one array of the whole class
// (huge pages asked for: table reads are random); Kalah's plain classes in 4 bits a
// value (TableSlot::compact).
#pragma once

#include <stdlib.h>
#include <sys/mman.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "kalah_board.h"
#include "mancala/probe.h"
#include "mancala/search.h"
#include "search_core.h"

namespace mancala::search_detail {

// A class of the tables.
struct TableSlot {
  std::once_flag once;
  std::atomic<bool> open{false};  // opened without error (open_slot's one load after that)
  const TableFile* file = nullptr;        // kept open by the Tablebase handle
  const ClassIndex* index = nullptr;      // with the table's position list, if any
  std::optional<SearchError> error;
  int block_shift = 0;  // log2 of the block's positions (a power of two, checked by TableFile::open)
  int width = 1;
  std::unique_ptr<std::atomic<bool>[]> loaded;  // per block
  struct Free {
    void operator()(std::uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<std::uint8_t[], Free> values;  // width bytes a position, or 4 bits (compact)
  std::mutex mu;
  bool plain_rank = false;  // Kalah: rank = the distribution rank of the pits (KalahBoard::rank)
  // Kalah, plain classes: each value v of the k seeds in 4 bits, as c = u - o clamped
  // to [0, 15] with u = (v + k) / 2 in [0, k] (v has k's parity, |v| <= k) and
  // o = max(0, ceil((k - 15) / 2)): exact up to 15 seeds, and for more seeds exact but
  // in the 2o + 1 extreme values (|v| >= k - 2o, rare), where c = 0 or 15 stands for a
  // bound. Half the bytes of the 8-bit values: the search's random reads of the tables
  // touch half the memory (fewer cache and TLB misses, fewer pages to zero).
  bool compact = false;
  int seeds = 0;
  std::int8_t lo[16], hi[16];  // compact: the bounds of v for each code
  int offset = 0;              // compact: o

  // Packs n values of the file (bytes) in 4 bits, two a byte, the first in the low half
  // (out[j / 2]): c = min(max(w / 2 - o, 0), 15) with w = v + k, a byte; false when a
  // byte is no value of the class (w above 2k, or odd). Byte arithmetic, so that the
  // compiler vectorizes it: a search packs nearly every block of the large classes.
  bool pack(const std::uint8_t* __restrict in, std::size_t n, std::uint8_t* __restrict out) const {
    const auto k = static_cast<std::uint8_t>(seeds), o = static_cast<std::uint8_t>(offset);
    auto code = [&](std::uint8_t u) {
      const auto h = static_cast<std::uint8_t>(u >> 1);
      const auto c = static_cast<std::uint8_t>(h > o ? h - o : 0);
      return static_cast<std::uint8_t>(c < 15 ? c : 15);
    };
    std::uint8_t low = 0, high = 0;  // the OR and the largest of the u
    for (std::size_t j = 0; j < n / 2; ++j) {
      const auto u0 = static_cast<std::uint8_t>(in[2 * j] + k), u1 = static_cast<std::uint8_t>(in[2 * j + 1] + k);
      low |= static_cast<std::uint8_t>(u0 | u1);
      high = u0 > high ? u0 : high;
      high = u1 > high ? u1 : high;
      out[j] = static_cast<std::uint8_t>(code(u0) | code(u1) << 4);
    }
    if (n & 1) {
      const auto u = static_cast<std::uint8_t>(in[n - 1] + k);
      low |= u;
      high = u > high ? u : high;
      out[n / 2] = code(u);
    }
    return (low & 1) == 0 && high <= 2 * seeds;
  }
};

class TableLeaves {
 public:
  // Errors go to `fail`, which records them and returns kStop.
  using Fail = std::function<int(SearchError)>;

  // The classes of `tables` for v (none without tables: max_seeds() is -1). Error:
  // the tables hold no class of v. `board` (Kalah, else null) ranks plain classes
  // when it ranks them as their index does; it must outlive this.
  // 2 MiB pages for the classes' values (SearchOptions::huge_pages).
  bool huge_pages = true;

  std::optional<SearchError> open(std::shared_ptr<const Tablebase> tables, VariantPtr v, Fail fail) {
    tables_ = std::move(tables);
    variant_ = std::move(v);
    fail_ = std::move(fail);
    if (!tables_) return std::nullopt;
    const auto keys = tables_->classes(variant_->name());
    if (keys.empty())
      return SearchError{SearchError::MissingTable, tables_->dir().string() + " holds no tables for " + variant_->name()};
    for (const ClassKey& k : keys) {
      slots_.emplace(k, std::make_unique<TableSlot>());
      max_ = std::max(max_, k.seeds);
    }
    for (int n = 0; n <= max_; ++n) plain_.push_back(slots_.find(ClassKey{0, n}));
    return std::nullopt;
  }
  void rank_by(const KalahBoard* board) { board_ = board; }
  int max_seeds() const { return max_; }

  // Exact value of p from the tables, nullopt if its class is not tabled or p not
  // indexed; kStop if the tables fail (a missing class, a read error).
  std::optional<int> value(Ctx& c, const Position& p, const ClassKey& key) {
    if (max_ < 0 || key.seeds > max_ || !variant_->tabled(p)) return std::nullopt;
    const auto it = key.state == 0 ? plain_[static_cast<std::size_t>(key.seeds)] : slots_.find(key);
    if (it == slots_.end()) return missing(key);
    TableSlot* slot = open_slot(key, *it->second);
    if (!slot) return kStop;
    if (!slot->index->contains(p)) return std::nullopt;
    return at(c, *slot, slot->index->rank(p));
  }

  // Kalah: the open slot of the class of `seeds` seeds (<= max_seeds()), or null
  // (missing or unreadable: the error recorded).
  TableSlot* kalah_slot(int seeds) {
    const auto it = plain_[static_cast<std::size_t>(seeds)];
    if (it == slots_.end()) {
      missing(ClassKey{0, seeds});
      return nullptr;
    }
    return open_slot(ClassKey{0, seeds}, *it->second);
  }
  // Kalah: the exact value of a tabled position of `seeds` seeds (<= max_seeds()), or
  // nullopt where the tables do not index it (kStop: the tables failed).
  std::optional<int> kalah_value(Ctx& c, const KPos& q, int seeds) {
    TableSlot* slot = kalah_slot(seeds);
    if (!slot) return kStop;
    if (slot->plain_rank) return at(c, *slot, board_->rank(q, seeds));
    const Position p = board_->to(q);
    if (!slot->index->contains(p)) return std::nullopt;
    return at(c, *slot, slot->index->rank(p));
  }

  // The value of rank `rank` of an open slot, its block decompressed on first use
  // (kStop: the block could not be read).
  int at(Ctx& c, TableSlot& slot, Index rank) {
    if (slot.compact) {
      int lo, hi;
      if (bounds(c, slot, rank, lo, hi) == kStop) return kStop;
      if (lo == hi) return lo;
      auto v = slot.file->value(rank);  // an extreme value: the reader has it exactly
      if (!v) return fail_(v.error());
      return *v;
    }
    if (!load(slot, rank)) return kStop;
    ++c.table_hits;
    const std::uint8_t* data = slot.values.get();
    const std::size_t i = static_cast<std::size_t>(rank) * static_cast<std::size_t>(slot.width);
    if (slot.width == 1) return static_cast<std::int8_t>(data[i]);
    return static_cast<Value>(static_cast<std::uint16_t>(data[i] | (data[i + 1] << 8)));
  }

  // Bounds lo <= v <= hi of the value of rank `rank` of an open slot (exact, lo == hi,
  // unless the slot is compact and the value extreme); kStop if a block could not be
  // read.
  int bounds(Ctx& c, TableSlot& slot, Index rank, int& lo, int& hi) {
    if (!slot.compact) {
      const int v = at(c, slot, rank);
      if (v == kStop) return kStop;
      lo = hi = v;
      return 0;
    }
    if (!load(slot, rank)) return kStop;
    ++c.table_hits;
    const unsigned code = (slot.values[static_cast<std::size_t>(rank >> 1)] >> ((rank & 1) * 4)) & 15u;
    lo = slot.lo[code];
    hi = slot.hi[code];
    return 0;
  }
  // Starts reading the value of rank `rank` of an open slot into the cache.
  static void prefetch(const TableSlot& slot, Index rank) {
    __builtin_prefetch(slot.values.get() +
                       (slot.compact ? static_cast<std::size_t>(rank >> 1)
                                     : static_cast<std::size_t>(rank) * static_cast<std::size_t>(slot.width)));
  }

 private:
  // The block of rank `rank` decompressed (on first use); false: it could not be read
  // (the error recorded). Every table read of the search passes here: the check inline
  // (a shift and a load), the decode out of line.
  bool load(TableSlot& slot, Index rank) {
    const std::size_t b = static_cast<std::size_t>(rank >> slot.block_shift);
    if (slot.loaded[b].load(std::memory_order_acquire)) [[likely]]
      return true;
    return load_block(slot, b);
  }
  [[gnu::noinline]] bool load_block(TableSlot& slot, std::size_t b) {
    std::lock_guard lock(slot.mu);
    if (slot.loaded[b].load(std::memory_order_acquire)) return true;
    auto blk = slot.file->read_block(b);
    if (!blk) {
      fail_(blk.error());
      return false;
    }
    const std::size_t first = b << slot.block_shift;
    if (slot.compact) {  // a block of an even count of positions fills whole bytes
      if (!slot.pack(blk->data(), blk->size(), slot.values.get() + first / 2)) {
        fail_(SearchError{SearchError::Corrupt, slot.file->path().string() +
                                                    ": a value is not that of a Kalah position of " +
                                                    std::to_string(slot.seeds) + " seeds"});
        return false;
      }
    } else {
      std::memcpy(slot.values.get() + first * static_cast<std::size_t>(slot.width), blk->data(), blk->size());
    }
    slot.loaded[b].store(true, std::memory_order_release);
    return true;
  }

  using Slots = std::unordered_map<ClassKey, std::unique_ptr<TableSlot>, ClassKeyHash>;

  // The class's slot with its file and index open (once), or null (the error recorded).
  // Once open, one load: the Kalah search asks at every tabled child (10.6 M times for
  // Kalah(6,4) over the 20-seed tables), and std::call_once is a call each time.
  TableSlot* open_slot(const ClassKey& key, TableSlot& slot) {
    if (slot.open.load(std::memory_order_acquire)) return &slot;
    std::call_once(slot.once, [&] {
      auto t = tables_->table(*variant_, key);
      if (!t) {
        slot.error = t.error();
        return;
      }
      slot.file = *t;
      slot.index = (*t)->ready_index();
      const TableHeader& h = (*t)->header();
      slot.block_shift = std::countr_zero(h.block_positions);
      slot.width = static_cast<int>(h.value_width);
      slot.seeds = key.seeds;
      slot.loaded.reset(new std::atomic<bool>[h.blocks()]());
      slot.plain_rank = board_ && rank_matches(*slot.index, key.seeds);
      slot.compact = slot.plain_rank && slot.width == 1 && h.block_positions % 2 == 0;
      if (slot.compact) {
        const int k = key.seeds, o = std::max(0, (k - 14) / 2);
        for (int code = 0; code < 16; ++code) {
          const int ulo = code == 0 ? 0 : std::min(code + o, k), uhi = code == 15 ? k : std::min(code + o, k);
          slot.lo[code] = static_cast<std::int8_t>(2 * ulo - k);
          slot.hi[code] = static_cast<std::int8_t>(2 * uhi - k);
        }
        slot.offset = o;
      }
      constexpr std::size_t kHuge = 2u << 20;
      const std::size_t used = slot.compact ? (static_cast<std::size_t>(h.positions) + 1) / 2
                                            : static_cast<std::size_t>(h.positions) * h.value_width;
      const std::size_t bytes = (used + kHuge - 1) / kHuge * kHuge;
      slot.values.reset(static_cast<std::uint8_t*>(std::aligned_alloc(kHuge, std::max(bytes, kHuge))));
      if (!slot.values) {
        slot.error = SearchError{SearchError::OutOfMemory, "out of memory for the table of class " + to_string(key, variant_->pits())};
        return;
      }
#ifdef MADV_HUGEPAGE
      if (huge_pages) madvise(slot.values.get(), std::max(bytes, kHuge), MADV_HUGEPAGE);
#endif
      slot.open.store(true, std::memory_order_release);
    });
    if (slot.error) {
      fail_(*slot.error);
      return nullptr;
    }
    return &slot;
  }

  // Whether a plain class's index ranks positions as KalahBoard::rank does (a few
  // positions checked; otherwise the index's own rank is used).
  bool rank_matches(const ClassIndex& idx, int seeds) const {
    if (idx.subset() || idx.live_pits() != variant_->pits() || seeds > max_) return false;
    const Index n = idx.size();
    if (n == 0) return false;
    for (Index r : {Index{0}, n / 3, n / 2, n - 1}) {
      const Position p = idx.unrank(r);
      if (board_->rank(board_->from(p), seeds) != r) return false;
    }
    return true;
  }

  int missing(const ClassKey& key) {
    return fail_({SearchError::MissingTable, "the tables in " + tables_->dir().string() + " reach " + std::to_string(max_) +
                                                 " seeds but lack class " + to_string(key, variant_->pits()) + " of " +
                                                 variant_->name()});
  }

  std::shared_ptr<const Tablebase> tables_;
  VariantPtr variant_;
  Fail fail_;
  const KalahBoard* board_ = nullptr;
  Slots slots_;
  int max_ = -1;
  std::vector<Slots::iterator> plain_;  // slots_.find of the classes with no marks or flags, by seeds
};

}  // namespace mancala::search_detail
