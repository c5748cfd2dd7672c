// The cluster transport of the retrograde core (class_solver.h): MPI collectives
// between the ranks that share a class, and the all-gather of the solved slices.
#include <mpi.h>

#include <algorithm>
#include <boost/mpi/collectives.hpp>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "mancala/cluster.h"
#include "mancala/class_solver.h"
#include "mpi_support.h"

namespace mancala::cluster {

namespace {

using support::clock_type;
using support::since;

// Records on the wire, packed (no Boost.Serialization): notices sorted by parent,
// each as LEB128 varints (7 bits a byte, low first, high bit = more)
//
//   parent - previous parent,  zigzag(worth) * 2 + (child given),  [child]
//
// (Oware, whose parent lists are exact, sends no child: 2-3 bytes a notice against
// 18 packed or 24 in memory); every other record (ghost offsets and codes) as its
// raw bytes. The order of notices does not matter: the owner applies them in any
// order (threads already do), and the values do not depend on it (retrograde.h).
void put_varint(std::vector<std::uint8_t>& out, std::uint64_t x) {
  while (x >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(x | 0x80));
    x >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(x));
}
std::uint64_t get_varint(const std::uint8_t*& p, const std::uint8_t* end) {
  std::uint64_t x = 0;
  for (int shift = 0; p < end && shift < 64; shift += 7) {
    const std::uint8_t b = *p++;
    x |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return x;
  }
  throw std::runtime_error("a packed record from another rank is cut short");
}

template <class T>
void pack(std::vector<T>& records, std::vector<std::uint8_t>& out) {
  static_assert(std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T>);
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    out.swap(records);  // bytes already: moved, not copied (the sweeps' one-byte codes)
  } else {
    const auto* b = reinterpret_cast<const std::uint8_t*>(records.data());
    out.assign(b, b + records.size() * sizeof(T));
  }
}
void pack(std::vector<core::Notice>& records, std::vector<std::uint8_t>& out) {
  std::sort(records.begin(), records.end(), [](const core::Notice& a, const core::Notice& b) { return a.parent < b.parent; });
  out.clear();
  out.reserve(records.size() * 3);
  Index last = 0;
  for (const core::Notice& m : records) {
    put_varint(out, m.parent - last);
    last = m.parent;
    const auto w = static_cast<std::int32_t>(m.worth);
    const auto zigzag = static_cast<std::uint64_t>(static_cast<std::uint32_t>((w << 1) ^ (w >> 31)));
    put_varint(out, zigzag * 2 + (m.child != core::kNoCheck ? 1 : 0));
    if (m.child != core::kNoCheck) put_varint(out, m.child);
  }
}
template <class T>
void unpack(const std::uint8_t* p, std::size_t n, std::vector<T>& out) {
  if (n % sizeof(T)) throw std::runtime_error("a packed record from another rank is cut short");
  out.resize(n / sizeof(T));
  std::memcpy(out.data(), p, n);
}
void unpack(const std::uint8_t* p, std::size_t n, std::vector<core::Notice>& out) {
  // Counted first, so that the vector is allocated once at its size (grown, it held
  // up to twice its 24 bytes a notice).
  const std::uint8_t* end = p + n;
  std::size_t count = 0;
  for (const std::uint8_t* q = p; q < end; ++count) {
    get_varint(q, end);
    if (get_varint(q, end) & 1) get_varint(q, end);
  }
  std::vector<core::Notice>().swap(out);
  out.reserve(count);
  Index last = 0;
  while (p < end) {
    core::Notice m;
    m.parent = last + get_varint(p, end);
    last = m.parent;
    const std::uint64_t tag = get_varint(p, end);
    const auto zigzag = static_cast<std::uint32_t>(tag >> 1);
    m.worth = static_cast<Value>(static_cast<std::int32_t>(zigzag >> 1) ^ -static_cast<std::int32_t>(zigzag & 1));
    m.child = (tag & 1) ? get_varint(p, end) : core::kNoCheck;
    out.push_back(m);
  }
}

