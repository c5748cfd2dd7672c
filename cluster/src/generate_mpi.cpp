// The distributed generation: the class loop of generate.h with the hooks where the
// ranks meet (solve over all ranks and gather, share a resumed class, the manifest).
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/mpi/collectives.hpp>
#include <boost/serialization/string.hpp>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <mutex>
#include <set>
#include <system_error>

#include "mancala/cluster.h"
#include "mancala/lower_store.h"
#include "mancala/reachable.h"
#include "mancala/table_writer.h"
#include "mancala/solver_support.h"
#include "mpi_support.h"

namespace mancala::cluster {

namespace {

using support::clock_type;
using support::since;

// Broadcast of a large byte vector (already sized on every rank) in pieces below INT_MAX.
void broadcast_bytes(const mpi::communicator& comm, std::vector<std::uint8_t>& bytes) {
  constexpr std::size_t kStep = std::size_t{1} << 30;
  for (std::size_t at = 0; at < bytes.size(); at += kStep) {
    const int len = static_cast<int>(std::min(kStep, bytes.size() - at));
    if (MPI_Bcast(bytes.data() + at, len, MPI_BYTE, 0, MPI_Comm(comm)) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Bcast failed");
  }
}

// Fills a manifest entry from a class's file and values (rank 0).
Result<void> describe(ManifestClass& entry, const fs::path& file, const ClassValues& cls, const char* source) {
  std::error_code ec;
  entry.positions = cls.size();
  entry.file_bytes = fs::file_size(file, ec);
  auto fc = file_crc32(file);
  if (!fc) return std::unexpected(fc.error());
  entry.file_crc32 = *fc;
  entry.values_crc32 = cls.whole() ? crc32(cls.bytes().data(), cls.bytes().size()) : 0;  // sharded: the caller's
  entry.source = source;
  return {};
}

std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f s", s);
  return b;
}

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// A rank's budget: first the process as it stands once MPI has started (`resident`,
// ClusterPlan::resident_bytes), then of the rest what is held back for what is not
// counted: an eighth, at most 24 MiB (as generate.cpp), and at least kUncounted, a
// margin over what a rank of a small job was seen to grow by beyond its resident
// start, arrays and page cache: up to 15 MiB (rank 0 of Oware up to 15 on 8 ranks,
// VmHWM; heaptrack of Oware up to 11 on 4 ranks: rank 0's heap peaked at 12.2 MiB,
// 7.9 MiB of it the writer's symbol counts summed over the ranks; MPI's buffers grow
// as the ranks talk; a batch's notices, SolveOptions::notice_bytes), then the
// counted part.
constexpr std::uint64_t kUncounted = std::uint64_t{20} << 20;
std::uint64_t held_back(std::uint64_t rest) { return std::clamp(rest / 8, kUncounted, std::uint64_t{24} << 20); }
std::uint64_t counted(std::uint64_t memory_bytes, std::uint64_t resident) {
  const std::uint64_t rest = memory_bytes > resident ? memory_bytes - resident : 0;
  return rest > held_back(rest) ? rest - held_back(rest) : 0;
}
// The smallest rest R with R - held_back(R) >= bytes.
std::uint64_t rest_for(std::uint64_t bytes) {
  if (bytes + kUncounted <= 8 * kUncounted) return bytes + kUncounted;
  if (bytes <= (std::uint64_t{168} << 20)) return ceil_div(8 * bytes, 7);
  return bytes + (std::uint64_t{24} << 20);
}

// A rank's share of a class's working arrays (an estimate per method, lower_store.h).
std::uint64_t slice_bytes(const Variant& v, const ClassKey& key, Index n, SolveOptions::Method m, std::uint64_t K) {
  return ceil_div(solver_bytes(v, key, n, m), K);
}

// The positions of class `key` in the job (its reachable subset under --from).
Index class_positions(const Variant& v, const ClusterPlan& plan, const ClassKey& key) {
  std::shared_ptr<const std::vector<Index>> subset;
  if (plan.reachable)
    if (auto it = plan.reachable->classes.find(key); it != plan.reachable->classes.end()) subset = it->second;
  return ClassIndex(v, key, subset).size();
}

// Refuses at once a per-rank budget below what one rank needs for the largest
// class: its share of the working arrays and the smallest page cache (sharded), or
// the whole class it receives besides (replicated).
Result<void> check_budget(const Variant& v, const ClusterGenerateOptions& opt, const ClusterPlan& plan, std::uint64_t K) {
  if (!opt.memory_bytes) return {};
  std::uint64_t most = 0, arrays = 0;
  ClassKey worst{};
  for (const ClassKey& key : plan.keys) {
    const Index n = class_positions(v, plan, key);
    const std::uint64_t whole = plan.sharded ? 0 : n * static_cast<std::uint64_t>(v.kind() == GameKind::Score ? 1 : 2);
    const std::uint64_t need = slice_bytes(v, key, n, opt.solve.local.method, K) + whole + Shards::kMinCacheBytes;
    if (need > most) {
      most = need;
      worst = key;
      arrays = solver_bytes(v, key, n, opt.solve.local.method);
    }
  }
  const std::uint64_t resident = plan.resident_bytes, budget = counted(opt.memory_bytes, resident);
  if (budget >= most) return {};
  const std::uint64_t rest = rest_for(most);
  std::string msg = "a rank needs at least " + std::to_string(ceil_div(resident + rest, kMiB)) + " MiB for class " +
                    to_string(worst, v.pits()) + " on " + std::to_string(K) + " rank" + (K > 1 ? "s" : "") + " (" +
                    std::to_string(ceil_div(arrays, kMiB)) + " MiB of working arrays shared by the ranks" +
                    (plan.sharded ? "" : ", the whole class on every rank") + ", a 4 MiB page cache, " +
                    std::to_string(ceil_div(held_back(rest), kMiB)) + " MiB held back and " +
                    std::to_string(ceil_div(resident, kMiB)) + " MiB resident at the start); the budget is " +
                    std::to_string(opt.memory_bytes / kMiB) + " MiB a rank";
  if (plan.sharded && budget > Shards::kMinCacheBytes)
    msg += ", enough on " + std::to_string(ceil_div(arrays, budget - Shards::kMinCacheBytes)) + " ranks";
  return fail_with(Error::InvalidArgument, msg);
}

}  // namespace

Result<ClusterPlan> plan_distributed(const mpi::communicator& comm, const Variant& v, const ClusterGenerateOptions& opt) {
  const bool root = comm.rank() == 0;
  auto wait = [&](const char* phase) {
    if (opt.solve.wait) opt.solve.wait(phase);
  };
  // The classes, in the solving order of `generate` (or of `generate --from`: every
  // rank enumerates the same reachable set, so every rank fails alike).
  ClusterPlan plan;
  if (opt.from) {
    auto set = enumerate_reachable(v, *opt.from, opt.solve.local.threads, {}, opt.max_positions);
    if (!set) return std::unexpected(set.error());
    plan.keys = set->solving_order(v.pits(), opt.max_seeds);
    plan.reachable = std::make_shared<const ReachableSet>(std::move(*set));
  } else {
    if (!v.whole_tables()) return fail_with(Error::InvalidArgument, whole_tables_refusal(v));
    plan.keys = v.solving_order(opt.max_seeds);
  }

  // Rank 0 checks the folder; a problem there stops every rank cleanly.
  int code = -1;  // an Error::Code, or -1
  std::string problem;
  if (root) {
    const fs::path manifest_file = manifest_path(opt.out, v.name());
    std::error_code ec;
    fs::create_directories(opt.out, ec);
    if (ec) {
      code = Error::Io;
      problem = opt.out.string() + ": cannot create folder: " + ec.message();
    }
    for (const auto& e : fs::directory_iterator(opt.out, ec)) {
      const std::string name = e.path().filename().string();
      if (name.find(".manifest.tmp.") != std::string::npos) fs::remove(e.path(), ec);
    }
    if (problem.empty() && !opt.resume) {
      bool found = fs::exists(manifest_file, ec);
      for (const ClassKey& k : plan.keys) found = found || fs::exists(opt.out / table_file_name(v.name(), k), ec);
      if (found) {
        code = Error::InvalidArgument;
        problem = opt.out.string() + " already holds tables of " + v.name() +
                  "; add --resume to continue that run, or use an empty folder";
      }
    }
  }
  wait("broadcast (start)");
  mpi::broadcast(comm, code, 0);
  mpi::broadcast(comm, problem, 0);
  wait(nullptr);
  if (code >= 0) return fail_with(static_cast<Error::Code>(code), problem);

  // Where the solved classes live: sharded when every rank sees the folder.
  if (root) Shards::remove_all(opt.out);  // a killed run's
  if (root && !opt.resume) ClassCheckpoint::remove_all(opt.out);  // a killed run's, not resumed
  if (opt.lower != ClusterGenerateOptions::Lower::Replicated) {
    plan.sharded = Shards::shared_folder(comm, opt.out, opt.solve.wait);
    if (!plan.sharded && opt.lower == ClusterGenerateOptions::Lower::Sharded)
      return fail_with(Error::InvalidArgument, "sharded lower classes need the folder " + opt.out.string() +
                                                   " on a file system every rank sees, and some rank does not see it");
  }
  // The process as it stands once MPI has started (its libraries' pages, MPI's
  // buffers: about 16 MiB), the largest rank's, so that every rank counts alike.
  const std::uint64_t resident = resident_bytes();
  wait("all_reduce (resident size)");
  if (MPI_Allreduce(&resident, &plan.resident_bytes, 1, MPI_UINT64_T, MPI_MAX, MPI_Comm(comm)) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Allreduce failed");
  wait(nullptr);
  for (const ClassKey& key : plan.keys)
    plan.largest_arrays =
        std::max(plan.largest_arrays, solver_bytes(v, key, class_positions(v, plan, key), opt.solve.local.method));
  if (auto fits = check_budget(v, opt, plan, static_cast<std::uint64_t>(comm.size())); !fits)
    return std::unexpected(fits.error());
  return plan;
}

Result<ClusterReport> generate_distributed(const mpi::communicator& comm, const Variant& v,
                                           const ClusterGenerateOptions& opt, const ClusterPlan& plan) {
  const auto t_start = clock_type::now();
  const bool root = comm.rank() == 0;
  const int K = comm.size();
  auto line = [&](const std::string& s) {
    if (root && opt.on_line) opt.on_line(s);
  };
  auto wait = [&](const char* phase) {
    if (opt.solve.wait) opt.solve.wait(phase);
  };
  const std::vector<ClassKey>& keys = plan.keys;
  const fs::path manifest_file = manifest_path(opt.out, v.name());

  Manifest manifest;
  manifest.variant = v.name();
  manifest.max_seeds = opt.max_seeds;
  manifest.ranks = K;
  manifest.classes = static_cast<int>(keys.size());
  ClusterReport rep;
  ClusterStats& st = rep.stats;
  DistributedOptions sopt = opt.solve;
  const int total = static_cast<int>(keys.size());
  auto tag = [&](int number, const ClassKey& key) {
    std::string t = "[";  // (appended: GCC 12 took "[" + a temporary for an overlapping memcpy)
    t += std::to_string(number) + "/" + std::to_string(total) + "] class " + to_string(key, v.pits());
    return t;
  };

  // Sharded: the manifest's checksums of a class, taken by rank 0 while it writes
  // the file (the class is paged on every rank afterwards).
  std::optional<Shards> shards;
  if (plan.sharded) shards.emplace(opt.out, v.name());
  struct Sums {
    std::uint32_t values_crc32 = 0;
    std::vector<ManifestClass::Slice> slices;
  };
  std::map<ClassKey, Sums> sums;
  std::set<ClassKey> written_by_ranks;  // replicated classes whose file solve wrote
  std::mutex written_mu;  // (hooks.write may run on another thread)
  const std::uint64_t width = v.kind() == GameKind::Score ? 1 : 2;
  // Classes below this many bytes stay whole (Shards::kWholeBelowBytes); tests set
  // MANCALA_MPI_TEST_WHOLE_BELOW (the same on every rank) to shard the small ones too.
  std::uint64_t whole_below = Shards::kWholeBelowBytes;
  if (const char* t = std::getenv("MANCALA_MPI_TEST_WHOLE_BELOW")) whole_below = std::strtoull(t, nullptr, 10);
  auto checksums = [&](const ClassKey& key, const std::vector<std::uint8_t>& bytes, bool with_slices) {
    Sums& s = sums[key];
    s.values_crc32 = crc32(bytes.data(), bytes.size());
    const std::uint64_t n = bytes.size() / width;
    if (with_slices)
      for (int r = 0; r < K; ++r) {
        const auto [b, e] = chunk(n, static_cast<std::uint64_t>(K), static_cast<std::uint64_t>(r));
        s.slices.push_back({r, b, e, crc32(bytes.data() + b * width, static_cast<std::size_t>((e - b) * width))});
      }
  };

  // The class loop of generate.h, with the places where ranks meet.
  ClassLoopHooks hooks;
  hooks.writer = root;
  hooks.solve = [&](int number, const ClassIndex& index, const SolvedClasses& solved, const SolveOptions& so,
                    SolveStats&) -> Result<std::shared_ptr<ClassValues>> {
    sopt.class_number = number;
    sopt.local = so;  // the class loop's choices for this rank (threads, method, budget, kept ranks)
    const ClassKey key = index.key();
    if (shards) {
      // This rank's budget: its share of the class's arrays, then the page cache
      // (4-32 MiB), then the sweeps' kept ranks.
      const std::uint64_t arrays = slice_bytes(v, key, index.size(), so.method, static_cast<std::uint64_t>(K));
      // The kept ranks, budget or not, take at most what the largest class's share of
      // the arrays leaves beside this class's: a rank's slice of any class then holds no
      // more than its share of the largest class's arrays (1.25 bytes a position for
      // sweeps with one-byte codes), the figure its peak is held to. Unbounded, they took
      // up to 16 bytes a position: Kotu-baendum up to 14 on 1 rank peaked at 325 MiB in
      // sweep 0 of its largest class (20.1 M positions), against 88 MiB for 1.25 bytes a
      // position and 64 MiB (results/raw/cluster-kotu14-session6.txt). The largest classes
      // then play their moves again in later sweeps, save for what the page cache gives
      // up once sweep 0 has read the exits (below).
      const std::uint64_t largest = ceil_div(plan.largest_arrays, static_cast<std::uint64_t>(K));
      std::uint64_t ranks = largest > arrays ? largest - arrays : 0;
      std::uint64_t cache = Shards::kMaxCacheBytes;
      if (opt.memory_bytes) {
        const std::uint64_t budget = counted(opt.memory_bytes, plan.resident_bytes),
                            left = budget > arrays ? budget - arrays : 0;
        cache = std::clamp(left, Shards::kMinCacheBytes, Shards::kMaxCacheBytes);
        ranks = std::min(ranks, left > cache ? left - cache : 0);
        // A level's notices between two exchanges of its first pass: within what is held
        // back (a whole kLevelBatch from 24 MiB held back, fewer positions below).
        const std::uint64_t rest = opt.memory_bytes > plan.resident_bytes ? opt.memory_bytes - plan.resident_bytes : 0;
        sopt.local.notice_bytes = held_back(rest);
      }
      sopt.local.rank_cache_bytes = ranks;
      // Sweeps after the first read no exit: the page cache shrinks to its smallest and
      // the kept ranks take what it held (the next class sizes it again).
      if (cache > Shards::kMinCacheBytes)
        sopt.local.exits_read = [&shards, ranks, freed = cache - Shards::kMinCacheBytes]() -> Result<std::uint64_t> {
          shards->set_cache_bytes(Shards::kMinCacheBytes);
          return ranks + freed;
        };
      shards->set_cache_bytes(cache);
    }
    // Sharded: checkpoints inside the class (every rank sees the folder).
    std::optional<ClassCheckpoint> checkpoint;
    if (shards && opt.checkpoint_seconds >= 0) {
      checkpoint.emplace(comm, opt.out, table_file_name(v.name(), key), index.size(), opt.checkpoint_seconds, opt.resume,
                         opt.solve.wait);
      if (root && opt.on_line) checkpoint->on_line = [&, number](const std::string& s) { line(tag(number, key) + ": " + s); };
    }
    sopt.checkpoint = checkpoint ? &*checkpoint : nullptr;
    auto slice = solve_class_distributed(comm, v, index, solved, sopt, st);
    sopt.checkpoint = nullptr;
    if (!slice) return fail_with(slice.error().code, "class " + to_string(key, v.pits()) + ": " + slice.error().message);
    st.positions += root ? index.size() : 0;
    const int threads = opt.solve.local.threads > 0 ? opt.solve.local.threads : 1;
    const fs::path file = opt.out / table_file_name(v.name(), key);
    if (!shards || index.size() * width < whole_below) {
      auto whole = gather_class(comm, v, index, *slice, sopt, st);
      if (shards || K == 1 || index.size() * width < whole_below) return whole;  // rank 0 writes it (hooks.write)
      // Replicated: every rank holds the class; each compresses its own blocks and
      // sends them to rank 0, which writes the file.
      const auto& bytes = whole->bytes();
      auto from_memory = [&](std::uint64_t at, std::uint64_t n) -> Result<std::vector<std::uint8_t>> {
        return std::vector<std::uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                         bytes.begin() + static_cast<std::ptrdiff_t>(at + n));
      };
      if (auto w = write_class_distributed(comm, v, index, from_memory, false, file, opt.zstd_level, threads,
                                           opt.solve.wait, st);
          !w)
        return std::unexpected(w.error());
      const std::lock_guard lock(written_mu);
      written_by_ranks.insert(key);
      return whole;
    }
    const auto tw = clock_type::now();
    const std::uint64_t first = chunk_start(index.size(), static_cast<std::uint64_t>(K), static_cast<std::uint64_t>(comm.rank()));
    // The manifest's checksums: each rank's slice's, gathered by rank 0, and the
    // class's combined from them.
    const std::uint32_t slice_crc = crc32(slice->data(), slice->size());
    std::vector<std::uint32_t> slice_crcs(root ? static_cast<std::size_t>(K) : 0);
    wait("gather (slice checksums)");
    if (MPI_Gather(&slice_crc, 1, MPI_UINT32_T, slice_crcs.data(), 1, MPI_UINT32_T, 0, MPI_Comm(comm)) != MPI_SUCCESS)
      return fail_with(Error::Internal, "MPI_Gather failed");
    wait(nullptr);
    if (root) {
      Sums& s = sums[key];
      s.slices.clear();
      for (int r = 0; r < K; ++r) {
        const auto [b, e] = chunk(index.size(), static_cast<std::uint64_t>(K), static_cast<std::uint64_t>(r));
        s.slices.push_back({r, b, e, slice_crcs[static_cast<std::size_t>(r)]});
        s.values_crc32 = r == 0 ? slice_crcs[0] : crc32_combine(s.values_crc32, slice_crcs[static_cast<std::size_t>(r)], (e - b) * width);
      }
    }
    auto paged = shards->publish(comm, v, index, std::move(*slice), first * width, opt.solve.wait);
    if (!paged) return std::unexpected(paged.error());
    st.seconds_writing += since(tw);
    // The solver's arrays go back to the system before the coded blocks come in.
    detail::give_back_freed_memory();
    // Every rank compresses and writes its own blocks of the standard file.
    auto from_shard = [&](std::uint64_t at, std::uint64_t n) { return shards->read(key, at, n); };
    if (auto w = write_class_distributed(comm, v, index, from_shard, true, file, opt.zstd_level, threads, opt.solve.wait, st);
        !w)
      return std::unexpected(w.error());
    return *paged;
  };
  // Rank 0 writes the whole classes that solve did not have every rank write (a paged
  // class, or a replicated one of 64 KiB or more on several ranks), maybe on another
  // thread while the next class is solved: its time apart.
  std::atomic<std::int64_t> whole_writing_ns{0};
  hooks.write = [&](const fs::path& file, const ClassValues& cls, const std::vector<Index>* subset,
                    int threads) -> std::expected<void, TableError> {
    if (!cls.whole()) return {};
    {
      const std::lock_guard lock(written_mu);
      if (written_by_ranks.count(cls.index().key())) return {};
    }
    const auto t = clock_type::now();
    auto w = write_table(file, v, cls.index().key(), cls.bytes(), cls.width(), opt.zstd_level, subset, threads);
    whole_writing_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - t).count();
    return w;
  };
  hooks.share = [&](std::shared_ptr<ClassValues> loaded, const ClassIndex& index) -> std::shared_ptr<ClassValues> {
    int have = loaded ? 1 : 0;
    wait("broadcast (resume)");
    mpi::broadcast(comm, have, 0);
    wait(nullptr);
    if (!have) return nullptr;
    if (shards && index.size() * width >= whole_below) {  // rank 0 writes its shard file; every rank pages it
      std::vector<std::uint8_t> bytes;
      if (root) {
        checksums(index.key(), loaded->bytes(), false);
        bytes = std::move(loaded->bytes());
        loaded.reset();
      }
      auto paged = shards->publish(comm, v, index, std::move(bytes), 0, opt.solve.wait);
      if (!paged) throw std::runtime_error(paged.error().message);
      return *paged;
    }
    wait("broadcast (resume)");
    if (!root) loaded = std::make_shared<ClassValues>(index, v.kind());
    broadcast_bytes(comm, loaded->bytes());
    wait(nullptr);
    return loaded;
  };
  hooks.finished = [&](int number, const fs::path& file, const ClassValues& cls, bool loaded,
                       double seconds) -> Result<void> {
    if (!root) return {};
    const auto tw = clock_type::now();
    ManifestClass entry;
    entry.number = number;
    entry.key = cls.index().key();
    entry.file = file.filename().string();
    if (auto d = describe(entry, file, cls, loaded ? "loaded" : "solved"); !d) return std::unexpected(d.error());
    if (auto it = sums.find(entry.key); it != sums.end()) {  // sharded: taken when written
      entry.values_crc32 = it->second.values_crc32;
      entry.slices = std::move(it->second.slices);
      sums.erase(it);
    } else if (!loaded) {
      const auto w = static_cast<std::uint64_t>(cls.width());
      for (int r = 0; r < K; ++r) {
        const auto [b, e] = chunk(cls.size(), static_cast<std::uint64_t>(K), static_cast<std::uint64_t>(r));
        entry.slices.push_back({r, b, e, crc32(cls.bytes().data() + b * w, static_cast<std::size_t>((e - b) * w))});
      }
    }
    manifest.done.push_back(entry);
    if (auto w = write_manifest(manifest_file, manifest); !w) return std::unexpected(w.error());
    if (shards) ClassCheckpoint::remove(opt.out, entry.file);  // the class is done
    st.seconds_writing += since(tw);
    if (loaded) line(tag(number, entry.key) + ": loaded, " + std::to_string(cls.size()) + " positions");
    else
      line(tag(number, entry.key) + ": " + std::to_string(cls.size()) + " positions, " + seconds_text(seconds) + ", " +
           std::to_string(entry.file_bytes) + " bytes");
    return {};
  };
  GenerateOptions g;
  g.max_seeds = opt.max_seeds;
  g.out = opt.out;
  g.threads = opt.solve.local.threads;
  g.method = opt.solve.local.method;
  g.zstd_level = opt.zstd_level;
  g.distances = opt.distances;
  g.memory_bytes = shards ? 0 : opt.memory_bytes;  // sharded: the solve hook keeps the budget
  if (shards) line("lower classes sharded: each rank's slice in " + (opt.out / ".mtb-shard.*").string() +
                   ", exits read through a page cache per rank");
  SolvedClasses solved;
  auto done = generate_classes(v, keys, g, solved, plan.reachable ? &plan.reachable->classes : nullptr, hooks);
  if (!done) return std::unexpected(done.error());
  st.seconds_writing += static_cast<double>(whole_writing_ns.load()) * 1e-9;
  rep.classes_solved = done->classes_solved;
  rep.classes_loaded = done->classes_loaded;
  rep.positions = done->positions;
  if (root) {
    manifest.complete = true;
    if (auto w = write_manifest(manifest_file, manifest); !w) return std::unexpected(w.error());
  }
  if (shards) {
    rep.cache = shards->cache_stats();
    solved = SolvedClasses{};  // closes the shard files
    wait("barrier (end)");
    MPI_Barrier(MPI_Comm(comm));
    wait(nullptr);
    if (root) {
      Shards::remove_all(opt.out);
      ClassCheckpoint::remove_all(opt.out);
    }
  }

