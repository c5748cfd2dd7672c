// solve: the perfect-play value of a position by search over the tables (issue 6).
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <unistd.h>
#include <optional>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "mancala/probe.h"
#include "mancala/proof.h"
#include "mancala/search.h"
#include "mancala/strategy.h"

namespace mancala::cli {

namespace {

std::atomic<bool> g_cancel{false};
extern "C" void on_solve_signal(int) { g_cancel.store(true); }

using Json = nlohmann::ordered_json;

// A value in JSON: the margin, or "win"/"draw"/"loss" and "depth" (plies) for win/loss games.
void put_value(Json& o, GameKind kind, Value v) {
  if (kind == GameKind::WinLoss) {
    o["value"] = v > 0 ? "win" : v < 0 ? "loss" : "draw";
    o["depth"] = plies_of(v);
  } else {
    o["value"] = v;
  }
}

// A search's error with what to do about it in this command's terms (the search
// names no flag or command).
SearchError with_hint(SearchError e, const Variant& v, const std::shared_ptr<const Tablebase>& tables) {
  if (e.code == SearchError::TableTooSmall) e.message += "; raise --tt-mb";
  if (e.code == SearchError::OutOfMemory) e.message += "; lower --tt-mb or --threads";
  if (e.code == SearchError::MissingTable && tables) {
    int max = -1;
    for (const ClassKey& k : tables->classes(v.name())) max = std::max(max, k.seeds);
    const std::string make = "mancala-tb generate " + v.name() + " --max-seeds " + std::to_string(max < 0 ? 8 : max) +
                             " --out " + tables->dir().string();
    e.message += max < 0 ? "; make some with: " + make + " (or solve without --tables)" : "; make it with: " + make;
  }
  return e;
}

// A search that failed: 130 after Ctrl-C, else the error as one line (exit 2, or 1
// when `usage` is false: a failure of the search itself, not of the request).
int search_failed(const SearchError& e, bool usage = true) {
  if (e.code == SearchError::Cancelled) {
    std::fprintf(stderr, "mancala-tb solve: interrupted\n");
    return 130;
  }
  if (usage) throw UsageError(e.message);
  throw std::runtime_error(e.message);
}

// Replays the principal variation with the rules engine, move by move from `root`
// by the moves' labels (not the search's own positions), and returns what the line
// is worth to the side to move at `root`: the gains of every move, the terminal value
// where the line ends the game, 0 for a line ending in endless play. For win/loss
// games, the plies of the line. Empty if a label is not a legal move on the way.
std::optional<int> replay_pv(const Variant& v, const Position& root, const std::vector<Child>& pv) {
  Position cur = root;
  int margin = 0, sign = 1;
  std::vector<Child> kids;
  for (const Child& step : pv) {
    v.children(cur, kids);
    const auto it = std::find_if(kids.begin(), kids.end(), [&](const Child& k) {
      return v.move_name(k.move) == v.move_name(step.move);
    });
    if (it == kids.end()) return std::nullopt;
    margin += sign * (it->gain_mover - it->gain_opponent);
    if (it->game_over) return v.kind() == GameKind::WinLoss ? static_cast<int>(pv.size()) : margin;
    if (!it->same_side) sign = -sign;
    cur = it->next;
  }
  if (v.kind() == GameKind::WinLoss) return static_cast<int>(pv.size());
  v.children(cur, kids);
  if (kids.empty()) margin += sign * v.terminal_value(cur);
  return margin;
}

// solve --max-plies: depth-bounded proof for win/loss games (proof.h).
int prove(const VariantPtr& v, const ParsedPosition& pp, int max_plies, int tt_mb, int time_limit, bool json) {
  ProofOptions opt;
  opt.max_plies = max_plies;
  opt.tt_bytes = static_cast<std::uint64_t>(std::max(tt_mb, 1)) << 20;
  opt.budget.deadline_in(time_limit).cancel_on(&g_cancel);
  Progress bar(stderr_is_terminal());
  opt.progress = [&](const ProofProgress& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "no forced result within %d plies, %.3g positions searched", s.depth,
                  static_cast<double>(s.nodes));
    bar.show(buf, static_cast<std::uint64_t>(s.depth), static_cast<std::uint64_t>(std::max(1, max_plies)), nullptr);
  };
  auto r = prove_within(v, pp.position, opt);
  bar.finish();
  if (!r && v->kind() != GameKind::WinLoss) throw UsageError(r.error().message + " (solve without --max-plies)");
  if (!r) return search_failed(with_hint(r.error(), *v, nullptr));
  const std::string pos = format_position(*v, pp.position, pp.side);
  const char* outcome = r->outcome == ProofResult::Win ? "win" : r->outcome == ProofResult::Loss ? "loss" : "open";
  std::vector<std::string> pv;
  for (const Child& c : r->pv) pv.push_back(v->move_name(c.move));
  if (json) {
    Json o;
    o["position"] = pos;
    o["value"] = outcome;
    if (r->outcome != ProofResult::Open) o["depth"] = r->plies;
    o["searched_plies"] = r->searched;
    o["pv"] = pv;
    o["nodes"] = r->nodes;
    o["seconds"] = r->seconds;
    std::printf("%s\n", o.dump().c_str());
    return 0;
  }
  std::printf("%s\n", pos.c_str());
  if (r->outcome == ProofResult::Open)
    std::printf("  open: neither side forces a result within %d plies (proved; a draw or a longer game)%s\n",
                r->searched, r->searched < max_plies ? ", the time limit stopped the search" : "");
  else
    std::printf("  value %s in %d plies\n", outcome, r->plies);
  if (!pv.empty()) {
    std::string line;
    for (const auto& m : pv) line += (line.empty() ? "" : " ") + m;
    std::printf("  pv %s\n", line.c_str());
  }
  std::printf("  %llu positions searched, %.3f s\n", static_cast<unsigned long long>(r->nodes), r->seconds);
  return 0;
}

// One strategy proof (strategy.h) as JSON fields and as a line of text.
void put_safety(Json& o, const SafetyResult& s) {
  o["outcome"] = s.outcome == SafetyResult::Safe ? "safe" : "lost";
  o["certificate"] = s.certificate;
  o["positions"] = s.positions;
  o["expanded"] = s.expanded;
  o["skipped"] = s.skipped;
  o["rechosen"] = s.rechosen;
  o["seconds"] = s.seconds;
}
void print_safety(char side, const SafetyResult& s) {
  if (s.outcome == SafetyResult::Safe)
    std::printf("  %c never loses: a strategy checked against every reply, %llu positions", side,
                static_cast<unsigned long long>(s.certificate));
  else
    std::printf("  %c loses: every defence of %c was tried", side, side);
  std::printf(" (%llu in the proof graph, %.1f s)\n", static_cast<unsigned long long>(s.positions), s.seconds);
}

// solve --strategy: win / draw / loss by two strategy proofs (strategy.h).
int decide(const VariantPtr& v, const ParsedPosition& pp, int tt_mb, int time_limit, bool json, std::optional<Side> only) {
  SafetyOptions opt;
  opt.memory_bytes = static_cast<std::uint64_t>(std::max(tt_mb, 1)) << 20;
  opt.budget.deadline_in(time_limit).cancel_on(&g_cancel);
  Progress bar(stderr_is_terminal());
  opt.progress = [&](const SafetyProgress& s) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%.3g positions, %.3g expanded, %.3g pending, %.3g lost for the defender, %.0f s",
                  static_cast<double>(s.positions), static_cast<double>(s.expanded), static_cast<double>(s.pending),
                  static_cast<double>(s.attractor), s.seconds);
    bar.show(buf, s.expanded, s.expanded + s.pending);
  };
  if (only) {  // one proof: can this side avoid losing?
    auto one = prove_safe(v, pp.position, *only == pp.side, opt);
    bar.finish();
    if (!one) return search_failed(with_hint(one.error(), *v, nullptr));
    const std::string pos = format_position(*v, pp.position, pp.side);
    if (json) {
      Json o;
      o["position"] = pos;
      o["defender"] = std::string(1, side_char(*only));
      put_safety(o, *one);
      std::printf("%s\n", o.dump().c_str());
    } else {
      std::printf("%s\n", pos.c_str());
      print_safety(side_char(*only), *one);
    }
    return 0;
  }
  auto r = decide_win_loss(v, pp.position, opt);
  bar.finish();
  if (!r) return search_failed(with_hint(r.error(), *v, nullptr));
  // A forced result: its plies by the depth-bounded proof (iterative deepening ends,
  // as the result is forced), within what is left of the time limit.
  std::optional<ProofResult> plies;
  if (r->outcome != WinLossDecision::Draw) {
    ProofOptions po;
    po.max_plies = 2000;
    po.tt_bytes = opt.memory_bytes;
    const double used = r->mover.seconds + r->opponent.seconds;
    po.budget.deadline_in(time_limit > 0 ? std::max(1.0, time_limit - used) : 0).cancel_on(&g_cancel);
    if (auto p = prove_within(v, pp.position, po); p && p->outcome != ProofResult::Open) plies = *p;
  }
  const std::string pos = format_position(*v, pp.position, pp.side);
  const char* outcome = r->outcome == WinLossDecision::Win ? "win" : r->outcome == WinLossDecision::Loss ? "loss" : "draw";
  const char mover = side_char(pp.side), other = side_char(opposite(pp.side));
  const bool both = r->outcome != WinLossDecision::Loss;
  if (json) {
    Json o;
    o["position"] = pos;
    o["value"] = outcome;
    if (plies) o["depth"] = plies->plies;
    o["method"] = "strategy";
    put_safety(o["mover"], r->mover);
    if (both) put_safety(o["opponent"], r->opponent);
    std::printf("%s\n", o.dump().c_str());
    return 0;
  }
  if (plies)
    std::printf("%s\n  value %s in %d plies (proved by strategies; plies by the depth-bounded proof)\n", pos.c_str(), outcome,
                plies->plies);
  else if (r->outcome == WinLossDecision::Draw)
    std::printf("%s\n  value draw (proved by strategies: neither side can force a win)\n", pos.c_str());
  else
    std::printf("%s\n  value %s (proved by strategies; the time limit stopped the count of plies)\n", pos.c_str(), outcome);
  print_safety(mover, r->mover);
  if (both) print_safety(other, r->opponent);
  return 0;
}

