// solve: the perfect-play value of a position by search over the tables (issue 6).
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <unistd.h>
#include <optional>
#include <cstdio>
#include <sstream>

#include "commands.h"
#include "mancala/probe.h"
#include "mancala/proof.h"
#include "mancala/search.h"
#include "mancala/strategy.h"

namespace mancala::cli {

namespace {

std::atomic<bool> g_cancel{false};
extern "C" void on_solve_signal(int) { g_cancel.store(true); }

std::string value_json(GameKind kind, Value v) {
  if (kind == GameKind::WinLoss)
    return std::string("\"") + (v > 0 ? "win" : v < 0 ? "loss" : "draw") + "\",\"depth\":" + std::to_string(plies_of(v));
  return std::to_string(v);
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

void print_help() {
  std::printf(
      "usage: mancala-tb solve VARIANT [PITS SIDE [FLAGS]] [--tables DIR] [--per-pit N]\n"
      "                        [--tt-mb M] [--threads T] [--time-limit S] [--json]\n\n"
      "The exact value of a position under perfect play, by search: MTD(f) alpha-beta to\n"
      "the end of the game, with a transposition table, a repeated position scored as\n"
      "endless play (0), and every position the tables cover taken from the tables.\n"
      "Without PITS SIDE it solves the variant's start position.\n\n"
      "  --tables DIR    table folder made by `mancala-tb generate`. Without it, solve makes\n"
      "                  the tables a small position needs itself, in a temporary folder\n"
      "                  removed at the end (every class up to its seeds, or the positions\n"
      "                  reachable from it, if at most --auto-tables-mpos million; it says\n"
      "                  so on stderr), else searches to the end of the game without tables\n"
      "  --auto-tables-mpos M  the limit of tables made on the spot (default 8 million\n"
      "                  positions, about 10 s)\n"
      "  --no-auto-tables  never make tables on the spot\n"
      "  --per-pit N     start position with N seeds in each pit (default: the game's own)\n"
      "  --tt-mb M       memory budget in MiB (default 256, at least 1): the transposition\n"
      "                  table (Kalah), the regions being solved and their memo (games\n"
      "                  with cycles), the proof table (--max-plies)\n"
      "  --threads T     threads for the first moves (default: all cores)\n"
      "  --time-limit S  give up after S seconds (default: no limit)\n"
      "  --no-pv         skip the principal variation\n"
      "  --best-only     Kalah: the value and one best move only (every first move's\n"
      "                  exact value costs a search per move)\n"
      "  --guess-depth D Kalah: MTD(f)'s first guess and move order from depth-limited\n"
      "                  searches of 3, 6, ... D plies (default 24; 0: none)\n"
      "  --max-plies D   win/loss games (imbelece): prove a forced win or loss within D\n"
      "                  plies by depth-bounded search instead (no tables, no region\n"
      "                  enumeration); exact when it finds one, else it proves that\n"
      "                  neither side forces a result within D plies\n"
      "  --strategy      win/loss games (imbelece): decide win / draw / loss by strategy\n"
      "                  proofs (each side's strategy that never loses, checked against\n"
      "                  every reply of the other side; a draw when both exist), then\n"
      "                  the plies of a win or loss by the depth-bounded proof.\n"
      "                  --tt-mb bounds each proof's graph (about 70 bytes a position)\n"
      "  --defender S|N  with --strategy: only the proof that this side never loses\n"
      "  --json          one JSON object: position, value, pv (move labels), pv_end,\n"
      "                  moves [{move, value}] best first, pv_margin (the pv replayed by\n"
      "                  the rules engine: what the line is worth; pv_plies for\n"
      "                  win/loss games), nodes, seconds\n\n"
      "The value is the margin of the seeds still in play that the side to move can force\n"
      "(seeds already captured do not count); a first move's value is its gains plus the\n"
      "value of the position after it, from the mover's view. The principal variation is\n"
      "a line of optimal moves, replayed with the rules engine, to the end of the game.\n\n"
      "examples:\n"
      "  mancala-tb solve kalah:3:empty --per-pit 3                  Kalah(3,3), no tables\n"
      "  mancala-tb generate kalah:4:empty --max-seeds 14 --out tb/\n"
      "  mancala-tb solve kalah:4:empty --per-pit 4 --tables tb/      Kalah(4,4)\n"
      "  mancala-tb solve oware 0,0,3,0,1,2/1,2,0,0,4,1 S --tables tb/\n"
      "  mancala-tb solve imbelece --per-pit 1 --max-plies 16       no forced win within 16 plies\n"
      "  mancala-tb solve imbelece --per-pit 1 --strategy --tt-mb 16000   win, draw or loss\n");
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
  opt.time_limit = time_limit;
  opt.cancel = &g_cancel;
  Progress bar(stderr_is_terminal());
  opt.progress = [&](const ProofProgress& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "no forced result within %d plies, %.3g positions searched", s.depth,
                  static_cast<double>(s.nodes));
    bar.show(buf, static_cast<std::uint64_t>(s.depth), static_cast<std::uint64_t>(std::max(1, max_plies)));
  };
  auto r = prove_within(v, pp.position, opt);
  bar.finish();
  if (!r) return search_failed(r.error());
  const std::string pos = format_position(*v, pp.position, pp.side);
  const char* outcome = r->outcome == ProofResult::Win ? "win" : r->outcome == ProofResult::Loss ? "loss" : "open";
  std::vector<std::string> pv;
  for (const Child& c : r->pv) pv.push_back(v->move_name(c.move));
  if (json) {
    std::ostringstream o;
    o << "{\"position\":\"" << json_escape(pos) << "\",\"value\":\"" << outcome << "\"";
    if (r->outcome != ProofResult::Open) o << ",\"depth\":" << r->plies;
    o << ",\"searched_plies\":" << r->searched << ",\"pv\":[";
    for (std::size_t i = 0; i < pv.size(); ++i) o << (i ? "," : "") << "\"" << json_escape(pv[i]) << "\"";
    o << "],\"nodes\":" << r->nodes << ",\"seconds\":" << r->seconds << "}";
    std::printf("%s\n", o.str().c_str());
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

// One strategy proof (strategy.h) as JSON fields (no braces) and as a line of text.
std::string safety_fields(const SafetyResult& s) {
  std::ostringstream o;
  o << "\"outcome\":\"" << (s.outcome == SafetyResult::Safe ? "safe" : "lost") << "\",\"certificate\":" << s.certificate
    << ",\"positions\":" << s.positions << ",\"expanded\":" << s.expanded << ",\"skipped\":" << s.skipped
    << ",\"rechosen\":" << s.rechosen << ",\"seconds\":" << s.seconds;
  return o.str();
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
  opt.time_limit = time_limit;
  opt.cancel = &g_cancel;
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
    if (!one) return search_failed(one.error());
    const std::string pos = format_position(*v, pp.position, pp.side);
    if (json) {
      std::printf("{\"position\":\"%s\",\"defender\":\"%c\",%s}\n", json_escape(pos).c_str(), side_char(*only),
                  safety_fields(*one).c_str());
    } else {
      std::printf("%s\n", pos.c_str());
      print_safety(side_char(*only), *one);
    }
    return 0;
  }
  auto r = decide_win_loss(v, pp.position, opt);
  bar.finish();
  if (!r) return search_failed(r.error());
  // A forced result: its plies by the depth-bounded proof (iterative deepening ends,
  // as the result is forced), within what is left of the time limit.
  std::optional<ProofResult> plies;
  if (r->outcome != WinLossDecision::Draw) {
    ProofOptions po;
    po.max_plies = 2000;
    po.tt_bytes = opt.memory_bytes;
    po.cancel = &g_cancel;
    const double used = r->mover.seconds + r->opponent.seconds;
    po.time_limit = time_limit > 0 ? std::max(1.0, time_limit - used) : 0;
    if (auto p = prove_within(v, pp.position, po); p && p->outcome != ProofResult::Open) plies = *p;
  }
  const std::string pos = format_position(*v, pp.position, pp.side);
  const char* outcome = r->outcome == WinLossDecision::Win ? "win" : r->outcome == WinLossDecision::Loss ? "loss" : "draw";
  const char mover = side_char(pp.side), other = side_char(opposite(pp.side));
  const bool both = r->outcome != WinLossDecision::Loss;
  if (json) {
    std::printf("{\"position\":\"%s\",\"value\":\"%s\",", json_escape(pos).c_str(), outcome);
    if (plies) std::printf("\"depth\":%d,", plies->plies);
    std::printf("\"method\":\"strategy\",\"mover\":{%s}", safety_fields(r->mover).c_str());
    if (both) std::printf(",\"opponent\":{%s}", safety_fields(r->opponent).c_str());
    std::printf("}\n");
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

}  // namespace

int cmd_solve(Args& a) {
  if (a.help()) {
    print_help();
    return 0;
  }
  const auto tables_dir = a.option("tables");
  const int per_pit = a.int_option("per-pit", 0, 0, 56);
  const int tt_mb = a.int_option("tt-mb", 256, 0, 1 << 20);
  const int threads = a.int_option("threads", 0, 0, 1024);
  const int time_limit = a.int_option("time-limit", 0, 0, 1 << 30);
  const bool json = a.flag("json");
  const bool no_pv = a.flag("no-pv");
  const bool best_only = a.flag("best-only");
  const bool no_auto_tables = a.flag("no-auto-tables");
  const int auto_mpos = a.int_option("auto-tables-mpos", 8, 0, 1 << 20);
  const int guess_depth = a.int_option("guess-depth", SearchOptions{}.guess_depth, 0, 200);
  const int max_plies = a.int_option("max-plies", -1, 0, 2000);
  const bool strategy = a.flag("strategy");
  const auto defender_s = a.option("defender");
  const auto w = a.rest();
  if (w.empty()) throw UsageError("solve needs a VARIANT (see --help)");
  const VariantPtr v = variant_or_throw(w[0]);
  ParsedPosition pp;
  if (w.size() == 1) {
    pp.variant = v;
    pp.position = v->start(per_pit);
    pp.side = Side::South;
    if (auto e = v->check(pp.position); !e.empty()) throw UsageError("--per-pit " + std::to_string(per_pit) + ": " + e);
  } else {
    if (per_pit) throw UsageError("--per-pit makes a start position; give either it or PITS SIDE");
    pp = position_or_throw(v, std::vector<std::string>(w.begin() + 1, w.end()));
  }

  if (strategy && max_plies >= 0) throw UsageError("give either --strategy or --max-plies");
  std::optional<Side> defender;
  if (defender_s) {
    if (!strategy) throw UsageError("--defender goes with --strategy");
    if (*defender_s != "S" && *defender_s != "N") throw UsageError("--defender must be S or N, got '" + *defender_s + "'");
    defender = *defender_s == "S" ? Side::South : Side::North;
  }
  if (strategy) return decide(v, pp, tt_mb, time_limit, json, defender);
  if (max_plies >= 0) return prove(v, pp, max_plies, tt_mb, time_limit, json);

  SearchOptions opt;
  std::signal(SIGINT, on_solve_signal);
  // Without --tables, a small game gets its tables made on the spot in a temporary
  // folder (removed when solve ends).
  struct RemoveAtExit {
    std::filesystem::path dir;
    ~RemoveAtExit() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } made_dir;
  if (tables_dir) {
    auto tb = Tablebase::open(*tables_dir);
    if (!tb) throw UsageError(tb.error().message);
    opt.tables = *tb;
  } else if (!no_auto_tables) {
    made_dir.dir = std::filesystem::temp_directory_path() / ("mancala-tb-solve-" + std::to_string(::getpid()));
    auto made = make_small_tables(*v, pp.position, made_dir.dir, static_cast<std::uint64_t>(auto_mpos) * 1'000'000,
                                  threads, &g_cancel);
    if (made) {
      opt.tables = made->tables;
      std::fprintf(stderr, "mancala-tb solve: no --tables given: made the tables of %s (%llu positions, %.2f s)\n",
                   made->how.c_str(), static_cast<unsigned long long>(made->positions), made->seconds);
    } else if (made.error().code == SearchError::Cancelled) {
      return search_failed(made.error(), false);
    } else {
      std::fprintf(stderr, "mancala-tb solve: no --tables given and too large for tables made on the spot (%s); searching without tables\n",
                   made.error().message.c_str());
    }
  }
  opt.tt_bytes = static_cast<std::uint64_t>(tt_mb) << 20;
  opt.threads = threads;
  opt.time_limit = time_limit;
  opt.cancel = &g_cancel;
  opt.principal_variation = !no_pv;
  opt.all_moves = !best_only;
  opt.guess_depth = guess_depth;
  Progress bar(stderr_is_terminal());
  opt.progress = [&](const SearchProgress& s) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%d/%d first moves, %s in [%d, %d], %.3g positions", s.root_moves_done,
                  s.root_moves, s.current.c_str(), s.lower, s.upper, static_cast<double>(s.nodes));
    bar.show(buf, static_cast<std::uint64_t>(s.root_moves_done), static_cast<std::uint64_t>(std::max(1, s.root_moves)));
  };
  auto searcher = Searcher::create(v, opt);
  if (!searcher) throw UsageError(searcher.error().message);
  auto r = (*searcher)->solve(pp.position);
  bar.finish();
  if (!r) return search_failed(r.error(), false);
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
    std::ostringstream o;
    o << "{\"position\":\"" << json_escape(pos) << "\",\"value\":" << value_json(v->kind(), r->value) << ",\"pv\":[";
    for (std::size_t i = 0; i < pv.size(); ++i) o << (i ? "," : "") << "\"" << json_escape(pv[i]) << "\"";
    o << "],\"pv_end\":\"" << json_escape(r->pv_end) << "\",\"moves\":[";
    for (std::size_t i = 0; i < r->moves.size(); ++i)
      o << (i ? "," : "") << "{\"move\":\"" << json_escape(v->move_name(r->moves[i].move))
        << "\",\"value\":" << value_json(v->kind(), r->moves[i].value) << "}";
    o << "]";
    if (!no_pv)
      if (const auto m = replay_pv(*v, pp.position, r->pv)) o << ",\"pv_" << (v->kind() == GameKind::WinLoss ? "plies" : "margin") << "\":" << *m;
    o << ",\"nodes\":" << r->nodes << ",\"table_hits\":" << r->table_hits << ",\"seconds\":" << r->seconds << "}";
    std::printf("%s\n", o.str().c_str());
    return 0;
  }
  std::printf("%s\n  value %s\n", pos.c_str(), value_text(v->kind(), r->value).c_str());
  if (r->moves.empty()) std::printf("  no legal move: the game is over\n");
  for (const auto& m : r->moves)
    std::printf("  move %-12s %-10s gains %d/%d%s\n", v->move_name(m.move).c_str(), value_text(v->kind(), m.value).c_str(),
                m.child.gain_mover, m.child.gain_opponent, m.child.same_side ? " (moves again)" : "");
  if (!no_pv) std::printf("  pv %s (%s)\n", pv_text.empty() ? "-" : pv_text.c_str(), r->pv_end.c_str());
  std::printf("  %llu positions searched, %llu table values, %.3f s\n", static_cast<unsigned long long>(r->nodes),
              static_cast<unsigned long long>(r->table_hits), r->seconds);
  return 0;
}

}  // namespace mancala::cli
