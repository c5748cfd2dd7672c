// Sharded solved classes (cluster.h, "Sharded lower classes"): each rank writes its
// slice of a solved class into one raw file of the class in the shared table folder,
// and every rank reads the exits of later classes from those files through one
// bounded page cache.
#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <span>
#include <system_error>

#include "mancala/cluster.h"
#include "mancala/lower_store.h"
#include "mpi_support.h"

namespace mancala::cluster {

namespace {

using support::all_agree;

constexpr std::uint64_t kPageBytes = 16384;  // as the spill pages of lower_store.cpp
constexpr const char* kShardPrefix = ".mtb-shard.";

std::string sys_error(const fs::path& p, const char* what) {
  return p.string() + ": cannot " + what + ": " + std::strerror(errno);
}

// A class's values in its raw shard file, read a page at a time through the cache.
class ShardPages : public ValuePages {
 public:
  ShardPages(int fd, fs::path path, std::uint64_t bytes, int width, std::shared_ptr<PageCache> cache, std::uint32_t id)
      : fd_(fd), path_(std::move(path)), bytes_(bytes), width_(static_cast<std::uint64_t>(width)), cache_(std::move(cache)),
        id_(id) {}
  ~ShardPages() override { ::close(fd_); }
  ShardPages(const ShardPages&) = delete;
  ShardPages& operator=(const ShardPages&) = delete;

