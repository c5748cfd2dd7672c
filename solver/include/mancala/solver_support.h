// Pieces shared by the retrograde solvers (threads in retrograde.cpp, MPI ranks in
// cluster/): relaxed atomic access to the working arrays and a memo of the solved
// classes that exits go to.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>

#include "mancala/values.h"

namespace mancala::detail {

// Working arrays are read and written by several threads; every access is a relaxed
// atomic (the bounds only ever move one way, so any interleaving is sound).
template <class T>
T load(const T& x) { return std::atomic_ref<const T>(x).load(std::memory_order_relaxed); }
template <class T>
void store(T& x, T v) { std::atomic_ref<T>(x).store(v, std::memory_order_relaxed); }

constexpr Value kNoExit = INT16_MIN;  // "no move leaves the class"

// One step of the sweep method (retrograde.h) for one position: `base` is its best
// exit in the first sweep and its old lower bound after; best_lo / best_hi are the best
// in-class contributions (kNoExit when it has no move inside the class); l, h its old
// bounds, which never loosen.
struct Bounds {
  Value lo, hi;
};
// The value that bounds lo <= v <= hi give at the fixpoint of the sweeps (retrograde.h):
// a forced result where one is proven, endless play (0 / draw) otherwise.
inline Value outcome(int lo, int hi) { return static_cast<Value>(lo > 0 ? lo : hi < 0 ? hi : 0); }

inline Bounds next_bounds(Value base, Value best_lo, Value best_hi, bool first, Value l, Value h) {
  Bounds b{best_lo == kNoExit ? base : std::max(base, best_lo), best_lo == kNoExit ? base : std::max(base, best_hi)};
  if (!first) {
    b.lo = std::max(b.lo, l);
    b.hi = std::min(b.hi, h);
  }
  return b;
}

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

}  // namespace mancala::detail
