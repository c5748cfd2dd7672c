// Distributed generation with MPI (Boost.MPI over Open MPI): the cluster transport
// of the one retrograde core (solver/include/mancala/class_solver.h) and the
// class loop of generate.h with rank hooks.
//
// Ownership. The positions [0, n) of a class are split over the K ranks of the
// communicator by the same pure function the threads use (retrograde.h):
//
//   rank r owns [chunk_start(n, K, r), chunk_start(n, K, r + 1))
//
// and owner_of(n, K, i) is its inverse. A rank keeps only its slice of the working
// arrays; everything it learns about positions of other ranks travels in batched,
// bulk-synchronous rounds (per-destination vectors, boost::mpi::all_to_all): the
// levels method's notices to the owners of parents, the sweeps' ghost bounds.
// Neither the methods nor the class loop exist twice: the cluster supplies only the
// transport (collectives) and the hooks where ranks meet (generate.h ClassLoopHooks).
//
// Lower classes (ClusterGenerateOptions::lower):
//  * Sharded (the default where every rank sees the table folder): no rank ever holds
//    a whole solved class. Each rank writes its slice into the class's raw shard file
//    in the folder (DIR/.mtb-shard.<table file name>.values, W bytes a position at
//    offset W * first position; removed when the job ends), and the exits of later
//    classes are read from those files through one bounded page cache per rank
//    (16 KiB pages, pread). Every rank then compresses and writes its own blocks of
//    the standard table file (write_class_distributed).
//    Classes below Shards::kWholeBelowBytes are replicated all the same.
//  * Replicated (no shared folder): after a class is solved its slices are
//    all-gathered and every rank holds the whole class (exits are plain look-ups).
#pragma once

#include <array>
#include <boost/mpi/communicator.hpp>
#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mancala/error.h"
#include "mancala/generate.h"
#include "mancala/lower_store.h"
#include "mancala/reachable.h"
#include "mancala/retrograde.h"
#include "mancala/values.h"