  Result<ValueBlock> block(Index i) const override {
    const std::uint64_t page = static_cast<std::uint64_t>(i) * width_ / kPageBytes;
    const std::uint64_t from = page * kPageBytes, len = std::min(kPageBytes, bytes_ - from);
    auto data = cache_->get(id_, page, [&](std::vector<std::uint8_t>& out) -> Result<void> {
      out.resize(static_cast<std::size_t>(len));
      for (std::uint64_t got = 0; got < len;) {
        const ssize_t r = ::pread(fd_, out.data() + got, static_cast<std::size_t>(len - got), static_cast<off_t>(from + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return fail_with(Error::Io, r == 0 ? path_.string() + ": short read" : sys_error(path_, "read"));
        got += static_cast<std::uint64_t>(r);
      }
      return {};
    });
    if (!data) return std::unexpected(data.error());
    return ValueBlock{static_cast<Index>(from / width_), static_cast<Index>(len / width_), std::move(*data)};
  }

 private:
  int fd_;
  fs::path path_;
  std::uint64_t bytes_, width_;
  std::shared_ptr<PageCache> cache_;
  std::uint32_t id_;
};

void barrier(const boost::mpi::communicator& comm, const WaitHook& wait, const char* phase) {
  if (wait) wait(phase);
  if (MPI_Barrier(MPI_Comm(comm)) != MPI_SUCCESS) throw std::runtime_error("MPI_Barrier failed");
  if (wait) wait(nullptr);
}

Result<void> write_all(int fd, const fs::path& p, const std::uint8_t* data, std::uint64_t n, std::uint64_t at) {
  for (std::uint64_t done = 0; done < n;) {
    const ssize_t w = ::pwrite(fd, data + done, static_cast<std::size_t>(std::min<std::uint64_t>(n - done, 1u << 30)),
                               static_cast<off_t>(at + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return fail_with(Error::Io, sys_error(p, "write"));
    done += static_cast<std::uint64_t>(w);
  }
  return {};
}

Result<void> read_all(int fd, const fs::path& p, std::uint8_t* out, std::uint64_t n, std::uint64_t at) {
  for (std::uint64_t got = 0; got < n;) {
    const ssize_t r = ::pread(fd, out + got, static_cast<std::size_t>(std::min<std::uint64_t>(n - got, 1u << 30)),
                              static_cast<off_t>(at + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return fail_with(Error::Io, r == 0 ? p.string() + ": short read" : sys_error(p, "read"));
    got += static_cast<std::uint64_t>(r);
  }
  return {};
}

}  // namespace

Shards::Shards(fs::path dir, std::string variant)
    : dir_(std::move(dir)), variant_(std::move(variant)), cache_(std::make_shared<PageCache>(kMaxCacheBytes)) {}

void Shards::set_cache_bytes(std::uint64_t bytes) { cache_->set_capacity(bytes); }
PageCache::Stats Shards::cache_stats() const { return cache_->stats(); }

fs::path Shards::path(const ClassKey& key) const {
  return dir_ / (kShardPrefix + table_file_name(variant_, key) + ".values");
}

Result<std::shared_ptr<ClassValues>> Shards::publish(const boost::mpi::communicator& comm, const Variant& v,
                                                     const ClassIndex& index, std::vector<std::uint8_t>&& bytes,
                                                     std::uint64_t first_byte, const WaitHook& wait) {
  const fs::path p = path(index.key());
  const std::uint64_t width = v.kind() == GameKind::Score ? 1 : 2, total = index.size() * width;
  // Rank 0 makes the file at its full size; each rank writes its bytes at its offset
  // and closes it (close-to-open: a rank that opens it after the barrier sees them).
  std::string problem;
  if (comm.rank() == 0) {
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(total)) != 0) problem = sys_error(p, "create");
    if (fd >= 0) ::close(fd);
  }
  if (!all_agree(comm, problem.empty())) return fail_with(Error::Io, problem.empty() ? "rank 0 cannot create " + p.string() : problem);
  barrier(comm, wait, "barrier (shard file made)");
  if (!bytes.empty()) {
    const int fd = ::open(p.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return fail_with(Error::Io, sys_error(p, "open"));
    // No fsync: the file is scratch (a resumed job writes it again), and close() is
    // what makes the bytes visible to the other nodes' opens (NFS close-to-open).
    auto w = write_all(fd, p, bytes.data(), bytes.size(), first_byte);
    if (::close(fd) != 0 && w) w = fail_with(Error::Io, sys_error(p, "close"));
    if (!w) return std::unexpected(w.error());
  }
  std::vector<std::uint8_t>().swap(bytes);
  barrier(comm, wait, "barrier (shard file written)");
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail_with(Error::Io, sys_error(p, "open"));
  auto pages = std::make_shared<ShardPages>(fd, p, total, static_cast<int>(width), cache_, next_id_++);
  return std::make_shared<ClassValues>(index, v.kind(), std::move(pages));
}

Result<std::vector<std::uint8_t>> Shards::read(const ClassKey& key, std::uint64_t first_byte, std::uint64_t bytes) const {
  const fs::path p = path(key);
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail_with(Error::Io, sys_error(p, "open"));
  std::vector<std::uint8_t> out(static_cast<std::size_t>(bytes));
  auto r = read_all(fd, p, out.data(), bytes, first_byte);
  ::close(fd);
  if (!r) return std::unexpected(r.error());
  return out;
}

// ---- Checkpoints inside a class (cluster.h) ------------------------------------------

namespace {

constexpr const char* kCheckpointPrefix = ".mtb-checkpoint.";

// The fields of a checkpoint's meta file (its second line), as the file says them.
struct CheckpointMeta {
  std::uint64_t positions = 0, code_bytes = 0;
  std::string method;
  int step = -1, number = -1, ranks = 0;
};

std::optional<CheckpointMeta> read_meta(const fs::path& p) {
  std::ifstream in(p);
  std::string head;
  if (!std::getline(in, head) || head != "mancala-tb-mpi checkpoint 1") return std::nullopt;
  CheckpointMeta m;
  std::string k1, k2, k3, k4, k5, k6;
  if (!(in >> k1 >> m.positions >> k2 >> m.method >> k3 >> m.code_bytes >> k4 >> m.step >> k5 >> m.number >> k6 >> m.ranks))
    return std::nullopt;
  if (k1 != "positions" || k2 != "method" || k3 != "code_bytes" || k4 != "step" || k5 != "number" || k6 != "ranks")
    return std::nullopt;
  return m;
}

}  // namespace

ClassCheckpoint::ClassCheckpoint(const boost::mpi::communicator& comm, fs::path dir, const std::string& table_file,
                                 Index positions, double interval_seconds, bool resume, WaitHook wait)
    : comm_(comm), dir_(std::move(dir)), table_file_(table_file), positions_(positions), interval_(interval_seconds),
      resume_(resume), wait_(std::move(wait)), last_(std::chrono::steady_clock::now()) {}

fs::path ClassCheckpoint::file(int number) const {
  std::string name = kCheckpointPrefix + table_file_;  // (appended: GCC 12 took "." + a temporary for an overlapping memcpy)
  name += number < 0 ? ".meta" : number % 2 ? ".1" : ".0";
  return dir_ / name;
}

int ClassCheckpoint::resume(const char* method, std::span<std::uint8_t> codes, std::size_t code_bytes) {
  if (!resume_) return -1;
  // Rank 0 reads the meta; every rank reads its slice of the file it names.
  int found[2] = {-1, -1};  // step, number
  std::string why;
  if (comm_.rank() == 0) {
    std::error_code ec;
    if (fs::exists(file(-1), ec)) {
      const auto m = read_meta(file(-1));
      const std::uint64_t size = m ? fs::file_size(file(m->number), ec) : 0;
      if (!m)
        why = "its meta file is malformed";
      else if (m->positions != positions_ || m->method != method || m->code_bytes != code_bytes)
        why = "it is of another class or method (" + std::to_string(m->positions) + " positions, " + m->method + ")";
      else if (ec || size != positions_ * code_bytes)
        why = file(m->number).string() + " is missing or of the wrong size";
      else
        found[0] = m->step, found[1] = m->number;
    }
  }
  if (MPI_Bcast(found, 2, MPI_INT, 0, MPI_Comm(comm_)) != MPI_SUCCESS) throw std::runtime_error("MPI_Bcast failed");
  if (found[0] < 0) {
    if (!why.empty() && on_line) on_line("checkpoint of " + table_file_ + " not used: " + why);
    return -1;
  }
  const auto K = static_cast<std::uint64_t>(comm_.size()), r = static_cast<std::uint64_t>(comm_.rank());
  const std::uint64_t first = chunk_start(positions_, K, r) * code_bytes;
  const fs::path p = file(found[1]);
  Result<void> got = fail_with(Error::Io, sys_error(p, "open"));
  if (const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    got = read_all(fd, p, codes.data(), codes.size(), first);
    ::close(fd);
  }
  if (!all_agree(comm_, got ? 1 : 0)) {
    if (on_line) on_line("checkpoint of " + table_file_ + " not used: " + (got ? "another rank cannot read it" : got.error().message));
    return -1;
  }
  number_ = found[1] + 1;
  last_step_ = found[0];
  last_ = std::chrono::steady_clock::now();
  if (on_line)
    on_line("resumed from checkpoint " + std::to_string(found[1]) + " (" + method + ", step " + std::to_string(found[0]) +
            ") of " + table_file_);
  return found[0];
}

bool ClassCheckpoint::save(const char* method, int step, std::span<const std::uint8_t> codes, std::size_t code_bytes) {
  if (interval_ < 0 || step == last_step_) return false;  // (the step resumed from)
  if (interval_ > 0) {  // due when it is on some rank
    int due = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= interval_ ? 1 : 0, any = 0;
    if (wait_) wait_("all_reduce (checkpoint due)");
    if (MPI_Allreduce(&due, &any, 1, MPI_INT, MPI_MAX, MPI_Comm(comm_)) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Allreduce failed");
    if (wait_) wait_(nullptr);
    if (!any) return false;
  }
  // Every rank writes its slice into the file not named by the meta, and syncs it.
  const auto K = static_cast<std::uint64_t>(comm_.size()), r = static_cast<std::uint64_t>(comm_.rank());
  const std::uint64_t first = chunk_start(positions_, K, r) * code_bytes;
  const fs::path p = file(number_);
  Result<void> w = fail_with(Error::Io, sys_error(p, "create"));
  if (const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644); fd >= 0) {
    w = ::ftruncate(fd, static_cast<off_t>(positions_ * code_bytes)) == 0 ? Result<void>{}
                                                                          : fail_with(Error::Io, sys_error(p, "resize"));
    if (w) w = write_all(fd, p, codes.data(), codes.size(), first);
    if (w && ::fdatasync(fd) != 0) w = fail_with(Error::Io, sys_error(p, "sync"));
    if (::close(fd) != 0 && w) w = fail_with(Error::Io, sys_error(p, "close"));
  }
  if (wait_) wait_("all_reduce (checkpoint written)");
  const int written = all_agree(comm_, w ? 1 : 0);
  if (wait_) wait_(nullptr);
  if (!written)
    throw std::runtime_error("checkpoint of " + table_file_ + ": " + (w ? "another rank cannot write it" : w.error().message));
  // Then rank 0 names it in the meta (the previous checkpoint stays whole until then).
  std::string problem;
  if (comm_.rank() == 0) {
    const fs::path meta = file(-1), tmp = meta.string() + ".tmp";
    std::ostringstream text;
    text << "mancala-tb-mpi checkpoint 1\npositions " << positions_ << " method " << method << " code_bytes " << code_bytes
         << " step " << step << " number " << number_ << " ranks " << K << "\n";
    const std::string t = text.str();
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    auto m = fd >= 0 ? write_all(fd, tmp, reinterpret_cast<const std::uint8_t*>(t.data()), t.size(), 0)
                     : fail_with(Error::Io, sys_error(tmp, "create"));
    if (fd >= 0 && m && ::fsync(fd) != 0) m = fail_with(Error::Io, sys_error(tmp, "sync"));
    if (fd >= 0) ::close(fd);
    std::error_code ec;
    if (m) fs::rename(tmp, meta, ec);
    problem = !m ? m.error().message : ec ? meta.string() + ": cannot rename into place: " + ec.message() : "";
    if (problem.empty() && on_line)
      on_line("checkpoint " + std::to_string(number_) + " (" + method + ", step " + std::to_string(step) + ") of " + table_file_);
  }
  if (!all_agree(comm_, problem.empty() ? 1 : 0))
    throw std::runtime_error("checkpoint of " + table_file_ + ": " + (problem.empty() ? "rank 0 cannot write its meta" : problem));
  ++number_;
  last_step_ = step;
  last_ = std::chrono::steady_clock::now();
  return true;
}

void ClassCheckpoint::remove(const fs::path& dir, const std::string& table_file) {
  std::error_code ec;
  for (const char* tail : {".0", ".1", ".meta", ".meta.tmp"}) fs::remove(dir / (kCheckpointPrefix + table_file + tail), ec);
}

void ClassCheckpoint::remove_all(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().starts_with(kCheckpointPrefix)) fs::remove(e.path(), ec);
}

void Shards::remove_all(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().starts_with(kShardPrefix)) fs::remove(e.path(), ec);
}

bool Shards::shared_folder(const boost::mpi::communicator& comm, const fs::path& dir, const WaitHook& wait) {
  // Rank 0 writes a random token into a file of the folder; every rank reads it back.
  std::uint64_t token = 0;
  const fs::path p = dir / (std::string(kShardPrefix) + "probe");
  int made = 0;
  if (comm.rank() == 0) {
    token = std::random_device{}() * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(::getpid());
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      made = write_all(fd, p, reinterpret_cast<const std::uint8_t*>(&token), sizeof token, 0) && ::fsync(fd) == 0;
      made = (::close(fd) == 0) && made;
    }
  }
  if (wait) wait("broadcast (shared folder check)");
  if (MPI_Bcast(&token, 1, MPI_UINT64_T, 0, MPI_Comm(comm)) != MPI_SUCCESS ||
      MPI_Bcast(&made, 1, MPI_INT, 0, MPI_Comm(comm)) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Bcast failed");
  if (wait) wait(nullptr);
  int seen = 0;
  if (made) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    std::uint64_t got = 0;
    if (fd >= 0) {
      seen = ::pread(fd, &got, sizeof got, 0) == static_cast<ssize_t>(sizeof got) && got == token;
      ::close(fd);
    }
  }
  const int all = all_agree(comm, seen);
  barrier(comm, wait, "barrier (shared folder check)");
  if (comm.rank() == 0) {
    std::error_code ec;
    fs::remove(p, ec);
  }
  return all == 1;
}

}  // namespace mancala::cluster
