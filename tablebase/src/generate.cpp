#include "mancala/generate.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <optional>
#include <thread>

#include "mancala/distances.h"
#include "mancala/lower_store.h"
#include "mancala/reachable.h"
#include "mancala/solver_support.h"
#include "mancala/table_writer.h"
#include <system_error>

namespace mancala {

namespace fs = std::filesystem;

namespace {
// Threads that compress a table's blocks: those of the solver (0: every core), so
// that no core idles while a class is written.
int writer_threads(int threads) { return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }
}  // namespace

std::expected<std::shared_ptr<ClassValues>, TableError> load_class(const fs::path& file, const Variant& v,
                                                                   const ClassKey& key) {
  auto t = TableFile::open(file, v, key);
  if (!t) return std::unexpected(t.error());
  auto bytes = (*t)->read_all();
  if (!bytes) return std::unexpected(bytes.error());
  auto idx = (*t)->index(v);
  if (!idx) return std::unexpected(idx.error());
  if (bytes->size() != (*idx)->size() * static_cast<Index>(v.kind() == GameKind::Score ? 1 : 2))
    return std::unexpected(TableError{TableError::Corrupt, file.string() + ": wrong number of values"});
  return std::make_shared<ClassValues>(**idx, v.kind(), std::move(*bytes));
}

namespace {

// Whether `file` holds the distances of class `cls` (every block checked), for a
// resumed run.
bool distances_written(const fs::path& file, const Variant& v, const ClassValues& cls) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return false;
  auto t = TableFile::open(file, v, cls.index().key(), TableContent::Distances);
  if (!t || (*t)->header().positions != cls.size()) return false;
  auto all = (*t)->read_all();
  return all && all->size() == cls.size() * 2;
}

}  // namespace