namespace mancala::cluster {

using mancala::owner_of;  // retrograde.h

// Traffic and work of one rank (sum over ranks with `reduce`).
struct ClusterStats {
  std::uint64_t positions = 0;   // positions solved (whole classes, counted by rank 0 only)
  std::uint64_t records = 0;     // notifications / bound entries sent to other ranks
  std::uint64_t bytes = 0;       // payload bytes of those records
  std::uint64_t exchanges = 0;   // bulk-synchronous all_to_all rounds (every rank counts them)
  std::uint64_t gathered_bytes = 0;  // bytes received by all_gather of solved slices
  // writing: the table files (compression included: compressing is that part, counted
  // where every rank writes), shard files and checkpoints.
  double seconds_solving = 0, seconds_exchanging = 0, seconds_gathering = 0, seconds_writing = 0, seconds_compressing = 0;
  ClusterStats& operator+=(const ClusterStats& o);
};

// Called by every rank around each blocking collective, so a watchdog can tell how
// long a rank has been waiting for the others (`phase` empty = not waiting).
using WaitHook = std::function<void(const char* phase)>;

class ClassCheckpoint;

struct DistributedOptions {
  // What each rank's solver takes (threads per rank for local passes, 0 = all cores;
  // the method: Auto never picks Acyclic on several ranks; the budget; the sweeps'
  // kept ranks and spill folder). In generate_mpi these are the class loop's choices
  // for the class (generate.cpp sets them from the memory budget), as for generate.
  SolveOptions local;
  WaitHook wait;
  // Test hook: this rank sends itself `kill_signal` (SIGKILL: dies; SIGSTOP: hangs)
  // in the middle of the class (after its pass 0) whose number (1-based) matches.
  // -1 = never.
  int kill_at_class = -1;
  int kill_signal = 9;
  int class_number = 0;
  // ... or, when positive, after this rank's kill_after_checkpoint-th checkpoint of
  // that class (ClassCheckpoint below) instead of after pass 0.
  int kill_after_checkpoint = 0;
  // The class's checkpoints (sharded runs; null: none).
  ClassCheckpoint* checkpoint = nullptr;
};

// Solves one class over all ranks of `comm` and returns this rank's slice of the
// values (ClassValues byte layout, positions [chunk_start(n,K,r), chunk_start(n,K,r+1))).
// Every rank must call it with the same arguments. Errors (MissingTable: a child's
// class is missing; TableTooSmall: a slice of 2^32 positions or more; Internal: an
// MPI call failed) are this rank's alone: the caller aborts the job (the other ranks
// may be inside a collective).
Result<std::vector<std::uint8_t>> solve_class_distributed(
    const boost::mpi::communicator& comm, const Variant& v, const ClassIndex& index, const SolvedClasses& solved,
    const DistributedOptions& opt, ClusterStats& stats);

// All-gathers the slices of a class into the whole class on every rank (chunked,
// so no single MPI count exceeds INT_MAX).
std::shared_ptr<ClassValues> gather_class(const boost::mpi::communicator& comm, const Variant& v, const ClassIndex& index,
                                          const std::vector<std::uint8_t>& slice, const DistributedOptions& opt,
                                          ClusterStats& stats);

// ---- Sharded lower classes -------------------------------------------------------
// The raw shard files of one job's solved classes (see the top of this file) and the
// page cache every paged class of this rank reads through.
class Shards {
 public:
  static constexpr std::uint64_t kMinCacheBytes = std::uint64_t{4} << 20;
  // At most 32 MiB: the 64 MiB a rank has beside its share of the class (the bound
  // (1.25 bytes x largest class) / K + 64 MiB) also holds the process (MPI, TBB: about
  // 16 MiB) and a round's notices. Oware up to 20 on 2 ranks, a 64 MiB cache: rank 1
  // peaked at 141 MiB against a bound of 112 (its cache at 56 MiB).
  static constexpr std::uint64_t kMaxCacheBytes = std::uint64_t{32} << 20;
  // Smaller classes are all-gathered whole onto every rank even when sharding: a
  // shard file costs a file creation and two barriers (Kotu-baendum up to 4 seeds,
  // 225 classes of at most 2,730 positions, 1 rank: 21.6 s sharded, 8.5 s replicated).
  static constexpr std::uint64_t kWholeBelowBytes = std::uint64_t{64} << 10;
  Shards(std::filesystem::path dir, std::string variant);
  void set_cache_bytes(std::uint64_t bytes);
  PageCache::Stats cache_stats() const;
  std::filesystem::path path(const ClassKey& key) const;
  // Every rank: writes `bytes` (this rank's values, from byte `first_byte` of the
  // class; empty for none) into the class's shard file, frees them, waits for the
  // others and returns the class paged from the file. Errors: Io (this rank's).
  Result<std::shared_ptr<ClassValues>> publish(const boost::mpi::communicator& comm, const Variant& v,
                                               const ClassIndex& index, std::vector<std::uint8_t>&& bytes,
                                               std::uint64_t first_byte, const WaitHook& wait);
  // Bytes [first_byte, first_byte + bytes) of a class's shard file. Errors: Io.
  Result<std::vector<std::uint8_t>> read(const ClassKey& key, std::uint64_t first_byte, std::uint64_t bytes) const;
  // Removes every shard file of `dir` (rank 0: at the start and the end of a job).
  static void remove_all(const std::filesystem::path& dir);
  // Whether every rank of `comm` sees the same folder `dir` (rank 0 writes a random
  // token into a file there, every rank reads it back). Every rank gets the same answer.
  static bool shared_folder(const boost::mpi::communicator& comm, const std::filesystem::path& dir,
                            const WaitHook& wait);

