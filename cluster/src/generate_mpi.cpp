// The distributed class loop: resume, solve, gather, write (rank 0), checkpoint.
#include <mpi.h>

#include <algorithm>
#include <boost/mpi/collectives.hpp>
#include <boost/serialization/string.hpp>
#include <chrono>
#include <climits>
#include <cstdio>
#include <system_error>

#include "mancala/cluster.h"

namespace mancala::cluster {

namespace fs = std::filesystem;
namespace mpi = boost::mpi;

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

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
std::expected<void, std::string> describe(ManifestClass& entry, const fs::path& file, const ClassValues& cls,
                                          const char* source) {
  std::error_code ec;
  entry.positions = cls.size();
  entry.file_bytes = fs::file_size(file, ec);
  auto fc = file_crc32(file);
  if (!fc) return std::unexpected(fc.error());
  entry.file_crc32 = *fc;
  entry.values_crc32 = crc32(cls.bytes().data(), cls.bytes().size());
  entry.source = source;
  return {};
}

std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f s", s);
  return b;
}

}  // namespace

std::expected<ClusterReport, ClusterError> generate_distributed(const mpi::communicator& comm, const Variant& v,
                                                               const ClusterGenerateOptions& opt) {
  const auto t_start = clock_type::now();
  const bool root = comm.rank() == 0;
  const int K = comm.size();
  const std::vector<ClassKey> keys = v.classes(opt.max_seeds);
  auto line = [&](const std::string& s) {
    if (root && opt.on_line) opt.on_line(s);
  };
  auto wait = [&](const char* phase) {
    if (opt.solve.wait) opt.solve.wait(phase);
  };

  // Rank 0 prepares the folder; a problem there stops every rank cleanly.
  std::string problem;
  const fs::path manifest_file = manifest_path(opt.out, v.name());
  if (root) {
    std::error_code ec;
    fs::create_directories(opt.out, ec);
    if (ec) problem = opt.out.string() + ": cannot create folder: " + ec.message();
    for (const auto& e : fs::directory_iterator(opt.out, ec)) {
      const std::string name = e.path().filename().string();
      if (name.find(".mtb.tmp.") != std::string::npos || name.find(".manifest.tmp.") != std::string::npos)
        fs::remove(e.path(), ec);
    }
    if (problem.empty() && !opt.resume) {
      bool found = fs::exists(manifest_file, ec);
      for (const ClassKey& k : keys) found = found || fs::exists(opt.out / table_file_name(v.name(), k), ec);
      if (found)
        problem = opt.out.string() + " already holds tables of " + v.name() +
                  "; add --resume to continue that run, or use an empty folder";
    }
  }
  wait("broadcast (start)");
  mpi::broadcast(comm, problem, 0);
  wait(nullptr);
  if (!problem.empty()) return std::unexpected(ClusterError(problem, ClusterError::Code::Refused));

  Manifest manifest;
  manifest.variant = v.name();
  manifest.max_seeds = opt.max_seeds;
  manifest.ranks = K;
  manifest.classes = static_cast<int>(keys.size());
  ClusterReport rep;
  ClusterStats& st = rep.stats;
  SolvedClasses solved;
  const int total = static_cast<int>(keys.size());
  DistributedOptions sopt = opt.solve;

  for (int n = 0; n < total; ++n) {
    const ClassKey& key = keys[static_cast<std::size_t>(n)];
    const std::string file_name = table_file_name(v.name(), key);
    const fs::path file = opt.out / file_name;
    const std::string tag = "[" + std::to_string(n + 1) + "/" + std::to_string(total) + "] class " + to_string(key, v.pits());
    const auto tc = clock_type::now();
    ManifestClass entry;
    entry.number = n + 1;
    entry.key = key;
    entry.file = file_name;

    // Resume: rank 0 loads a finished class and broadcasts it.
    int loaded = 0;
    std::shared_ptr<ClassValues> cls;
    if (root && opt.resume) {
      std::error_code ec;
      if (fs::exists(file, ec)) {
        auto l = load_class(file, v, key);
        if (l) {
          cls = *l;
          loaded = 1;
        } else {
          line(tag + ": " + l.error().message + "; solving the class again");
        }
      }
    }
    wait("broadcast (resume)");
    mpi::broadcast(comm, loaded, 0);
    if (loaded) {
      if (!root) cls = std::make_shared<ClassValues>(ClassIndex(v, key), v.kind());
      broadcast_bytes(comm, cls->bytes());
      wait(nullptr);
      solved.add(cls);
      ++rep.classes_loaded;
      rep.positions += cls->size();
      if (root) {
        if (auto d = describe(entry, file, *cls, "loaded"); !d) return std::unexpected(d.error());
        manifest.done.push_back(entry);
        if (auto w = write_manifest(manifest_file, manifest); !w) return std::unexpected(w.error());
        line(tag + ": loaded, " + std::to_string(cls->size()) + " positions");
      }
      continue;
    }
    wait(nullptr);

    // Solve over all ranks, then replicate the class on every rank.
    sopt.class_number = n + 1;
    auto slice = solve_class_distributed(comm, v, key, solved, sopt, st);
    if (!slice) return std::unexpected("class " + to_string(key, v.pits()) + ": " + slice.error());
    cls = gather_class(comm, v, key, *slice, sopt, st);
    solved.add(cls);
    ++rep.classes_solved;
    rep.positions += cls->size();
    if (root) {
      st.positions += cls->size();
      const auto tw = clock_type::now();
      if (auto w = write_table(file, v, key, cls->bytes(), cls->width(), opt.zstd_level); !w)
        return std::unexpected(w.error().message);
      if (auto d = describe(entry, file, *cls, "solved"); !d) return std::unexpected(d.error());
      const auto width = static_cast<std::uint64_t>(cls->width());
      for (int r = 0; r < K; ++r) {
        const auto [b, e] = chunk(cls->size(), static_cast<std::uint64_t>(K), static_cast<std::uint64_t>(r));
        entry.slices.push_back({r, b, e, crc32(cls->bytes().data() + b * width, static_cast<std::size_t>((e - b) * width))});
      }
      manifest.done.push_back(entry);
      if (auto w = write_manifest(manifest_file, manifest); !w) return std::unexpected(w.error());
      st.seconds_writing += since(tw);
      line(tag + ": " + std::to_string(cls->size()) + " positions, " + seconds_text(since(tc)) + ", " +
           std::to_string(entry.file_bytes) + " bytes");
    }
  }
  if (root) {
    manifest.complete = true;
    if (auto w = write_manifest(manifest_file, manifest); !w) return std::unexpected(w.error());
  }

  // Sum the traffic over ranks (rank 0 gets the totals).
  std::vector<double> mine = {static_cast<double>(st.records), static_cast<double>(st.bytes),
                              static_cast<double>(st.gathered_bytes), st.seconds_solving, st.seconds_exchanging,
                              st.seconds_gathering};
  std::vector<double> sum(mine.size(), 0.0);
  wait("reduce (statistics)");
  if (MPI_Reduce(mine.data(), sum.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM, 0, MPI_Comm(comm)) !=
      MPI_SUCCESS)
    return std::unexpected(std::string("MPI_Reduce failed"));
  wait(nullptr);
  if (root) {
    st.records = static_cast<std::uint64_t>(sum[0]);
    st.bytes = static_cast<std::uint64_t>(sum[1]);
    st.gathered_bytes = static_cast<std::uint64_t>(sum[2]);
    st.seconds_solving = sum[3];
    st.seconds_exchanging = sum[4];
    st.seconds_gathering = sum[5];
  }
  rep.seconds = since(t_start);
  return rep;
}

}  // namespace mancala::cluster