struct SolveArgs {
  std::vector<std::string> position;
  std::string tables, defender, cycles = "alphabeta", tt_file;
  int per_pit = 0, tt_mb = 256, threads = 0, time_limit = 0, max_plies = -1;
  int auto_mpos = 12, first_mpos = 16, guess_depth = SearchOptions{}.guess_depth;
  bool json = false, no_pv = false, strategy = false, best_only = false, no_auto_tables = false, no_huge_pages = false;
};

int run_solve(const SolveArgs& a) {
  const std::string& tables_dir = a.tables;
  const int tt_mb = a.tt_mb, threads = a.threads, time_limit = a.time_limit, max_plies = a.max_plies;
  const bool json = a.json, no_pv = a.no_pv, strategy = a.strategy;
  const auto w = split_words(a.position);
  const bool best_only = a.best_only, no_auto_tables = a.no_auto_tables;
  const int auto_mpos = a.auto_mpos, guess_depth = a.guess_depth;
  if (w.empty()) throw UsageError("solve needs a VARIANT (see --help)");
  if (w.size() > 1 && a.per_pit) throw UsageError("--per-pit makes a start position; give either it or PITS SIDE");
  const ParsedPosition pp = position_from_words(w, 0, w.size(), a.per_pit);
  const VariantPtr v = pp.variant;

  if (strategy && max_plies >= 0) throw UsageError("give either --strategy or --max-plies");
  std::optional<Side> defender;
  if (!a.defender.empty()) {
    if (!strategy) throw UsageError("--defender goes with --strategy");
    defender = a.defender == "S" ? Side::South : Side::North;
  }
  if (!a.tt_file.empty() && (strategy || max_plies >= 0)) throw UsageError("--tt-file goes with the search, not --strategy or --max-plies");
  if (!a.tt_file.empty())  // a path that cannot be written stops solve before the search, not after it
    if (auto ok = Searcher::check_table_file(a.tt_file); !ok) throw UsageError("--tt-file " + ok.error().message);
  if (strategy) return decide(v, pp, tt_mb, time_limit, json, defender);
  if (max_plies >= 0) return prove(v, pp, max_plies, tt_mb, time_limit, json);

  SearchOptions opt;
  // --time-limit counts from here: it covers the tables made on the spot and the search.
  opt.budget.deadline_in(time_limit).cancel_on(&g_cancel);
  std::signal(SIGINT, on_solve_signal);
  std::signal(SIGTERM, on_solve_signal);  // a cluster job's end: --tt-file is still written
  // Without --tables, a small game gets its tables made on the spot in a temporary
  // folder (removed when solve ends).
  struct RemoveAtExit {
    std::filesystem::path dir;
    ~RemoveAtExit() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } made_dir;
  opt.tt_bytes = static_cast<std::uint64_t>(tt_mb) << 20;
  opt.huge_pages = !a.no_huge_pages;
  opt.threads = threads;
  opt.principal_variation = !no_pv;
  opt.all_moves = !best_only;
  opt.guess_depth = guess_depth;
  opt.cycles = a.cycles == "region" ? CycleMethod::Region : CycleMethod::AlphaBeta;
  // Without --tables: first the search alone, up to --first-search-mpos million
  // positions (many starts need few: Cenne 7:7 or Enkeshui 2x8 with 1 seed a pit),
  // then tables made on the spot, else the search alone without that limit.
  std::optional<SearchResult> first;
  if (tables_dir.empty() && !no_auto_tables && a.first_mpos > 0 && a.tt_file.empty()) {
    SearchOptions q = opt;
    q.budget.work_limit(static_cast<std::uint64_t>(a.first_mpos) * 1'000'000);
    auto r = solve_position(v, pp.position, q);
    if (r) {
      first = std::move(*r);
      if (!quiet()) std::fprintf(stderr, "mancala-tb solve: no --tables given: solved by search alone (%llu positions, %.2f s)\n",
                   static_cast<unsigned long long>(first->nodes), first->seconds);
    } else if (r.error().code != SearchError::Limit || opt.budget.stopped()) {
      return search_failed(with_hint(r.error(), *v, nullptr), false);
    } else {
      if (!quiet()) std::fprintf(stderr, "mancala-tb solve: no --tables given: the search alone stopped at %d million positions\n",
                   a.first_mpos);
    }
  }
  if (!tables_dir.empty()) {
    auto tb = Tablebase::open(tables_dir);
    if (!tb) throw std::runtime_error(tb.error().message);  // exit 1 with "error:", as probe
    opt.tables = *tb;
  } else if (!first && !no_auto_tables) {
    made_dir.dir = std::filesystem::temp_directory_path() / ("mancala-tb-solve-" + std::to_string(::getpid()));
    auto made = make_small_tables(*v, pp.position, made_dir.dir, static_cast<std::uint64_t>(auto_mpos) * 1'000'000,
                                  threads, opt.budget);
    if (made) {
      opt.tables = made->tables;
      if (!quiet()) std::fprintf(stderr, "mancala-tb solve: no --tables given: made the tables of %s (%llu positions, %.2f s)\n",
                   made->how.c_str(), static_cast<unsigned long long>(made->positions), made->seconds);
    } else if (made.error().code == SearchError::Cancelled || made.error().code == SearchError::Limit) {
      return search_failed(made.error(), false);
    } else {
      if (!quiet()) std::fprintf(stderr, "mancala-tb solve: no --tables given and too large for tables made on the spot (%s); searching without tables\n",
                   made.error().message.c_str());
    }
  }
  Progress bar(stderr_is_terminal());
  opt.progress = [&](const SearchProgress& s) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%d/%d first moves, %s in [%d, %d], %.3g positions", s.root_moves_done,
                  s.root_moves, s.current.c_str(), s.lower, s.upper, static_cast<double>(s.nodes));
    bar.show(buf, static_cast<std::uint64_t>(s.root_moves_done), static_cast<std::uint64_t>(std::max(1, s.root_moves)), nullptr);
  };
  std::expected<SearchResult, SearchError> r = std::unexpected(SearchError{SearchError::Limit, ""});
  bool saved = true;
  if (first) {
    r = std::move(*first);
  } else {
    auto searcher = Searcher::create(v, opt);
    if (!searcher) throw UsageError(with_hint(searcher.error(), *v, opt.tables).message);
    // --tt-file: what an earlier run proved first; what this one proved is written
    // back whatever ends it (a value, the time limit, Ctrl-C). A file that cannot be
    // read stops solve before anything is searched, and is left as it is.
    std::error_code ec;
    if (!a.tt_file.empty() && std::filesystem::exists(a.tt_file, ec)) {
      auto n = (*searcher)->load_table(a.tt_file);
      if (!n) throw UsageError("--tt-file " + n.error().message);
      if (!quiet()) std::fprintf(stderr, "mancala-tb solve: read %llu entries of the transposition table from %s\n",
                   static_cast<unsigned long long>(*n), a.tt_file.c_str());
    }
    r = (*searcher)->solve(pp.position);
    if (!a.tt_file.empty()) {
      bar.finish();
      auto n = (*searcher)->save_table(a.tt_file);
      if (n)
        std::fprintf(stderr, "mancala-tb solve: wrote %llu entries of the transposition table to %s\n",
                     static_cast<unsigned long long>(*n), a.tt_file.c_str());
      else
        std::fprintf(stderr, "mancala-tb solve: error: --tt-file %s\n", n.error().message.c_str());
      saved = n.has_value();
    }
  }
  bar.finish();
  if (!r) return search_failed(with_hint(r.error(), *v, opt.tables), false);
  const std::string pos = format_position(*v, pp.position, pp.side);
  // The principal variation with the side that plays each move.
  std::vector<std::string> pv;
  Side side = pp.side;
  std::string pv_text;
  for (const Child& c : r->pv) {
    pv.push_back(v->move_name(c.move));
    pv_text += std::string(pv_text.empty() ? "" : " ") + side_char(side) + ":" + pv.back();
    if (!c.same_side) side = opposite(side);
  }
  if (json) {
    Json o;
    o["position"] = pos;
    put_value(o, v->kind(), r->value);
    o["pv"] = pv;
    o["pv_end"] = r->pv_end;
    o["moves"] = Json::array();
    for (const auto& m : r->moves) {
      Json jm;
      jm["move"] = v->move_name(m.move);
      put_value(jm, v->kind(), m.value);
      o["moves"].push_back(std::move(jm));
    }
    if (!no_pv)
      if (const auto m = replay_pv(*v, pp.position, r->pv)) o[v->kind() == GameKind::WinLoss ? "pv_plies" : "pv_margin"] = *m;
    o["nodes"] = r->nodes;
    o["table_hits"] = r->table_hits;
    o["seconds"] = r->seconds;
    std::printf("%s\n", o.dump().c_str());
    return saved ? 0 : 1;
  }
  std::printf("%s\n  value %s\n", pos.c_str(), value_text(v->kind(), r->value).c_str());
  if (r->moves.empty()) std::printf("  no legal move: the game is over\n");
  for (const auto& m : r->moves)
    std::printf("  move %-12s %-10s gains %d/%d%s\n", v->move_name(m.move).c_str(), value_text(v->kind(), m.value).c_str(),
                m.child.gain_mover, m.child.gain_opponent, m.child.same_side ? " (moves again)" : "");
  if (!no_pv) std::printf("  pv %s (%s)\n", pv_text.empty() ? "-" : pv_text.c_str(), r->pv_end.c_str());
  std::printf("  %llu positions searched, %llu table values, %.3f s\n", static_cast<unsigned long long>(r->nodes),
              static_cast<unsigned long long>(r->table_hits), r->seconds);
  return saved ? 0 : 1;
}

}  // namespace