  // Sum the traffic over ranks (rank 0 gets the totals).
  std::vector<double> mine = {static_cast<double>(st.records), static_cast<double>(st.bytes),
                              static_cast<double>(st.gathered_bytes), st.seconds_solving, st.seconds_exchanging,
                              st.seconds_gathering, st.seconds_writing, st.seconds_compressing};
  // ... and each rank's times (rank 0 gets them).
  const std::array<double, 4> times = {st.seconds_solving, st.seconds_exchanging, st.seconds_compressing, st.seconds_writing};
  std::vector<double> all_times(root ? 4 * static_cast<std::size_t>(K) : 0);
  if (MPI_Gather(times.data(), 4, MPI_DOUBLE, all_times.data(), 4, MPI_DOUBLE, 0, MPI_Comm(comm)) != MPI_SUCCESS)
    return fail_with(Error::Internal, "MPI_Gather failed");
  for (std::size_t r = 0; r < all_times.size(); r += 4)
    rep.rank_seconds.push_back({all_times[r], all_times[r + 1], all_times[r + 2], all_times[r + 3]});
  std::vector<double> sum(mine.size(), 0.0);
  wait("reduce (statistics)");
  if (MPI_Reduce(mine.data(), sum.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM, 0, MPI_Comm(comm)) !=
      MPI_SUCCESS)
    return fail_with(Error::Internal, "MPI_Reduce failed");
  wait(nullptr);
  if (root) {
    st.records = static_cast<std::uint64_t>(sum[0]);
    st.bytes = static_cast<std::uint64_t>(sum[1]);
    st.gathered_bytes = static_cast<std::uint64_t>(sum[2]);
    st.seconds_solving = sum[3];
    st.seconds_exchanging = sum[4];
    st.seconds_gathering = sum[5];
    st.seconds_writing = sum[6];
    st.seconds_compressing = sum[7];
  }
  rep.seconds = since(t_start);
  return rep;
}

}  // namespace mancala::cluster
