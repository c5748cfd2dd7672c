// A deliberately naive second implementation of docs/rules/djenon-aboure.md,
// oware.md and kalah.md (Kalah with both capture options), written from the rule text only.
//
// Nothing here is shared with the engine: boards are std::vector<int> in absolute
// orientation (South's row is pits 0..row-1, North's row row..2row-1, both left to
// right as their owner sees them), sides are 'S' and 'N', seeds are sown one at a
// time, and an endless turn is found by remembering every lap-start state in a
// std::set. It is slow on purpose; the test suites compare the engine against it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace naive {

enum class Game { DjenonAboure, Oware, KalahEmpty, KalahStandard };

// One legal turn: its label (start pit from the mover's left, or "pass"), the board
// after it (absolute), who moves next, and what each player gained by the turn.
struct Turn {
  std::string label;
  std::vector<int> pits;
  char to_move = 'S';
  int gain_mover = 0;
  int gain_opponent = 0;
  friend auto operator<=>(const Turn&, const Turn&) = default;
};

inline char other(char side) { return side == 'S' ? 'N' : 'S'; }
// The mover's j-th pit from his left: South's row starts at 0, North's at `row`.
inline int own_pit(char side, int row, int j) { return side == 'S' ? j : row + j; }
inline bool owns(char side, int row, int pit) { return side == 'S' ? pit < row : pit >= row; }
inline int row_sum(const std::vector<int>& b, char side, int row) {
  int s = 0;
  for (int j = 0; j < row; ++j) s += b[own_pit(side, row, j)];
  return s;
}

// ---- Djenon-aboure (docs/rules/djenon-aboure.md) -----------------------------------------

// Plays one turn from `start` on board `b` (12 pits). Returns false if the turn never
// ends (a lap-start state repeats); otherwise `b` is the board after it and `gain`
// what the mover captured.
inline bool djenon_sow(std::vector<int>& b, int start, int& gain) {
  const int n = 12;
  gain = 0;
  std::set<std::pair<std::vector<int>, int>> lap_starts;
  int pit = start;
  for (;;) {
    if (!lap_starts.insert({b, pit}).second) return false;  // endless
    int hand = b[pit];
    b[pit] = 0;
    int at = pit;
    b[at] += 1;  // the first seed goes back into the emptied pit
    hand -= 1;
    while (hand > 0) {
      at = (at + 1) % n;
      b[at] += 1;
      hand -= 1;
    }
    const int before = b[at] - 1;  // what the last pit held before the last seed
    if (before == 0) return true;
    if (before == 1 || before == 3) {
      gain += b[at];
      b[at] = 0;
      int q = at;
      for (int looked = 1; looked <= n - 1; ++looked) {  // every other pit at most once
        q = (q - 1 + n) % n;
        if (b[q] != 2 && b[q] != 4) break;
        gain += b[q];
        b[q] = 0;
      }
      return true;
    }
    pit = at;  // 2 or 4+ before: relay
  }
}

inline std::vector<Turn> djenon_sowings(const std::vector<int>& b, char side) {
  std::vector<Turn> out;
  for (int j = 0; j < 6; ++j) {
    const int pit = own_pit(side, 6, j);
    if (b[pit] < 2) continue;  // singletons are never moved
    std::vector<int> after = b;
    int gain = 0;
    if (!djenon_sow(after, pit, gain)) continue;
    out.push_back({std::to_string(j), after, other(side), gain, 0});
  }
  return out;
}

inline std::vector<Turn> djenon_turns(const std::vector<int>& b, char side) {
  std::vector<Turn> out = djenon_sowings(b, side);
  if (out.empty() && !djenon_sowings(b, other(side)).empty()) out.push_back({"pass", b, other(side), 0, 0});
  return out;
}

// ---- Oware (docs/rules/oware.md) -----------------------------------------------

