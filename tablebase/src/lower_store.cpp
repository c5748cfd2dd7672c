#include "mancala/lower_store.h"

#include "mancala/distances.h"
#include "mancala/solver_support.h"
#include "mancala/temp_file.h"

#include <algorithm>
#include <cstdio>
#include <span>

namespace mancala {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kMinCache = 4 * kMiB;   // 256 pages
constexpr std::uint64_t kMaxCache = 64 * kMiB;  // more rarely helps
// 16 KiB: Kalah(6) up to 16 seeds with a 24 MiB budget took 15.1 s CPU with 4 KiB
// pages, 12.7 s with 16 KiB and 12.0 s with 64 KiB (8.0 s with every class whole);
// 64 KiB pages give the cache four times fewer entries for the same bytes.
constexpr std::uint64_t kPageBytes = 16384;

// A paged class: its values in a spill file, read a page at a time through the
// shared cache.
class SpillPages : public ValuePages {
 public:
  SpillPages(std::shared_ptr<const TempFile> file, std::uint64_t bytes, int width, std::shared_ptr<PageCache> cache,
             std::uint32_t id)
      : file_(std::move(file)), bytes_(bytes), width_(static_cast<std::uint64_t>(width)), cache_(std::move(cache)), id_(id) {}

  Result<ValueBlock> block(Index i) const override {
    const std::uint64_t page = static_cast<std::uint64_t>(i) * width_ / kPageBytes;
    const std::uint64_t from = page * kPageBytes, len = std::min(kPageBytes, bytes_ - from);
    auto data = cache_->get(id_, page, [&](std::vector<std::uint8_t>& out) -> Result<void> {
      out.resize(static_cast<std::size_t>(len));
      return file_->read(from, std::as_writable_bytes(std::span(out)));
    });
    if (!data) return std::unexpected(data.error());
    return ValueBlock{static_cast<Index>(from / width_), static_cast<Index>(len / width_), std::move(*data)};
  }

 private:
  std::shared_ptr<const TempFile> file_;
  std::uint64_t bytes_, width_;
  std::shared_ptr<PageCache> cache_;
  std::uint32_t id_;
};

}  // namespace

void PageCache::set_capacity(std::uint64_t capacity) {
  std::lock_guard lock(mu_);
  capacity_ = capacity;
  trim();
}

