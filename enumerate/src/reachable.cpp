#include "mancala/reachable.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
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

struct Item {
  ClassKey key;
  Index rank;
  friend bool operator<(const Item& a, const Item& b) { return a.key < b.key || (a.key == b.key && a.rank < b.rank); }
  friend bool operator==(const Item& a, const Item& b) { return a.key == b.key && a.rank == b.rank; }
};

class IndexCache {
 public:
  explicit IndexCache(const Variant& v) : v_(v) {}
  const ClassIndex& get(const ClassKey& k) {
    std::lock_guard lock(mu_);
    auto& slot = map_[k];
    if (!slot) slot = std::make_unique<ClassIndex>(v_, k);
    return *slot;
  }

 private:
  const Variant& v_;
  std::mutex mu_;
  std::map<ClassKey, std::unique_ptr<ClassIndex>> map_;
};

}  // namespace

Result<ReachableSet> enumerate_reachable(const Variant& v, const Position& root, int threads,
                                         const std::function<void(const ReachableProgress&)>& progress,
                                         std::uint64_t max_positions, const Budget& budget) {
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  IndexCache indexes(v);
  std::map<ClassKey, std::vector<Index>> seen;
  std::vector<Item> frontier;
  auto item = [&](const Position& p) {
    const ClassKey k = v.class_of(p);
    return Item{k, indexes.get(k).full_rank(p)};
  };
  {  // the root, or what it reaches when no table holds it (a first move)
    std::vector<Item> first;
    if (v.tabled(root)) first.push_back(item(root));
    else for_tabled_children(v, root, [&](const Position& q) { first.push_back(item(q)); });
    std::sort(first.begin(), first.end());
    first.erase(std::unique(first.begin(), first.end()), first.end());
    for (const Item& i : first) seen[i.key].push_back(i.rank);
    frontier = std::move(first);
  }
  ReachableSet out;
  while (!frontier.empty()) {
    if (auto stop = budget.check("reachable-set enumeration", out.positions)) return std::unexpected(*stop);
    tbb::enumerable_thread_specific<std::vector<Item>> found;
    auto expand = [&](const Position& p) {
      auto& mine = found.local();
      for_tabled_children(v, p, [&](const Position& q) { mine.push_back(item(q)); });
    };
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, frontier.size(), 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        if (budget.stopped(out.positions)) return;  // the round's end reports it
        for (std::size_t i = r.begin(); i < r.end(); ++i) expand(indexes.get(frontier[i].key).full_unrank(frontier[i].rank));
        auto& mine = found.local();  // keep the per-thread lists small: sort and de-duplicate
        if (mine.size() > (1u << 16)) {
          std::sort(mine.begin(), mine.end());
          mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
        }
      });
    });
    std::vector<Item> next;
    for (auto& part : found) next.insert(next.end(), part.begin(), part.end());
    arena.execute([&] { tbb::parallel_sort(next.begin(), next.end()); });
    next.erase(std::unique(next.begin(), next.end()), next.end());
    // Keep the new ones; merge them into the sorted per-class sets.
    std::vector<Item> fresh;
    for (std::size_t i = 0; i < next.size();) {
      std::size_t j = i;
      while (j < next.size() && next[j].key == next[i].key) ++j;
      auto& have = seen[next[i].key];
      const std::size_t before = fresh.size();
      for (std::size_t t = i; t < j; ++t)
        if (!std::binary_search(have.begin(), have.end(), next[t].rank)) fresh.push_back(next[t]);
      if (fresh.size() > before) {
        const std::size_t mid = have.size();
        for (std::size_t t = before; t < fresh.size(); ++t) have.push_back(fresh[t].rank);
        std::inplace_merge(have.begin(), have.begin() + static_cast<long>(mid), have.end());
      }
      i = j;
    }
    frontier = std::move(fresh);
    ++out.rounds;
    out.positions = 0;
    for (const auto& [k, s] : seen) out.positions += s.size();
    if (progress) progress(ReachableProgress{out.rounds, frontier.size(), out.positions});
    if (auto stop = budget.check("reachable-set enumeration", out.positions)) return std::unexpected(*stop);
    if (out.positions > max_positions)
      return fail_with(Error::TableTooSmall, "more than " + std::to_string(max_positions) + " positions are reachable from " +
                             "this root (" + std::to_string(out.positions) + " after " + std::to_string(out.rounds) +
                             " rounds); choose a root with fewer seeds or more marks, or raise the limit");
  }
  for (auto& [k, s] : seen) out.classes[k] = std::make_shared<const std::vector<Index>>(std::move(s));
  return out;
}

