#include "mancala/lower_store.h"

#include "mancala/solver_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

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

// Io, with the system's reason.
std::unexpected<Error> sys_error(const std::string& what) { return fail_with(Error::Io, what + ": " + std::strerror(errno)); }

// A paged class: its values in an unlinked spill file, read a page at a time
// through the shared cache.
class SpillPages : public ValuePages {
 public:
  SpillPages(int fd, std::uint64_t bytes, int width, std::shared_ptr<PageCache> cache, std::uint32_t id, std::string name)
      : fd_(fd), bytes_(bytes), width_(static_cast<std::uint64_t>(width)), cache_(std::move(cache)), id_(id),
        name_(std::move(name)) {}
  ~SpillPages() override { ::close(fd_); }
  SpillPages(const SpillPages&) = delete;
  SpillPages& operator=(const SpillPages&) = delete;

  Result<ValueBlock> block(Index i) const override {
    const std::uint64_t page = static_cast<std::uint64_t>(i) * width_ / kPageBytes;
    const std::uint64_t from = page * kPageBytes, len = std::min(kPageBytes, bytes_ - from);
    auto data = cache_->get(id_, page, [&]() -> Result<std::vector<std::uint8_t>> {
      std::vector<std::uint8_t> out(static_cast<std::size_t>(len));
      std::size_t got = 0;
      while (got < out.size()) {
        const ssize_t r = ::pread(fd_, out.data() + got, out.size() - got, static_cast<off_t>(from + got));
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) return fail_with(Error::Io, name_ + ": spill file is short");
        if (r < 0) return sys_error(name_ + ": cannot read the spill file");
        got += static_cast<std::size_t>(r);
      }
      return out;
    });
    if (!data) return std::unexpected(data.error());
    return ValueBlock{static_cast<Index>(from / width_), static_cast<Index>(len / width_), std::move(*data)};
  }

 private:
  int fd_;
  std::uint64_t bytes_, width_;
  std::shared_ptr<PageCache> cache_;
  std::uint32_t id_;
  std::string name_;
};

// Writes `bytes` to a new file in `dir`, opens it for reading and unlinks it.
Result<int> spill(const fs::path& dir, const std::vector<std::uint8_t>& bytes) {
  static std::atomic<unsigned> counter{0};
  const fs::path path = dir / (".mtb-spill." + std::to_string(::getpid()) + "." + std::to_string(counter++));
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return sys_error(path.string() + ": cannot create a spill file");
  ::unlink(path.c_str());  // the data lives as long as the descriptor
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + done, std::min<std::size_t>(bytes.size() - done, std::size_t{1} << 26));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      auto failed = sys_error(path.string() + ": cannot write a spill file");
      ::close(fd);
      return failed;
    }
    done += static_cast<std::size_t>(w);
  }
  return fd;
}

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
    stats_.bytes -= lru_.back().data->size();
    where_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