PageCache::Stats PageCache::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void PageCache::trim() {
  while (stats_.bytes > capacity_ && !lru_.empty()) {
    auto& data = lru_.back().data;
    stats_.bytes -= data->size();
    if (data.use_count() == 1 && spare_.size() < kSpares) spare_.push_back(std::move(data));
    where_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

Result<std::shared_ptr<const std::vector<std::uint8_t>>> PageCache::get(
    std::uint32_t id, std::uint64_t page, const std::function<Result<void>(std::vector<std::uint8_t>&)>& load) {
  const Key key{id, page};
  {
    std::lock_guard lock(mu_);
    if (auto it = where_.find(key); it != where_.end()) {
      ++stats_.hits;
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->data;
    }
    ++stats_.misses;
  }
  std::shared_ptr<std::vector<std::uint8_t>> data;
  {
    std::lock_guard lock(mu_);
    if (!spare_.empty()) {
      data = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!data) data = std::make_shared<std::vector<std::uint8_t>>();
  if (auto read = load(*data); !read) return std::unexpected(read.error());
  std::lock_guard lock(mu_);
  if (auto it = where_.find(key); it != where_.end()) {  // read by another thread meanwhile
    if (spare_.size() < kSpares) spare_.push_back(std::move(data));
    return it->second->data;
  }
  lru_.push_front(Entry{key, data});
  where_[key] = lru_.begin();
  stats_.bytes += data->size();
  trim();
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes);
  return data;
}

namespace {
// The method generate's solve_class picks for Auto on one process (pick_method).
SolveOptions::Method resolved(const Variant& v, SolveOptions::Method m) {
  using M = SolveOptions::Method;
  if (m != M::Auto) return m;
  return v.in_class_acyclic() ? M::Acyclic : v.has_unmoves() ? M::Levels : M::Sweeps;
}
}  // namespace

std::uint64_t solver_bytes(const Variant& v, const ClassKey& key, Index positions, SolveOptions::Method method) {
  // The arrays of class_solver.h for one rank holding the whole class (S: the value
  // type, 1 byte for score games, 2 for win/loss; W: the value width of the files).
  const std::uint64_t n = positions, s = v.kind() == GameKind::Score ? 1 : 2, w = s;
  using M = SolveOptions::Method;
  method = resolved(v, method);
  switch (method) {
    case M::Acyclic: return n * s + n * w / 8;                  // values; the result replaces them page by page
    case M::Levels: {  // one code per position (LevelCodes: 1 or 2 bytes)
      const int bytes = LevelCodes(v.value_bound(key.seeds), v.max_moves()).bytes();
      return n * static_cast<std::uint64_t>(bytes ? bytes : 2) + n * w / 8;
    }
    case M::Sweeps: {  // one code per position (SweepCodes: 1, 2 or 4 bytes), the open bit map (kept ranks: what is spare)
      const int bytes = SweepCodes(v.value_bound(key.seeds)).bytes;
      return n * static_cast<std::uint64_t>(bytes) + n / 8 + n * w / 8;
    }
    case M::Auto: break;
  }
  return 2 * n * s;
}

// 16 bytes per position: enough for the open positions of sweep 0 in most classes
// (1 + 4c bytes per open position with c in-class children; Kotu-baendum's class
// without ties: 92 % open after sweep 0, c = 3, about 12 bytes per position). Under a
// memory budget they take only what the class's arrays and the lower classes leave
// (LowerStore::spare): sweep 0 reads the exits, and paging lower classes out to make
// room for the ranks was tried: Cenne 7:7 up to 18 at the default 1 GiB then read all
// 18 lower classes through a 4 MiB page cache (37.9 M pages) and took 317.6 s against
// 196.9 s. Instead, a large class writes the lists of sweep 0 that do not fit to a
// spill file and frees the lower classes after sweep 0 (release, generate.cpp).
// Kotu-baendum up to 13 seeds, 2 threads, --memory-mb 160 (the budget per position
// of the largest class of 16 seeds at the default 1 GiB): 212.8 s of CPU without kept
// ranks, 122.2 s with 4 bytes, 111.7 s with 8, 106.7 s with 16; no bound: 103.8 s.
std::uint64_t kept_rank_bytes(const Variant& v, Index positions, SolveOptions::Method method) {
  using M = SolveOptions::Method;
  method = resolved(v, method);
  return method == M::Sweeps ? 16 * static_cast<std::uint64_t>(positions) : 0;
}

std::uint64_t distance_solve_bytes(const Variant& v, Index positions, SolveOptions::Method method) {
  return std::uint64_t{positions} * (resolved(v, method) == SolveOptions::Method::Levels ? 3 : 1);
}

// distance_bytes: 8 bytes a position and 12 an edge, one edge a position; 4 an edge
// with the edges on disk.
std::uint64_t distance_pass_bytes(Index positions, Index unlisted, bool edges_on_disk) {
  static_assert(distance_bytes(1) == 8 + 12);
  return std::uint64_t{positions} * (1 + 8) + std::uint64_t{unlisted} * (edges_on_disk ? 4 : 12);
}

std::uint64_t fit_distance_pass(KeptChildren* kept, Index positions, std::uint64_t room, bool& edges_on_disk,
                                std::uint64_t& given_back) {
  std::uint64_t kept_bytes = 0;
  Index unlisted = positions;
  if (kept)
    for (const KeptChildren::Piece& p : kept->pieces) {
      kept_bytes += p.bytes();
      if (p.listed) unlisted -= std::min(unlisted, KeptChildren::kPiece);
    }
  edges_on_disk = false;
  given_back = 0;
  const auto need = [&] { return distance_pass_bytes(positions, unlisted, edges_on_disk) + kept_bytes; };
  if (need() <= room) return need();
  edges_on_disk = true;
  if (kept)
    for (std::size_t k = kept->pieces.size(); k-- > 0 && need() > room;) {
      KeptChildren::Piece& p = kept->pieces[k];
      if (!p.listed || p.bytes() <= 4 * std::uint64_t{KeptChildren::kPiece}) continue;
      kept_bytes -= p.bytes();
      unlisted = std::min<Index>(positions, unlisted + KeptChildren::kPiece);
      p = KeptChildren::Piece{};
      ++given_back;
    }
  return need();
}

LowerStore::LowerStore(const Variant& v, std::uint64_t budget_bytes, fs::path spill_dir)
    : v_(v), budget_(budget_bytes), given_(budget_bytes), spill_dir_(std::move(spill_dir)),
      cache_(std::make_shared<PageCache>(kMinCache)) {}

std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmRSS: %llu kB", &kb) == 1) break;
  std::fclose(f);
  return static_cast<std::uint64_t>(kb) << 10;
}

void LowerStore::measure(std::function<std::uint64_t()> resident, std::uint64_t allowance) {
  resident_ = std::move(resident);
  allowance_ = allowance;
}

void LowerStore::add(SolvedClasses& solved, std::shared_ptr<const ClassValues> cls) {
  Class c;
  c.bytes = static_cast<std::uint64_t>(cls->size()) * static_cast<std::uint64_t>(cls->width());
  c.values = cls;
  solved.add(std::move(cls));
  classes_.push_back(std::move(c));
}

std::uint64_t LowerStore::whole_bytes() const {
  std::uint64_t sum = 0;
  for (const Class& c : classes_)
    if (c.values->whole()) sum += c.bytes;
  return sum;
}

int LowerStore::paged_classes() const {
  return static_cast<int>(std::count_if(classes_.begin(), classes_.end(), [](const Class& c) { return !c.values->whole(); }));
}

Result<void> LowerStore::page_out(SolvedClasses& solved, Class& c) {
  if (!c.spill) {  // its first time out of memory: written once
    auto file = TempFile::create(spill_dir_, "class " + to_string(c.values->index().key(), v_.pits()));
    if (!file) return std::unexpected(file.error());
    if (auto w = (*file)->write(0, std::as_bytes(std::span(c.values->bytes()))); !w) return std::unexpected(w.error());
    c.spill = std::move(*file);
  }
  const auto id = static_cast<std::uint32_t>(&c - classes_.data());
  auto pages = std::make_shared<SpillPages>(c.spill, c.bytes, c.values->width(), cache_, id);
  auto paged = std::make_shared<const ClassValues>(c.values->index(), v_.kind(), std::move(pages));
  c.values = paged;
  solved.add(std::move(paged));  // the whole values are freed with their last holder
  return {};
}

Result<void> LowerStore::page_out(SolvedClasses& solved, const std::vector<Class*>& out) {
  for (Class* c : out)
    if (auto r = page_out(solved, *c); !r) return r;
  if (!out.empty()) detail::give_back_freed_memory();  // the values just paged out
  return {};
}

std::uint64_t LowerStore::min_cache() const { return std::min(kMinCache, budget_); }  // a tiny budget (tests): a tiny cache
std::uint64_t LowerStore::avail() const { return budget_ > solving_ ? budget_ - solving_ : 0; }

Result<void> LowerStore::bring_back(SolvedClasses& solved, Class& c) {
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(c.bytes));
  if (auto r = c.spill->read(0, std::as_writable_bytes(std::span(bytes))); !r) return std::unexpected(r.error());  // every byte, or an error
  auto whole = std::make_shared<const ClassValues>(c.values->index(), v_.kind(), std::move(bytes));
  c.values = whole;
  solved.add(std::move(whole));
  return {};
}