Result<GenerateReport> generate_classes(const Variant& v, const std::vector<ClassKey>& keys, const GenerateOptions& opt,
                                        SolvedClasses& solved, const Subsets* subsets, const ClassLoopHooks& hooks) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  std::error_code ec;
  if (hooks.writer) {
    fs::create_directories(opt.out, ec);
    if (ec) return fail_with(Error::Io, opt.out.string() + ": cannot create folder: " + ec.message());
    // Temporary files of a killed run are never complete: remove them.
    for (const auto& e : fs::directory_iterator(opt.out, ec))
      if (const std::string name = e.path().filename().string();
          name.find(".mtb.tmp.") != std::string::npos || name.find(".mtz.tmp.") != std::string::npos ||
          name.starts_with(".mtb-spill."))  // spills are unlinked at once
        fs::remove(e.path(), ec);
  }

  auto emit = [&](const GenerateEvent& e) {
    if (opt.on_event && hooks.writer) opt.on_event(e);
  };
  GenerateReport rep;
  // The lower classes within opt.memory_bytes, less what the budget does not count
  // (lower_store.h: the program, thread stacks, index tables, zstd contexts, the
  // window being written): an eighth, at most 24 MiB, is held back for it. Without,
  // 2 threads went 0.2-20 MiB over the budget (Kalah(6) up to 20 at 160 MiB, Oware at
  // 150, Kotu-baendum up to 16 at 1 GiB; session 10). Spill files next to the tables
  // (a process that writes none: in the temporary folder).
  if (opt.memory_bytes) detail::big_arrays_to_own_pages();
  const std::uint64_t uncounted = std::min(opt.memory_bytes / 8, std::uint64_t{24} << 20);
  LowerStore store(v, opt.memory_bytes - uncounted, hooks.writer ? opt.out : fs::temp_directory_path(ec));
  // One process on its own with a budget of a real run: each fit measures what the
  // budget does not count (lower_store.h, LowerStore::measure); the cluster's ranks
  // count their own (cluster/src/generate_mpi.cpp), and a small budget (tests) is
  // mostly the program itself.
  if (opt.memory_bytes >= (std::uint64_t{64} << 20) && !hooks.solve) store.measure(resident_bytes, uncounted);
  const int total = static_cast<int>(keys.size());
  // Writing a class (zstd: about 15 % of a Kalah generation's CPU time) overlaps the
  // solving of the next one when more than one thread is allowed: its file is
  // written by a thread of its own (one more than the solver's), and its Solved
  // event and finished hook come once the file is complete, after the next class is
  // solved. The values stay whole meanwhile (the writer holds them). The last class
  // (and every class with one thread) is written at once, its blocks compressed by
  // every thread.
  const int threads = writer_threads(opt.threads);
  struct Written {
    int number = 0;  // 1-based
    ClassKey key;
    fs::path file;
    std::shared_ptr<ClassValues> values;
    int sweeps = 0;
    double seconds = 0;  // solving
    std::future<std::expected<double, TableError>> write;  // seconds writing
  };
  std::optional<Written> pending;
  auto finish = [&]() -> Result<void> {  // the pending class's file, event and hook
    if (!pending) return {};
    Written w = std::move(*pending);
    pending.reset();
    std::uint64_t bytes = 0;
    if (w.write.valid()) {
      auto took = w.write.get();
      if (!took) return std::unexpected(took.error());
      w.seconds += *took;
      bytes = fs::file_size(w.file, ec);
    }
    rep.file_bytes += bytes;
    if (opt.on_event && hooks.writer) {
      GenerateEvent e{};
      e.kind = GenerateEvent::Solved;
      e.key = w.key;
      e.class_number = w.number;
      e.classes = total;
      e.positions = w.values->size();
      e.file_bytes = bytes;
      e.sweeps = w.sweeps;
      e.seconds = w.seconds;
      opt.on_event(e);
    }
    if (hooks.finished)
      if (auto f = hooks.finished(w.number, w.file, *w.values, false, w.seconds); !f) return std::unexpected(f.error());
    return {};
  };
  const bool with_distances = opt.distances && has_distance_tables(v);
  // A class's distance file, like its value file, is written while the next class
  // is solved (more than one thread, no budget: the distances stay in memory
  // meanwhile); joined before the next class's distances and at the end.
  std::future<std::expected<std::uint64_t, TableError>> distance_write;  // the file's bytes
  DistanceScratch scratch;  // kept from class to class, without a budget (it does not count them)
  auto distance_written = [&]() -> Result<void> {
    if (!distance_write.valid()) return {};
    auto w = distance_write.get();
    if (!w) return std::unexpected(w.error());
    ++rep.distance_classes;
    rep.distance_bytes += *w;
    return {};
  };
  // The distances of class `cls` (its exits in `solved`), unless its distance file is
  // already there: `found` when the value solve found them (SolveOptions::distances),
  // else solve_distances (over the in-class children the sweeps kept, `kept`). A class
  // paged on the writer (mancala-tb-mpi's sharded classes) is read whole from its
  // value file, written by then.
  auto distances = [&](const ClassValues& paged, std::vector<std::int8_t>* best_exits, bool last,
                       std::vector<std::uint8_t>* found = nullptr, KeptChildren* kept = nullptr) -> Result<void> {
    if (!with_distances || !hooks.writer) return {};
    if (auto w = distance_written(); !w) return w;
    const auto td = clock::now();
    const ClassKey& key = paged.index().key();
    const fs::path file = opt.out / table_file_name(v.name(), key, TableContent::Distances);
    if (distances_written(file, v, paged)) return {};
    std::shared_ptr<ClassValues> whole;
    if (!paged.whole() && !(found && !found->empty())) {
      auto loaded = load_class(opt.out / table_file_name(v.name(), key), v, key);
      if (!loaded) return fail_with(Error::Io, "distances of class " + to_string(key, v.pits()) + ": " + loaded.error().message);
      whole = *loaded;
    }
    const ClassValues& cls = whole ? *whole : paged;
    // The distance pass's arrays beside the class's values and the kept lists: the
    // lower classes make room, as they must. With the value solve's best exits it
    // reads none of them (distances.h): none comes back for it; the next class's fit
    // brings back what it needs.
    SolveOptions so;
    so.threads = opt.threads;
    so.budget = opt.budget;
    if (store.budget() && !(found && !found->empty())) {
      // What the pass may take beside the class's values and the smallest page cache.
      // When its arrays and the sweeps' kept lists (as many as the budget left them:
      // their open lists spare the later sweeps the moves) do not fit there, the
      // edges go to disk, then listed pieces are given back (fit_distance_pass).
      const std::uint64_t held = cls.size() + (std::uint64_t{4} << 20);  // the values, the smallest page cache
      bool on_disk = false;
      std::uint64_t given_back = 0;
      const std::uint64_t need =
          fit_distance_pass(kept, cls.size(), store.budget() > held ? store.budget() - held : 0, on_disk, given_back);
      if (on_disk) so.spill_dir = store.spill_dir();
      rep.unlisted_pieces += given_back;
      const bool reads_lower = !best_exits || best_exits->size() != static_cast<std::size_t>(cls.size());
      if (auto f = store.fit(solved, need, reads_lower); !f) return f;
    }
    auto d = found && !found->empty() ? Result<std::vector<std::uint8_t>>(std::move(*found))
                                      : solve_distances(v, cls, solved, so, best_exits, store.budget() ? nullptr : &scratch, kept);
    if (!d) return std::unexpected(d.error());
    auto write = [&v, file, key = cls.index().key(), d = std::make_shared<const std::vector<std::uint8_t>>(std::move(*d)),
                  level = opt.zstd_level, subset = cls.index().subset()](int workers) -> std::expected<std::uint64_t, TableError> {
      if (auto w = write_table(file, v, key, *d, 2, level, subset.get(), workers, TableContent::Distances); !w)
        return std::unexpected(w.error());
      std::error_code fec;
      return fs::file_size(file, fec);
    };
    const bool overlap = threads > 1 && !last && !store.budget();
    distance_write = overlap ? std::async(std::launch::async, write, 1) : std::async(std::launch::deferred, write, threads);
    if (!overlap)
      if (auto w = distance_written(); !w) return w;
    rep.distance_seconds += std::chrono::duration<double>(clock::now() - td).count();
    return {};
  };
  for (int n = 0; n < total; ++n) {
    const ClassKey& key = keys[static_cast<std::size_t>(n)];
    if (auto stop = opt.budget.check("generate")) return std::unexpected(*stop);
    const fs::path file = opt.out / table_file_name(v.name(), key);
    std::shared_ptr<const std::vector<Index>> subset;
    if (subsets)
      if (auto it = subsets->find(key); it != subsets->end()) subset = it->second;
    const ClassIndex index(v, key, subset);
    auto event = [&](GenerateEvent::Kind kind) {
      GenerateEvent e{};
      e.kind = kind;
      e.key = key;
      e.class_number = n + 1;
      e.classes = total;
      return e;
    };
    const auto tc = clock::now();
    // With distances: the value solve keeps a best exit a position (and by levels
    // writes the distances itself, 2 bytes a position); the distance pass that follows
    // the sweeps fits its own arrays when it starts (distance_need), since it reads no
    // lower class. Counting them here paged the lower classes out for the value solve
    // itself: Kotu-baendum up to 16 at the default 1 GiB took 2.78 times the CPU of the
    // values alone, most of it reading exits back through the page cache
    // (results/probe.md, session 23).
    const std::uint64_t solving =
        solver_bytes(v, key, index.size(), opt.method) +
        (with_distances ? distance_solve_bytes(v, index.size(), opt.method) : 0);
    // Under a budget, whether the whole lower classes leave room for a class that needs
    // `need` bytes (and the smallest page cache).
    auto room_for = [&](std::uint64_t need) {
      return !store.budget() || store.whole_bytes() + need + (std::uint64_t{4} << 20) <= store.budget();
    };
    // Under a budget the class being written is not paged out while the writer holds it.
    if (pending && !room_for(solving))
      if (auto f = finish(); !f) return std::unexpected(f.error());
    if (auto f = store.fit(solved, solving); !f) return std::unexpected(f.error());
    std::shared_ptr<ClassValues> cls;
    if (hooks.writer && fs::exists(file, ec)) {
      auto loaded = load_class(file, v, key);
      if (loaded && !((*loaded)->index().subset() ? subset && *(*loaded)->index().subset() == *subset : !subset))
        loaded = std::unexpected(TableError{TableError::Mismatch, file.string() + ": holds another set of positions"});
      if (loaded) {
        cls = *loaded;
      } else {
        GenerateEvent e = event(GenerateEvent::Replaced);
        e.note = loaded.error().message;
        emit(e);
      }
    }
    if (hooks.share) cls = hooks.share(cls, index);
    if (cls) {
      if (auto f = finish(); !f) return std::unexpected(f.error());  // events in class order
      store.add(solved, cls);
      if (auto d = distances(*cls, nullptr, n + 1 == total); !d) return std::unexpected(d.error());
      ++rep.classes_loaded;
      rep.positions += cls->size();
      if (hooks.writer) rep.file_bytes += fs::file_size(file, ec);
      GenerateEvent e = event(GenerateEvent::Loaded);
      e.positions = cls->size();
      emit(e);
      if (hooks.finished)
        if (auto f = hooks.finished(n + 1, file, *cls, true, 0.0); !f) return std::unexpected(f.error());
      continue;
    }
    emit(event(GenerateEvent::Started));
    SolveOptions so;
    so.threads = opt.threads;
    so.method = opt.method;
    so.budget = opt.budget;
    // The sweeps' kept ranks: what the budget leaves beside the class's arrays and the
    // lower classes (never paging a lower class out for sweep 0, which reads the
    // exits; lower_store.cpp). When that is too little for a large class, the lower
    // classes leave memory after sweep 0 (no later sweep reads them) and the next
    // fit brings them back. Kotu-baendum up to 16 at 1 GiB, the classes of 15 and 16
    // seeds over the files of 14, 2 threads: 525.5 s without, 416.5 s with (no bound:
    // 272.7 s); the same files.
    if (store.budget()) {
      // With distances the kept lists stay for the distance pass (its edges then stay
      // in them); when they and the pass do not fit, the pass gives some back
      // (distances above). Capping them here at what leaves the pass room made the
      // later sweeps play the moves of the pieces not kept again, every sweep:
      // Kotu-baendum up to 14 at 303 MiB, 1 thread: 314 s of CPU with distances
      // before, 262 s after (179 s for the values alone; results/probe.md, session 23).
      const std::uint64_t want = kept_rank_bytes(v, index.size(), opt.method);
      so.rank_cache_bytes = std::min(want, store.spare());
      if (want > store.spare() && index.size() >= opt.release_from) {
        so.spill_dir = store.spill_dir();  // sweep 0's ranks that do not fit: on disk until sweep 1
        so.exits_read = [&, want]() -> Result<std::uint64_t> {
          if (auto f = finish(); !f) return std::unexpected(f.error());  // the writer lets go of the class before
          auto room = store.release(solved);
          if (!room) return std::unexpected(room.error());
          ++rep.released_classes;
          return std::min(want, *room);
        };
      }
    }
    if (opt.on_event && hooks.writer)
      so.progress = [&](const SolveProgress& p) {
        GenerateEvent e = event(GenerateEvent::Progress);
        e.progress = p;
        opt.on_event(e);
      };
    std::vector<std::int8_t> best_exits;  // for the distances: no exit read twice
    std::vector<std::uint8_t> found;      // the distances, when the level method finds them
    KeptChildren kept;                    // the in-class children, when the sweeps keep them
    if (with_distances && hooks.writer) {
      so.best_exits = &best_exits;
      so.distances = &found;
      so.kept_children = &kept;
    }
    SolveStats stats;
    auto values = hooks.solve ? hooks.solve(n + 1, index, solved, so, stats) : solve_class(v, index, solved, so, &stats);
    if (!values) return std::unexpected(values.error());
    if (auto f = finish(); !f) return std::unexpected(f.error());  // the class before, written meanwhile
    store.add(solved, *values);
    if (auto d = distances(**values, &best_exits, n + 1 == total, &found, &kept); !d) return std::unexpected(d.error());
    std::vector<std::int8_t>().swap(best_exits);
    ++rep.classes_solved;
    rep.positions += (*values)->size();
    pending.emplace(Written{n + 1, key, file, *values, stats.sweeps, std::chrono::duration<double>(clock::now() - tc).count(), {}});
    if (hooks.writer) {
      auto write = [&v, &hooks, key, file, cls = *values, level = opt.zstd_level, subset](int workers) -> std::expected<double, TableError> {
        const auto tw = clock::now();
        if (auto w = hooks.write ? hooks.write(file, *cls, subset.get(), workers)
                                 : write_table(file, v, key, cls->bytes(), cls->width(), level, subset.get(), workers);
            !w)
          return std::unexpected(w.error());
        return std::chrono::duration<double>(clock::now() - tw).count();
      };
      // Under a budget that the class would not leave room in beside a next class of
      // its size, the next class would wait for the write (the writer holds the
      // values): then it is written at once, by every thread.
      const bool overlap = threads > 1 && n + 1 < total && room_for(solving);
      pending->write = overlap ? std::async(std::launch::async, write, 1) : std::async(std::launch::deferred, write, threads);
    }
    if (!pending->write.valid() || pending->write.wait_for(std::chrono::seconds(0)) == std::future_status::deferred)
      if (auto f = finish(); !f) return std::unexpected(f.error());
  }
  if (auto f = finish(); !f) return std::unexpected(f.error());
  if (auto w = distance_written(); !w) return std::unexpected(w.error());
  rep.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  rep.paged_classes = store.paged_classes();
  const PageCache::Stats cs = store.cache_stats();
  rep.cache_hits = cs.hits;
  rep.cache_misses = cs.misses;
  rep.cache_peak_bytes = cs.peak_bytes;
  return rep;
}