Result<std::shared_ptr<const std::vector<std::uint8_t>>> PageCache::get(
    std::uint32_t id, std::uint64_t page, const std::function<Result<std::vector<std::uint8_t>>()>& load) {
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
  auto read = load();
  if (!read) return std::unexpected(read.error());
  auto data = std::make_shared<const std::vector<std::uint8_t>>(std::move(*read));
  std::lock_guard lock(mu_);
  if (auto it = where_.find(key); it != where_.end()) return it->second->data;  // read by another thread meanwhile
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

std::uint64_t solver_bytes(const Variant& v, Index positions, SolveOptions::Method method) {
  // The arrays of class_solver.h for one rank holding the whole class (S: the value
  // type, 1 byte for score games, 2 for win/loss; W: the value width of the files).
  const std::uint64_t n = positions, s = v.kind() == GameKind::Score ? 1 : 2, w = s;
  using M = SolveOptions::Method;
  method = resolved(v, method);
  switch (method) {
    case M::Acyclic: return n * s + n * w / 8;                  // values; the result replaces them page by page
    case M::Levels: return n * 2 * s + n / 4 + n * w / 8;       // cells (value, state; padded), two bit maps
    case M::Sweeps: return 2 * n * s + n * w / 8 + n * 4 / 8;  // bounds; ghost lists (kept ranks: what is spare)
    case M::Auto: break;
  }
  return 2 * n * s;
}

// 16 bytes per position: enough for the open positions of sweep 0 in most classes
// (1 + 4c bytes per open position with c in-class children; Kotu-baendum's class
// without ties: 92 % open after sweep 0, c = 3, about 12 bytes per position). Under a
// memory budget they take only what the class's arrays and the lower classes leave
// (LowerStore::spare): the lower classes are not paged out to make room for them.
// That was tried: Cenne 7:7 up to 18 at the default 1 GiB then read all 18 lower
// classes through a 4 MiB page cache (37.9 M pages) and took 317.6 s against 196.9 s.
// Kotu-baendum up to 13 seeds, 2 threads, --memory-mb 160 (the budget per position
// of the largest class of 16 seeds at the default 1 GiB): 212.8 s of CPU without kept
// ranks, 122.2 s with 4 bytes, 111.7 s with 8, 106.7 s with 16; no bound: 103.8 s.
std::uint64_t kept_rank_bytes(const Variant& v, Index positions, SolveOptions::Method method) {
  using M = SolveOptions::Method;
  method = resolved(v, method);
  return method == M::Sweeps ? 16 * static_cast<std::uint64_t>(positions) : 0;
}

LowerStore::LowerStore(const Variant& v, std::uint64_t budget_bytes, fs::path spill_dir)
    : v_(v), budget_(budget_bytes), spill_dir_(std::move(spill_dir)), cache_(std::make_shared<PageCache>(kMinCache)) {}

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

Result<void> LowerStore::fit(SolvedClasses& solved, std::uint64_t solving) {
  if (budget_ == 0) return {};
  // What the lower classes may take: the budget less the class being solved. The
  // newest classes stay whole while they fit with the smallest cache beside them;
  // what is left goes to the cache.
  const std::uint64_t avail = budget_ > solving ? budget_ - solving : 0;
  const std::uint64_t min_cache = std::min(kMinCache, budget_);  // a tiny budget (tests): a tiny cache
  std::uint64_t whole = 0;
  bool paged_now = false, paging = false;
  for (auto it = classes_.rbegin(); it != classes_.rend(); ++it) {
    Class& c = *it;
    if (!c.values->whole()) {  // paged at an earlier class: so are the older ones
      paging = true;
      continue;
    }
    if (!paging && whole + c.bytes + min_cache <= avail) {
      whole += c.bytes;
      continue;
    }
    // The first class that does not fit and every older one are paged: the newest
    // classes take most exits, and what is left goes to the cache (an older class
    // kept whole in the gap would leave the cache at its smallest; Oware up to 20
    // with 250 MiB: 22 M pages read against 3.5 M hits).
    paging = true;
    auto fd = spill(spill_dir_, c.values->bytes());
    if (!fd) return std::unexpected(fd.error());
    const auto id = static_cast<std::uint32_t>(&c - classes_.data());
    auto pages = std::make_shared<SpillPages>(*fd, c.bytes, c.values->width(), cache_, id,
                                              "class " + to_string(c.values->index().key(), v_.pits()));
    auto paged = std::make_shared<const ClassValues>(c.values->index(), v_.kind(), std::move(pages));
    c.values = paged;
    solved.add(std::move(paged));  // the whole values are freed with their last holder
    paged_now = true;
  }
  if (paged_now) detail::give_back_freed_memory();  // the values just paged out
  const std::uint64_t left = avail > whole ? avail - whole : 0;
  cache_->set_capacity(std::clamp(left, min_cache, kMaxCache));
  spare_ = left > kMaxCache ? left - kMaxCache : 0;
  return {};
}

}  // namespace mancala
