// mancala-tb-mpi: distributed table generation (see cluster/README.md).
//
//   mpirun -np K mancala-tb-mpi generate VARIANT --max-seeds N --out DIR [--resume]
//          [--threads T] [--level L] [--memory-mb M] [--timeout-seconds S] [--verbose] [--stats]
//   srun --mpi=pmix mancala-tb-mpi generate ...      (cluster/slurm/generate.sbatch)
//
// How it stops:
//  * a bad command line (checked before MPI starts, the same on every rank): rank 0 prints
//    one line, every rank exits with 2;
//  * a refusal every rank agrees on (the folder holds another run and --resume is
//    missing, the folder cannot be made, another generate holds its lock): rank 0
//    prints one line, every rank finalizes
//    MPI and exits with 1;
//  * a failure one rank sees alone (write error, exception, a rank waiting too long for
//    the others): that rank prints one line naming itself and ends the whole job with
//    MPI_Abort, so the job never hangs on a rank that gave up.
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "mancala/table_writer.h"
#include "mancala/cluster.h"
#include "mancala/distance_tables.h"
#include "mancala/notation.h"
#include "mancala/version.h"

namespace {

namespace mpi = boost::mpi;
using namespace mancala;

constexpr const char* kAbout =
    "Solves every class of VARIANT with up to N seeds in play on K MPI ranks and writes the\n"
    "same table files as `mancala-tb generate` (DIR/<variant>.<seeds>.<state>.mtb), plus\n"
    "DIR/<variant>.manifest (classes, ranks, slices, checksums). Where every rank sees DIR,\n"
    "every rank writes its share of each file; otherwise rank 0 writes all files and the\n"
    "other ranks need no access to DIR.";
constexpr const char* kFooter =
    "Each finished class is checkpointed (file written atomically, manifest updated), and\n"
    "with sharded lower classes the class in progress every --checkpoint-seconds, so a job\n"
    "killed on any rank loses little: rerun the same command with --resume (any number of\n"
    "ranks). Under Slurm: cluster/slurm/generate.sbatch (srun --mpi=pmix).";

struct Command {
  std::string variant;
  VariantPtr rules;
  cluster::ClusterGenerateOptions opt;
  int timeout_seconds = 0;
  bool verbose = false, stats = false;
};

// The rank the launcher gave this process, read before MPI starts (mpirun, srun with
// PMIx or PMI-2); 0 when started alone. Lets --help, --version and argument errors
// print once without starting MPI.
int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* s = std::getenv(name)) return std::atoi(s);
  return 0;
}

