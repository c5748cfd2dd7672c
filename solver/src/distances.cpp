// Distances to the next exit along value-optimal moves (distances.h states the
// definition and the method).
#include "mancala/distances.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <limits>
#include <mutex>
#include <span>

#include "mancala/rules.h"
#include "mancala/solver_support.h"
#include "mancala/temp_file.h"

namespace mancala {

namespace {

// An undecided optimal in-class move parent -> child, kept as the edge child -> parent.
struct Edge {
  std::uint32_t child, parent;
};

constexpr std::uint32_t kMaxDistance = std::numeric_limits<std::uint16_t>::max();
// An edge's parent with this bit set is of the side ahead (value > 0): the levels
// read no value (a class has fewer than 2^31 positions: checked).
constexpr std::uint32_t kAhead = std::uint32_t{1} << 31;
constexpr std::uint8_t kGameOver = 0xFF;  // behind_ of a position without a move (distance 0)
constexpr std::uint8_t kClaimed = 0xFE;   // behind_ of a position of the side ahead decided by the levels
// A listed position's entry (KeptChildren) after the first pass: its offset in the
// piece with kSettled (no edge: decided, or worth 0) or kAheadEntry (its edges'
// parent is of the side ahead), and in place of its ranks its optimal in-class
// children, each once, then kNoChild. Example: ranks (7, 8, 7) of a position ahead
// whose optimal children are 7 only: (7, kNoChild, kNoChild).
constexpr std::uint16_t kSettled = 0x8000, kAheadEntry = 0x4000, kEntryOffset = 0x0FFF;
static_assert(KeptChildren::kPiece - 1 == kEntryOffset, "an entry's offset fits below its marks");
constexpr std::uint32_t kNoChild = ~std::uint32_t{0};

// The positions decided at one level: a list of their ranks while it holds at most
// n / 32 of the n positions of the class, else a bit set over the class (n / 8 bytes,
// what such a list takes). Two levels are alive at a time (the one told, the next), so
// the levels take at most n / 4 bytes where lists alone took up to 8 n (the first
// levels of Kotu-baendum hold a third of a class; with the lists' doubling, 28 MB of
// a 5.4 M-position class, a fifth of the pass). The order of a level's positions does
// not matter: each level is exact. Example: n = 2^20, cap 32,768 ranks; a level of
// 40,000 positions is a list until its 32,769th, then 16,384 words of bits.
class LevelSet {
 public:
  explicit LevelSet(std::uint64_t n = 0) : n_(n), cap_(std::max<std::uint64_t>(n / 32, 4096)) {}
  // Adds positions not in the set (the caller serialises adds).
  void add(std::span<const std::uint32_t> us) {
    count_ += us.size();
    if (bits_.empty() && list_.size() + us.size() <= cap_) {
      list_.insert(list_.end(), us.begin(), us.end());
      return;
    }
    if (bits_.empty()) {  // to bits: the list's ranks set, its memory given back
      bits_.assign(static_cast<std::size_t>((n_ + 63) / 64), 0);
      for (const std::uint32_t u : list_) set(u);
      std::vector<std::uint32_t>().swap(list_);
    }
    for (const std::uint32_t u : us) set(u);
  }
  std::uint64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Empties the set: a list keeps its memory (at most the cap), bits give theirs back.
  void clear() {
    list_.clear();
    std::vector<std::uint64_t>().swap(bits_);
    count_ = 0;
  }
  // The set's parts, to share among threads: a list's entries or the words of bits.
  std::size_t parts() const { return bits_.empty() ? list_.size() : bits_.size(); }
  // f(u) for each position u of parts [from, to).
  template <class F>
  void each(std::size_t from, std::size_t to, F&& f) const {
    if (bits_.empty()) {
      for (std::size_t k = from; k < to; ++k) f(list_[k]);
      return;
    }
    for (std::size_t w = from; w < to; ++w)
      for (std::uint64_t b = bits_[w]; b; b &= b - 1) f(static_cast<std::uint32_t>(64 * w + static_cast<std::size_t>(std::countr_zero(b))));
  }