// Collectives with the watchdog hook and the time spent waiting.
class Wire {
 public:
  // The most bytes of one message: a rank's records for another go in messages of at
  // most this many bytes, so that no MPI count reaches INT_MAX.
  static constexpr std::uint64_t kMessageBytes = std::uint64_t{64} << 20;

  Wire(const mpi::communicator& comm, const DistributedOptions& opt, ClusterStats& stats)
      : comm_(comm), opt_(opt), stats_(stats) {}

  // out[r] goes to rank r, in[r] receives rank r's records; out is left empty. Packed
  // bytes sent and received in place (no staging copy), in messages of at most
  // kMessageBytes; 64-bit sizes throughout. One-byte records are moved, not copied, in
  // and out of their packed form: a rank then holds what it sends and what it receives
  // once each (the sweeps' ghost codes: 2 bytes a ghost, where a packed copy, a staging
  // round of 16 MiB and the received copy unpacked had held 4 and more).
  template <class T>
  void exchange(std::vector<std::vector<T>>& out, std::vector<std::vector<T>>& in, const char* phase) {
    const auto K = static_cast<std::size_t>(comm_.size()), me = static_cast<std::size_t>(comm_.rank());
    std::vector<std::vector<std::uint8_t>> recv(K);
    in.assign(K, {});
    in[me].swap(out[me]);
    exchange_packed(out, recv, phase);
    for (std::size_t r = 0; r < K; ++r) {
      if constexpr (std::is_same_v<T, std::uint8_t>) {
        if (r != me) in[r].swap(recv[r]);
      } else {
        if (r != me) unpack(recv[r].data(), recv[r].size(), in[r]);
      }
      std::vector<std::uint8_t>().swap(recv[r]);
    }
  }
  // As exchange, but f(records) is called with each rank's records in turn, a rank's
  // unpacked only when its turn comes and dropped after it: the others stay packed
  // (Oware: 2-3 bytes a notice against 24 unpacked). Oware up to 20 on 4 ranks: every
  // rank's peak grew most while it applied the notices it had received (the peak trace).
  template <class T, class F>
  void exchange_each(std::vector<std::vector<T>>& out, const char* phase, F&& f) {
    const auto K = static_cast<std::size_t>(comm_.size()), me = static_cast<std::size_t>(comm_.rank());
    std::vector<std::vector<std::uint8_t>> recv(K);
    std::vector<T> mine;
    mine.swap(out[me]);
    exchange_packed(out, recv, phase);
    for (std::size_t r = 0; r < K; ++r) {
      std::vector<T> from;
      if (r == me) from.swap(mine);
      else unpack(recv[r].data(), recv[r].size(), from);
      std::vector<std::uint8_t>().swap(recv[r]);
      f(from);
    }
  }