// Parses and checks the command line without MPI. Returns the command, or the exit
// status when the process should stop (help or version printed: 0; bad arguments: 2).
std::variant<Command, int> parse(int argc, char** argv) {
  Command c;
  int max_seeds = 0;
  std::string out;
  std::int64_t memory_mb = 0;
  CLI::App app{kAbout, "mancala-tb-mpi"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("mancala-tb-mpi ") + MANCALA_VERSION_STRING);
  app.require_subcommand(1);
  auto* gen = app.add_subcommand("generate", "solve and write every class of VARIANT up to --max-seeds");
  std::string from;
  gen->add_option("VARIANT", c.variant, "game, e.g. oware, djenon-aboure, kalah:4:empty (or --from)");
  gen->add_option("--from", from,
                  "only the positions reachable from this root position, as\n"
                  "`mancala-tb generate --from` (then VARIANT may be left out)")
      ->type_name("POSITION");
  gen->add_option("--max-seeds", max_seeds, "largest number of seeds in play to solve")
      ->required()
      ->type_name("N")
      ->check(CLI::Range(0, 1000));
  gen->add_option("--out", out, "table folder (created if missing)")->required()->type_name("DIR");
  gen->add_flag("--resume", c.opt.resume,
                "continue a run: load the finished classes found in DIR\n"
                "(without it DIR must hold no tables of VARIANT)");
  gen->add_option("--threads", c.opt.solve.local.threads, "TBB threads per rank (0 = all cores)")
      ->type_name("T")
      ->default_val(0)
      ->check(CLI::Range(0, 1024));
  gen->add_option("--level", c.opt.zstd_level, "zstd level of the position lists of reachable-set tables, 1..19")->type_name("L")->default_val(9)
      ->check(CLI::Range(1, 19));
  gen->add_option("--memory-mb", memory_mb,
                  "memory per rank for the class being solved and the solved classes,\n"
                  "in MiB (0 = no bound; the rank's resident size at the start and\n"
                  "an eighth of the rest, 20-24 MiB, held back for what is not\n"
                  "counted): older lower classes are spilled to disk and read back\n"
                  "through a page cache (as mancala-tb generate)")
      ->type_name("M")
      ->default_val(GenerateOptions::kDefaultMemoryBytes >> 20)
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  std::map<std::string, cluster::ClusterGenerateOptions::Lower> lowers = {
      {"auto", cluster::ClusterGenerateOptions::Lower::Auto},
      {"sharded", cluster::ClusterGenerateOptions::Lower::Sharded},
      {"replicated", cluster::ClusterGenerateOptions::Lower::Replicated}};
  gen->add_option("--lower-classes", c.opt.lower,
                  "where solved classes live: sharded (no rank holds one\n"
                  "whole; each rank writes its slice to DIR/.mtb-shard.* and\n"
                  "reads exits from there through a page cache: DIR must be on\n"
                  "a file system every rank sees), replicated (every rank\n"
                  "holds every class), auto (sharded when every rank sees DIR)")
      ->type_name("WHERE")
      ->default_str("auto")
      ->transform(CLI::CheckedTransformer(lowers, CLI::ignore_case));
  gen->add_option("--timeout-seconds", c.timeout_seconds,
                  "abort the job when a rank waits more than S seconds\n"
                  "for the others in one collective (0 = no watchdog)")
      ->type_name("S")
      ->default_val(0)
      ->check(CLI::Range(0, 100000000));
  gen->add_option("--checkpoint-seconds", c.opt.checkpoint_seconds,
                  "sharded runs: keep a checkpoint inside the class being solved\n"
                  "at the first level or sweep boundary S seconds after the last\n"
                  "(DIR/.mtb-checkpoint.*; --resume goes on from it on any\n"
                  "number of ranks; 0 = at every boundary, -1 = none)")
      ->type_name("S")
      ->default_val(600)
      ->check(CLI::Range(-1.0, 1e9));
  gen->add_flag("--verbose", c.verbose, "one line per class on stdout (rank 0)");
  gen->add_flag("--stats", c.stats,
                "traffic and time summary at the end (rank 0): seconds summed over\n"
                "the ranks, then each rank's; writing_s includes compressing_s");
  gen->add_flag("--distances", c.opt.distances,
                "also the distance tables (.mtz beside each .mtb) of a score\n"
                "game with cycles (docs/values.md), the same files as\n"
                "`mancala-tb generate --distances`; rank 0 computes them once\n"
                "a class is solved");

  const bool speak = launcher_rank() == 0;
  auto refuse = [&](const std::string& message) {
    if (speak) std::fprintf(stderr, "mancala-tb-mpi: %s\n", message.c_str());
    return 2;
  };
  if (argc < 2) {
    if (speak) std::fputs(app.help().c_str(), stderr);
    return 2;
  }
  if (argv[1][0] != '-' && std::string_view(argv[1]) != "generate")
    return refuse(std::string("unknown command '") + argv[1] + "' (the only command is generate; see --help)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    if (speak) std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    if (speak) std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    if (speak) std::printf("%s\n", e.what());
    return 0;
  } catch (const CLI::ParseError& e) {
    return refuse(std::string(e.what()) + " (see --help)");
  }
  Result<VariantPtr> v = fail_with(Error::InvalidArgument, "generate needs a VARIANT or --from POSITION");
  if (!from.empty()) {
    auto root = parse_position(from);
    if (!root) return refuse("--from: " + root.error().message);
    if (!c.variant.empty() && c.variant != root->variant->name())
      return refuse("the variant '" + c.variant + "' differs from the --from position's " + root->variant->name());
    v = root->variant;
    c.opt.from = root->position;
  } else if (!c.variant.empty()) {
    v = make_variant(c.variant);
  }
  if (!v) return refuse(v.error().message);
  if (max_seeds > (*v)->total_seeds())
    return refuse("--max-seeds " + std::to_string(max_seeds) + " is more than the " +
                  std::to_string((*v)->total_seeds()) + " seeds of " + (*v)->name());
  c.rules = std::move(*v);
  if (c.opt.distances && !has_distance_tables(*c.rules) && speak)
    std::fprintf(stderr, "mancala-tb-mpi: note: %s has no distance tables (its value-optimal moves realise the value): "
                 "--distances writes none\n", c.rules->name().c_str());
  c.opt.max_seeds = max_seeds;
  c.opt.memory_bytes = static_cast<std::uint64_t>(memory_mb) << 20;
  c.opt.out = out;
  return c;
}

