// The solved classes a generation keeps for the exits of the classes above them,
// within a memory budget (generate --memory-mb).
//
// Every exit (a move to a child in a lower class) reads that child's value, at
// random in its class. The store keeps the newest solved classes whole in memory
// (for Kalah and Oware most exits go to the classes just below) while they fit; the
// older ones are "paged": when a class leaves memory its values are written once to
// an uncompressed spill file (unlinked at once: it goes with the process, even one
// killed), and exits read them back through one bounded cache of pages shared
// by every thread (16 KiB pages, pread on the open file; the kernel's page cache keeps the hot
// pages, outside the process's resident set).
//
// Why not the table files' own zstd blocks: measured on Kalah(6) up to 16 seeds
// with one thread (results/tables.md, "bounded memory"), reading the lower classes through a
// 4 MiB cache of decompressed 64 Ki-position blocks took 205 s against 14 s with
// every class whole: the exits of consecutive positions are not local enough, and a
// miss costs a file open and a 64 KiB decompression (~130 us); a page costs one
// pread from the kernel's page cache (a few us). Why not a memory map of the spill files: a mapped file's
// resident pages count in the process's resident set and stay there until memory
// runs short, so a map does not bound the peak that GNU time reports.
// The table files are still checked where they are read: a file loaded on resume
// (load_class) is read whole with every block's CRC checked, and solved again when
// one fails (GenerateEvent::Replaced).
//
// Sweeps read the exits in their first pass only. A large class solved by sweeps
// whose kept ranks (class_solver.h) do not fit beside the lower classes frees them
// after that pass (release: every whole class leaves memory, written to its spill
// file if it has none yet) and gives the room to the ranks; the next class's fit
// reads them back whole from the spill files.
//
// What the budget counts (LowerStore::fit): the working arrays of the class being
// solved (solver_bytes, an estimate per method; the sweeps' kept ranks take only what
// is spare, kept_rank_bytes, or what release frees), the lower classes kept whole, and
// the page cache. Not counted: the program and its libraries, thread stacks, index
// tables, zstd contexts, the compressed file being written, the position lists of
// reachable-set classes (generate --from), the kernel's page cache (the spill files).
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "mancala/error.h"
#include "mancala/retrograde.h"
#include "mancala/temp_file.h"
#include "mancala/values.h"

namespace mancala {

// One cache of pages for every paged class, at most `capacity` bytes of pages (least
// recently used dropped first; a page a reader still holds lives on until it lets
// go). Thread-safe. A dropped page that nobody holds keeps its buffer for the next
// miss: pages freed by one thread and allocated by another had grown each thread's
// malloc arena to about the whole capacity (Oware up to 20 at --memory-mb 130, 2
// threads: 44 MiB of pages held 88 MiB of heap).
class PageCache {
 public:
  explicit PageCache(std::uint64_t capacity) : capacity_(capacity) {}
  void set_capacity(std::uint64_t capacity);
  // Page `page` of source `id`; on a miss `load` fills a buffer with it (outside the
  // lock; the buffer may hold an older page: load sizes it); its error is returned as
  // it is.
  Result<std::shared_ptr<const std::vector<std::uint8_t>>> get(std::uint32_t id, std::uint64_t page,
                                                               const std::function<Result<void>(std::vector<std::uint8_t>&)>& load);

  struct Stats {
    std::uint64_t hits = 0, misses = 0, bytes = 0, peak_bytes = 0;
  };
  Stats stats() const;

 private:
  using Key = std::pair<std::uint32_t, std::uint64_t>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<std::uint64_t>()(k.second * 1000003u + k.first); }
  };
  struct Entry {
    Key key;
    std::shared_ptr<std::vector<std::uint8_t>> data;
  };
  void trim();  // under mu_
  static constexpr std::size_t kSpares = 64;
  std::vector<std::shared_ptr<std::vector<std::uint8_t>>> spare_;  // dropped pages' buffers, nobody holds them
  mutable std::mutex mu_;
  std::uint64_t capacity_;
  std::list<Entry> lru_;  // front: most recently used
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> where_;
  Stats stats_;
};

