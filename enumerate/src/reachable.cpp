#include "mancala/reachable.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <mutex>
#include <set>
#include <shared_mutex>

namespace mancala {

int marked_pits(const ClassKey& k, int pits) {
  int n = 0;
  for (int i = 0; i < pits; ++i) n += ((k.state >> (2 * i)) & 3u) != 0;
  return n;
}

std::vector<ClassKey> ReachableSet::solving_order(int pits, int max_seeds) const {
  std::vector<ClassKey> out;
  for (const auto& [k, s] : classes)
    if (k.seeds <= max_seeds) out.push_back(k);
  std::sort(out.begin(), out.end(), [&](const ClassKey& a, const ClassKey& b) {
    if (a.seeds != b.seeds) return a.seeds < b.seeds;
    const int ma = marked_pits(a, pits), mb = marked_pits(b, pits);
    if (ma != mb) return ma > mb;
    return a.state < b.state;
  });
  return out;
}

std::uint64_t enumeration_bit_bytes(std::uint64_t max_positions) {
  constexpr std::uint64_t floor = 1'000'000'000, most = std::numeric_limits<std::uint64_t>::max();
  return max_positions >= most / 16 ? most : std::max(floor, 16 * max_positions);
}

namespace {

// Calls visit(q) for every position q a table would hold that p reaches in one move,
// or through positions no table holds (a first move, a position with flags), which
// are expanded in place, each once.
template <class Visit>
void for_tabled_children(const Variant& v, const Position& p, Visit&& visit) {
  thread_local std::vector<Child> kids;
  std::vector<Position> untabled, seen;  // stay empty (no allocation) in the usual case
  auto take = [&](const std::vector<Child>& from) {
    for (const Child& c : from) {
      if (c.game_over) continue;
      if (v.tabled(c.next)) {
        visit(c.next);
      } else if (std::find(seen.begin(), seen.end(), c.next) == seen.end()) {
        seen.push_back(c.next);
        untabled.push_back(c.next);
      }
    }
  };
  v.children(p, kids);
  take(kids);
  std::vector<Child> more;
  while (!untabled.empty()) {
    const Position q = untabled.back();
    untabled.pop_back();
    v.children(q, more);
    take(more);
  }
}

// One class of the walk: its index and one bit per position of it (its full rank).
struct WalkSlot {
  explicit WalkSlot(const Variant& v, const ClassKey& k, int pits) : index(v, k), marked(marked_pits(k, pits)) {}
  std::uint64_t bytes() const { return (index.full_size() + 63) / 64 * 8; }
  ClassIndex index;
  std::vector<std::uint64_t> bits;
  int marked;
  bool done = false;

