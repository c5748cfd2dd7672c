#include "mancala/reachable.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <mutex>

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

std::expected<ReachableSet, std::string> enumerate_reachable(const Variant& v, const Position& root, int threads,
                                                             const std::function<void(const ReachableProgress&)>& progress,
                                                             std::uint64_t max_positions) {
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  IndexCache indexes(v);
  std::map<ClassKey, std::vector<Index>> seen;
  std::vector<Item> frontier;
  std::vector<Position> untabled = {root};  // positions expanded but not recorded (flags)
  if (v.tabled(root)) {
    const ClassKey k = v.class_of(root);
    const Index r = indexes.get(k).full_rank(root);
    seen[k].push_back(r);
    frontier.push_back({k, r});
    untabled.clear();
  }
  ReachableSet out;
  while (!frontier.empty() || !untabled.empty()) {
    tbb::enumerable_thread_specific<std::vector<Item>> found;
    tbb::enumerable_thread_specific<std::vector<Position>> found_untabled;
    auto expand = [&](const Position& p) {
      thread_local std::vector<Child> kids;
      v.children(p, kids);
      auto& mine = found.local();
      for (const Child& c : kids) {
        if (c.game_over) continue;
        if (!v.tabled(c.next)) {
          found_untabled.local().push_back(c.next);
          continue;
        }
        const ClassKey k = v.class_of(c.next);
        mine.push_back({k, indexes.get(k).full_rank(c.next)});
      }
    };
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, frontier.size(), 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) expand(indexes.get(frontier[i].key).full_unrank(frontier[i].rank));
        auto& mine = found.local();  // keep the per-thread lists small: sort and de-duplicate
        if (mine.size() > (1u << 16)) {
          std::sort(mine.begin(), mine.end());
          mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
        }
      });
    });
    for (const Position& p : untabled) expand(p);
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
    untabled.clear();
    for (auto& part : found_untabled)
      for (const Position& p : part)
        if (std::find(untabled.begin(), untabled.end(), p) == untabled.end()) untabled.push_back(p);
    ++out.rounds;
    out.positions = 0;
    for (const auto& [k, s] : seen) out.positions += s.size();
    if (progress) progress(ReachableProgress{out.rounds, frontier.size(), out.positions});
    if (out.positions > max_positions)
      return std::unexpected("more than " + std::to_string(max_positions) + " positions are reachable from " +
                             "this root (" + std::to_string(out.positions) + " after " + std::to_string(out.rounds) +
                             " rounds); choose a root with fewer seeds or more marks, or raise the limit");
  }
  for (auto& [k, s] : seen) out.classes[k] = std::make_shared<const std::vector<Index>>(std::move(s));
  return out;
}

}  // namespace mancala
