// Tables made on the spot for small positions (search.h make_small_tables).
#include <chrono>
#include <numeric>
#include <unordered_set>

#include "mancala/generate.h"
#include "mancala/probe.h"
#include "mancala/search.h"

namespace mancala {

namespace {

// The step of the seeds in play along the moves seen from `root` (breadth first, up to
// `sample` positions): the gcd of every change (Cenne: 4, a capture takes 4 seeds; most
// games 1). A guess, checked by the generation: a class it leaves out that a move
// reaches stops it with MissingTable.
int seed_step(const Variant& v, const Position& root, std::size_t sample) {
  std::unordered_set<Position, PositionHash> seen{root};
  std::vector<Position> queue{root};
  std::vector<Child> kids;
  int step = 0;
  for (std::size_t i = 0; i < queue.size() && step != 1; ++i) {
    v.children(queue[i], kids);
    const int seeds = v.class_of(queue[i]).seeds;
    for (const Child& k : kids) {
      if (k.game_over) continue;
      step = std::gcd(step, seeds - v.class_of(k.next).seeds);
      if (queue.size() < sample && seen.insert(k.next).second) queue.push_back(k.next);
    }
  }
  return step;
}

}  // namespace

Result<SmallTables> make_small_tables(const Variant& v, const Position& root, const std::filesystem::path& dir,
                                      std::uint64_t max_positions, int threads, const Budget& budget) {
  const auto t0 = std::chrono::steady_clock::now();
  if (const std::string e = v.check(root); !e.empty()) return fail_with(Error::BadPosition, e);
  const int seeds = v.class_of(root).seeds;
  GenerateOptions opt;
  opt.max_seeds = seeds;
  opt.out = dir;
  opt.threads = threads;
  opt.budget = budget;
  opt.max_positions = max_positions;
  opt.zstd_level = 1;  // read back at once by this process: speed over size
  // What was made when a stop came: the classes started (a class is solved once the
  // next one starts: its file may still be being written) and those written.
  std::vector<int> started;
  int written = 0;
  opt.on_event = [&](const GenerateEvent& e) {
    if (e.kind == GenerateEvent::Started) started.push_back(e.key.seeds);
    if (e.kind == GenerateEvent::Solved || e.kind == GenerateEvent::Loaded) ++written;
  };
  SmallTables out;
  Result<GenerateReport> made;
  // Whole classes first: only those whose seeds differ from the root's by a multiple
  // of the step the moves show, then (the step was wrong: MissingTable) every class up
  // to the root's seeds; each only if its classes hold at most max_positions
  // positions. Else, or if neither fits, the positions reachable from the root.
  auto size_of = [&](const std::vector<ClassKey>& keys) {
    std::uint64_t n = 0;
    for (const ClassKey& k : keys)
      if ((n += static_cast<std::uint64_t>(ClassIndex(v, k).size())) > max_positions) break;
    return n;
  };
  std::vector<std::pair<std::vector<ClassKey>, std::string>> tries;
  if (v.whole_tables()) {
    std::vector<ClassKey> all = v.solving_order(seeds);
    if (const int step = seed_step(v, root, 4096); step > 1) {
      std::vector<ClassKey> stepped = all;
      std::erase_if(stepped, [&](const ClassKey& k) { return (seeds - k.seeds) % step != 0; });
      tries.emplace_back(std::move(stepped), "every class of " + std::to_string(seeds) + ", " +
                                                 std::to_string(seeds - step) + ", ... seeds");
    }
    tries.emplace_back(std::move(all), "every class up to " + std::to_string(seeds) + " seeds");
  }
  bool whole = false;  // classes were made (and may be left in dir)
  for (const auto& [keys, how] : tries) {
    if (size_of(keys) > max_positions) break;  // the next try holds more
    whole = true;
    out.how = how;
    SolvedClasses solved;
    made = generate_classes(v, keys, opt, solved);
    if (made || made.error().code != Error::MissingTable) break;
  }
  if (!whole || (!made && made.error().code == Error::MissingTable)) {
    if (whole) {  // a guess's files index whole classes: not the reachable set's
      std::error_code ec;
      std::vector<std::filesystem::path> files;
      for (const auto& f : std::filesystem::directory_iterator(dir, ec))
        if (f.path().extension() == ".mtb") files.push_back(f.path());
      for (const auto& f : files) std::filesystem::remove(f, ec);
    }
    started.clear();
    written = 0;
    out.how = "the positions reachable from it";
    made = generate_reachable(v, root, opt);
  }
  if (!made) {
    const Error::Code code = made.error().code;
    if ((code == Error::Cancelled || code == Error::Limit) && budget.stopped()) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::string msg = "stopped while making the tables of " + out.how + " (" + made.error().message + ", " +
                        std::to_string(static_cast<int>(s + 0.5)) + " s): ";
      const std::size_t done = std::max(static_cast<std::size_t>(written), started.empty() ? 0 : started.size() - 1);
      if (done == 0)
        msg += "no class solved yet";
      else
        msg += std::to_string(done) + (done == 1 ? " class" : " classes") + " solved, up to " +
               std::to_string(started[done - 1]) + " seeds";
      if (started.size() > done) msg += "; the class of " + std::to_string(started.back()) + " seeds not finished";
      return fail_with(code, msg);
    }
    return fail_with(Error::TableTooSmall, "no small tables: " + made.error().message);
  }
  auto tb = Tablebase::open(dir);
  if (!tb) return std::unexpected(tb.error());
  out.tables = *tb;
  out.positions = made->positions;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace mancala