  // Sets the bit of p; true if it was clear.
  bool set(const Position& p, Index& r) {
    r = index.full_rank(p);
    std::atomic_ref<std::uint64_t> word(bits[static_cast<std::size_t>(r >> 6)]);
    const std::uint64_t bit = 1ull << (r & 63);
    return (word.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
  }
};

struct WalkOrder {
  int marked, seeds;
  ClassKey key;
  friend bool operator<(const WalkOrder& a, const WalkOrder& b) {
    if (a.marked != b.marked) return a.marked < b.marked;
    if (a.seeds != b.seeds) return a.seeds > b.seeds;
    return a.key < b.key;
  }
};

// A class the walk has finished, handed to its caller (from the calling thread).
struct FinishedClass {
  ClassKey key;
  int marked = 0;
  const std::vector<std::uint64_t>* bits = nullptr;  // bit r set <=> full rank r reached
  std::uint64_t positions = 0;                       // bits set
  std::uint64_t pending = 0;                         // classes reached, not yet done
  std::uint64_t bytes = 0;                           // bit sets held once this one is freed
};

struct WalkLimits {
  int threads = 0;
  std::uint64_t max_bytes = 0;                                        // bit sets held at once
  std::uint64_t max_positions = std::numeric_limits<std::uint64_t>::max();  // reached in all
  const Budget* budget = nullptr;                                     // work: positions reached
  const char* what = "";                                              // the budget's words
};

// The walk of count_reachable (reachable.h): classes in WalkOrder, each a bit set
// filled by breadth-first rounds. `finish(const FinishedClass&)` gets each class once
// its rounds are over (its bits are freed after it returns); the count keeps its
// number, the enumeration its ranks. Returns the most bytes of bit sets held at once.
template <class Finish>
Result<std::uint64_t> walk_reachable(const Variant& v, const Position& root, const WalkLimits& lim, Finish&& finish) {
  tbb::task_arena arena(lim.threads > 0 ? lim.threads : tbb::task_arena::automatic);
  const Budget& budget = *lim.budget;
  const int pits = v.pits();
  std::map<ClassKey, std::unique_ptr<WalkSlot>> slots;
  std::shared_mutex slots_mu;
  std::set<WalkOrder> pending;
  std::atomic<std::uint64_t> bytes{0};
  std::uint64_t peak = 0;
  std::atomic<bool> failed{false};
  Error error;
  std::mutex error_mu;
  auto fail = [&](Error::Code code, std::string why) {
    std::lock_guard lock(error_mu);
    if (!failed.exchange(true)) error = Error{code, std::move(why)};
  };
  // The slot of class k, made on first use (null if it cannot be).
  auto slot_of = [&](const ClassKey& k) -> WalkSlot* {
    {
      std::shared_lock lock(slots_mu);
      if (auto it = slots.find(k); it != slots.end()) return it->second.get();
    }
    std::unique_lock lock(slots_mu);
    auto& slot = slots[k];
    if (!slot) {
      auto made = std::make_unique<WalkSlot>(v, k, pits);
      const std::uint64_t need = made->bytes();
      if (bytes.load() + need > lim.max_bytes) {
        slots.erase(k);
        fail(Error::TableTooSmall, "the reachable set needs more than " + std::to_string(lim.max_bytes / 1'000'000) +
             " MB of bit sets at once (class " + to_string(k, pits) + " would add " +
             std::to_string(need / 1'000'000) + " MB); raise the limit or choose a smaller root");
        return nullptr;
      }
      made->bits.assign(need / 8, 0);
      slot = std::move(made);
      bytes += need;
      peak = std::max<std::uint64_t>(peak, bytes.load());
      pending.insert({slot->marked, k.seeds, k});
    }
    return slot.get();
  };
  // Records a child; returns its class's slot and rank when the bit was new.
  auto record = [&](const Position& child, WalkSlot*& s, Index& r) -> bool {
    s = slot_of(v.class_of(child));
    if (!s) return false;
    if (s->done) {
      fail(Error::Internal, "class " + to_string(v.class_of(child), pits) +
           " is reached after it was done: this variant's moves do not follow the walk's order "
           "(marks only added, seeds only taken out of play)");
      return false;
    }
    return s->set(child, r);
  };
  auto record_only = [&](const Position& p) {
    WalkSlot* s = nullptr;
    Index r = 0;
    record(p, s, r);
  };
  if (v.tabled(root)) record_only(root);
  else for_tabled_children(v, root, record_only);

  std::uint64_t reached = 0;  // positions of the classes done
  auto too_many = [&](std::uint64_t n, std::uint64_t classes) {
    fail(Error::TableTooSmall, "more than " + std::to_string(lim.max_positions) + " positions are reachable from this root (" +
         std::to_string(n) + " after " + std::to_string(classes) + " classes); choose a root with fewer seeds or more "
         "marks, or raise the limit");
  };
  std::uint64_t classes = 0;
  while (!failed) {
    if (auto stop = budget.check(lim.what, reached)) return std::unexpected(*stop);
    if (pending.empty()) break;
    const WalkOrder o = *pending.begin();
    pending.erase(pending.begin());
    WalkSlot* cls = slots.at(o.key).get();
    std::vector<Index> frontier;
    for (std::size_t w = 0; w < cls->bits.size(); ++w)
      for (std::uint64_t b = cls->bits[w]; b != 0; b &= b - 1)
        frontier.push_back(static_cast<Index>(w) * 64 + static_cast<Index>(std::countr_zero(b)));
    std::uint64_t count = frontier.size();
    while (!frontier.empty() && !failed) {
      if (reached + count > lim.max_positions) {
        too_many(reached + count, classes);
        break;
      }
      tbb::enumerable_thread_specific<std::vector<Index>> found;
      arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, frontier.size(), 4096), [&](const tbb::blocked_range<std::size_t>& rg) {
          if (failed || budget.stopped(reached)) return;  // the class loop reports it
          auto& mine = found.local();
          for (std::size_t i = rg.begin(); i < rg.end(); ++i)
            for_tabled_children(v, cls->index.full_unrank(frontier[i]), [&](const Position& child) {
              WalkSlot* s = nullptr;
              Index r = 0;
              if (record(child, s, r) && s == cls) mine.push_back(r);
            });
        });
      });
      frontier.clear();
      for (auto& part : found) frontier.insert(frontier.end(), part.begin(), part.end());
      count += frontier.size();
    }
    if (failed) break;
    if (auto stop = budget.check(lim.what, reached)) return std::unexpected(*stop);  // a round cut short
    if (reached + count > lim.max_positions) {
      too_many(reached + count, classes);
      break;
    }
    cls->done = true;
    reached += count;
    ++classes;
    bytes -= cls->bytes();
    finish(FinishedClass{o.key, o.marked, &cls->bits, count, pending.size(), bytes.load()});
    cls->bits = {};
  }
  if (failed) return std::unexpected(error);
  return peak;
}

}  // namespace

