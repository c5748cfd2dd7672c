// Sub-commands about the rules alone: variants, moves, perft, count, bench.
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "mancala/index.h"
#include "mancala/perft.h"
#include "mancala/reachable.h"

namespace mancala::cli {

namespace {

// count --from: the reachable set's size per (seeds, marks), not stored.
int count_from(const std::string& text, int threads, int max_mb, bool other_words, bool json) {
  const ParsedPosition root = position_or_throw(text);
  CountOptions opt;
  opt.threads = threads;
  opt.max_bytes = static_cast<std::uint64_t>(max_mb) * 1'000'000ull;
  if (other_words) throw UsageError("count --from takes no other words (see --help)");
  const Variant& v = *root.variant;
  Progress bar(stderr_is_terminal());
  // A layer (seeds, marked pits) is complete once the count moves past it (no later
  // class can reach it), so its line is printed then: a long count shows its results
  // as it goes.
  if (!json) std::printf("%-6s %-6s %15s %9s\n", "seeds", "marked", "positions", "classes");
  std::fflush(stdout);
  std::pair<int, int> layer{-1, -1};
  auto print_layer = [&](const ReachableCount& counted) {
    if (layer.first < 0 || json) return;
    const ReachableCount::Layer& l = counted.layers.at(layer);
    std::printf("%-6d %-6d %15llu %9llu\n", layer.first, layer.second, static_cast<unsigned long long>(l.positions),
                static_cast<unsigned long long>(l.classes));
    std::fflush(stdout);
  };
  opt.progress = [&](const CountProgress& p) {
    if (std::pair{p.key.seeds, p.marked} != layer) {
      bar.finish();
      print_layer(*p.counted);
      layer = {p.key.seeds, p.marked};
    }
    bar.show("class " + to_string(p.key, v.pits()) + ", " + std::to_string(p.classes_pending) + " classes to go, " +
                 std::to_string(p.counted->positions) + " positions",
             p.counted->classes, p.counted->classes + p.classes_pending);
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto r = count_reachable(v, root.position, opt);
  bar.finish();
  if (!r) throw std::runtime_error(r.error().message);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  print_layer(*r);
  if (json) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const auto& [key, l] : r->layers)
      layers.push_back({{"seeds", key.first}, {"marked", key.second}, {"positions", l.positions}, {"classes", l.classes}});
    std::printf("%s\n", nlohmann::ordered_json{{"from", format_position(v, root.position, root.side)},
                                               {"positions", r->positions},
                                               {"classes", r->classes},
                                               {"layers", layers},
                                               {"seconds", s},
                                               {"peak_bytes", r->peak_bytes}}
                             .dump()
                             .c_str());
    return 0;
  }
  std::printf("reachable from %s: %llu positions in %llu classes (%.1f s, bit sets at most %.1f MB)\n",
              format_position(v, root.position, root.side).c_str(), static_cast<unsigned long long>(r->positions),
              static_cast<unsigned long long>(r->classes), s, static_cast<double>(r->peak_bytes) / 1e6);
  return 0;
}

int run_variants(bool json) {
  if (json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& d : variant_docs())
      all.push_back({{"name", d.name}, {"parameters", d.parameters}, {"example", d.example}, {"summary", d.summary}});
    std::printf("%s\n", all.dump().c_str());
    return 0;
  }
  for (const auto& d : variant_docs())
    std::printf("%-14s %-20s e.g. %-16s %s\n", d.name.c_str(), d.parameters.empty() ? "-" : d.parameters.c_str(),
                d.example.c_str(), d.summary.c_str());
  return 0;
}

int run_moves(const std::vector<std::string>& args, bool json) {
  const auto w = split_words(args);
  if (w.empty()) throw UsageError("moves needs a variant (see --help)");
  const ParsedPosition pp = position_from_words(w, 0, w.size());
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  if (json) {
    nlohmann::ordered_json o{{"position", format_position(*pp.variant, pp.position, pp.side)}};
    if (kids.empty()) o["game_over"] = true, o["value"] = pp.variant->terminal_value(pp.position);
    o["moves"] = nlohmann::ordered_json::array();
    for (const Child& c : kids) {
      const Side next_side = c.same_side ? pp.side : opposite(pp.side);
      o["moves"].push_back({{"move", pp.variant->move_name(c.move)},
                            {"after", c.game_over ? nlohmann::ordered_json(nullptr)
                                                  : nlohmann::ordered_json(format_position(*pp.variant, c.next, next_side))},
                            {"game_over", c.game_over},
                            {"gains", {c.gain_mover, c.gain_opponent}}});
    }
    std::printf("%s\n", o.dump().c_str());
    return 0;
  }
  std::printf("%s\n", format_position(*pp.variant, pp.position, pp.side).c_str());
  if (kids.empty())
    std::printf("  game over: value %d for the side to move\n", pp.variant->terminal_value(pp.position));
  for (const Child& c : kids) {
    const Side next_side = c.same_side ? pp.side : opposite(pp.side);
    const std::string after = c.game_over ? "(game over)" : format_position(*pp.variant, c.next, next_side);
    std::printf("  move %-14s -> %s    gains: mover %d, opponent %d\n", pp.variant->move_name(c.move).c_str(),
                after.c_str(), c.gain_mover, c.gain_opponent);
  }
  return 0;
}

