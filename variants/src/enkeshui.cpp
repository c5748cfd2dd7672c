#include "mancala/rules/enkeshui.h"

#include <algorithm>
#include <stdexcept>

namespace mancala {

namespace {

// Start rows of RULES.md section 4, South's row left to right. RULES.md draws North's
// row left to right as South sees it, i.e. pits 2K-1 down to K; reversed into circuit
// order it is the same list as South's for every layout (the start positions are
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
// End of the lap (RULES.md 4, in this order), by what the pits of the last two seeds
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

Enkeshui::PathKey Enkeshui::key_of(const Lap& lap) const {
  PathKey key{};
  key.pits = lap.board.pits;
  key.marks = lap.board.marks;
  key.pit = static_cast<std::int8_t>(lap.pit);
  key.bits = static_cast<std::uint8_t>((lap.first ? 1 : 0) | (lap.privilege ? 2 : 0));
  std::uint64_t h = 1469598103934665603ull ^ static_cast<std::uint64_t>(lap.pit * 4 + key.bits);
  for (int i = 0; i < 2 * k_; ++i) {
    const auto u = static_cast<std::size_t>(i);
    h = (h ^ (static_cast<std::uint64_t>(key.pits[u]) | static_cast<std::uint64_t>(key.marks[u]) << 8)) * 1099511628211ull;
  }
  key.hash = h;
  return key;
}

// Depth-first over the laps of one turn. Deterministic stretches (no privilege yet)
// are walked in a loop; each lap-start state is pushed on `path` and the path is cut
// where a state repeats (an endless choice sequence). At a privileged lap both
// directions are tried, counterclockwise first.
void Enkeshui::explore(Lap lap, std::vector<PathKey>& path, std::vector<Child>& out, std::size_t pit_begin) const {
  const std::size_t depth = path.size();
  // The turn ended: keep it unless an earlier choice path gave the same result.
  auto record = [&](const Lap& end) {
    Child c;
    c.move = end.move;
    c.next = rotate(end.board);
    c.gain_mover = static_cast<std::int16_t>(end.gain_mover);
    c.gain_opponent = static_cast<std::int16_t>(end.gain_opponent);
    const bool seen = std::any_of(out.begin() + static_cast<std::ptrdiff_t>(pit_begin), out.end(), [&](const Child& o) {
      return o.gain_mover == c.gain_mover && o.gain_opponent == c.gain_opponent && o.next == c.next;
    });
    if (!seen) out.push_back(c);
  };
  for (;;) {
    const PathKey key = key_of(lap);
    const bool repeated = std::any_of(path.begin(), path.end(), [&](const PathKey& seen) {
      return seen.hash == key.hash && seen.pit == key.pit && seen.bits == key.bits && seen.pits == key.pits &&
             seen.marks == key.marks;
    });
    if (repeated) break;  // endless along this path
    path.push_back(key);
    if (!lap.privilege) {
      Lap next = lap;
      if (!sow_lap(next, false)) {
        record(next);
        break;
      }
      lap = next;  // deterministic: go on in this frame
      continue;
    }
    if (lap.move.choices() >= Move::kMaxChoices)
      throw std::length_error("enkeshui: a turn needs more than " + std::to_string(Move::kMaxChoices) + " direction choices");
    for (const bool cw : {false, true}) {
      Lap next = lap;
      next.move = next.move.with_choice(cw);
      if (sow_lap(next, cw)) explore(next, path, out, pit_begin);
      else record(next);
    }
    break;
  }
  path.resize(depth);
}

void Enkeshui::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  std::vector<PathKey> path;
  for (int i = 0; i < k_; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (p.marks[u] != Mark::None || p.pits[u] == 0) continue;
    Lap root;
    root.board = p;
    root.pit = i;
    root.move = Move::sow(i);
    path.clear();
    explore(root, path, out, out.size());
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
