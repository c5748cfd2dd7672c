// play: a whole game, or a Cenne match of several rounds (docs/rules/cenne.md,
// "Following rounds"), with a deterministic player on both sides.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "commands.h"
#include "mancala/rules/cenne.h"

namespace mancala::cli {

namespace {

struct Player {
  bool random = true;
  std::mt19937_64 rng;
  std::size_t pick(std::size_t n) { return random ? static_cast<std::size_t>(rng() % n) : 0; }
};

struct GameResult {
  int seeds[2] = {0, 0};  // seeds won in this game, by absolute side
  int turns = 0;
  bool endless = false;     // stopped at --max-turns: the seeds left were shared
  Value winloss = 0;        // win/loss games: final value for `last_to_move`
  Side last_to_move = Side::South;
};

// Plays from `p` (normalised, `side` to move) to the end. Gains go to their owner;
// when the side to move has no move, terminal_value (mover's margin of the R seeds
// left) shares them: mover (R + v) / 2, opponent (R - v) / 2.
GameResult play_game(const Variant& v, Position p, Side side, Player& player, int max_turns, bool verbose) {
  GameResult r;
  std::vector<Child> kids;
  auto idx = [](Side s) { return static_cast<int>(s); };
  for (;;) {
    v.children(p, kids);
    if (kids.empty()) {
      const int left = p.seeds_in(0, v.pits());
      const Value val = v.terminal_value(p);
      r.last_to_move = side;
      if (v.kind() == GameKind::WinLoss) {
        r.winloss = val;
        if (verbose) std::printf("  %c has no move: %s\n", side_char(side), val < 0 ? "loses" : val > 0 ? "wins" : "draw");
      } else {
        r.seeds[idx(side)] += (left + val) / 2;
        r.seeds[idx(opposite(side))] += (left - val) / 2;
        if (verbose)
          std::printf("  %c has no legal move: the game ends; %d seeds left, %c takes %d, %c takes %d\n", side_char(side),
                      left, side_char(side), (left + val) / 2, side_char(opposite(side)), (left - val) / 2);
      }
      return r;
    }
    if (r.turns >= max_turns) {
      const int left = p.seeds_in(0, v.pits());
      r.seeds[idx(side)] += (left + 1) / 2;  // endless play: shared, an odd seed to the side to move
      r.seeds[idx(opposite(side))] += left / 2;
      r.endless = true;
      if (verbose) std::printf("  stopped after %d turns: the %d seeds left are shared\n", max_turns, left);
      return r;
    }
    const Child& c = kids[player.pick(kids.size())];
    ++r.turns;
    r.seeds[idx(side)] += c.gain_mover;
    r.seeds[idx(opposite(side))] += c.gain_opponent;
    const Side next = c.same_side ? side : opposite(side);
    if (verbose) {
      std::string gains;
      if (c.gain_mover) gains += std::string(1, side_char(side)) + " +" + std::to_string(c.gain_mover);
      if (c.gain_opponent)
        gains += (gains.empty() ? "" : ", ") + std::string(1, side_char(opposite(side))) + " +" + std::to_string(c.gain_opponent);
      if (!gains.empty()) gains = "   (" + gains + ")";
      std::printf("  %3d. %c %-7s -> %s%s\n", r.turns, side_char(side), v.move_name(c.move).c_str(),
                  c.game_over ? "(game over)" : format_position(v, c.next, next).c_str(), gains.c_str());
    }
    if (c.game_over) {
      r.last_to_move = side;
      return r;
    }
    p = c.next;
    side = next;
  }
}

int play_match(const Cenne& first_board, Player& player, int max_turns, int max_rounds, bool verbose) {
  // Holdings at the start of round 1: what the first board's pits hold.
  int holding[2] = {4 * first_board.south_in_play(), 4 * first_board.north_in_play()};
  Side first = Side::South;
  for (int round = 1;; ++round) {
    const int pits_s = std::min(7, holding[0] / 4), pits_n = std::min(7, holding[1] / 4);
    std::printf("round %d: South holds %d, North holds %d\n", round, holding[0], holding[1]);
    if (pits_s < 4 || pits_n < 4) {
      const Side loser = pits_s < 4 ? Side::South : Side::North;
      std::printf("match over: %s can fill only %d pits; %s wins the match (%d to %d seeds)\n",
                  loser == Side::South ? "South" : "North", loser == Side::South ? pits_s : pits_n,
                  loser == Side::South ? "North" : "South", holding[1 - static_cast<int>(loser)],
                  holding[static_cast<int>(loser)]);
      return 0;
    }
    if (round > max_rounds) {
      std::printf("stopped after %d rounds (--max-rounds)\n", max_rounds);
      return 0;
    }
    const int aside[2] = {holding[0] - 4 * pits_s, holding[1] - 4 * pits_n};
    const Cenne v(pits_s, pits_n);
    std::printf("  refill: South fills %d pits (%d aside), North fills %d pits (%d aside) -> %s, %s moves first\n",
                pits_s, aside[0], pits_n, aside[1], v.name().c_str(), first == Side::South ? "South" : "North");
    const Position start = first == Side::South ? v.start() : v.rotate(v.start());
    std::printf("  %s\n", format_position(v, start, first).c_str());
    const GameResult r = play_game(v, start, first, player, max_turns, verbose);
    std::printf("  result after %d turns%s: South won %d, North won %d: %s\n", r.turns, r.endless ? " (endless, shared)" : "",
                r.seeds[0], r.seeds[1],
                r.seeds[0] > r.seeds[1] ? "South wins the round" : r.seeds[1] > r.seeds[0] ? "North wins the round" : "drawn round");
    holding[0] = aside[0] + r.seeds[0];
    holding[1] = aside[1] + r.seeds[1];
    first = r.seeds[1] > r.seeds[0] ? Side::North : Side::South;
  }
}

struct PlayArgs {
  std::vector<std::string> position;
  std::string player = "random";
  int seed = 1, max_turns = 2000, max_rounds = 1000;
  bool quiet = false;
};

int run_play(const PlayArgs& a) {
  const std::string& who = a.player;
  const int max_turns = a.max_turns, max_rounds = a.max_rounds;
  const bool verbose = !a.quiet;
  const auto w = split_words(a.position);
  if (w.empty()) throw UsageError("play needs a variant, e.g. 'mancala-tb play cenne --seed 1' (see --help)");
  const VariantPtr v = variant_or_throw(w[0]);
  const int seed = a.seed;
  Player player{who == "random", std::mt19937_64(static_cast<std::uint64_t>(seed))};
  if (v->id() == VariantId::Cenne && w.size() == 1)
    return play_match(static_cast<const Cenne&>(*v), player, max_turns, max_rounds, verbose);
  const ParsedPosition pp = position_from_words(w, 0, w.size());
  std::printf("%s\n", format_position(*v, pp.position, pp.side).c_str());
  const GameResult r = play_game(*v, pp.position, pp.side, player, max_turns, verbose);
  if (v->kind() == GameKind::WinLoss) {
    const Side winner = r.winloss < 0 ? opposite(r.last_to_move) : r.last_to_move;
    if (r.endless || r.winloss == 0) std::printf("result after %d turns: draw\n", r.turns);
    else std::printf("result after %d turns: %s wins\n", r.turns, winner == Side::South ? "South" : "North");
    return 0;
  }
  std::printf("result after %d turns%s: South won %d, North won %d: %s\n", r.turns, r.endless ? " (endless, shared)" : "",
              r.seeds[0], r.seeds[1], r.seeds[0] > r.seeds[1] ? "South wins" : r.seeds[1] > r.seeds[0] ? "North wins" : "draw");
  return 0;
}

}  // namespace

void add_play_command(CLI::App& root, std::vector<Command>& out) {
  auto a = std::make_shared<PlayArgs>();
  CLI::App* c = add_command(
      root, "play", "play a whole game or Cenne match with the rules engine",
      {"mancala-tb play VARIANT [PITS SIDE [FLAGS]] [--seed N] [--player random|first]\n"
       "                       [--max-turns N] [--max-rounds N] [--quiet]",
       "Plays with the rules engine, both sides by the same deterministic player:\n"
       "  random  a pseudo-random legal move, from --seed (default 1): same seed, same game\n"
       "  first   always the first legal move in the engine's order\n\n"
       "Any variant but Cenne: one game from the position (default: the start), every turn\n"
       "printed with the position after it, then the seeds each side won. A clockwise\n"
       "Kotu-baendum game (first move 'P:cw') is shown in its mirrored, counterclockwise form\n"
       "(pit i <-> 6-i in each row), the form the tables hold.\n\n"
       "Cenne without a position: a whole match (docs/rules/cenne.md). Round 1 is played on\n"
       "the board of the spec (default cenne:7:7, 56 seeds). After each round every player\n"
       "refills his pits, 4 seeds each from his winnings, leftmost first; pits he cannot fill\n"
       "are out of play and leftover seeds are kept aside. So a round with South holding 30\n"
       "and North 26 is played on cenne:7:6 (South keeps 2 aside, North 2). The winner of the\n"
       "last round moves first (South after a draw). The match ends when a player can fill\n"
       "fewer than 4 pits. Cenne with a position plays that one round.\n\n"
       "A game still going after --max-turns turns (default 2000) is taken as endless play:\n"
       "the seeds left are shared equally (an odd seed to the side to move).",
       {"mancala-tb play cenne --seed 1", "mancala-tb play cenne:6:5 --player first --quiet",
        "mancala-tb play kotu-baendum --seed 7", "mancala-tb play \"oware 1,0,0,0,0,2/2,2,0,3,1,2 S\""},
       ""});
  c->add_option("POSITION", a->position, "VARIANT [PITS SIDE [FLAGS]], one argument or split");
  c->add_option("--seed", a->seed, "seed of the random player (default 1)")->check(in_range(0, 2147483647));
  c->add_option("--player", a->player, "random (default) or first")->check(CLI::IsMember({"random", "first"}));
  c->add_option("--max-turns", a->max_turns, "turns before a game counts as endless (default 2000)")
      ->check(in_range(1, 100000000));
  c->add_option("--max-rounds", a->max_rounds, "rounds of a Cenne match at most (default 1000)")->check(in_range(1, 1000000));
  c->add_flag("--quiet", a->quiet, "only the results, not every turn");
  out.push_back({c, [a] { return run_play(*a); }});
}

}  // namespace mancala::cli