std::string whole_tables_refusal(const Variant& v) {
  return v.name() + " has too many combinations of marks to table every class; generate the positions reachable "
                    "from a root instead: generate --from POSITION";
}

Result<GenerateReport> generate_reachable(const Variant& v, const Position& root, const GenerateOptions& opt,
                                          std::uint64_t* enumerated) {
  std::function<void(const ReachableProgress&)> progress;
  if (opt.on_event)
    progress = [&](const ReachableProgress& p) {
      GenerateEvent e{};
      e.kind = GenerateEvent::Enumerated;
      e.positions = p.found;
      e.class_number = static_cast<int>(p.classes_done);
      e.classes = static_cast<int>(p.classes_done + p.classes_pending);
      opt.on_event(e);
    };
  auto set = enumerate_reachable(v, root, opt.threads, progress, opt.max_positions, opt.budget);
  if (!set) return std::unexpected(set.error());
  if (enumerated) *enumerated = set->positions;
  SolvedClasses solved;
  return generate_classes(v, set->solving_order(v.pits(), opt.max_seeds), opt, solved, &set->classes);
}

Result<GenerateReport> generate(const Variant& v, const GenerateOptions& opt) {
  if (!v.whole_tables()) return fail_with(Error::InvalidArgument, whole_tables_refusal(v));
  SolvedClasses solved;
  return generate_classes(v, v.solving_order(opt.max_seeds), opt, solved);
}

}  // namespace mancala
