// The cluster transport of the retrograde core (class_solver.h): MPI collectives
// between the ranks that share a class, and the all-gather of the solved slices.
#include <mpi.h>

#include <algorithm>
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/datatype.hpp>
#include <boost/serialization/vector.hpp>
#include <chrono>
#include <climits>
#include <csignal>
#include <stdexcept>

#include "mancala/cluster.h"
#include "mancala/class_solver.h"

BOOST_IS_MPI_DATATYPE(mancala::core::Notice)
BOOST_CLASS_TRACKING(mancala::core::Notice, track_never)

namespace mancala::cluster {

namespace mpi = boost::mpi;

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

// Collectives with the watchdog hook and the time spent waiting.
class Wire {
 public:
  Wire(const mpi::communicator& comm, const DistributedOptions& opt, ClusterStats& stats)
      : comm_(comm), opt_(opt), stats_(stats) {}

  template <class T>
  void exchange(std::vector<std::vector<T>>& out, std::vector<std::vector<T>>& in, std::size_t record_bytes,
                const char* phase) {
    for (int r = 0; r < comm_.size(); ++r)
      if (r != comm_.rank()) {
        stats_.records += out[static_cast<std::size_t>(r)].size();
        stats_.bytes += out[static_cast<std::size_t>(r)].size() * record_bytes;
      }
    ++stats_.exchanges;
    const auto t = clock_type::now();
    enter(phase);
    in.clear();
    mpi::all_to_all(comm_, out, in);
    enter(nullptr);
    stats_.seconds_exchanging += since(t);
  }
  template <class T, class Op>
  T reduce(T x, Op op, const char* phase) {
    const auto t = clock_type::now();
    enter(phase);
    T y{};
    mpi::all_reduce(comm_, x, y, op);
    enter(nullptr);
    stats_.seconds_exchanging += since(t);
    return y;
  }

  void enter(const char* phase) const {
    if (opt_.wait) opt_.wait(phase);
  }
  void count_wait(double seconds) { stats_.seconds_exchanging += seconds; }