namespace {

// One class while counting: its index and one bit per position of it.
struct CountSlot {
  explicit CountSlot(const Variant& v, const ClassKey& k, int pits) : index(v, k), marked(marked_pits(k, pits)) {}
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

struct CountOrder {
  int marked, seeds;
  ClassKey key;
  friend bool operator<(const CountOrder& a, const CountOrder& b) {
    if (a.marked != b.marked) return a.marked < b.marked;
    if (a.seeds != b.seeds) return a.seeds > b.seeds;
    return a.key < b.key;
  }
};

}  // namespace

Result<ReachableCount> count_reachable(const Variant& v, const Position& root, const CountOptions& opt) {
  tbb::task_arena arena(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic);
  const int pits = v.pits();
  std::map<ClassKey, std::unique_ptr<CountSlot>> slots;
  std::shared_mutex slots_mu;
  std::set<CountOrder> pending;
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<bool> failed{false};
  Error error;
  std::mutex error_mu;
  auto fail = [&](Error::Code code, std::string why) {
    std::lock_guard lock(error_mu);
    if (!failed.exchange(true)) error = Error{code, std::move(why)};
  };
  // The slot of class k, made on first use (false if it cannot be).
  auto slot_of = [&](const ClassKey& k) -> CountSlot* {
    {
      std::shared_lock lock(slots_mu);
      if (auto it = slots.find(k); it != slots.end()) return it->second.get();
    }
    std::unique_lock lock(slots_mu);
    auto& slot = slots[k];
    if (!slot) {
      auto made = std::make_unique<CountSlot>(v, k, pits);
      const std::uint64_t need = made->bytes();
      if (bytes.load() + need > opt.max_bytes) {
        slots.erase(k);
        fail(Error::TableTooSmall, "counting needs more than " + std::to_string(opt.max_bytes / 1'000'000) +
             " MB of bit sets at once (class " + to_string(k, pits) + " would add " +
             std::to_string(need / 1'000'000) + " MB); raise the limit or choose a smaller root");
        return nullptr;
      }
      made->bits.assign(need / 8, 0);
      slot = std::move(made);
      bytes += need;
      pending.insert({slot->marked, k.seeds, k});
    }
    return slot.get();
  };
  // Records a child; returns its class's slot and rank when the bit was new.
  auto record = [&](const Position& child, CountSlot*& s, Index& r) -> bool {
    s = slot_of(v.class_of(child));
    if (!s) return false;
    if (s->done) {
      fail(Error::Internal, "class " + to_string(v.class_of(child), pits) +
           " is reached after it was counted: this variant's moves do not follow the counting order "
           "(marks only added, seeds only taken out of play)");
      return false;
    }
    return s->set(child, r);
  };

  auto record_only = [&](const Position& p) {
    CountSlot* s = nullptr;
    Index r = 0;
    record(p, s, r);
  };
  if (v.tabled(root)) record_only(root);
  else for_tabled_children(v, root, record_only);

  ReachableCount out;
  while (!failed) {
    if (auto stop = opt.budget.check("counting", out.positions)) return std::unexpected(*stop);
    if (pending.empty()) break;
    const CountOrder o = *pending.begin();
    pending.erase(pending.begin());
    CountSlot* cls = slots.at(o.key).get();
    std::vector<Index> frontier;
    for (std::size_t w = 0; w < cls->bits.size(); ++w)
      for (std::uint64_t b = cls->bits[w]; b != 0; b &= b - 1)
        frontier.push_back(static_cast<Index>(w) * 64 + static_cast<Index>(std::countr_zero(b)));
    std::uint64_t count = frontier.size();
    while (!frontier.empty() && !failed) {
      tbb::enumerable_thread_specific<std::vector<Index>> found;
      arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, frontier.size(), 4096), [&](const tbb::blocked_range<std::size_t>& rg) {
          if (failed || opt.budget.stopped(out.positions)) return;  // the class loop reports it
          auto& mine = found.local();
          for (std::size_t i = rg.begin(); i < rg.end(); ++i)
            for_tabled_children(v, cls->index.full_unrank(frontier[i]), [&](const Position& child) {
              CountSlot* s = nullptr;
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
    if (auto stop = opt.budget.check("counting", out.positions)) return std::unexpected(*stop);  // a round cut short
    cls->done = true;
    out.peak_bytes = std::max<std::uint64_t>(out.peak_bytes, bytes.load());
    bytes -= cls->bytes();
    cls->bits = {};
    out.positions += count;
    ++out.classes;
    auto& layer = out.layers[{o.seeds, o.marked}];
    layer.positions += count;
    ++layer.classes;
    if (opt.progress) opt.progress(CountProgress{o.key, o.marked, pending.size(), bytes.load(), &out});
  }
  if (failed) return std::unexpected(error);
  return out;
}

}  // namespace mancala
