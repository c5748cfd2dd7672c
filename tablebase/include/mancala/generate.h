// Generation of a table set (solve every class in order, write each file
// atomically, resume from the files already written) and its verification.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mancala/format.h"
#include "mancala/retrograde.h"
#include "mancala/values.h"

namespace mancala {

struct GenerateEvent {
  enum Kind { Loaded, Started, Progress, Solved, Replaced, Enumerated };
  Kind kind;
  ClassKey key;
  int class_number = 0;  // 1-based, in solving order (Enumerated: classes walked)
  int classes = 0;       // (Enumerated: classes walked + reached and not yet walked)
  SolveProgress progress;     // for Progress
  std::uint64_t positions = 0;
  std::uint64_t file_bytes = 0;
  int sweeps = 0;
  double seconds = 0;
  std::string note;           // for Replaced: why a file was not reused
};

struct GenerateOptions {
  int max_seeds = 0;
  std::filesystem::path out;
  int threads = 0;
  SolveOptions::Method method = SolveOptions::Method::Auto;
  int zstd_level = 9;
  std::uint64_t max_positions = 200'000'000;  // cap of a reachable-set enumeration
  // Memory for the solved classes and the class being solved (lower_store.h says
  // what is counted): the newest lower classes stay whole while they fit, the older
  // ones are spilled to disk and read back through a page cache. 0: no bound (every
  // class stays whole). An eighth of it, at most 24 MiB, is held back for what it
  // does not count (generate.cpp), so that the process's peak stays within it. The
  // budget cannot go below the class being solved's arrays: then every lower class
  // is read through the smallest cache.
  std::uint64_t memory_bytes = kDefaultMemoryBytes;
  static constexpr std::uint64_t kDefaultMemoryBytes = std::uint64_t{1} << 30;
  // Under a budget, a class solved by sweeps with at least this many positions frees
  // the lower classes after its first pass for its kept ranks, when these do not fit
  // beside them (generate.cpp; the next class reads them back from disk). Smaller
  // classes save less than that costs. Tests set it low.
  Index release_from = Index{1} << 22;
  // Also the distance tables (.mtz beside each .mtb) of a variant that has them
  // (has_distance_tables; distances.h): each class's distances are computed from its
  // values once they are solved or loaded, and written after its value file, so a
  // resumed run finds the values and makes the distances that are missing.
  bool distances = false;
  std::function<void(const GenerateEvent&)> on_event;  // the core never prints
  Budget budget;  // cancel flag and deadline, checked between classes and inside each class
};

struct GenerateReport {
  int classes_solved = 0;
  int classes_loaded = 0;
  std::uint64_t positions = 0;
  std::uint64_t file_bytes = 0;
  double seconds = 0;
  // Distance tables (GenerateOptions::distances): classes whose distances were
  // computed, their files' bytes, the seconds spent computing and writing them.
  int distance_classes = 0;
  std::uint64_t distance_bytes = 0;
  double distance_seconds = 0;
  // The memory budget (GenerateOptions::memory_bytes): classes read through the page
  // cache when the last class was solved, the cache's look-ups that found their page
  // and those that read it, and its largest size in bytes.
  int paged_classes = 0;
  std::uint64_t cache_hits = 0, cache_misses = 0, cache_peak_bytes = 0;
  // Classes after whose first pass the lower classes left memory (release_from).
  int released_classes = 0;
  // With distances: listed pieces (4,096 positions) whose kept lists a distance pass
  // gave back to fit the budget (their positions played their moves in it).
  std::uint64_t unlisted_pieces = 0;
};

// Where the one class loop meets other processes (mancala-tb-mpi's ranks; see
// cluster.h). The defaults are one process on its own.
struct ClassLoopHooks {
  // This process reads and writes the folder (MPI: rank 0 only; the others never
  // touch it and get no events).
  bool writer = true;
  // Solves class number `number` (1-based) into the whole class on this process
  // (default: solve_class on this process's threads).
  std::function<Result<std::shared_ptr<ClassValues>>(int number, const ClassIndex&, const SolvedClasses&,
                                                     const SolveOptions&, SolveStats&)>
      solve;
  // Makes the class the writer loaded from its file (null: none) known to every
  // process; returns it, or null when it is to be solved.
  std::function<std::shared_ptr<ClassValues>(std::shared_ptr<ClassValues> loaded, const ClassIndex&)> share;
  // Writes the file of a class just solved (default: write_table from its values,
  // which must then be whole). mancala-tb-mpi's sharded classes are paged on every
  // rank: their file is written by the ranks together inside `solve`, and this
  // hook has nothing left to do.
  std::function<std::expected<void, TableError>(const std::filesystem::path& file, const ClassValues&,
                                                const std::vector<Index>* subset, int threads)>
      write;
  // After each class, loaded from its file or solved and written.
  std::function<Result<void>(int number, const std::filesystem::path& file, const ClassValues&, bool loaded,
                             double seconds)>
      finished;
};

// The class loop of every generation (generate, generate --from, mancala-tb-mpi):
// solves the classes `keys` (in order; each class's successors must be among the
// earlier keys or already in `solved`). A class whose file exists and checks out is
// loaded instead (resume). `solved` receives every class.
// `subsets` (optional) gives reachable-set indexes by class.
using Subsets = std::map<ClassKey, std::shared_ptr<const std::vector<Index>>>;
// Errors: those of solve_class and write_table, Io (the folder), Cancelled / Limit.
Result<GenerateReport> generate_classes(const Variant& v, const std::vector<ClassKey>& keys, const GenerateOptions& opt,
                                        SolvedClasses& solved, const Subsets* subsets = nullptr,
                                        const ClassLoopHooks& hooks = {});
// All classes up to opt.max_seeds (refused when !v.whole_tables(): see whole_tables_refusal).
std::string whole_tables_refusal(const Variant& v);
Result<GenerateReport> generate(const Variant& v, const GenerateOptions& opt);

// The positions reachable from `root` (every class, each indexed densely over its
// reachable positions), solved and written for classes up to opt.max_seeds.
// `enumerated` (optional) receives the size of the reachable set.
Result<GenerateReport> generate_reachable(const Variant& v, const Position& root, const GenerateOptions& opt,
                                          std::uint64_t* enumerated = nullptr);

// Loads a class from its file into memory (checking checksums and header).
std::expected<std::shared_ptr<ClassValues>, TableError> load_class(const std::filesystem::path& file, const Variant& v,
                                                                   const ClassKey& key);

struct VerifyReport {
  std::uint64_t positions = 0;
  std::uint64_t classes = 0;
  std::uint64_t mismatches = 0;       // every problem: wrong values, unreadable files, gaps, bad names
  std::uint64_t missing_classes = 0;  // gaps: classes below the largest seed count present
  std::vector<std::string> problems;  // first few, human-readable
};
struct VerifyOptions {
  int threads = 0;
  std::function<void(const std::string& what, std::uint64_t done, std::uint64_t total)> progress;
};
// Every value of every class of `variant` in `dir` re-derived from its children:
//   v(p) == terminal_value(p) if p has no move, else max over moves of value(move);
// plus checksums, headers, that every child's class is present, that no class is
// missing below the largest seed count present (tables of whole classes), and that
// no *.mtb file of the folder has an impossible name. Problems found in the files are
// counted in the report; the call fails only when it cannot start: the folder's own
// error (NotFound, Io) from Tablebase::open, or NotFound when it holds no table of v.
Result<VerifyReport> verify_tables(const std::filesystem::path& dir, const Variant& v, const VerifyOptions& opt = {});

}  // namespace mancala
