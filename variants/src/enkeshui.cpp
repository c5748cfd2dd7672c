#include "mancala/rules/enkeshui.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "mancala/rules/sowing.h"

namespace mancala {

namespace {

// Start rows of docs/rules/enkeshui.md, South's row left to right. The traditional
// description draws North's row left to right as South sees it, i.e. pits 2K-1 down
// to K; reversed into circuit order it is the same list as South's for every layout (the start positions are
// symmetric under the half turn), so both halves of the notation read alike, e.g.
// enkeshui:8  0,0,4,4,4,4,4,4/0,0,4,4,4,4,4,4 S.
constexpr int kStart12[12] = {0, 3, 3, 0, 3, 3, 0, 3, 3, 0, 3, 3};
constexpr int kStart10[10] = {0, 0, 0, 0, 4, 4, 4, 4, 4, 4};
constexpr int kStart8a[8] = {0, 0, 4, 4, 4, 4, 4, 4};
constexpr int kStart8b[8] = {4, 4, 4, 4, 4, 4, 0, 0};

}  // namespace

Position Enkeshui::start(int per_pit) const {
  Position p;
  const int* row = k_ == 12 ? kStart12 : k_ == 10 ? kStart10 : layout_b_ ? kStart8b : kStart8a;
  for (int i = 0; i < k_; ++i) {
    const auto seeds = static_cast<Seeds>(per_pit ? per_pit : row[i]);
    p.pits[static_cast<std::size_t>(i)] = seeds;
    p.pits[static_cast<std::size_t>(k_ + i)] = seeds;
  }
  return p;
}

// One lap. The seeds of `lap.pit` are lifted and dropped one per pit in the chosen
// direction, bulls included (a seed in a bull is credited to its owner and leaves play).
// End of the lap (docs/rules/enkeshui.md, in this order), by what the pits of the last two seeds
// held before them:
//   1. last held 3, or the last two held {2, 3} (neither a bull): bulls of the mover,
//      their seeds go to him; the turn ends.
//   2. last seed into a bull: the turn ends.
//   3. last held 0: on the mover's side in the first lap with a live, non-empty facing
//      pit, capture it and the sowing seed, then the run of empty pits counterclockwise
//      along the mover's row whose facing pits are live and non-empty; the turn ends.
//   4. otherwise relay from the last pit.
bool Enkeshui::sow_lap(Lap& lap, bool cw) const {
  const int n = 2 * k_;
  auto& b = lap.board.pits;
  auto& m = lap.board.marks;
  int hand = b[static_cast<std::size_t>(lap.pit)];
  b[static_cast<std::size_t>(lap.pit)] = 0;
  const int seeds = hand;
  int at = lap.pit;
  int last = -1, second = -1;
  int held_last = -1, held_second = -1;
  std::uint32_t covered = 0;  // opponent's pits that got a seed, bit i - K
  while (hand > 0) {
    at = cw ? (at == 0 ? n - 1 : at - 1) : (at + 1 == n ? 0 : at + 1);
    const auto u = static_cast<std::size_t>(at);
    if (at >= k_) covered |= 1u << (at - k_);
    second = last;
    held_second = held_last;
    last = at;
    if (m[u] == Mark::South) {
      ++lap.gain_mover;
      held_last = -1;  // a bull
    } else if (m[u] == Mark::North) {
      ++lap.gain_opponent;
      held_last = -1;
    } else {
      held_last = b[u];
      ++b[u];
    }
    --hand;
  }
  const auto ul = static_cast<std::size_t>(last);
  if (covered == (1u << k_) - 1) lap.privilege = true;

  // 1. Bulls.
  const bool pair = seeds >= 2 && ((held_last == 2 && held_second == 3) || (held_last == 3 && held_second == 2));
  if (held_last == 3 || pair) {
    lap.gain_mover += b[ul];
    b[ul] = 0;
    m[ul] = Mark::South;
    if (pair) {
      const auto us = static_cast<std::size_t>(second);
      lap.gain_mover += b[us];
      b[us] = 0;
      m[us] = Mark::South;
    }
    return false;
  }
  // 2. Into a bull.
  if (held_last < 0) return false;
  // 3. Into an empty pit.
  if (held_last == 0) {
    if (last >= k_ || !lap.first) return false;
    auto facing = [&](int i) { return static_cast<std::size_t>(n - 1 - i); };
    const auto f = facing(last);
    if (m[f] != Mark::None || b[f] == 0) return false;
    lap.gain_mover += b[f] + 1;
    b[f] = 0;
    b[ul] = 0;
    for (int i = last + 1; i < k_; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      const auto fi = facing(i);
      if (m[ui] != Mark::None || b[ui] != 0 || m[fi] != Mark::None || b[fi] == 0) break;
      lap.gain_mover += b[fi];
      b[fi] = 0;
    }
    return false;
  }
  // 4. Relay.
  lap.pit = last;
  lap.first = false;
  return true;
}

namespace {

// A lap-start state of the privileged part of a turn, as compared for "seen before":
// the board, the pit the lap lifts, and the mover's gain so far (the opponent's gain
// follows from it and the seeds still in play).
struct LapKey {
  std::array<Seeds, kMaxPits> pits;
  std::array<Mark, kMaxPits> marks;
  std::int8_t pit;
  std::int8_t gain_mover;
  friend bool operator==(const LapKey&, const LapKey&) = default;
};
std::uint64_t hash_board(const std::array<Seeds, kMaxPits>& pits, const std::array<Mark, kMaxPits>& marks, std::uint64_t h) {
  h ^= 1469598103934665603ull;
  for (std::size_t i = 0; i < kMaxPits; ++i)
    h = (h ^ (static_cast<std::uint64_t>(pits[i]) | static_cast<std::uint64_t>(marks[i]) << 8)) * 1099511628211ull;
  return h ^ (h >> 29);
}
struct LapKeyHash {
  std::size_t operator()(const LapKey& k) const noexcept {
    return static_cast<std::size_t>(hash_board(k.pits, k.marks, static_cast<std::uint64_t>(k.pit * 64 + k.gain_mover)));
  }
};

// The outcome of a turn, which is what makes two choice sequences one move: the
// position after it (as children() returns it) and both gains. Nothing else (no label,
// no choice count, no hash) takes part in the comparison.
struct Outcome {
  std::array<Seeds, kMaxPits> pits;
  std::array<Mark, kMaxPits> marks;
  std::int16_t gain_mover;
  std::int16_t gain_opponent;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};
struct OutcomeHash {
  std::size_t operator()(const Outcome& o) const noexcept {
    return static_cast<std::size_t>(
        hash_board(o.pits, o.marks, static_cast<std::uint64_t>(o.gain_mover) * 64 + static_cast<std::uint64_t>(o.gain_opponent)));
  }
};

static_assert(Enkeshui::kMaxTurnsPerPit <= (std::size_t{1} << 19), "long#n ordinals fill bits 13..31 of a Move");

}  // namespace

// The turns from South's pit `pit`, appended to `out`.
//
// Until the direction privilege begins the laps are forced: they are walked one by one
// and an endless turn is caught by EndlessTurnDetector. (The first lap's state needs no
// flag of its own: from the same board and pit a later lap relays exactly when the first
// would, so a repeat of it is a true cycle.)
//
// From the first privileged lap on, the lap-start states and the two directions form a
// finite graph; the moves are its reachable end states. A breadth-first search, ccw
// before cw, visits each state once; every path that is cut (its state was seen) is
// either endless or reaches only ends found from the earlier visit. The first path to
// reach an end (position, gains) in that order is the shortest choice sequence that
// gives it, and the lexicographically first (ccw < cw) among the shortest: its label.
// Every later path to the same outcome is dropped, so a start pit never yields two
// children with the same (next, gain_mover, gain_opponent).
//
// Limits (exact or an error, never a truncated list): more than kMaxTurnsPerPit distinct
// outcomes, or more than kMaxLapStates lap-start states, from one start pit throws
// std::length_error.
void Enkeshui::turns_from(const Position& p, int pit, std::vector<Child>& out) const {
  Lap lap;
  lap.board = p;
  lap.pit = pit;
  lap.move = Move::sow(pit);
  auto child_of = [&](const Lap& end) {
    Child c;
    c.move = end.move;
    c.next = rotate(end.board);
    c.gain_mover = static_cast<std::int16_t>(end.gain_mover);
    c.gain_opponent = static_cast<std::int16_t>(end.gain_opponent);
    return c;
  };
  EndlessTurnDetector guard;
  while (!lap.privilege) {
    if (guard.repeats(lap.board, lap.pit)) return;  // endless: not a move
    if (!sow_lap(lap, false)) {
      out.push_back(child_of(lap));
      return;
    }
  }

  auto too_many = [&](const char* what, std::size_t limit) {
    return std::length_error("enkeshui: the turns from pit " + std::to_string(pit) + " have more than " +
                             std::to_string(limit) + " " + what +
                             " (direction privilege; see docs/rules/enkeshui.md)");
  };
  // The outcomes found so far from this pit, and the lap-start states seen.
  std::unordered_set<Outcome, OutcomeHash> ends;
  std::uint32_t long_moves = 0;
  auto record = [&](const Lap& end) {
    Child c = child_of(end);
    if (!ends.insert(Outcome{c.next.pits, c.next.marks, c.gain_mover, c.gain_opponent}).second) return;  // same move
    if (ends.size() > kMaxTurnsPerPit) throw too_many("distinct outcomes", kMaxTurnsPerPit);
    if (end.choices > Move::kMaxChoices) c.move = long_move(pit, long_moves++);
    out.push_back(c);
  };
  std::unordered_set<LapKey, LapKeyHash> seen;
  std::deque<Lap> queue;
  auto visit = [&](const Lap& l) {
    LapKey key{l.board.pits, l.board.marks, static_cast<std::int8_t>(l.pit), static_cast<std::int8_t>(l.gain_mover)};
    if (!seen.insert(key).second) return;
    if (seen.size() > kMaxLapStates) throw too_many("lap states", kMaxLapStates);
    queue.push_back(l);
  };
  visit(lap);
  while (!queue.empty()) {
    const Lap at = queue.front();
    queue.pop_front();
    for (const bool cw : {false, true}) {
      Lap next = at;
      if (++next.choices <= Move::kMaxChoices) next.move = next.move.with_choice(cw);
      if (sow_lap(next, cw)) visit(next);
      else record(next);
    }
  }
}

std::string Enkeshui::move_name(Move m) const {
  if (m.kind() == Move::Sow && m.choices() == kLongChoices)
    return std::to_string(m.pit()) + ":long#" + std::to_string(m.bits() >> 13);
  return to_string(m);
}

void Enkeshui::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  for (int i = 0; i < k_; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (p.marks[u] != Mark::None || p.pits[u] == 0) continue;
    turns_from(p, i, out);
  }
}