int run_perft(const std::vector<std::string>& args, bool json) {
  const auto w = split_words(args);
  if (w.size() < 2) throw UsageError("perft needs a variant and a depth (see --help)");
  int depth = 0;
  try {
    std::size_t used = 0;
    depth = std::stoi(w.back(), &used);
    if (used != w.back().size()) throw 0;
  } catch (...) {
    throw UsageError("DEPTH: '" + w.back() + "' is not a whole number in 0..40");
  }
  if (depth < 0 || depth > 40) throw UsageError("DEPTH: " + w.back() + " is not in 0..40");
  const ParsedPosition pp = position_from_words(w, 0, w.size() - 1);
  for (int d = 1; d <= depth; ++d) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t n = perft(*pp.variant, pp.position, d);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (json) std::printf("%s\n", nlohmann::ordered_json{{"depth", d}, {"count", n}, {"seconds", s}}.dump().c_str());
    else std::printf("depth %2d  %15llu  (%.3f s)\n", d, static_cast<unsigned long long>(n), s);
    std::fflush(stdout);
  }
  return 0;
}

int run_count(const std::vector<std::string>& args, bool json) {
  const auto w = split_words(args);
  if (w.size() != 2) throw UsageError("count needs VARIANT SEEDS (see --help)");
  const VariantPtr v = variant_or_throw(w[0]);
  int seeds = -1;
  try {
    std::size_t used = 0;
    seeds = std::stoi(w[1], &used);
    if (used != w[1].size()) seeds = -1;
  } catch (...) {
  }
  if (seeds < 0 || seeds > v->total_seeds())
    throw UsageError("SEEDS: '" + w[1] + "' is not in 0.." + std::to_string(v->total_seeds()) + " (" + v->name() + " has " +
                     std::to_string(v->total_seeds()) + " seeds)");
  Index total = 0;
  nlohmann::ordered_json classes = nlohmann::ordered_json::array();
  for (const ClassKey& k : v->solving_order(seeds)) {
    const ClassIndex idx(*v, k);
    total += idx.size();
    if (json) {
      classes.push_back({{"class", to_string(k, v->pits())}, {"positions", idx.size()}});
      continue;
    }
    std::printf("class %-24s %15llu\n", to_string(k, v->pits()).c_str(), static_cast<unsigned long long>(idx.size()));
  }
  if (json)
    std::printf("%s\n", nlohmann::ordered_json{{"variant", v->name()}, {"max_seeds", seeds}, {"classes", classes}, {"total", total}}
                             .dump()
                             .c_str());
  else std::printf("total %-24s %15llu\n", "", static_cast<unsigned long long>(total));
  return 0;
}

int run_bench(std::vector<std::string> w, int n) {
  if (w.empty()) w = {"djenon-aboure", "oware", "kalah:6:empty", "kotu-baendum", "cenne:7:7", "enkeshui:8", "imbelece"};
  for (const auto& spec : w) {
    const VariantPtr v = variant_or_throw(spec);
    std::uint64_t turns = 0, positions = 0;
    std::vector<Child> kids;
    const auto t0 = std::chrono::steady_clock::now();
    for (int seeds = 8; seeds <= 20 && positions < static_cast<std::uint64_t>(n); ++seeds) {
      const ClassIndex idx(*v, ClassKey{0, seeds});
      const Index step = std::max<Index>(1, idx.size() / static_cast<Index>(n / 13 + 1));
      for (Index r = 0; r < idx.size() && positions < static_cast<std::uint64_t>(n); r += step) {
        v->children(idx.unrank(r), kids);
        turns += kids.size();
        ++positions;
      }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-16s %10llu positions %11llu turns %8.2f s %12.0f turns/s %12.0f positions/s\n", v->name().c_str(),
                static_cast<unsigned long long>(positions), static_cast<unsigned long long>(turns), s,
                static_cast<double>(turns) / s, static_cast<double>(positions) / s);
  }
  return 0;
}

}  // namespace

