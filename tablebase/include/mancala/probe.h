// The probe library: exact values and ranked moves of positions from a folder of
// tables. Depends on the rules, the index and zstd only (no TBB, no MPI).
//
//   auto tb = mancala::Tablebase::open("tb/");
//   auto r = tb->probe(*variant, position);   // r->value, r->moves (best first)
//
// Thread-safety: every const member may be called from many threads at once
// (refresh() excepted).
//
// One reader, one cache: every caller (probe, the search's table leaves, verify,
// info, the C API, Python) reads a table through Tablebase::table(), which opens it
// once per handle (TableFile::open with the class check and the index built) and
// then answers from a lock-free slot. The opened tables come from the process-wide
// TableCache, so two handles on one folder share them (one mapping, one index).
// Memory besides the mapped files: per open table its decode tables (at most 640 KiB,
// 40 KiB for codes of up to 12 bits), a bit per block and its index (a reachable-set
// table: its position list, 8 bytes a position); the cache keeps tables that no
// handle holds up to TableCache::capacity() bytes (default 48 MiB).
#pragma once

#include <atomic>
#include <expected>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "mancala/format.h"
#include "mancala/variant.h"

namespace mancala {

struct MoveValue {
  Move move;
  Value value = 0;  // value of the move for the mover (variant.h move_value)
  Child child;
  // ProbeResult::distances only: the plies to the next move that leaves the class
  // when this move is played and then every side plays by the distances
  // (docs/values.md, "Distance to an exit"): 1 for a move that leaves the class (or
  // ends the game), 1 + the child's distance for one that stays, 0 for one that
  // stays in a position whose distance is 0 (worth 0: no exit is owed).
  int distance = 0;
};

struct ProbeResult {
  Value value = 0;
  bool from_children = false;  // the position itself is not tabled; its value is the best move's
  // The distance tables were read (has_distance_tables(v) and the class's .mtz file
  // present): `distance` and every move's are set, and the moves are ordered by value,
  // then (among equal values) by distance, shortest first when that value is
  // positive, longest first when it is negative: moves[0] realises the value. False:
  // ordered by value alone, as for games without distances (Kalah, Imbelece: any
  // value-optimal play realises theirs).
  bool distances = false;
  // has_distance_tables(v) but a distance file needed was missing: moves[0] keeps the
  // value but may not realise it (endless play is possible).
  bool distances_missing = false;
  int distance = 0;              // the position's (0 for a value of 0 or no move)
  std::vector<MoveValue> moves;  // best first; ties keep move order
};

// The process-wide cache of open tables, keyed by path and checked by file identity
// (a file replaced under its name is opened afresh). Bounded in bytes (heap_bytes of
// the tables it keeps, least recently used first out); a table a handle still holds
// stays open while it does.
class TableCache {
 public:
  static TableCache& instance();
  // The table at `path` for class `key` of `v` with `content`, open and checked.
  std::expected<std::shared_ptr<TableFile>, TableError> open(const std::filesystem::path& path, const Variant& v,
                                                             const ClassKey& key, TableContent content);
  std::size_t capacity() const;
  void set_capacity(std::size_t bytes);
  std::size_t bytes() const;  // heap bytes of the tables kept
  // Counts `t`'s bytes again (after TableFile::load) and keeps the bound: a loaded
  // table no handle holds is let go first.
  void recount(const TableFile& t);