// No legal move: each player takes the live seeds of his own row.
Value Enkeshui::terminal_value(const Position& p) const {
  return static_cast<Value>(p.seeds_in(0, k_) - p.seeds_in(k_, 2 * k_));
}

std::string Enkeshui::check(const Position& p) const {
  const int n = 2 * k_;
  int live = 0;
  int bulls = 0;
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const Mark m = p.marks[u];
    if (m == Mark::Closed) return "pit " + std::to_string(i) + ": enkeshui has no closed pits (a pit is plain or a bull, S or N)";
    if (m != Mark::None) {
      if (p.pits[u] != 0)
        return "pit " + std::to_string(i) + " is a bull and must be written with 0 seeds (its seeds belong to its owner)";
      ++bulls;
    }
    live += p.pits[u];
  }
  if (live > total_seeds())
    return std::to_string(live) + " seeds on the board, but " + name() + " is played with " + std::to_string(total_seeds());
  if (bulls > 0 && live + seeds_taken_by_bulls(bulls) > total_seeds())
    return std::to_string(live) + " seeds on the board with " + std::to_string(bulls) + " bulls, but making them took at least " +
           std::to_string(seeds_taken_by_bulls(bulls)) + " of the " + std::to_string(total_seeds()) + " seeds out of play";
  if (p.flags != 0) return name() + " has no position flags";
  if (p.jeppe >= 0) return name() + " has no jeppe pit";
  return {};
}

}  // namespace mancala