 private:
  const mpi::communicator& comm_;
  const DistributedOptions& opt_;
  ClusterStats& stats_;
};

// The cluster transport of the one core (class_solver.h): the ranks of `comm`.
class MpiTransport {
 public:
  MpiTransport(const mpi::communicator& comm, const DistributedOptions& opt, ClusterStats& stats)
      : comm_(comm), wire_(comm, opt, stats), opt_(opt) {}
  std::uint64_t ranks() const { return static_cast<std::uint64_t>(comm_.size()); }
  std::uint64_t rank() const { return static_cast<std::uint64_t>(comm_.rank()); }
  template <class T>
  void exchange(std::vector<std::vector<T>>& out, std::vector<std::vector<T>>& in, std::size_t record_bytes,
                const char* phase) {
    out.resize(static_cast<std::size_t>(comm_.size()));
    wire_.exchange(out, in, record_bytes, phase);
    for (auto& o : out) o.clear();
  }
  core::Tally sum(const core::Tally& t, const char* phase) {
    std::vector<std::uint64_t> mine = {t.changed, t.open, t.stopped}, all(3);
    const auto tstart = clock_type::now();
    wire_.enter(phase);
    if (MPI_Allreduce(mine.data(), all.data(), 3, MPI_UINT64_T, MPI_SUM, MPI_Comm(comm_)) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Allreduce failed");
    wire_.enter(nullptr);
    wire_.count_wait(since(tstart));
    return core::Tally{all[0], all[1], all[2]};
  }
  int max(int x, const char* phase) { return wire_.reduce(x, mpi::maximum<int>(), phase); }
  // Test hook: this rank sends itself a signal in the middle of the chosen class.
  void after_first_pass() const {
    if (opt_.kill_at_class == opt_.class_number) std::raise(opt_.kill_signal);
  }

 private:
  const mpi::communicator& comm_;
  Wire wire_;
  const DistributedOptions& opt_;
};

}  // namespace

Result<std::vector<std::uint8_t>> solve_class_distributed(const mpi::communicator& comm, const Variant& v,
                                                          const ClassIndex& index, const SolvedClasses& solved,
                                                          const DistributedOptions& opt, ClusterStats& stats) {
  const auto K = static_cast<std::uint64_t>(comm.size());
  const auto [first, last] = chunk(index.size(), K, 0);
  if (last - first >= (std::uint64_t{1} << 32) - 1)
    return fail_with(Error::TableTooSmall, "a slice of class " + to_string(index.key(), v.pits()) +
                                               " has 2^32 positions or more; run on more ranks");
  MpiTransport transport(comm, opt, stats);
  const auto t = clock_type::now();
  const double waited = stats.seconds_exchanging;
  try {
    auto slice = core::solve_slice(v, index, solved, opt.local, transport, nullptr);
    stats.seconds_solving += since(t) - (stats.seconds_exchanging - waited);
    if (!slice) return std::unexpected(slice.error());
    return std::move(*slice);
  } catch (const std::exception& e) {  // an MPI call of the transport failed (Boost.MPI throws)
    return fail_with(Error::Internal, e.what());
  }
}

std::shared_ptr<ClassValues> gather_class(const mpi::communicator& comm, const Variant& v, const ClassIndex& index,
                                          const std::vector<std::uint8_t>& slice, const DistributedOptions& opt,
                                          ClusterStats& stats) {
  auto cls = std::make_shared<ClassValues>(index, v.kind());
  const auto K = static_cast<std::uint64_t>(comm.size());
  const auto width = static_cast<std::uint64_t>(cls->width());
  const std::uint64_t n = cls->size();
  // Slice r = bytes [width*chunk_start(n,K,r), width*chunk_start(n,K,r+1)). Rounds of
  // at most `step` bytes per rank keep every count and displacement below INT_MAX.
  const std::uint64_t step = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(INT_MAX) / K);
  std::uint64_t largest = 0;
  for (std::uint64_t r = 0; r < K; ++r) largest = std::max(largest, width * (chunk_start(n, K, r + 1) - chunk_start(n, K, r)));
  const auto t = clock_type::now();
  if (opt.wait) opt.wait("all_gather (class slices)");
  std::vector<int> counts(K), displs(K);
  std::vector<std::uint8_t> buffer;
  for (std::uint64_t at = 0; at < largest || (at == 0 && largest == 0); at += step) {
    if (largest == 0) break;
    int total = 0;
    for (std::uint64_t r = 0; r < K; ++r) {
      const std::uint64_t len = width * (chunk_start(n, K, r + 1) - chunk_start(n, K, r));
      counts[r] = static_cast<int>(at < len ? std::min(step, len - at) : 0);
      displs[r] = total;
      total += counts[r];
    }
    buffer.resize(static_cast<std::size_t>(total));
    const auto me = static_cast<std::size_t>(comm.rank());
    const int rc = MPI_Allgatherv(slice.data() + std::min<std::uint64_t>(at, slice.size()), counts[me], MPI_BYTE,
                                  buffer.data(), counts.data(), displs.data(), MPI_BYTE, MPI_Comm(comm));
    if (rc != MPI_SUCCESS) throw std::runtime_error("MPI_Allgatherv failed");
    for (std::uint64_t r = 0; r < K; ++r) {
      const std::uint64_t first = width * chunk_start(n, K, r) + at;
      std::copy_n(buffer.begin() + displs[r], counts[r], cls->bytes().begin() + static_cast<std::ptrdiff_t>(first));
      if (r != me) stats.gathered_bytes += static_cast<std::uint64_t>(counts[r]);
    }
  }
  if (opt.wait) opt.wait(nullptr);
  stats.seconds_gathering += since(t);
  return cls;
}

}  // namespace mancala::cluster
