// Every rank compresses and writes (cluster.h, "Every rank writes"): the stages of
// write_table (table_writer.h) run over the ranks, each on its own blocks of the one
// standard file.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <boost/mpi/collectives.hpp>
#include <boost/serialization/string.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include "mancala/cluster.h"
#include "mancala/table_writer.h"
#include "mpi_support.h"

namespace mancala::cluster {

namespace {

using support::all_agree;
using support::clock_type;
using support::since;

// Blocks a rank reads from the shard file at a time: 2^20 positions.
constexpr std::uint64_t kWindowBlocks = 256;
constexpr int kCountsTag = 3201;
// Without a shared folder: the pieces of coded blocks sent to rank 0.
constexpr int kPiecesTag = 3202;
constexpr std::uint64_t kPieceBytes = std::uint64_t{8} << 20;

// A round's symbol counts summed over every rank, on every rank: a binary tree of
// sends towards rank 0 (each rank holds at most two rounds' counts; a shape of more
// than kMaxSymbols symbols travels as a mark), then a broadcast of the sum.
Result<SymbolCounts> sum_counts(const mpi::communicator& comm, SymbolCounts mine, const WaitHook& wait) {
  const int K = comm.size(), r = comm.rank();
  if (wait) wait("tree reduce (symbol counts)");
  for (int step = 1; step < K; step *= 2) {
    if (r % (2 * step) == step) {
      comm.send(r - step, kCountsTag, mine.to_bytes());
      break;
    }
    if (r + step < K) {
      std::string bytes;
      comm.recv(r + step, kCountsTag, bytes);
      auto theirs = SymbolCounts::from_bytes(bytes);
      if (!theirs) return std::unexpected(theirs.error());
      mine.add(*theirs);
    }
  }
  std::string sum = r == 0 ? mine.to_bytes() : std::string();
  mpi::broadcast(comm, sum, 0);
  if (wait) wait(nullptr);
  return SymbolCounts::from_bytes(sum);
}

}  // namespace

Result<void> write_class_distributed(const mpi::communicator& comm, const Variant& v, const ClassIndex& index,
                                     const ValueReader& read, bool shared_folder, const fs::path& file, int zstd_level,
                                     int threads, const WaitHook& wait, ClusterStats& st) {
  const auto t_start = clock_type::now();
  const bool root = comm.rank() == 0;
  const auto K = static_cast<std::uint64_t>(comm.size()), r = static_cast<std::uint64_t>(comm.rank());
  const ClassKey key = index.key();
  const std::uint64_t n = index.size();
  const std::uint32_t width = v.kind() == GameKind::Score ? 1 : 2;
  TableCoder coder(n, width);
  const std::uint64_t N = coder.blocks(), B = coder.block_positions();
  // This rank's blocks (ownership aligned to the file's blocks), read from the shard
  // file a window at a time: the values are never held whole.
  const auto [b0, b1] = chunk(N, K, r);
  auto each_window = [&](const auto& f) -> Result<void> {
    for (std::uint64_t w0 = b0; w0 < b1; w0 += kWindowBlocks) {
      const std::uint64_t w1 = std::min(b1, w0 + kWindowBlocks), p0 = w0 * B, p1 = std::min(w1 * B, n);
      auto bytes = read(p0 * width, (p1 - p0) * width);
      if (!bytes) return std::unexpected(bytes.error());
      if (auto d = f(ValueRange{bytes->data(), p0, p1 - p0, n, width}, w0, w1); !d) return d;
    }
    return {};
  };

  // 1. The code: the counts of every rank summed, so every rank builds the same one.
  double compressing = 0;
  while (!coder.done()) {
    auto tc = clock_type::now();
    SymbolCounts mine;
    auto counted = each_window([&](const ValueRange& vr, std::uint64_t, std::uint64_t) -> Result<void> {
      mine.add(coder.count(vr));
      return {};
    });
    if (!counted) return counted;
    compressing += since(tc);
    auto whole = sum_counts(comm, std::move(mine), wait);
    if (!whole) return std::unexpected(whole.error());
    tc = clock_type::now();
    if (auto a = coder.add_counts(*whole); !a) return std::unexpected(a.error());
    compressing += since(tc);
  }
  // 2. This rank's blocks, coded into memory (about 0.3-0.5 bytes a position), a
  // string a window (one string of them all would need twice that while it grows).
  const auto tc = clock_type::now();
  std::vector<std::string> coded;
  std::uint64_t mine = 0;              // bytes of this rank's blocks
  std::vector<std::uint64_t> offsets;  // o_b of this rank's blocks, from its first block's
  std::vector<std::uint32_t> crcs;
  auto encoded = each_window([&](const ValueRange& vr, std::uint64_t w0, std::uint64_t w1) -> Result<void> {
    std::string window;
    auto e = encode_blocks(coder, vr, w0, w1, threads,
                           [&](std::uint64_t, const std::string& bytes, std::uint32_t crc) -> std::expected<void, TableError> {
                             offsets.push_back(mine);
                             window += bytes;
                             mine += bytes.size();
                             crcs.push_back(crc);
                             return {};
                           });
    if (!e) return std::unexpected(e.error());
    window.shrink_to_fit();
    coded.push_back(std::move(window));
    return {};
  });
  if (!encoded) return encoded;
  compressing += since(tc);
  // Its offset: the bytes of the ranks before it (exclusive scan); the total: o_N.
  std::uint64_t base = 0, total = 0;
  if (wait) wait("scan (block offsets)");
  if (MPI_Exscan(&mine, &base, 1, MPI_UINT64_T, MPI_SUM, MPI_Comm(comm)) != MPI_SUCCESS ||
      MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_Comm(comm)) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Exscan failed");
  if (wait) wait(nullptr);
  if (root) base = 0;  // MPI_Exscan leaves rank 0's undefined

  // 3. Rank 0 makes the temporary file at its full size with the header, the
  // position list and the tail; every rank then writes its blocks, their offsets and
  // CRCs into it (shared folder), or sends them to rank 0 in pieces of at most
  // kPieceBytes; rank 0 renames it into place once every rank has synced.
  TableHeader h = table_header(v, key, n, static_cast<int>(width), TableContent::Values);
  coder.describe(h);
  std::optional<PendingFile> pending;
  std::string temporary, problem;
  const auto subset = index.subset();
  if (root) {
    std::string list;
    if (subset) {
      auto l = position_list_part(*subset, zstd_level, h);
      if (l) list = std::move(*l);
      else problem = l.error().message;
    }
    const std::string head = table_head(h);
    const TableLayout layout{head.size(), N};
    if (problem.empty()) {
      auto p = PendingFile::create(file);
      if (!p) problem = p.error().message;
      else {
        pending.emplace(std::move(*p));
        temporary = pending->temporary().string();
        const std::uint64_t size = layout.data_at() + total + list.size() + 8;  // the last 8 bytes zeros
        std::expected<void, Error> w = ::ftruncate(pending->fd(), static_cast<off_t>(size)) == 0
                                           ? std::expected<void, Error>{}
                                           : std::unexpected(Error{Error::Io, temporary + ": cannot resize: " + std::strerror(errno)});
        if (w) w = write_at(pending->fd(), temporary, head.data(), head.size(), 0);
        if (w) w = write_at(pending->fd(), temporary, list.data(), list.size(), layout.data_at() + total);
        if (!w) problem = w.error().message;
      }
    }
  }
  if (wait) wait("broadcast (table file made)");
  mpi::broadcast(comm, problem, 0);
  mpi::broadcast(comm, temporary, 0);
  if (wait) wait(nullptr);
  if (!problem.empty()) return fail_with(Error::Io, root ? problem : "rank 0 cannot make " + file.string() + ": " + problem);

  const TableLayout layout{table_head(h).size(), N};  // (the position list's fields do not change H)
  std::string offset_bytes, crc_bytes;
  for (const std::uint64_t o : offsets) put64(offset_bytes, base + o);
  if (r + 1 == K) put64(offset_bytes, total);  // o_N
  for (const std::uint32_t c : crcs) put32(crc_bytes, c);
  if (!shared_folder) {
    // Rank 0 writes every rank's parts in rank order: its own, then each other rank's
    // as it sends them (blocks, offsets, CRCs), a piece at a time.
    std::vector<std::uint64_t> sizes(root ? K : 0);
    if (wait) wait("gather (coded bytes)");
    if (MPI_Gather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, 0, MPI_Comm(comm)) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Gather failed");
    if (wait) wait(nullptr);
    std::expected<void, Error> w;
    if (root) {
      // Rank q's parts in order: its blocks (a message a window), its offsets, its CRCs
      // (messages of at most kPieceBytes); each written where it goes as it comes.
      std::vector<char> piece;
      std::uint64_t at = 0;
      for (std::uint64_t q = 0; q < K && w; ++q) {
        const auto [q0, q1] = chunk(N, K, q);
        const std::uint64_t parts[3][2] = {{layout.data_at() + at, sizes[q]},
                                           {layout.offsets_at() + 8 * q0, 8 * (q1 - q0) + (q + 1 == K ? 8 : 0)},
                                           {layout.crcs_at() + 4 * q0, 4 * (q1 - q0)}};
        at += sizes[q];
        if (q == 0) {
          for (std::uint64_t to = parts[0][0]; const std::string& window : coded) {
            if (w) w = write_at(pending->fd(), temporary, window.data(), window.size(), to);
            to += window.size();
          }
          if (w) w = write_at(pending->fd(), temporary, offset_bytes.data(), offset_bytes.size(), parts[1][0]);
          if (w) w = write_at(pending->fd(), temporary, crc_bytes.data(), crc_bytes.size(), parts[2][0]);
          continue;
        }
        for (int p = 0; p < 3 && w; ++p)
          for (std::uint64_t done = 0; done < parts[p][1] && w;) {
            MPI_Status status;
            int len = 0;
            if (wait) wait("receive (coded blocks)");
            if (MPI_Probe(static_cast<int>(q), kPiecesTag, MPI_Comm(comm), &status) != MPI_SUCCESS ||
                MPI_Get_count(&status, MPI_BYTE, &len) != MPI_SUCCESS)
              throw std::runtime_error("MPI_Probe failed");
            piece.resize(static_cast<std::size_t>(len));
            if (MPI_Recv(piece.data(), len, MPI_BYTE, static_cast<int>(q), kPiecesTag, MPI_Comm(comm), MPI_STATUS_IGNORE) !=
                MPI_SUCCESS)
              throw std::runtime_error("MPI_Recv failed");
            if (wait) wait(nullptr);
            if (done + static_cast<std::uint64_t>(len) > parts[p][1])
              w = std::unexpected(Error{Error::Internal, "rank " + std::to_string(q) + " sent more bytes than it coded"});
            else
              w = write_at(pending->fd(), temporary, piece.data(), piece.size(), parts[p][0] + done);
            done += static_cast<std::uint64_t>(len);
          }
      }
    } else {
      auto send = [&](const std::string& part) {
        for (std::uint64_t done = 0; done < part.size(); done += kPieceBytes) {
          const std::uint64_t len = std::min<std::uint64_t>(kPieceBytes, part.size() - done);
          if (wait) wait("send (coded blocks)");
          if (MPI_Send(part.data() + done, static_cast<int>(len), MPI_BYTE, 0, kPiecesTag, MPI_Comm(comm)) != MPI_SUCCESS)
            throw std::runtime_error("MPI_Send failed");
          if (wait) wait(nullptr);
        }
      };
      for (const std::string& window : coded) send(window);
      send(offset_bytes);
      send(crc_bytes);
    }
    coded.clear();
    if (!w) return fail_with(Error::Io, w.error().message);  // rank 0's alone: the caller aborts the job
    if (root)
      if (auto c = pending->commit(); !c) return fail_with(Error::Io, c.error().message);
    st.seconds_compressing += compressing;
    st.seconds_writing += since(t_start);
    return {};
  }
  const int fd = root ? pending->fd() : ::open(temporary.c_str(), O_WRONLY | O_CLOEXEC);
  std::expected<void, Error> w = fd >= 0 ? std::expected<void, Error>{}
                                         : std::unexpected(Error{Error::Io, temporary + ": cannot open: " + std::strerror(errno)});
  for (std::uint64_t at = layout.data_at() + base; const std::string& window : coded) {
    if (w) w = write_at(fd, temporary, window.data(), window.size(), at);
    at += window.size();
  }
  if (w) w = write_at(fd, temporary, offset_bytes.data(), offset_bytes.size(), layout.offsets_at() + 8 * b0);
  if (w) w = write_at(fd, temporary, crc_bytes.data(), crc_bytes.size(), layout.crcs_at() + 4 * b0);
  if (!root && fd >= 0) {
    // Synced and closed before rank 0 renames (close also makes the bytes visible to
    // rank 0's node on NFS).
    if (w && ::fdatasync(fd) != 0) w = std::unexpected(Error{Error::Io, temporary + ": cannot sync: " + std::strerror(errno)});
    if (::close(fd) != 0 && w) w = std::unexpected(Error{Error::Io, temporary + ": cannot close: " + std::strerror(errno)});
  }
  coded.clear();
  const bool all_written = all_agree(comm, w ? 1 : 0, wait, "all_reduce (table file written)");
  if (!w) return fail_with(Error::Io, w.error().message);
  if (!all_written) return fail_with(Error::Io, file.string() + ": another rank could not write its blocks");
  if (root)
    if (auto c = pending->commit(); !c) return fail_with(Error::Io, c.error().message);
  st.seconds_compressing += compressing;
  st.seconds_writing += since(t_start);
  return {};
}

}  // namespace mancala::cluster