void add_solve_command(CLI::App& root, std::vector<Command>& out) {
  auto a = std::make_shared<SolveArgs>();
  CLI::App* c = add_command(
      root, "solve", "perfect-play value of a position by search over the tables",
      {"mancala-tb solve VARIANT [PITS SIDE [FLAGS]] [--tables DIR] [--per-pit N] [options]",
       "The exact value of a position under perfect play, by search: MTD(f) alpha-beta to\n"
       "the end of the game, with a transposition table, a repeated position scored as\n"
       "endless play (0), and every position the tables cover taken from the tables.\n"
       "Without PITS SIDE it solves the variant's start position. The position is one\n"
       "argument or split.\n\n"
       "The value is the margin of the seeds still in play that the side to move can force\n"
       "(seeds already captured do not count); a first move's value is its gains plus the\n"
       "value of the position after it, from the mover's view. The principal variation is\n"
       "a line of optimal moves, replayed with the rules engine, to the end of the game.",
       {"mancala-tb solve kalah:3:empty --per-pit 3",
        "mancala-tb solve \"kalah:2:empty 1,1/1,1 S\"",
        "mancala-tb solve enkeshui:8 --per-pit 1",
        "mancala-tb solve kalah:4:empty --per-pit 3 --tt-file k43.tt --no-auto-tables",
        "mancala-tb generate oware --max-seeds 8 --out tb/",
        "mancala-tb solve oware 0,0,3,0,1,2/1,1,0,0,0,1 S --tables tb/",
        "mancala-tb solve imbelece 1,0,0,0,0,0,0,1/1,0,0,0,0,0,1,1 S first --max-plies 8",
        "mancala-tb solve imbelece 1,0,0,0,0,0,0,1/1,0,0,0,0,0,1,1 S first --strategy"},
       "Larger games, as run for the results (minutes to hours):\n"
       "  mancala-tb generate kalah:4:empty --max-seeds 16 --out tb/ &&\n"
       "  mancala-tb solve kalah:4:empty --per-pit 4 --tables tb/          Kalah(4,4)\n"
       "  mancala-tb solve imbelece --per-pit 1 --strategy --tt-mb 16000   win, draw or loss"});
  c->add_option("POSITION", a->position, "VARIANT [PITS SIDE [FLAGS]], one argument or split");
  c->add_option("--tables", a->tables,
                "table folder made by `mancala-tb generate`. Without it, solve first searches alone (up to "
                "--first-search-mpos million positions), then makes the tables a small "
                "position needs itself, in a temporary folder removed at the end (every class up to its "
                "seeds, only those its moves can reach where captures take a fixed number of seeds (Cenne: 4), "
                "or the positions reachable from it, if at most --auto-tables-mpos million; it says so on "
                "stderr), else searches to the end of the game without tables. --time-limit covers the "
                "making of the tables too");
  c->add_option("--auto-tables-mpos", a->auto_mpos,
                "the limit of tables made on the spot (default 12 million positions: about 10 s of CPU for Cenne, less for the other games)")
      ->check(in_range(0, 1 << 20));
  c->add_option("--first-search-mpos", a->first_mpos,
                "without --tables: first the search alone, up to N million positions (default 16; 0: "
                "none), before making tables on the spot")
      ->check(in_range(0, 1 << 20));
  c->add_flag("--no-auto-tables", a->no_auto_tables, "never make tables on the spot (nor the first search)");
  c->add_option("--per-pit", a->per_pit, "start position with N seeds in each pit (default: the game's own)")
      ->check(in_range(0, 56));
  c->add_option("--tt-mb", a->tt_mb,
                "memory budget in MiB (default 256): the transposition table, the regions being "
                "solved and their memo (--cycles region), the proof table (--max-plies)")
      ->check(in_range(0, 1 << 20));
  c->add_flag("--no-huge-pages", a->no_huge_pages,
              "4 KiB pages for the transposition table and the table leaves instead of 2 MiB ones: "
              "cheaper on virtual machines whose host takes freed memory back (Kalah(6,4) over tables "
              "up to 20 seeds on a 2-core KVM guest: 4-10 % less CPU, alternated; "
              "results/search.md)");
  c->add_option("--threads", a->threads,
                "threads (default: all cores): the first moves are shared among them; Kalah also shares "
                "the moves of every position near the root of each search")
      ->check(in_range(0, 1024));
  c->add_option("--time-limit", a->time_limit, "give up after S seconds (default: no limit)")->check(in_range(0, 1 << 30));
  c->add_flag("--no-pv", a->no_pv, "skip the principal variation");
  c->add_flag("--best-only", a->best_only,
              "Kalah: the value and one best move only (every first move's exact value costs a search per move)");
  c->add_option("--guess-depth", a->guess_depth,
                "Kalah: MTD(f)'s first guess and move order from depth-limited searches of 3, 6, ... D plies "
                "(default 21; 0: none)")
      ->check(in_range(0, 200));
  c->add_option("--cycles", a->cycles,
                "games with cycles (all but Kalah): alphabeta (default: MTD(f) alpha-beta, a repeated "
                "position worth 0, path-dependent results kept out of the transposition table) or region "
                "(retrograde over the reachable part of each class above the tables: no pruning, the "
                "method before; alphabeta falls back to it for a position it cannot decide)")
      ->check(CLI::IsMember({"alphabeta", "region"}));
  c->add_option("--max-plies", a->max_plies,
                "win/loss games (imbelece): prove a forced win or loss within D plies by depth-bounded "
                "search instead (no tables); exact when it finds one, else it proves that neither side "
                "forces a result within D plies")
      ->check(in_range(0, 2000));
  c->add_flag("--strategy", a->strategy,
              "win/loss games (imbelece): decide win / draw / loss by strategy proofs (each side's "
              "strategy that never loses, checked against every reply; a draw when both exist), then "
              "the plies of a win or loss by the depth-bounded proof; --tt-mb bounds each proof's "
              "graph (about 70 bytes a position)");
  c->add_option("--defender", a->defender, "with --strategy: only the proof that this side (S or N) never loses")
      ->check(CLI::IsMember({"S", "N"}));
  c->add_option("--tt-file", a->tt_file,
                "keep the transposition table in this file: read it first if it exists, write it back "
                "when solve ends, also at --time-limit, Ctrl-C or SIGTERM, so a long search goes on where it "
                "stopped (Kalah and the games with cycles; written atomically, checked when read)");
  c->add_flag("--json", a->json,
              "one JSON object: position, value, pv (move labels), pv_end, moves [{move, value}] best "
              "first, pv_margin (the pv replayed by the rules engine; pv_plies for win/loss games), "
              "nodes, table_hits, seconds");
  add_quiet_flag(c);
  out.push_back({c, [a] { return run_solve(*a); }});
}

}  // namespace mancala::cli
