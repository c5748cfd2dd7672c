// The distributed generation: the class loop of generate.h with the hooks where the
// ranks meet (solve over all ranks and gather, share a resumed class, the manifest).
#include <mpi.h>

#include <algorithm>
#include <boost/mpi/collectives.hpp>
#include <boost/serialization/string.hpp>
#include <chrono>
#include <climits>
#include <cstdio>
#include <optional>
#include <system_error>

#include "mancala/cluster.h"
#include "mancala/reachable.h"

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
Result<void> describe(ManifestClass& entry, const fs::path& file, const ClassValues& cls, const char* source) {
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
    return "[" + std::to_string(number) + "/" + std::to_string(total) + "] class " + to_string(key, v.pits());
  };

  // The class loop of generate.h, with the places where ranks meet.
  ClassLoopHooks hooks;
  hooks.writer = root;
  hooks.solve = [&](int number, const ClassIndex& index, const SolvedClasses& solved, const SolveOptions& so,
                    SolveStats&) -> Result<std::shared_ptr<ClassValues>> {
    sopt.class_number = number;
    sopt.local = so;  // the class loop's choices for this rank (threads, method, budget, kept ranks)
    auto slice = solve_class_distributed(comm, v, index, solved, sopt, st);
    if (!slice) return fail_with(slice.error().code, "class " + to_string(index.key(), v.pits()) + ": " + slice.error().message);
    st.positions += root ? index.size() : 0;
    return gather_class(comm, v, index, *slice, sopt, st);
  };
  hooks.share = [&](std::shared_ptr<ClassValues> loaded, const ClassIndex& index) -> std::shared_ptr<ClassValues> {
    int have = loaded ? 1 : 0;
    wait("broadcast (resume)");
    mpi::broadcast(comm, have, 0);
    if (have) {
      if (!root) loaded = std::make_shared<ClassValues>(index, v.kind());
      broadcast_bytes(comm, loaded->bytes());
    }
    wait(nullptr);
    return have ? loaded : nullptr;
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
    if (!loaded) {
      const auto width = static_cast<std::uint64_t>(cls.width());
      for (int r = 0; r < K; ++r) {
        const auto [b, e] = chunk(cls.size(), static_cast<std::uint64_t>(K), static_cast<std::uint64_t>(r));
        entry.slices.push_back({r, b, e, crc32(cls.bytes().data() + b * width, static_cast<std::size_t>((e - b) * width))});
      }
    }
    manifest.done.push_back(entry);
    if (auto w = write_manifest(manifest_file, manifest); !w) return std::unexpected(w.error());
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
  g.memory_bytes = opt.memory_bytes;
  SolvedClasses solved;
  auto done = generate_classes(v, keys, g, solved, plan.reachable ? &plan.reachable->classes : nullptr, hooks);
  if (!done) return std::unexpected(done.error());
  rep.classes_solved = done->classes_solved;
  rep.classes_loaded = done->classes_loaded;
  rep.positions = done->positions;
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
    return fail_with(Error::Internal, "MPI_Reduce failed");
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