 private:
  void set(std::uint32_t u) { bits_[u / 64] |= std::uint64_t{1} << (u % 64); }
  std::uint64_t n_, cap_;
  std::uint64_t count_ = 0;
  std::vector<std::uint32_t> list_;
  std::vector<std::uint64_t> bits_;
};

template <class Rules>
class DistanceSolver {
 public:
  DistanceSolver(const Rules& rules, const ClassValues& values, const SolvedClasses& solved, const SolveOptions& opt,
                 std::vector<std::int8_t>* best_exits, DistanceScratch& scratch, KeptChildren* kept)
      : rules_(rules), values_(values), index_(values.index()), solved_(solved), opt_(opt), n_(index_.size()),
        arena_(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic), behind_(scratch.behind),
        best_exit_(best_exits && best_exits->size() == static_cast<std::size_t>(n_) ? best_exits->data() : nullptr),
        exits_(best_exit_ ? best_exits : nullptr), kept_(best_exit_ && kept && !kept->pieces.empty() ? kept : nullptr),
        parents_(scratch.parents),
        first_(scratch.first) {}

  Result<std::vector<std::uint8_t>> run() {
    if (n_ >= kAhead)
      return fail_with(Error::Internal, "class " + to_string(index_.key(), rules_.pits()) + " is too large for distances");
    if (!opt_.spill_dir.empty()) {
      auto f = TempFile::create(opt_.spill_dir, "the distance edges of class " + to_string(index_.key(), rules_.pits()));
      if (!f) return std::unexpected(f.error());
      spill_ = std::move(*f);
    }
    std::vector<std::uint8_t> out(static_cast<std::size_t>(n_) * 2);  // zero: no distance yet
    dist_ = out.data();
    behind_.assign(static_cast<std::size_t>(n_), 0);
    first_.assign(static_cast<std::size_t>(n_) + 1, 0);
    first_pass();
    if (auto e = stopped()) return std::unexpected(*e);
    if (exits_) {  // read by the first pass only: their memory goes to the levels' edges
      best_exit_ = nullptr;
      std::vector<std::int8_t>().swap(*exits_);
    }
    levels();
    if (auto e = stopped()) return std::unexpected(*e);
    for (std::size_t i = 0; i < static_cast<std::size_t>(n_); ++i)
      if (distance(i) == 0 && values_.get(i) != 0 && behind_[i] != kGameOver)
        return fail_with(Error::Internal, "class " + to_string(index_.key(), rules_.pits()) + ": position " +
                                              std::to_string(i) + " worth " + std::to_string(values_.get(i)) +
                                              " has no distance (the values are not those of the class)");
    return out;
  }

 private:
  bool in_class(const Child& c) const {
    return !c.game_over && !c.same_side && rules_.Rules::class_of(c.next) == index_.key();
  }
  void fail(Error e) {
    std::lock_guard lock(mu_);
    if (!failed_.exchange(true)) error_ = std::move(e);
  }
  std::optional<Error> stopped() {
    if (failed_.load()) return error_;
    return opt_.budget.check("distances of class " + to_string(index_.key(), rules_.pits()));
  }
  bool halted() const { return failed_.load(std::memory_order_relaxed) || opt_.budget.stopped(); }

  // The value of an exit to the mover, or nullopt after fail().
  std::optional<Value> exit_value(const Child& c, detail::ExitCache& cache) {
    if (c.game_over) return move_value(GameKind::Score, c, 0);
    const ClassKey key = rules_.Rules::class_of(c.next);
    const ClassValues* cls = cache.find(key);
    if (!cls || !cls->index().allowed(c.next)) {
      fail(Error{Error::MissingTable, "class " + to_string(key, rules_.pits()) + " of a child of class " +
                                          to_string(index_.key(), rules_.pits()) + " is not solved or does not index it"});
      return std::nullopt;
    }
    const Index i = cls->index().rank(c.next);
    Value x = 0;
    if (cls->whole()) {
      x = cls->get(i);
    } else {
      const std::uint8_t* at = cache.paged(*cls, i);
      if (!at) {
        fail(Error{Error::Io, "class " + to_string(key, rules_.pits()) + " cannot be read: " + cache.error()});
        return std::nullopt;
      }
      x = static_cast<std::int8_t>(at[0]);
      cache.done_with(at);
    }
    return move_value(GameKind::Score, c, x);
  }