Result<void> LowerStore::fit(SolvedClasses& solved, std::uint64_t solving, bool reads_lower) {
  if (budget_ == 0) return {};
  if (resident_) {  // what the budget does not count, measured (measure())
    const std::uint64_t rss = resident_(), counted = whole_bytes() + cache_->stats().bytes;
    const std::uint64_t other = rss > counted ? rss - counted : 0, over = other > allowance_ ? other - allowance_ : 0;
    budget_ = std::max({given_ > over ? given_ - over : 0, given_ / 2, std::uint64_t{1}});  // 0 would mean no bound
  }
  solving_ = solving;
  // What the lower classes may take: the budget less the class being solved. The
  // newest classes are whole while they fit with the smallest cache beside them;
  // the first class that does not fit and every older one are paged (the newest
  // classes take most exits, and what is left goes to the cache: an older class
  // kept whole in the gap would leave the cache at its smallest; Oware up to 20
  // with 250 MiB: 22 M pages read against 3.5 M hits). A paged class that fits is
  // read back from its spill file when the class to solve needs at least a quarter
  // of its bytes (a smaller class reads too few of its values for the read to pay);
  // else it stays paged. Classes leave memory first, then come back: the budget
  // holds throughout.
  const std::uint64_t room = avail(), least = min_cache();
  std::uint64_t whole = 0;
  bool paging = false;
  std::vector<Class*> out, back;
  for (auto it = classes_.rbegin(); it != classes_.rend(); ++it) {
    Class& c = *it;
    if (!paging && whole + c.bytes + least <= room) {
      const bool worth = reads_lower && solving >= c.bytes / 4;  // a paged class comes back
      if (c.values->whole() || worth) whole += c.bytes;
      if (!c.values->whole() && worth) back.push_back(&c);
      continue;
    }
    paging = true;
    if (c.values->whole()) out.push_back(&c);
  }
  if (auto r = page_out(solved, out); !r) return r;
  for (Class* c : back)
    if (auto r = bring_back(solved, *c); !r) return r;
  const std::uint64_t left = room > whole ? room - whole : 0;
  const std::uint64_t cache = reads_lower ? std::clamp(left, least, kMaxCache) : least;
  cache_->set_capacity(cache);
  spare_ = left - std::min(left, cache);
  return {};
}

Result<std::uint64_t> LowerStore::release(SolvedClasses& solved) {
  if (budget_ == 0) return ~std::uint64_t{0};
  std::vector<Class*> out;
  for (Class& c : classes_)
    if (c.values->whole()) out.push_back(&c);
  if (auto r = page_out(solved, out); !r) return std::unexpected(r.error());
  cache_->set_capacity(min_cache());
  spare_ = avail() > min_cache() ? avail() - min_cache() : 0;
  return spare_;
}

}  // namespace mancala