void add_rules_commands(CLI::App& root, std::vector<Command>& out) {
  {
    CLI::App* c = add_command(root, "variants", "list the variants and their parameters",
                              {"mancala-tb variants", "Lists every variant with its parameters and an example.", {"mancala-tb variants"}, ""});
    auto json = std::make_shared<bool>(false);
    add_json_flag(c, *json, "one JSON array: name, parameters, example, summary");
    out.push_back({c, [json] { return run_variants(*json); }});
  }
  {
    auto words = std::make_shared<std::vector<std::string>>();
    CLI::App* c = add_command(
        root, "moves", "list the legal turns of a position with the position after each",
        {"mancala-tb moves VARIANT [PITS SIDE [FLAGS]]",
         "Every legal turn of the position (default: the start) with the position after it\n"
         "and what each player gained, in the format of docs/rules/.",
         {"mancala-tb moves oware", "mancala-tb moves \"kalah:2:empty 1,1/1,1 S\""}, ""});
    c->add_option("POSITION", *words, "VARIANT [PITS SIDE [FLAGS]], one argument or split");
    auto json = std::make_shared<bool>(false);
    add_json_flag(c, *json, "one JSON object: position, moves (move, after, game_over, gains), value when the game is over");
    out.push_back({c, [words, json] { return run_moves(*words, *json); }});
  }
  {
    auto words = std::make_shared<std::vector<std::string>>();
    CLI::App* c = add_command(root, "perft", "count move sequences to a depth (golden numbers)",
                              {"mancala-tb perft VARIANT [PITS SIDE [FLAGS]] DEPTH",
                               "Number of move sequences of DEPTH turns from the position (default: the start),\n"
                               "each distinct turn counted once; prints one line per depth 1..DEPTH.",
                               {"mancala-tb perft oware 6", "mancala-tb perft \"kalah:2:empty 1,1/1,1 S\" 4"}, ""});
    c->add_option("ARGS", *words, "VARIANT [PITS SIDE [FLAGS]] then DEPTH (0..40)");
    auto json = std::make_shared<bool>(false);
    add_json_flag(c, *json, "one JSON object per depth, on its own line: depth, count, seconds");
    out.push_back({c, [words, json] { return run_perft(*words, *json); }});
  }
  {
    struct State {
      std::vector<std::string> words, from;
      int threads = 0, max_mb = 8000;
      bool json = false;
    };
    auto st = std::make_shared<State>();
    CLI::App* c = add_command(
        root, "count", "positions per class up to a number of seeds in play",
        {"mancala-tb count VARIANT SEEDS\n       mancala-tb count --from POSITION [--threads T] [--max-mb M]",
         "Lists the classes (irreversible state, seeds in play) with up to SEEDS seeds in\n"
         "play in solving order, with the number of indexed positions of each and the total.\n\n"
         "With --from, counts the positions reachable from POSITION (the positions\n"
         "`generate --from` would table) without storing them: one bit per position of\n"
         "each class reached, classes taken in order (fewer marks first, then more seeds),\n"
         "a class's bits freed once it is done. Prints the positions and classes reached\n"
         "per seeds in play and marked pits (bulls, closed pits), then the total: the way\n"
         "to size a root before generating its tables (the 1-seed Imbelece start,\n"
         "\"imbelece 1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 S first\", reaches more than 5.5 billion).",
         {"mancala-tb count oware 6", "mancala-tb count --from \"imbelece 1,1,0,0,0,0,0,1/1,0,0,0,0,0,1,1 S first\""},
         ""});
    c->add_option("ARGS", st->words, "the game and the largest number of seeds in play");
    c->add_option("--from", st->from, "count the positions reachable from this POSITION (one argument or split)")
        ->expected(1, CLI::detail::expected_max_vector_size);
    c->add_option("--threads", st->threads, "worker threads (default: all cores)")->check(in_range(0, 1024));
    c->add_option("--max-mb", st->max_mb, "bit sets held at once, at most (default 8000)")->check(in_range(1, 1 << 30));
    add_json_flag(c, st->json, "one JSON object: the classes and total (with --from: the layers and total)");
    add_quiet_flag(c);
    out.push_back({c, [st] {
                     if (!st->from.empty())
                       return count_from(join_words(split_words(st->from)), st->threads, st->max_mb, !st->words.empty(),
                                         st->json);
                     return run_count(st->words, st->json);
                   }});
  }
  {
    struct State {
      std::vector<std::string> variants;
      int positions = 2000000;
    };
    auto st = std::make_shared<State>();
    CLI::App* c = add_command(root, "bench", "turn generation speed per variant",
                              {"mancala-tb bench [VARIANT...] [--positions N]",
                               "Turn generation speed: generates every turn of N indexed positions per variant\n"
                               "(spread over classes of 8..20 seeds) and prints turns per second.",
                               {"mancala-tb bench oware kalah:6:empty --positions 100000"}, ""});
    c->add_option("VARIANT", st->variants, "variants to time (default: one of each game)");
    c->add_option("--positions", st->positions, "positions per variant (default 2,000,000)")->check(in_range(1000, 1000000000));
    out.push_back({c, [st] { return run_bench(st->variants, st->positions); }});
  }
}

}  // namespace mancala::cli