  // Every position worth other than 0 once: distance 1 (an optimal exit of the side
  // ahead, or only optimal exits for the side behind), the count of the side behind's
  // optimal in-class children, the edges of the undecided positions (counted by child
  // in first_). With the value solve's best exits (SolveOptions::best_exits) no exit is
  // read again, and a position of the side ahead whose best exit is its value plays no
  // move; with its kept in-class children (SolveOptions::kept_children) the positions
  // of a listed piece play none at all. Positions go in batches of kBatch: their
  // in-class children are ranked and their values and edge counts prefetched first,
  // then read (random places in the class: the misses of a batch overlap; Oware up to
  // 14 spent 3/4 of this pass waiting for them one at a time).
  static constexpr std::size_t kBatch = 16;
  static constexpr Index kPiece = KeptChildren::kPiece;
  void first_pass() {
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<Index>(0, (n_ + kPiece - 1) / kPiece), [&](const tbb::blocked_range<Index>& r) {
        if (halted()) return;
        detail::ExitCache cache(solved_);
        std::vector<Child> kids;
        std::vector<std::uint32_t> optimal;  // ranks of the optimal in-class children
        std::vector<Edge> edges;            // of the positions that played their moves
        std::size_t listed_edges = 0;       // those kept in the lists
        std::size_t spilled_edges = 0;      // those written to the spill file
        // With a spill file the edges go to it a buffer at a time (levels() reads them back).
        auto spill_edges = [&] {
          if (edges.empty()) return;
          const std::uint64_t bytes = edges.size() * sizeof(Edge);
          const std::uint64_t at = spill_end_.fetch_add(bytes, std::memory_order_relaxed);
          if (auto w = spill_->write(at, std::as_bytes(std::span(edges))); !w) fail(w.error());
          spilled_edges += edges.size();
          edges.clear();
        };
        std::vector<std::uint32_t> ones, over;
        // A position of the batch: its value, best exit (kNoValue: none) and in-class
        // children ranks[from, to).
        struct Pending {
          std::uint32_t u, from, to;
          Value v, exit;
          std::uint32_t* listed;  // a listed position's ranks in its list (its edges go there), or null
          std::uint16_t* at;      // its entry's offset (kSettled, kAheadEntry are marked in it)
        };
        constexpr Value kNoValue = std::numeric_limits<Value>::min();
        std::vector<Pending> batch;
        std::vector<std::uint32_t> ranks;
        batch.reserve(kBatch);
        const std::uint8_t* vals = values_.bytes().data();
        const auto width = static_cast<std::size_t>(values_.width());
        // The positions decided at 0 (games over) and 1 go to the shared levels a
        // block at a time (checked after each piece: at most kShare + kPiece wait), so
        // that no task holds a long list of them.
        constexpr std::size_t kShare = std::size_t{1} << 16;
        auto share = [&](bool all) {
          if (!all && ones.size() < kShare && over.size() < kShare) return;
          std::lock_guard lock(mu_);
          ones_.add(ones);
          frontier_.add(over);
          ones.clear();
          over.clear();
        };
        auto flush = [&] {
          for (const Pending& b : batch) {
            if (halted()) break;
            optimal.clear();
            Value best = b.exit;
            for (std::uint32_t k = b.from; k < b.to; ++k) {
              const std::uint32_t ci = ranks[k];
              const auto x = static_cast<Value>(-values_.get(ci));
              if (x == b.v) optimal.push_back(ci);
              best = std::max(best, x);
            }
            if (best != b.v) {
              fail(Error{Error::Internal, "class " + to_string(index_.key(), rules_.pits()) + ": position " +
                                              std::to_string(b.u) + " is worth " + std::to_string(b.v) +
                                              " in its values, its moves give " + std::to_string(best)});
              break;
            }
            std::sort(optimal.begin(), optimal.end());
            optimal.erase(std::unique(optimal.begin(), optimal.end()), optimal.end());
            if ((b.v > 0 && b.exit == b.v) || optimal.empty()) {
              set_distance(b.u, 1);
              ones.push_back(b.u);
              if (b.listed) *b.at |= kSettled;
              continue;
            }
            if (b.v < 0) behind_[b.u] = static_cast<std::uint8_t>(optimal.size());
            for (const std::uint32_t c : optimal)
              std::atomic_ref<std::uint32_t>(first_[c]).fetch_add(1, std::memory_order_relaxed);
            if (b.listed) {  // the edges in the list, in place: the optimal children, then kNoChild
              std::copy(optimal.begin(), optimal.end(), b.listed);
              std::fill(b.listed + optimal.size(), b.listed + (b.to - b.from), kNoChild);
              if (b.v > 0) *b.at |= kAheadEntry;
              listed_edges += optimal.size();
            } else {
              for (const std::uint32_t c : optimal) edges.push_back(Edge{c, b.v > 0 ? b.u | kAhead : b.u});
              if (spill_ && edges.size() >= kSpillEdges) spill_edges();
            }
          }
          batch.clear();
          ranks.clear();
        };
        // Position u's in-class children (ranks from `from` on) join the batch.
        auto pend = [&](std::uint32_t u, std::uint32_t from, Value v, Value exit, std::uint32_t* listed = nullptr,
                        std::uint16_t* at = nullptr) {
          batch.push_back(Pending{u, from, static_cast<std::uint32_t>(ranks.size()), v, exit, listed, at});
          if (batch.size() == kBatch) flush();
        };
        auto add_rank = [&](std::uint32_t ci) {
          __builtin_prefetch(vals + ci * width);
          __builtin_prefetch(&first_[ci], 1);
          ranks.push_back(ci);
        };
        // What the value and the best exit alone decide: true when u needs no move.
        auto settled = [&](std::uint32_t u, Value v, std::int8_t kept) {
          if (v == 0) return true;  // distance 0
          if (!best_exit_) return false;
          if (kept == kExitNoMove) {  // distance 0; its in-class parents' moves to it are worth 1
            behind_[u] = kGameOver;
            over.push_back(u);
            return true;
          }
          if (v > 0 && kept == v) {
            set_distance(u, 1);
            ones.push_back(u);
            return true;
          }
          return false;
        };
        // The positions [from, to) of a piece not listed: their moves played.
        auto play = [&](Index from, Index to) {
          index_.for_each(from, to, [&](Index i, const Position& p) {
            if (halted()) return;
            const auto u = static_cast<std::uint32_t>(i);
            const Value v = values_.get(i);
            const std::int8_t kept = best_exit_ ? best_exit_[i] : kExitNone;
            if (settled(u, v, kept)) return;
            rules_.Rules::children(p, kids);
            if (kids.empty()) {
              behind_[u] = kGameOver;
              over.push_back(u);
              return;
            }
            Value exit = best_exit_ && kept != kExitNone ? Value{kept} : kNoValue;
            const auto start = static_cast<std::uint32_t>(ranks.size());
            for (const Child& c : kids) {
              if (in_class(c)) {
                add_rank(static_cast<std::uint32_t>(index_.rank(c.next)));
              } else if (!best_exit_) {
                const auto x = exit_value(c, cache);
                if (!x) return;
                exit = std::max(exit, *x);
              }
            }
            cache.release();
            pend(u, start, v, exit);
          });
        };
        // A listed piece: its entries' children from the list, then the positions
        // without an entry, which the list says have no in-class move or need none
        // (their best exit is their value). The list keeps the edges (levels()).
        auto listed = [&](Index from, Index to, KeptChildren::Piece& list) {
          std::array<std::uint64_t, kPiece / 64> entered{};
          std::size_t read = 0;
          for (std::size_t e = 0; e < list.at.size() && !halted(); ++e) {
            const std::size_t c = list.counts[e];
            const auto u = static_cast<std::uint32_t>(from + list.at[e]);
            entered[list.at[e] / 64] |= std::uint64_t{1} << (list.at[e] % 64);
            const Value v = values_.get(u);
            const std::int8_t kept = best_exit_[u];
            if (settled(u, v, kept)) {
              list.at[e] |= kSettled;
            } else {
              const auto start = static_cast<std::uint32_t>(ranks.size());
              for (std::size_t k = read; k < read + c; ++k) add_rank(list.ranks[k]);
              pend(u, start, v, kept == kExitNone ? kNoValue : Value{kept}, list.ranks.data() + read, &list.at[e]);
            }
            read += c;
          }
          for (Index i = from; i < to && !halted(); ++i) {
            if ((entered[(i - from) / 64] >> ((i - from) % 64)) & 1) continue;
            const auto u = static_cast<std::uint32_t>(i);
            const Value v = values_.get(i);
            const std::int8_t kept = best_exit_[i];
            if (settled(u, v, kept)) continue;
            if (kept != v) {
              fail(Error{Error::Internal, "class " + to_string(index_.key(), rules_.pits()) + ": position " +
                                              std::to_string(i) + " worth " + std::to_string(v) +
                                              " has no in-class children listed and best exit " + std::to_string(kept)});
              return;
            }
            set_distance(u, 1);  // every move leaves the class: an exit worth its value
            ones.push_back(u);
          }
        };
        for (Index k = r.begin(); k < r.end() && !halted(); ++k) {
          const Index from = k * kPiece, to = std::min(n_, from + kPiece);
          KeptChildren::Piece* list = kept_ && k < kept_->pieces.size() ? &kept_->pieces[static_cast<std::size_t>(k)] : nullptr;
          if (list && list->listed)
            listed(from, to, *list);
          else
            play(from, to);
          share(false);
        }
        flush();
        if (spill_) spill_edges();
        share(true);
        std::lock_guard lock(mu_);
        edge_count_ += edges.size() + listed_edges + spilled_edges;
        if (!edges.empty()) chunks_.push_back(std::move(edges));
      });
    });
  }

  // The edges by child (CSR: the parents of child c are parents_[first_[c] .. first_[c + 1]),
  // in no fixed order: the levels do not depend on it), then the levels.
  void levels() {
    if (edge_count_ >= std::numeric_limits<std::uint32_t>::max()) {
      fail(Error{Error::Internal, "class " + to_string(index_.key(), rules_.pits()) + " has too many optimal moves for distances"});
      return;
    }
    // first_[c] = the edges of children up to c; each edge put at --first_[c] leaves the start of c's.
    for (std::size_t c = 1; c <= static_cast<std::size_t>(n_); ++c) first_[c] += first_[c - 1];
    first_[static_cast<std::size_t>(n_)] = static_cast<std::uint32_t>(edge_count_);
    parents_.resize(edge_count_);
    auto put = [&](std::uint32_t child, std::uint32_t parent) {
      parents_[std::atomic_ref<std::uint32_t>(first_[child]).fetch_sub(1, std::memory_order_relaxed) - 1] = parent;
    };
    arena_.execute([&] {
      tbb::parallel_for(std::size_t{0}, chunks_.size(), [&](std::size_t k) {
        for (const Edge& e : chunks_[k]) put(e.child, e.parent);
        std::vector<Edge>().swap(chunks_[k]);
      });
      if (spill_) {  // the edges on disk, a buffer at a time
        const std::uint64_t end = spill_end_.load(), step = kSpillEdges * sizeof(Edge);
        tbb::parallel_for(std::uint64_t{0}, (end + step - 1) / step, [&](std::uint64_t k) {
          if (halted()) return;
          std::vector<Edge> buffer(static_cast<std::size_t>(std::min(step, end - k * step) / sizeof(Edge)));
          if (auto r = spill_->read(k * step, std::as_writable_bytes(std::span(buffer))); !r) return fail(r.error());
          for (const Edge& e : buffer) put(e.child, e.parent);
        });
        spill_.reset();
      }
      if (kept_)  // the listed pieces' edges: each entry's optimal children, then kNoChild
        tbb::parallel_for(std::size_t{0}, kept_->pieces.size(), [&](std::size_t k) {
          KeptChildren::Piece& list = kept_->pieces[k];
          if (!list.listed) return;
          std::size_t read = 0;
          for (std::size_t e = 0; e < list.at.size(); read += list.counts[e], ++e) {
            if (list.at[e] & kSettled) continue;
            const auto parent = static_cast<std::uint32_t>(k * kPiece + (list.at[e] & kEntryOffset)) |
                                (list.at[e] & kAheadEntry ? kAhead : 0);
            for (std::size_t j = read; j < read + list.counts[e] && list.ranks[j] != kNoChild; ++j) put(list.ranks[j], parent);
          }
          list = KeptChildren::Piece{};
        });
    });
    chunks_.clear();
    LevelSet next(n_);
    for (std::uint32_t k = 0; !frontier_.empty() || k == 0; ++k) {
      if (k + 1 > kMaxDistance) {
        fail(Error{Error::Internal, "class " + to_string(index_.key(), rules_.pits()) + ": a distance beyond " +
                                        std::to_string(kMaxDistance)});
        return;
      }
      if (halted()) return;
      next.clear();
      if (k == 0) std::swap(next, ones_);
      const auto d = static_cast<std::uint16_t>(k + 1);
      // Tells the parents of the positions of frontier_'s parts r; what it decides goes
      // to `next` (a block at a time).
      auto tell = [&](const tbb::blocked_range<std::size_t>& r) {
        std::vector<std::uint32_t> found;
        auto hand_over = [&] {
          std::lock_guard lock(mu_);
          next.add(found);
          found.clear();
        };
        frontier_.each(r.begin(), r.end(), [&](std::uint32_t c) {
          if (found.size() >= (std::size_t{1} << 16)) hand_over();
          for (std::uint32_t e = first_[c]; e < first_[c + 1]; ++e) {
            const std::uint32_t q = parents_[e] & ~kAhead;
            if (parents_[e] & kAhead) {  // claimed by the first child told (behind_ of the side ahead: 0, then kClaimed)
              std::uint8_t none = 0;
              if (std::atomic_ref<std::uint8_t>(behind_[q]).compare_exchange_strong(none, kClaimed, std::memory_order_relaxed)) {
                set_distance(q, d);
                found.push_back(q);
              }
            } else if (std::atomic_ref<std::uint8_t>(behind_[q]).fetch_sub(1, std::memory_order_relaxed) == 1) {
              set_distance(q, d);
              found.push_back(q);
            }
          }
        });
        hand_over();
      };
      // A small level on this thread: the long tail of a class has many levels of a few
      // positions, and waking the other threads for each is not worth it.
      constexpr std::size_t kGrain = 1024;
      if (frontier_.size() <= 4 * kGrain)
        tell(tbb::blocked_range<std::size_t>(0, frontier_.parts()));
      else
        arena_.execute([&] { tbb::parallel_for(tbb::blocked_range<std::size_t>(0, frontier_.parts(), kGrain), tell); });
      std::swap(frontier_, next);
    }
  }

  const Rules& rules_;
  const ClassValues& values_;
  const ClassIndex& index_;
  const SolvedClasses& solved_;
  const SolveOptions& opt_;
  Index n_;
  tbb::task_arena arena_;
  std::mutex mu_;
  std::atomic<bool> failed_{false};
  Error error_;
  // The arrays below are the caller's DistanceScratch (kept from class to class).
  // The result, written in place: 2 bytes a position, little-endian (the distance
  // file's layout); 0: undecided (value not 0) or none (value 0, no move). A position
  // is written by the one thread that decides it.
  std::uint8_t* dist_ = nullptr;
  void set_distance(std::size_t u, unsigned d) {
    dist_[2 * u] = static_cast<std::uint8_t>(d & 0xFF);
    dist_[2 * u + 1] = static_cast<std::uint8_t>(d >> 8);
  }
  unsigned distance(std::size_t u) const { return dist_[2 * u] | (unsigned{dist_[2 * u + 1]} << 8); }
  // The side behind: optimal in-class children not yet decided; kGameOver; the side
  // ahead: 0, kClaimed once decided by the levels.
  std::vector<std::uint8_t>& behind_;
  const std::int8_t* best_exit_;       // SolveOptions::best_exits of the value solve, or null
  std::vector<std::int8_t>* exits_;    // their vector, freed after the first pass
  KeptChildren* kept_;                 // SolveOptions::kept_children of the value solve (with best_exit_), or null
  std::vector<std::vector<Edge>> chunks_;  // the first pass's edges, a vector per task
  // SolveOptions::spill_dir: the first pass's edges go to this file instead of chunks_
  // (12 bytes an edge in memory while they are put in order: 4).
  static constexpr std::size_t kSpillEdges = std::size_t{1} << 16;  // 512 KiB a buffer
  std::unique_ptr<TempFile> spill_;
  std::atomic<std::uint64_t> spill_end_{0};
  std::size_t edge_count_ = 0;
  std::vector<std::uint32_t>& parents_;  // the edges' parents by child (CSR)
  std::vector<std::uint32_t>& first_;  // 4 bytes a position: fewer than 2^32 edges (checked)
  LevelSet frontier_{n_};  // the positions decided at the current level (first: 0, the games over)
  LevelSet ones_{n_};      // decided at 1 by the first pass
};

}  // namespace

Result<std::vector<std::uint8_t>> solve_distances(const Variant& v, const ClassValues& values, const SolvedClasses& solved,
                                                  const SolveOptions& options, std::vector<std::int8_t>* best_exits,
                                                  DistanceScratch* scratch, KeptChildren* kept) {
  if (!has_distance_tables(v)) return fail_with(Error::InvalidArgument, v.name() + " has no distance tables");
  if (!values.whole()) return fail_with(Error::Internal, "distances need the class's values in memory");
  return with_rules(v, [&](const auto& rules) {
    using R = std::decay_t<decltype(rules)>;
    DistanceScratch own;
    return DistanceSolver<R>(rules, values, solved, options, best_exits, scratch ? *scratch : own, kept).run();
  });
}

}  // namespace mancala
