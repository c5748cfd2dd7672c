// Pieces shared by the retrograde solvers (threads in retrograde.cpp, MPI ranks in
// cluster/): relaxed atomic access to the working arrays, a memo of the solved
// classes that exits go to, and the memory rules of their arrays (huge pages, the
// heap, what is given back to the system).
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "mancala/values.h"

namespace mancala::detail {

// Working arrays are read and written by several threads; every access is a relaxed
// atomic (the bounds only ever move one way, so any interleaving is sound).
template <class T>
T load(const T& x) { return std::atomic_ref<const T>(x).load(std::memory_order_relaxed); }
template <class T>
void store(T& x, T v) { std::atomic_ref<T>(x).store(v, std::memory_order_relaxed); }

constexpr Value kNoExit = INT16_MIN;  // "no move leaves the class"

// Gives heap memory just freed back to the system: glibc keeps freed blocks below its
// mmap threshold (which grows up to 32 MiB) resident until asked, so many small arrays
// freed before a large one is allocated would otherwise both count in the peak.
inline void give_back_freed_memory() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}
// Whether p lies in the heap that brk grows (glibc's main arena): a large array is
// carved from it, whatever the mmap threshold, when a free block there fits. An
// advice such as MADV_HUGEPAGE given to such an array stays on its range after it is
// freed, and khugepaged then fills every 2 MiB of it that holds one small block
// (max_ptes_none is 511 by default): Kotu-baendum up to 14 at --memory-mb 120 had two
// such 4 MiB ranges of its heap filled at once, +8 MB resident (session 12, smaps).
#if defined(__GLIBC__)
extern char data_end __asm__("end");  // the end of the program's data (end(3)): the heap starts above it
#endif
inline bool in_heap(const void* p) {
#if defined(__GLIBC__)
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  return at >= reinterpret_cast<std::uintptr_t>(&data_end) && at < reinterpret_cast<std::uintptr_t>(::sbrk(0));
#else
  (void)p;
  return false;
#endif
}

// Asks for 2 MiB pages under [p, p + bytes) (transparent huge pages in `madvise`
// mode), before the pages are first touched: arrays read at random (the class being
// solved, the lower classes its exits read) then need one TLB entry per 2 MiB. Never
// on the heap (in_heap): the advice outlives the array, and the small blocks later
// carved from that range are filled out to whole 2 MiB pages, which no memory budget
// counts. (The search advises its tables wherever they are: it keeps them to its end.)
inline void want_huge_pages(const void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (in_heap(p)) return;
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t from = (at + kHuge - 1) & ~(kHuge - 1), to = (at + bytes) & ~(kHuge - 1);
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);  // advice only: errors ignored
#else
  (void)p;
  (void)bytes;
#endif
}
// v as n copies of `fill` in memory advised first (want_huge_pages, over all of its
// bytes), for an array the solver reads at random.
template <class T>
void fill_on_huge_pages(std::vector<T>& v, std::size_t n, T fill) {
  v.reserve(n);
  want_huge_pages(v.data(), v.capacity() * sizeof(T));
  v.assign(n, fill);
}

// Under a memory budget: every allocation of 1 MiB or more gets pages of its own
// (mmap), given back to the system when freed. glibc's default raises that threshold
// up to 32 MiB after such a free, so lower classes, pages and codes freed and
// allocated class after class came from the heap and fragmented it: Kotu-baendum up
// to 16 at 1 GiB peaked 27.8 MiB over (session 11).
inline void big_arrays_to_own_pages() {
#if defined(__GLIBC__)
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

// The value that bounds lo <= v <= hi give at the fixpoint of bound sweeps (search.cpp;
// the class solver keeps this value itself, SweepCodes):
// a forced result where one is proven, endless play (0 / draw) otherwise.
inline Value outcome(int lo, int hi) { return static_cast<Value>(lo > 0 ? lo : hi < 0 ? hi : 0); }

// A per-thread memo of the last solved classes looked up (exits go to few classes),
// and the reader of the classes that are not kept whole (generate --memory-mb).
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
  // The value bytes of position i of a paged class (!cls.whole()), copied where they
  // stay until this cache is destroyed: a caller may hold the pointer across other
  // look-ups (the acyclic pass finds every child's slot before reading any), while a
  // block may leave the shared cache at any time. The last few blocks are pinned
  // here, so that runs of look-ups in one block take no lock. Null when the block
  // cannot be read (error() says why).
  const std::uint8_t* paged(const ClassValues& cls, Index i) {
    const ValueBlock* blk = block(cls, i);
    if (!blk) return nullptr;
    const std::size_t at = static_cast<std::size_t>(i - blk->first) * static_cast<std::size_t>(cls.width());
    auto& v = held_.emplace_back();
    v[0] = (*blk->bytes)[at];
    v[1] = cls.width() == 2 ? (*blk->bytes)[at + 1] : std::uint8_t{0};
    return v.data();
  }
  // The slots paged() returned are no longer needed (bounds its memory).
  void release() {
    if (!held_.empty()) held_.clear();
  }
  // The slot at (the last one paged() returned, or a whole class's) is not needed any more.
  void done_with(const std::uint8_t* at) {
    if (!held_.empty() && at == held_.back().data()) held_.pop_back();
  }
  const std::string& error() const { return error_; }

 private:
  const ValueBlock* block(const ClassValues& cls, Index i) {
    const ValueBlock* blk = nullptr;
    for (auto& p : pins_)
      if (p.pages == cls.pages() && i >= p.block.first && i - p.block.first < p.block.count) blk = &p.block;
    if (!blk) {
      auto b = cls.pages()->block(i);
      if (!b) {
        if (error_.empty()) error_ = b.error().message;
        return nullptr;
      }
      Pin& p = pins_[next_pin_];
      next_pin_ = (next_pin_ + 1) % pins_.size();
      p = {cls.pages(), std::move(*b)};
      blk = &p.block;
    }
    return blk;
  }
  struct Slot {
    ClassKey key;
    const ClassValues* values = nullptr;
  };
  struct Pin {
    const ValuePages* pages = nullptr;
    ValueBlock block;
  };
  const SolvedClasses& solved_;
  std::array<Slot, 8> slots_{};
  std::size_t next_ = 0;
  std::array<Pin, 4> pins_{};
  std::size_t next_pin_ = 0;
  std::deque<std::array<std::uint8_t, 2>> held_;
  std::string error_;
};

}  // namespace mancala::detail
