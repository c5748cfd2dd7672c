// mancala-tb-mpi: distributed table generation (see cluster/README.md).
//
//   mpirun -np K mancala-tb-mpi generate VARIANT --max-seeds N --out DIR [--resume]
//          [--threads T] [--level L] [--timeout-seconds S] [--verbose] [--stats]
//
// Every failure on any rank ends the whole job with one message naming the rank
// (MPI_Abort), so a job never hangs on a rank that gave up.
#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mancala/cluster.h"

namespace {

namespace mpi = boost::mpi;
using namespace mancala;

constexpr const char* kUsage =
    "usage: mpirun -np K mancala-tb-mpi generate VARIANT --max-seeds N --out DIR [options]\n\n"
    "Solves every class of VARIANT with up to N seeds in play on K MPI ranks and writes\n"
    "the same table files as `mancala-tb generate` (DIR/<variant>.<seeds>.<state>.mtb),\n"
    "plus DIR/<variant>.manifest (classes, ranks, slices, checksums). Rank 0 writes\n"
    "all files; the other ranks need no access to DIR.\n\n"
    "  --max-seeds N          largest number of seeds in play to solve\n"
    "  --out DIR              table folder (created if missing)\n"
    "  --resume               continue a run: load the finished classes found in DIR\n"
    "                         (without it DIR must hold no tables of VARIANT)\n"
    "  --threads T            TBB threads per rank for local passes (default: all cores)\n"
    "  --level L              zstd level of the files, 1..19 (default 9)\n"
    "  --timeout-seconds S    abort the job when a rank waits more than S seconds for the\n"
    "                         others in one collective (default 0 = no watchdog)\n"
    "  --verbose              one line per class on stdout (rank 0)\n"
    "  --stats                traffic summary at the end (rank 0)\n\n"
    "Each finished class is checkpointed (file written atomically, manifest updated),\n"
    "so a job killed on any rank loses at most the class in progress: rerun the same\n"
    "command with --resume.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Command {
  std::string variant;
  cluster::ClusterGenerateOptions opt;
  int timeout_seconds = 0;
  bool verbose = false, stats = false, help = false;
};