 private:
  std::filesystem::path dir_;
  std::string variant_;
  std::shared_ptr<PageCache> cache_;
  std::uint32_t next_id_ = 0;
};

// ---- Every rank compresses and writes -----------------------------------------------
// The standard table file of a class, by every rank at once, byte for byte the file
// write_table makes (the same stages, table_writer.h): rank r owns the file's blocks
// [chunk_start(N, K, r), chunk_start(N, K, r + 1)) (ownership aligned to the file's
// blocks, not to the solver's slices) and reads their values through `read` (bytes
// [first_byte, first_byte + bytes) of the class: its shard file, or the class in
// memory) 2^20 positions at a time. The ranks' symbol counts are summed (a binary
// tree of sends to rank 0, then a broadcast: a few KiB to a few MiB a round), so
// every rank builds the file's one code; each codes its blocks into memory (the
// file's bytes for its share, 0.3-0.5 bytes a position); an exclusive scan of the
// ranks' byte counts gives each its offset. Rank 0 creates the temporary file at its
// full size and writes the header, the position list and the tail; every rank writes
// its blocks, their offsets and their CRCs with pwrite and syncs; rank 0 renames the
// file into place when every rank has. Without `shared_folder` (the ranks do not all
// see the folder) the other ranks send their parts to rank 0 instead, in pieces of at
// most 8 MiB, and rank 0 writes them (it holds one piece at a time). Errors: Io,
// Internal (this rank's; the caller aborts the job).
using ValueReader = std::function<Result<std::vector<std::uint8_t>>(std::uint64_t first_byte, std::uint64_t bytes)>;
Result<void> write_class_distributed(const boost::mpi::communicator& comm, const Variant& v, const ClassIndex& index,
                                     const ValueReader& read, bool shared_folder, const std::filesystem::path& file,
                                     int zstd_level, int threads, const WaitHook& wait, ClusterStats& stats);

// ---- Checkpoints inside a class (sharded runs) --------------------------------------
// Between two steps of its method (a level of the level method, a sweep of the
// sweeps) the whole state of a class is one code per position (class_solver.h,
// LocalTransport::resume). At the first such boundary `interval` seconds after the
// class started (or after its last checkpoint; 0: at every boundary), every rank
// writes its slice of the codes at offset code_bytes x its first position into
//
//   DIR/.mtb-checkpoint.<table file name>.<c mod 2>     (checkpoint number c)
//
// (two files used in turn, so the last checkpoint stays whole while the next is
// written) and syncs it; when every rank has, rank 0 replaces (temporary + rename)
//
//   DIR/.mtb-checkpoint.<table file name>.meta:
//   mancala-tb-mpi checkpoint 1
//   positions 12685179 method levels code_bytes 1 step 9 number 3 ranks 4
//
// A job run with --resume finds the meta of the class it starts, checks the
// positions, the method and the code width, and every rank reads its own slice of
// the codes (whatever the number of ranks now: the file is in position order) and
// goes on from the step after it. Rank 0 removes the files once the class's table
// file is written. Codes are in the machine's byte order (every rank's the same).
class ClassCheckpoint {
 public:
  ClassCheckpoint(const boost::mpi::communicator& comm, std::filesystem::path dir, const std::string& table_file,
                  Index positions, double interval_seconds, bool resume, WaitHook wait);
  // Every rank, once, before the method's first pass: this rank's slice of the last
  // checkpoint's codes into `codes` and its step, or -1 (none, or one that does not
  // fit this class or cannot be read on some rank; `codes` may have been written).
  int resume(const char* method, std::span<std::uint8_t> codes, std::size_t code_bytes);
  // Every rank, at every boundary: writes a checkpoint when it is due on some rank;
  // true when one was written. Throws std::runtime_error when it cannot be written.
  bool save(const char* method, int step, std::span<const std::uint8_t> codes, std::size_t code_bytes);
  // Rank 0: one line per checkpoint written or resumed from (the core never prints).
  std::function<void(const std::string&)> on_line;
  // Rank 0: removes the files of one class, or of every class.
  static void remove(const std::filesystem::path& dir, const std::string& table_file);
  static void remove_all(const std::filesystem::path& dir);