// How much memory class `key` of `v` (`positions` positions) needs while it is
// solved (the working arrays of the method solve_class picks, and the values it
// returns).
std::uint64_t solver_bytes(const Variant& v, const ClassKey& key, Index positions, SolveOptions::Method method);
// The most the sweeps may keep the in-class children's ranks in (0 for the other
// methods); generate gives them at most LowerStore::spare() of it under a budget
// (SolveOptions::rank_cache_bytes) for sweep 0, which reads the lower classes, and
// what release frees after it.
std::uint64_t kept_rank_bytes(const Variant& v, Index positions, SolveOptions::Method method);
// With distances (generate --distances): what a class's value solve takes beyond
// solver_bytes (a best exit a position; by levels also the distances it finds, 2 bytes
// a position), and what the distance pass after the sweeps takes beside the class's
// values and the sweeps' kept lists: the best exits and distance_bytes (distances.h),
// whose edges (12 bytes, one a position) only for the `unlisted` positions, those of
// the pieces the sweeps did not list (a listed piece's edges stay in its list), 4 with
// `edges_on_disk` (SolveOptions::spill_dir of solve_distances). The pass reads no lower
// class, so it fits on its own (LowerStore::fit with reads_lower = false) instead of in
// the value solve's fit.
std::uint64_t distance_solve_bytes(const Variant& v, Index positions, SolveOptions::Method method);
std::uint64_t distance_pass_bytes(Index positions, Index unlisted, bool edges_on_disk = false);
// How the distance pass after the sweeps fits `room` bytes (what the budget leaves
// beside the class's values and the smallest page cache), given the sweeps' kept
// lists: first as it is; else with the edges on disk (edges_on_disk); else also giving
// back listed pieces, from the last, whose lists take more than their edges would on
// disk (4 bytes a position): such a piece is reset to unlisted, and the pass plays its
// moves once (the same distances). Returns the bytes the pass then needs (more than
// room when even that is not enough: LowerStore::fit then pages lower classes out or
// refuses) and counts the pieces given back in `given_back`.
// Example: a class of 20,480 positions, 3 listed pieces of 4,096 positions whose lists
// hold 40, 60 and 80 KiB, 8,192 positions unlisted: 9 x 20,480 + 12 x 8,192 + 184,320 =
// 466,944 bytes with the edges in memory, 184,320 + 4 x 8,192 + 184,320 = 401,408 on
// disk; with room 350,000 the last piece (80 KiB) goes: 184,320 + 4 x 12,288 + 102,400
// = 335,872.
std::uint64_t fit_distance_pass(KeptChildren* kept, Index positions, std::uint64_t room, bool& edges_on_disk,
                                std::uint64_t& given_back);

// This process's resident bytes (VmRSS of /proc/self/status; 0 where there is none).
std::uint64_t resident_bytes();

// The solved classes of one generation, in solving order, and which of them stay whole.
class LowerStore {
 public:
  // budget_bytes = 0: no bound (every class stays whole). Spill files go to `spill_dir`.
  LowerStore(const Variant& v, std::uint64_t budget_bytes, std::filesystem::path spill_dir);
  // A class just solved or loaded, whole.
  void add(SolvedClasses& solved, std::shared_ptr<const ClassValues> cls);
  // Before a class that needs `solving` bytes is solved: pages the oldest whole
  // classes out of `solved` until the rest fits (solving + whole classes + cache <=
  // budget), and sizes the cache. Errors: Io (a spill file cannot be created or
  // written, e.g. the folder is full); a paged read fails with Io too (SpillPages).
  // A paged class that fits comes back whole (read from its spill file) when the
  // class to solve is large enough for that to pay (lower_store.cpp).
  // reads_lower = false: the work that needs `solving` reads no lower class (the
  // distances of a class whose value solve kept each position's best exit), so no
  // paged class comes back and the cache is at its smallest.
  Result<void> fit(SolvedClasses& solved, std::uint64_t solving, bool reads_lower = true);
  // After the first pass of the class being solved (every exit read, SolveOptions::
  // exits_read): every lower class leaves memory (one already spilled is not written
  // again) and the cache shrinks to its smallest; returns what the class's later
  // sweeps may take beside its arrays (spare()). The next fit brings them back.
  Result<std::uint64_t> release(SolvedClasses& solved);
  // Makes each fit measure what the budget does not count: `resident()` less the whole
  // classes and the page cache's pages (the program, index tables, thread stacks, the
  // allocator's free memory). When that is more than `allowance` (what the caller held
  // back for it), the budget of that fit and what follows it is the budget given less
  // the excess, down to half of it at most. (Kotu-baendum up to 16 at 1 GiB: the
  // process held about 60 MiB that the budget does not count against the 24 MiB held
  // back, and went 32 MiB over; results/probe.md, session 24.)
  void measure(std::function<std::uint64_t()> resident, std::uint64_t allowance);

  std::uint64_t budget() const { return budget_; }
  const std::filesystem::path& spill_dir() const { return spill_dir_; }
  // What the last fit left of the budget beyond the class being solved, the whole
  // classes and the cache (the largest cache was enough); no bound: the most there is.
  std::uint64_t spare() const { return budget_ ? spare_ : ~std::uint64_t{0}; }
  std::uint64_t whole_bytes() const;
  int paged_classes() const;
  PageCache::Stats cache_stats() const { return cache_->stats(); }

 private:
  struct Class {
    std::shared_ptr<const ClassValues> values;  // whole or paged
    std::shared_ptr<const TempFile> spill;     // its copy on disk, once it has left memory
    std::uint64_t bytes = 0;  // size * width
  };
  Result<void> page_out(SolvedClasses& solved, Class& c);
  Result<void> page_out(SolvedClasses& solved, const std::vector<Class*>& out);  // then gives the memory back
  Result<void> bring_back(SolvedClasses& solved, Class& c);
  std::uint64_t min_cache() const;  // the smallest page cache
  std::uint64_t avail() const;      // the budget less the class being solved (the last fit's)
  const Variant& v_;
  std::uint64_t budget_;
  std::uint64_t given_;  // the budget given (budget_ is less while measure() finds more uncounted)
  std::function<std::uint64_t()> resident_;
  std::uint64_t allowance_ = 0;
  std::uint64_t spare_ = 0;
  std::uint64_t solving_ = 0;  // the last fit's
  std::filesystem::path spill_dir_;
  std::shared_ptr<PageCache> cache_;
  std::vector<Class> classes_;  // solving order
};

}  // namespace mancala