// Aborts the job when this rank waits longer than the timeout in one collective
// (a rank that is dead without Open MPI noticing, or stuck).
// Diagnostics (MANCALA_MPI_PEAK_TRACE set): where this rank's resident peak grew. The
// ranks' collectives mark the time (the wait hook: a phase entered, then left), and
// at each mark the peak so far (getrusage's ru_maxrss, the VmHWM GNU time reports) is
// read; its growth since the last mark is put down to the interval between the two:
// "in X" (the collective X itself) or "after X" (the work that followed it). At the
// end each rank prints its peak, the interval that reached it, and the intervals that
// grew it most.
class PeakTrace {
 public:
  void mark(const char* phase) {
    std::lock_guard lock(mu_);
    const long kb = peak_kb();
    if (kb > last_kb_) {
      auto& g = growth_[interval_];
      g.first += kb - last_kb_;
      g.second = kb;
      last_kb_ = kb;
      reached_ = interval_ + " (mark " + std::to_string(marks_) + ", class " + std::to_string(classes_) + ")";
    }
    ++marks_;
    if (phase) {
      if (std::string_view(phase) == "gather (slice checksums)") ++classes_;
      interval_ = std::string("in ") + phase;
      last_phase_ = phase;
    } else {
      interval_ = "after " + last_phase_;
    }
  }
  void print(int rank) {
    mark(nullptr);
    std::lock_guard lock(mu_);
    std::vector<std::pair<long, std::string>> top;
    for (const auto& [k, g] : growth_) top.emplace_back(g.first, k);
    std::sort(top.rbegin(), top.rend());
    std::string most;
    for (std::size_t i = 0; i < std::min<std::size_t>(6, top.size()); ++i)
      most += "; " + top[i].second + " +" + std::to_string(top[i].first) + " KB";
    std::fprintf(stderr, "peak trace rank %d: %ld KB, reached %s, %ld marks%s\n", rank, last_kb_, reached_.c_str(), marks_,
                 most.c_str());
  }

 private:
  static long peak_kb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
  }
  std::mutex mu_;
  long last_kb_ = 0, marks_ = 0, classes_ = 0;
  std::string interval_ = "start", last_phase_ = "start", reached_;
  std::map<std::string, std::pair<long, long>> growth_;  // interval: KB grown there, the peak after it
};

class Watchdog {
 public:
  Watchdog(int timeout_seconds, int rank) : timeout_(timeout_seconds), rank_(rank) {
    if (timeout_ > 0) thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  void phase(const char* p) {
    std::lock_guard lock(mu_);
    phase_ = p ? p : "";
    since_ = std::chrono::steady_clock::now();
  }

 private:
  void watch() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(250));
      if (stop_ || phase_.empty()) continue;
      const auto waited = std::chrono::steady_clock::now() - since_;
      if (waited > std::chrono::seconds(timeout_)) {
        std::fprintf(stderr,
                     "mancala-tb-mpi: rank %d: waited more than %d s in %s for the other ranks; a rank is dead or "
                     "stuck; aborting the job (rerun the same command with --resume)\n",
                     rank_, timeout_, phase_.c_str());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 4);
        std::_Exit(4);
      }
    }
  }
  int timeout_, rank_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string phase_;
  std::chrono::steady_clock::time_point since_;
  bool stop_ = false;
};