 private:
  std::filesystem::path file(int number) const;
  const boost::mpi::communicator& comm_;
  std::filesystem::path dir_;
  std::string table_file_;
  Index positions_;
  double interval_;
  bool resume_;
  WaitHook wait_;
  std::chrono::steady_clock::time_point last_;
  int number_ = 0;  // the next checkpoint's
  int last_step_ = -1;  // the step of the last checkpoint written or resumed from
};

// ---- Manifest: DIR/<variant>.manifest, written by rank 0 after every class -----
//
// A text file, rewritten atomically (temporary + rename) after each finished class:
//
//   mancala-tb-mpi manifest 1
//   variant oware
//   max_seeds 12
//   ranks 2
//   classes 13
//   class 1 seeds 0 state 0000000000000000 positions 1 file oware.0.0000000000000000.mtb
//         file_bytes 120 file_crc32 1a2b3c4d values_crc32 d202ef8d source solved
//         slices 0:0-0:00000000,1:0-1:d202ef8d
//   complete
//
// (one line per class; "source loaded" for classes resumed from an earlier run,
// whose slices are not recorded). "complete" is written once every class is done.
struct ManifestClass {
  int number = 0;  // 1-based, in solving order
  ClassKey key;
  std::uint64_t positions = 0;
  std::string file;
  std::uint64_t file_bytes = 0;
  std::uint32_t file_crc32 = 0, values_crc32 = 0;
  std::string source;  // "solved" or "loaded"
  struct Slice {
    int rank;
    std::uint64_t begin, end;
    std::uint32_t crc32;
  };
  std::vector<Slice> slices;
};
struct Manifest {
  std::string variant;
  int max_seeds = 0;
  int ranks = 0;
  int classes = 0;
  std::vector<ManifestClass> done;
  bool complete = false;
};
std::filesystem::path manifest_path(const std::filesystem::path& dir, const std::string& variant);
// Errors: Io (the file cannot be created, written, synced or renamed into place).
Result<void> write_manifest(const std::filesystem::path& path, const Manifest& m);
// Errors: NotFound (no such file), Io (it cannot be read), Corrupt (not a manifest of
// version 1, or a malformed line).
Result<Manifest> read_manifest(const std::filesystem::path& path);
// Errors: NotFound, Io.
Result<std::uint32_t> file_crc32(const std::filesystem::path& path);
// The CRC-32 (format.h's crc32) of bytes A then B from crc32(A), crc32(B) and B's length.
std::uint32_t crc32_combine(std::uint32_t a, std::uint32_t b, std::uint64_t b_bytes);

// ---- The class loop ------------------------------------------------------------
struct ClusterGenerateOptions {
  int max_seeds = 0;
  std::optional<Position> from;  // generate --from: the positions reachable from this root
  std::uint64_t max_positions = 200'000'000;  // cap of that enumeration
  std::filesystem::path out;
  bool resume = false;  // load finished classes from `out` (else `out` must hold no tables of the variant)
  int zstd_level = 9;
  // GenerateOptions::distances: the distance tables too (.mtz), computed by rank 0
  // with the class loop's distance step (distances.h) once a class is solved on
  // every rank: the same files as `mancala-tb generate --distances`.
  bool distances = false;
  // GenerateOptions::memory_bytes (generate.h), on every rank: lower classes that do
  // not fit are spilled (rank 0: into `out`; the others: the temporary folder).
  std::uint64_t memory_bytes = GenerateOptions::kDefaultMemoryBytes;
  // Where solved classes live (top of this file): Auto = Sharded when every rank sees
  // `out` (checked at the start), else Replicated.
  enum class Lower : int { Auto, Sharded, Replicated };  // (int: CLI11 prints a uint8_t value as a character, a NUL that cut --help short)
  Lower lower = Lower::Auto;
  // Sharded runs: a checkpoint inside a class at the first level or sweep boundary
  // this many seconds after the last (ClassCheckpoint; 0: at every boundary;
  // negative: none). Replicated runs keep whole classes only.
  double checkpoint_seconds = 600;
  DistributedOptions solve;
  // Rank 0 only: one line per class (the core never prints).
  std::function<void(const std::string&)> on_line;
};

// What generate_distributed will solve: the classes in solving order and, with
// ClusterGenerateOptions::from, the reachable set that indexes them.
struct ClusterPlan {
  std::vector<ClassKey> keys;
  std::shared_ptr<const ReachableSet> reachable;  // null without --from
  bool sharded = false;  // the lower classes' place (ClusterGenerateOptions::lower, decided)
  // The largest rank's resident bytes once MPI has started (VmRSS: the libraries' pages,
  // MPI's buffers), held back from --memory-mb before anything else is counted.
  std::uint64_t resident_bytes = 0;
  // The working arrays of the job's largest class (solver_bytes, the whole class): a
  // rank's share of them is what its slice of any class may take, the sweeps' kept
  // ranks included (generate_mpi.cpp, "kept ranks").
  std::uint64_t largest_arrays = 0;
};

struct ClusterReport {
  int classes_solved = 0, classes_loaded = 0;
  std::uint64_t positions = 0;
  double seconds = 0;
  ClusterStats stats;  // summed over ranks (valid on rank 0)
  PageCache::Stats cache;  // sharded: this rank's page cache of the lower classes
  // Rank 0: each rank's seconds solving, exchanging, compressing and writing.
  std::vector<std::array<double, 4>> rank_seconds;
};

// The two steps of a distributed generation; every rank calls both. Errors come in
// two kinds, one per step (both are mancala::Error):
//  * plan_distributed decides from what every rank knows, before any work: the
//    classes (or the reachable set of `from`: TableTooSmall above max_positions),
//    whether the variant has whole tables (InvalidArgument), and rank 0's check of
//    `out`, broadcast (Io: it cannot be made; InvalidArgument: it holds tables of
//    the variant and resume is off). Every rank returns the same error, so the
//    caller stops all of them normally (MPI_Finalize).
//  * generate_distributed's errors are this rank's alone (Io: a write error,
//    MissingTable, Corrupt, Internal...); the other ranks may be waiting in a
//    collective: the caller must abort the job. An MPI call that fails inside
//    Boost.MPI throws (boost::mpi::exception); the caller aborts on it too.
// Rank 0 reads and writes `out` (the other ranks never touch the folder, so no
// shared file system is needed); finished classes are broadcast.
Result<ClusterPlan> plan_distributed(const boost::mpi::communicator& comm, const Variant& v, const ClusterGenerateOptions& opt);
Result<ClusterReport> generate_distributed(const boost::mpi::communicator& comm, const Variant& v,
                                           const ClusterGenerateOptions& opt, const ClusterPlan& plan);

}  // namespace mancala::cluster