Result<ReachableSet> enumerate_reachable(const Variant& v, const Position& root, int threads,
                                         const std::function<void(const ReachableProgress&)>& progress,
                                         std::uint64_t max_positions, const Budget& budget) {
  WalkLimits lim;
  lim.threads = threads;
  lim.max_positions = max_positions;
  lim.max_bytes = enumeration_bit_bytes(max_positions);
  lim.budget = &budget;
  lim.what = "reachable-set enumeration";
  ReachableSet out;
  auto peak = walk_reachable(v, root, lim, [&](const FinishedClass& c) {
    // The bits read in order are the class's sorted full ranks.
    std::vector<Index> ranks;
    ranks.reserve(c.positions);
    const std::vector<std::uint64_t>& bits = *c.bits;
    for (std::size_t w = 0; w < bits.size(); ++w)
      for (std::uint64_t b = bits[w]; b != 0; b &= b - 1)
        ranks.push_back(static_cast<Index>(w) * 64 + static_cast<Index>(std::countr_zero(b)));
    out.classes[c.key] = std::make_shared<const std::vector<Index>>(std::move(ranks));
    out.positions += c.positions;
    if (progress) progress(ReachableProgress{out.classes.size(), c.pending, out.positions, c.bytes});
  });
  if (!peak) return std::unexpected(peak.error());
  out.peak_bytes = *peak;
  return out;
}

Result<ReachableCount> count_reachable(const Variant& v, const Position& root, const CountOptions& opt) {
  WalkLimits lim;
  lim.threads = opt.threads;
  lim.max_bytes = opt.max_bytes;
  lim.budget = &opt.budget;
  lim.what = "counting";
  ReachableCount out;
  auto peak = walk_reachable(v, root, lim, [&](const FinishedClass& c) {
    out.positions += c.positions;
    ++out.classes;
    auto& layer = out.layers[{c.key.seeds, c.marked}];
    layer.positions += c.positions;
    ++layer.classes;
    if (opt.progress) opt.progress(CountProgress{c.key, c.marked, c.pending, c.bytes, &out});
  });
  if (!peak) return std::unexpected(peak.error());
  out.peak_bytes = *peak;
  return out;
}

}  // namespace mancala