[[noreturn]] void abort_job(int rank, const std::string& message, int code) {
  std::fprintf(stderr, "mancala-tb-mpi: rank %d: error: %s\n", rank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = parse(argc, argv);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  Command& cmd = std::get<Command>(parsed);
  // MPI_THREAD_MULTIPLE lets the watchdog thread call MPI_Abort while the main
  // thread is blocked in a collective.
  mpi::environment env(argc, argv, mpi::threading::multiple);
  mpi::communicator world;
  const int rank = world.rank();
  try {
    // Tests only: "RANK:CLASS" kills that rank (SIGKILL) in the middle of that class
    // (after pass 0, or with "RANK:CLASS:cN" after its N-th checkpoint there),
    // "RANK:CLASS:stop" freezes it (SIGSTOP) so that only the watchdog can end the job.
    if (const char* kill = std::getenv("MANCALA_MPI_TEST_KILL")) {
      int r = -1, c = -1;
      char how[8] = {};
      if (std::sscanf(kill, "%d:%d:%7s", &r, &c, how) >= 2 && r == rank) {
        cmd.opt.solve.kill_at_class = c;
        cmd.opt.solve.kill_signal = std::string(how) == "stop" ? SIGSTOP : SIGKILL;
        // "RANK:CLASS:cN" kills it after its N-th checkpoint inside that class instead.
        if (how[0] == 'c') cmd.opt.solve.kill_after_checkpoint = std::atoi(how + 1);
      }
    }
    Watchdog dog(cmd.timeout_seconds, rank);
    std::optional<PeakTrace> trace;
    if (std::getenv("MANCALA_MPI_PEAK_TRACE")) trace.emplace();
    if (cmd.timeout_seconds > 0 || trace)
      cmd.opt.solve.wait = [&dog, &trace, on = cmd.timeout_seconds > 0](const char* p) {
        if (trace) trace->mark(p);
        if (on) dog.phase(p);
      };
    if (cmd.verbose && rank == 0)
      cmd.opt.on_line = [](const std::string& s) {
        std::printf("%s\n", s.c_str());
        std::fflush(stdout);
      };
    // One writer per folder (the lock of mancala-tb generate): rank 0 holds it for
    // the whole job; if another generate holds it, every rank stops (a refusal).
    std::optional<FolderLock> lock;
    std::string lock_error;
    if (rank == 0) {
      auto l = FolderLock::acquire(cmd.opt.out);
      if (l) lock.emplace(std::move(*l));
      else lock_error = l.error().message;
    }
    mpi::broadcast(world, lock_error, 0);
    if (!lock_error.empty()) {
      if (rank == 0) std::fprintf(stderr, "mancala-tb-mpi: error: %s\n", lock_error.c_str());
      return 1;
    }
    auto plan = cluster::plan_distributed(world, *cmd.rules, cmd.opt);
    if (!plan) {
      // Every rank returns the same refusal: one line, and a normal MPI_Finalize.
      if (rank == 0) std::fprintf(stderr, "mancala-tb-mpi: error: %s\n", plan.error().message.c_str());
      return 1;
    }
    auto rep = cluster::generate_distributed(world, *cmd.rules, cmd.opt, *plan);
    if (!rep) abort_job(rank, rep.error().message, 1);  // this rank's alone: the others may wait in a collective
    if (trace) trace->print(rank);
    if (rank == 0) {
      const auto& st = rep->stats;
      if (cmd.verbose || cmd.stats)
        std::printf("done: %d classes solved, %d loaded, %llu positions, %.3f s on %d ranks\n", rep->classes_solved,
                    rep->classes_loaded, static_cast<unsigned long long>(rep->positions), rep->seconds, world.size());
      if (cmd.stats) {
        const double per = st.positions ? 1.0 / static_cast<double>(st.positions) : 0.0;
        std::printf(
            "stats ranks %d positions_solved %llu records %llu bytes %llu records_per_position %.4f "
            "bytes_per_position %.4f exchanges %llu gathered_bytes %llu seconds %.3f solving_s %.3f "
            "exchanging_s %.3f gathering_s %.3f writing_s %.3f compressing_s %.3f\n",
            world.size(), static_cast<unsigned long long>(st.positions), static_cast<unsigned long long>(st.records),
            static_cast<unsigned long long>(st.bytes), static_cast<double>(st.records) * per,
            static_cast<double>(st.bytes) * per, static_cast<unsigned long long>(st.exchanges),
            static_cast<unsigned long long>(st.gathered_bytes), rep->seconds, st.seconds_solving,
            st.seconds_exchanging, st.seconds_gathering, st.seconds_writing, st.seconds_compressing);
        for (std::size_t r = 0; r < rep->rank_seconds.size(); ++r) {
          const auto& t = rep->rank_seconds[r];
          std::printf("stats rank %zu solving_s %.3f exchanging_s %.3f compressing_s %.3f writing_s %.3f\n", r, t[0], t[1],
                      t[2], t[3]);
        }
        if (plan->sharded)
          std::printf("stats rank 0 page cache: %llu hits, %llu misses, peak %llu bytes\n",
                      static_cast<unsigned long long>(rep->cache.hits), static_cast<unsigned long long>(rep->cache.misses),
                      static_cast<unsigned long long>(rep->cache.peak_bytes));
      }
    }
    return 0;
  } catch (const std::exception& e) {
    abort_job(rank, e.what(), 3);
  } catch (...) {
    abort_job(rank, "unknown exception", 3);
  }
}