int to_int(const std::string& name, const std::string& s, int lo, int hi) {
  std::size_t used = 0;
  int x = 0;
  try {
    x = std::stoi(s, &used);
  } catch (...) {
    used = 0;
  }
  if (used != s.size() || s.empty() || x < lo || x > hi)
    throw UsageError("--" + name + " needs an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + s + "'");
  return x;
}

Command parse(int argc, char** argv) {
  Command c;
  std::vector<std::string> a(argv + 1, argv + argc);
  if (a.empty() || a[0] == "--help" || a[0] == "-h" || a[0] == "help") {
    c.help = true;
    return c;
  }
  if (a[0] != "generate") throw UsageError("unknown command '" + a[0] + "' (the only command is generate; see --help)");
  std::optional<std::string> max_seeds, out;
  std::vector<std::string> words;
  for (std::size_t i = 1; i < a.size(); ++i) {
    std::string w = a[i], value;
    const bool has_eq = w.rfind("--", 0) == 0 && w.find('=') != std::string::npos;
    if (has_eq) {
      value = w.substr(w.find('=') + 1);
      w = w.substr(0, w.find('='));
    }
    auto next = [&]() -> std::string {
      if (has_eq) return value;
      if (i + 1 >= a.size()) throw UsageError(w + " needs a value");
      return a[++i];
    };
    if (w == "--help" || w == "-h") c.help = true;
    else if (w == "--max-seeds") max_seeds = next();
    else if (w == "--out") out = next();
    else if (w == "--threads") c.opt.solve.threads = to_int("threads", next(), 0, 1024);
    else if (w == "--level") c.opt.zstd_level = to_int("level", next(), 1, 19);
    else if (w == "--timeout-seconds") c.timeout_seconds = to_int("timeout-seconds", next(), 0, 100000000);
    else if (w == "--resume") c.opt.resume = true;
    else if (w == "--verbose") c.verbose = true;
    else if (w == "--stats") c.stats = true;
    else if (w.rfind("--", 0) == 0) throw UsageError("unknown option " + w + " (see --help)");
    else words.push_back(w);
  }
  if (c.help) return c;
  if (words.size() != 1) throw UsageError("generate needs exactly one VARIANT (see --help)");
  if (!max_seeds) throw UsageError("generate needs --max-seeds N");
  if (!out) throw UsageError("generate needs --out DIR");
  c.variant = words[0];
  c.opt.out = *out;
  c.opt.max_seeds = to_int("max-seeds", *max_seeds, 0, 1000);
  return c;
}

// Aborts the job when this rank waits longer than the timeout in one collective
// (a rank that is dead without Open MPI noticing, or stuck).
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
  // MPI_THREAD_MULTIPLE lets the watchdog thread call MPI_Abort while the main
  // thread is blocked in a collective.
  mpi::environment env(argc, argv, mpi::threading::multiple);
  mpi::communicator world;
  const int rank = world.rank();
  try {
    Command cmd;
    try {
      cmd = parse(argc, argv);
    } catch (const UsageError& e) {
      // Every rank parsed the same arguments: all stop, rank 0 explains.
      if (rank == 0) std::fprintf(stderr, "mancala-tb-mpi: %s\n", e.what());
      return 2;
    }
    if (cmd.help) {
      if (rank == 0) std::fputs(kUsage, stdout);
      return 0;
    }
    auto v = make_variant(cmd.variant);
    if (!v) {
      if (rank == 0) std::fprintf(stderr, "mancala-tb-mpi: %s\n", v.error().c_str());
      return 2;
    }
    if (cmd.opt.max_seeds > (*v)->total_seeds()) {
      if (rank == 0)
        std::fprintf(stderr, "mancala-tb-mpi: --max-seeds %d is more than the %d seeds of %s\n", cmd.opt.max_seeds,
                     (*v)->total_seeds(), (*v)->name().c_str());
      return 2;
    }
    // Tests only: "RANK:CLASS" kills that rank (SIGKILL) in the middle of that class,
    // "RANK:CLASS:stop" freezes it (SIGSTOP) so that only the watchdog can end the job.
    if (const char* kill = std::getenv("MANCALA_MPI_TEST_KILL")) {
      int r = -1, c = -1;
      char how[8] = {};
      if (std::sscanf(kill, "%d:%d:%7s", &r, &c, how) >= 2 && r == rank) {
        cmd.opt.solve.kill_at_class = c;
        cmd.opt.solve.kill_signal = std::string(how) == "stop" ? SIGSTOP : SIGKILL;
      }
    }
    Watchdog dog(cmd.timeout_seconds, rank);
    if (cmd.timeout_seconds > 0) cmd.opt.solve.wait = [&dog](const char* p) { dog.phase(p); };
    if (cmd.verbose && rank == 0)
      cmd.opt.on_line = [](const std::string& s) {
        std::printf("%s\n", s.c_str());
        std::fflush(stdout);
      };
    auto rep = cluster::generate_distributed(world, **v, cmd.opt);
    if (!rep) abort_job(rank, rep.error(), 1);
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
            "exchanging_s %.3f gathering_s %.3f writing_s %.3f\n",
            world.size(), static_cast<unsigned long long>(st.positions), static_cast<unsigned long long>(st.records),
            static_cast<unsigned long long>(st.bytes), static_cast<double>(st.records) * per,
            static_cast<double>(st.bytes) * per, static_cast<unsigned long long>(st.exchanges),
            static_cast<unsigned long long>(st.gathered_bytes), rep->seconds, st.seconds_solving,
            st.seconds_exchanging, st.seconds_gathering, st.seconds_writing);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    abort_job(rank, e.what(), 3);
  } catch (...) {
    abort_job(rank, "unknown exception", 3);
  }
}