inline std::vector<Turn> oware_turns(const std::vector<int>& b, char side) {
  const int n = 12;
  std::vector<Turn> all;
  for (int j = 0; j < 6; ++j) {
    const int start = own_pit(side, 6, j);
    if (b[start] == 0) continue;
    std::vector<int> after = b;
    const int lifted = after[start];
    int hand = lifted;
    after[start] = 0;
    int at = start;
    while (hand > 0) {
      at = (at + 1) % n;
      if (lifted >= 12 && at == start) continue;  // a lap of 12+ skips its start pit
      after[at] += 1;
      hand -= 1;
    }
    int gain = 0;
    while (!owns(side, 6, at) && (after[at] == 2 || after[at] == 3)) {
      gain += after[at];
      after[at] = 0;
      if (at == own_pit(other(side), 6, 0)) break;  // the start of the opponent's row
      at -= 1;
    }
    all.push_back({std::to_string(j), after, other(side), gain, 0});
  }
  // A turn leaving the opponent without seeds is allowed only if every turn does.
  std::vector<Turn> feeding;
  for (const Turn& t : all)
    if (row_sum(t.pits, other(side), 6) > 0) feeding.push_back(t);
  return feeding.empty() ? all : feeding;
}

// ---- Kalah(m, n) (docs/rules/kalah.md) -----------------------------------------

inline std::vector<Turn> kalah_turns(const std::vector<int>& b, char side, bool capture_empty) {
  const int m = static_cast<int>(b.size()) / 2;
  if (row_sum(b, 'S', m) == 0 || row_sum(b, 'N', m) == 0) return {};  // the game is over
  // The mover's circuit: his pits left to right, his store (-1), the opponent's pits.
  std::vector<int> circuit;
  for (int j = 0; j < m; ++j) circuit.push_back(own_pit(side, m, j));
  circuit.push_back(-1);
  for (int j = 0; j < m; ++j) circuit.push_back(own_pit(other(side), m, j));
  std::vector<Turn> out;
  for (int j = 0; j < m; ++j) {
    const int start = own_pit(side, m, j);
    if (b[start] == 0) continue;
    std::vector<int> after = b;
    int hand = after[start];
    after[start] = 0;
    int gain = 0;
    int step = j;  // position on the circuit
    while (hand > 0) {
      step = (step + 1) % static_cast<int>(circuit.size());
      if (circuit[step] == -1) gain += 1;
      else after[circuit[step]] += 1;
      hand -= 1;
    }
    const int last = circuit[step];
    if (last == -1) {  // into his own store: he moves again
      out.push_back({std::to_string(j), after, side, gain, 0});
      continue;
    }
    if (owns(side, m, last) && after[last] == 1) {
      const int facing = 2 * m - 1 - last;
      if (after[facing] > 0 || capture_empty) {
        gain += after[facing] + 1;
        after[facing] = 0;
        after[last] = 0;
      }
    }
    out.push_back({std::to_string(j), after, other(side), gain, 0});
  }
  return out;
}

// ---- Common entry points ------------------------------------------------------

inline int row_length(Game g, const std::vector<int>& b) {
  return g == Game::DjenonAboure || g == Game::Oware ? 6 : static_cast<int>(b.size()) / 2;
}

// Every legal turn of the board with `side` to move; empty when the game is over.
inline std::vector<Turn> turns(Game g, const std::vector<int>& b, char side) {
  switch (g) {
    case Game::DjenonAboure: return djenon_turns(b, side);
    case Game::Oware: return oware_turns(b, side);
    case Game::KalahEmpty: return kalah_turns(b, side, true);
    case Game::KalahStandard: return kalah_turns(b, side, false);
  }
  return {};
}

// The sharing when the game is over (no turns), as a margin for `side`:
// Djenon-aboure and Kalah: each takes his own row; Oware: the opponent takes all.
inline int final_margin(Game g, const std::vector<int>& b, char side) {
  const int row = row_length(g, b);
  if (g == Game::Oware) return -(row_sum(b, side, row) + row_sum(b, other(side), row));
  return row_sum(b, side, row) - row_sum(b, other(side), row);
}

// Move sequences of exactly `depth` turns.
inline std::uint64_t perft(Game g, const std::vector<int>& b, char side, int depth) {
  if (depth == 0) return 1;
  const std::vector<Turn> ts = turns(g, b, side);
  if (depth == 1) return ts.size();
  std::uint64_t total = 0;
  for (const Turn& t : ts) total += perft(g, t.pits, t.to_move, depth - 1);
  return total;
}

}  // namespace naive