 private:
  struct Entry {
    std::string path;
    std::shared_ptr<TableFile> table;
    std::size_t bytes = 0;
  };
  void trim();  // under mu_
  mutable std::mutex mu_;
  // The Variant each table is opened with, one of each name, kept for good: a table's
  // ClassIndex points to its Variant, and a cached table outlives its opener's (a later
  // Tablebase of another Variant object reuses it).
  std::map<std::string, VariantPtr> variants_;
  std::list<Entry> lru_;  // most recent first
  std::map<std::string, std::list<Entry>::iterator> by_path_;
  std::size_t capacity_ = std::size_t{48} << 20, bytes_ = 0;
};

class Tablebase {
 public:
  // Scans a folder for table files (opened lazily). Fails if the folder is missing
  // or cannot be listed. A *.mtb file whose name cannot be a table (parse_table_file_name)
  // is not used: it is listed in ignored() with the reason.
  static std::expected<std::shared_ptr<Tablebase>, TableError> open(const std::filesystem::path& dir);
  Tablebase() = default;
  Tablebase(const Tablebase&) = delete;
  Tablebase& operator=(const Tablebase&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Variant names present, and the classes of one variant.
  std::vector<std::string> variants() const;
  std::vector<ClassKey> classes(const std::string& variant) const;
  // The open table of a class (values or distances), its class checked and its index
  // built when first opened by this handle; later calls take no lock.
  std::expected<const TableFile*, TableError> table(const Variant& v, const ClassKey& key,
                                                    TableContent content = TableContent::Values) const;
  bool covers(const Variant& v, const ClassKey& key, TableContent content = TableContent::Values) const;
  // Looks at the folder again: a table file replaced under its name (a new generate)
  // is opened afresh at its next use, new files are found. Not concurrent with other
  // calls on this handle (the line protocol calls it between commands). True when
  // something changed: a file added or gone, or an open table's file replaced.
  bool refresh();
  // "FILE: why" for each *.mtb file of the folder whose name is impossible.
  const std::vector<std::string>& ignored() const { return ignored_; }

  // Value of a tabled position (its side to move is South).
  std::expected<Value, TableError> value(const Variant& v, const Position& p) const;
  // A variant's files, found once (null: the folder has none): value(v, files, p) and
  // probe(v, files, p) skip the lookup by name that value(v, p) makes at each call (the
  // C API's calls that take numbers: a cached value 2-3 % faster, results/probe.md
  // session 28). Valid until refresh().
  struct VariantTables;
  const VariantTables* files_of(const Variant& v) const { return tables_of(v); }
  std::expected<Value, TableError> value(const Variant& v, const VariantTables* files, const Position& p) const;
  // Value of a tabled position of class `key` (= v.class_of(p)), as value().
  std::expected<Value, TableError> value(const Variant& v, const Position& p, const ClassKey& key) const;
  // The values of many tabled positions (each South to move) at once: out[k] =
  // value(v, ps[k]), out.size() >= ps.size(). The reads of up to kBatch positions are
  // started (TableFile::prefetch, prefetch_unit, prefetch_codes) before any is decoded, so their cache
  // misses overlap: an engine's children, a bulk call. On the first position that
  // fails, stops with its error and sets *failed to its number (out[0..*failed) are
  // set); probe() values the children of a position through it.
  static constexpr std::size_t kBatch = 16;
  std::expected<void, TableError> values(const Variant& v, std::span<const Position> ps, std::span<Value> out,
                                         std::size_t* failed = nullptr) const;
  // Loads a variant's tables into memory (TableFile::load: each value decoded once, one
  // byte a position, two for a distance): the smallest classes first, each class's
  // values then its distances, while the bytes loaded (counting those loaded before,
  // by any handle) stay within max_bytes. A value of a loaded class then costs one
  // memory read (results/probe.md, session 32: values in batches at 1/4.3-1/5.8 of the
  // rate of random one-byte reads, about 1/21 decoded in place; one at a time
  // 1/9.2-1/15, 1/24-1/43 in place; full probes 1/32-1/41). The memory is held by the
  // open tables: given back when every handle on them is closed (the cache keeps no
  // loaded table beyond its bound). Errors: a class that fails to open or to load
  // (Corrupt, OutOfMemory); the classes loaded before it stay loaded, and a later call
  // leaves a table that failed to load out (counted in `left`, no error: a protocol
  // that loads again after each look at the folder names it once). Thread-safe:
  // other calls go on meanwhile, reading in place until a class is loaded.
  struct Loaded {
    std::size_t bytes = 0;  // loaded bytes of the variant's tables
    int classes = 0;        // tables loaded (values and distances)
    int left = 0;           // tables left out (over the budget, or failed to load before)
  };
  std::expected<Loaded, TableError> load(const Variant& v, std::size_t max_bytes) const;
  // The short way to the value of a position without marks or flags (South to move),
  // given by its pits x[0..P) holding `seeds` in all: its class is the plain class of
  // its seeds (class_of of such a position, every variant), ranked from the pits alone,
  // no Position made (mtb_value_pits: an engine's hot call, 27 ns of instructions where
  // the general way took 46, so that more of one call's read from memory overlaps the
  // next call: results/probe.md, session 31). True
  // with `out` set; false where it does not answer (the class not opened yet, or ranked
  // otherwise, the position left out by its filter, a read that fails): value() answers
  // then, or says why. `files` as files_of(v).
  bool plain_value(const VariantTables* files, const Seeds* x, int seeds, Value& out) const {
    if (!files || seeds < 0) return false;
    // Loaded: one record of the class and one rank table for all of them (below).
    if (const LoadedPlain* lp = files->loaded_plain.load(std::memory_order_acquire))
      if (const LoadedPlain::Class* c = lp->loaded(seeds)) {
        const Index i = lp->rank->rank_if_allowed(x, seeds);
        if (i >= c->positions) return false;  // (kLeftOut too)
        out = c->at(i);
        return true;
      }
    if (static_cast<std::size_t>(seeds) >= files->plain[0].size()) return false;
    const Slot* s = files->plain[0][static_cast<std::size_t>(seeds)];
    const TableFile* t = s ? s->ready.load(std::memory_order_acquire) : nullptr;
    if (!t) return false;
    const ClassIndex& idx = *t->ready_index();
    if (!idx.ranks_pits()) return false;
    const Index i = idx.distribution().rank_if_allowed(x, seeds);
    if (i == DistributionIndex::kLeftOut) return false;
    if (t->loaded_value(i, out)) return true;
    auto v = t->value(i);
    if (!v) return false;
    out = *v;
    return true;
  }
  // The same from loaded values only (LoadedPlain::value): false where the class is not
  // loaded, or the position not ranked (plain_value then answers, or says why).
  template <int kP = 0, class Pit>
  static bool loaded_plain_value(const VariantTables* files, Pit&& pit, unsigned empty, int seeds, Value& out) {
    const LoadedPlain* lp = files ? files->loaded_plain.load(std::memory_order_acquire) : nullptr;
    return lp && lp->template value<kP>(pit, empty, seeds, out);
  }
  // Distance of a tabled position (docs/values.md; NotFound without its .mtz file).
  std::expected<int, TableError> distance(const Variant& v, const Position& p) const;
  // Value and every move's value. The value is the best move's (the tables are made
  // from the same moves, and verify checks each value against them): the position's
  // own value is read only where it has no move. A position the tables do not index
  // (a first move, Oware's start) is valued the same way (from_children).
  std::expected<ProbeResult, TableError> probe(const Variant& v, const Position& p) const {
    return probe(v, files_of(v), p);
  }
  std::expected<ProbeResult, TableError> probe(const Variant& v, const VariantTables* files, const Position& p) const;
  // The same into `out`, whose lists keep their room from one probe to the next (an
  // engine's probes, the C API's: no allocation a probe). On an error, out is unspecified.
  std::expected<void, TableError> probe(const Variant& v, const VariantTables* files, const Position& p,
                                        ProbeResult& out) const;
  // The lists a probe works in, kept by their owner from one probe to the next (the
  // overload above keeps one a thread; the C API keeps them beside its result: one
  // look-up of a thread's own storage a call, each costing a call in a shared library).
  struct Scratch {
    std::vector<Child> kids;
    std::vector<const Position*> next;  // the positions read, where they lie (the children, p)
    std::vector<Value> read;
    std::vector<unsigned char> stay;  // kids[k] stays in the class (distances only)
  };
  std::expected<void, TableError> probe(const Variant& v, const VariantTables* files, const Position& p, ProbeResult& out,
                                        Scratch& scratch) const;

 private:
  // A class's file of one content: its table once opened (the raw pointer is read
  // without a lock; the owner keeps it alive).
  struct Slot {
    std::filesystem::path path;
    mutable std::atomic<const TableFile*> ready{nullptr};
    mutable std::shared_ptr<TableFile> owner;  // under mu_
  };

 public:
  // The loaded plain classes of values of a variant that rank by their pits, as
  // plain_value reads them: by seeds, where its values lie, and one rank table for
  // them all (the rank of a distribution does not depend on the table's size: one
  // table of the most seeds stays in the cache where one a class did not). Made by
  // load(), never changed (a new one replaces it; the old ones live as long as the
  // handle: a reader may hold them).
  struct LoadedPlain {
    struct Class {
      const unsigned char* values = nullptr;  // null: not loaded (or ranked otherwise)
      Index positions = 0;
      unsigned width = 1;
      // The value of rank i (i < positions).
      Value at(Index i) const { return TableFile::value_of_entry(width, TableFile::loaded_entry(values, width, i)); }
    };
    std::vector<Class> classes;
    unsigned count = 0;  // classes.size()
    std::shared_ptr<const DistributionIndex> rank;
    // The loaded class of `seeds` seeds, or null.
    const Class* loaded(int seeds) const {
      if (static_cast<unsigned>(seeds) >= count) return nullptr;
      const Class& c = classes[static_cast<std::size_t>(seeds)];
      return c.values ? &c : nullptr;
    }
    // The value of the position whose pits pit(j) give (ints in 0..255 summing to
    // `seeds`, bit j of `empty` set where pit(j) is 0; DistributionIndex::
    // rank_if_allowed_by): false where its class is not loaded or it is not ranked.
    // kP != 0: the pits when compiled, unrolled where the rank allows it.
    template <int kP = 0, class Pit>
    bool value(Pit&& pit, unsigned empty, int seeds, Value& out) const {
      const Class* c = loaded(seeds);
      if (!c) return false;
      const Index i = kP && rank->unrolls(kP) ? rank->template rank_if_allowed_by<kP>(pit, seeds, empty)
                                              : rank->rank_if_allowed_by(pit, seeds, empty);
      if (i >= c->positions) return false;  // (kLeftOut too)
      out = c->at(i);
      return true;
    }
  };
  struct VariantTables {
    std::map<ClassKey, Slot> slots[2];  // by TableContent
    std::vector<Slot*> plain[2];        // state 0 by seeds (fast path)
    mutable std::atomic<const LoadedPlain*> loaded_plain{nullptr};
  };

 private:
  // A variant's files (null: none), found once by a call that reads many positions
  // (a lookup by name a position was a tenth of a full probe), and a class's slot in them.
  const VariantTables* tables_of(const Variant& v) const;
  static const Slot* slot_in(const VariantTables* vt, const ClassKey& key, TableContent content);
  const Slot* slot(const Variant& v, const ClassKey& key, TableContent content) const;
  // table() with the variant's files already found.
  std::expected<const TableFile*, TableError> table_in(const Variant& v, const VariantTables* vt, const ClassKey& key,
                                                       TableContent content) const;
  // values() for both contents: the values of ps[0, values_to), the distances of the
  // rest (the u16 bits in a Value), their reads overlapping.
  // ps(k) gives the k-th of n positions (a span's, a probe's children where they lie:
  // no copy of them). between() is called once the reads of the first kBatch are
  // started and before any is used: work that does not need them runs under their
  // cache misses (a full probe's own class, its moves' fields).
  template <class At, class Between>
  std::expected<void, TableError> entries(const Variant& v, const VariantTables* vt, std::size_t n, At ps,
                                          std::span<Value> out, std::size_t values_to, std::size_t* failed,
                                          Between&& between) const;
  std::expected<const TableFile*, TableError> open_slot(const Variant& v, const ClassKey& key, TableContent content,
                                                        const Slot& s) const;
  void scan();
  void publish_loaded_plain(const VariantTables& vt) const;

  std::filesystem::path dir_;
  std::map<std::string, VariantTables> files_;
  std::vector<std::string> ignored_;
  mutable std::mutex mu_;
  mutable std::vector<std::shared_ptr<TableFile>> retired_;  // replaced tables a reader may still use
  mutable std::vector<std::unique_ptr<const LoadedPlain>> loaded_plains_;  // every LoadedPlain made (under mu_)
};

// Text of a value: "+3", "-2", "0" (score); "win in 7", "loss in 4", "draw" (win/loss).
std::string value_text(GameKind kind, Value v);

}  // namespace mancala