 private:
  // out[r] (r != this rank) packed and sent to rank r, recv[r] receives rank r's packed
  // records; out is left empty.
  template <class T>
  void exchange_packed(std::vector<std::vector<T>>& out, std::vector<std::vector<std::uint8_t>>& recv, const char* phase) {
    const auto K = static_cast<std::size_t>(comm_.size()), me = static_cast<std::size_t>(comm_.rank());
    std::vector<std::vector<std::uint8_t>> send(K);
    std::vector<std::uint64_t> scount(K, 0), rcount(K, 0);
    for (std::size_t r = 0; r < K; ++r) {
      if (r == me) continue;
      stats_.records += out[r].size();
      pack(out[r], send[r]);
      std::vector<T>().swap(out[r]);
      scount[r] = send[r].size();
      stats_.bytes += scount[r];
    }
    std::vector<T>().swap(out[me]);
    ++stats_.exchanges;
    const auto t = clock_type::now();
    enter(phase);
    check(MPI_Alltoall(scount.data(), 1, MPI_UINT64_T, rcount.data(), 1, MPI_UINT64_T, MPI_Comm(comm_)), "MPI_Alltoall");
    for (std::size_t r = 0; r < K; ++r) recv[r].resize(static_cast<std::size_t>(rcount[r]));
    // Every message posted at once (receives first), each rank's bytes in pieces of
    // at most kMessageBytes with tags 1, 2, ... (MPI keeps the order of messages
    // between two ranks with the same tag; the tags stay below write_class.cpp's).
    std::vector<MPI_Request> reqs;
    auto post = [&](auto call, std::vector<std::vector<std::uint8_t>>& bytes, const std::vector<std::uint64_t>& count,
                    const char* what) {
      for (std::size_t r = 0; r < K; ++r)
        for (std::uint64_t at = 0, piece = 0; at < count[r]; at += kMessageBytes, ++piece) {
          reqs.emplace_back();
          check(call(bytes[r].data() + at, static_cast<int>(std::min(kMessageBytes, count[r] - at)), MPI_BYTE,
                     static_cast<int>(r), tag(piece), MPI_Comm(comm_), &reqs.back()),
                what);
        }
    };
    post(MPI_Irecv, recv, rcount, "MPI_Irecv");
    post(MPI_Isend, send, scount, "MPI_Isend");
    check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    enter(nullptr);
    stats_.seconds_exchanging += since(t);
  }

 public:
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
  static int tag(std::uint64_t piece) { return 1 + static_cast<int>(piece % 3000); }
  static void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw std::runtime_error(std::string(what) + " failed");
  }
  const mpi::communicator& comm_;
  const DistributedOptions& opt_;
  ClusterStats& stats_;
};

// The cluster transport of the one core (class_solver.h): the ranks of `comm`.
class MpiTransport {
 public:
  MpiTransport(const mpi::communicator& comm, const DistributedOptions& opt, ClusterStats& stats)
      : comm_(comm), wire_(comm, opt, stats), opt_(opt), stats_(stats) {}
  std::uint64_t ranks() const { return static_cast<std::uint64_t>(comm_.size()); }
  std::uint64_t rank() const { return static_cast<std::uint64_t>(comm_.rank()); }
  template <class T>
  void exchange(std::vector<std::vector<T>>& out, std::vector<std::vector<T>>& in, std::size_t /*record_bytes*/,
                const char* phase) {
    out.resize(static_cast<std::size_t>(comm_.size()));
    wire_.exchange(out, in, phase);
  }
  template <class T, class F>
  void exchange_each(std::vector<std::vector<T>>& out, std::size_t /*record_bytes*/, const char* phase, F&& f) {
    out.resize(static_cast<std::size_t>(comm_.size()));
    wire_.exchange_each(out, phase, f);
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
    if (opt_.kill_at_class == opt_.class_number && opt_.kill_after_checkpoint <= 0) std::raise(opt_.kill_signal);
  }
  // Checkpoints inside the class (ClassCheckpoint), when the class has them.
  int resume(core::Method m, std::span<std::uint8_t> codes, std::size_t code_bytes) {
    if (!opt_.checkpoint) return -1;
    const auto t = clock_type::now();
    const int step = opt_.checkpoint->resume(method_name(m), codes, code_bytes);
    stats_.seconds_writing += since(t);
    return step;
  }
  void checkpoint(core::Method m, int step, std::span<const std::uint8_t> codes, std::size_t code_bytes) {
    if (!opt_.checkpoint) return;
    const auto t = clock_type::now();
    const bool saved = opt_.checkpoint->save(method_name(m), step, codes, code_bytes);
    stats_.seconds_writing += since(t);
    if (saved && ++saved_ == opt_.kill_after_checkpoint && opt_.kill_at_class == opt_.class_number)
      std::raise(opt_.kill_signal);
  }

 private:
  static const char* method_name(core::Method m) { return m == core::Method::Levels ? "levels" : "sweeps"; }
  const mpi::communicator& comm_;
  Wire wire_;
  const DistributedOptions& opt_;
  ClusterStats& stats_;
  int saved_ = 0;  // checkpoints written in this class
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
