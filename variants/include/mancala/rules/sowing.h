// Shared sowing machinery: circuit steps and exact detection of endless turns.
#pragma once

#include <cstdint>

#include "mancala/position.h"

namespace mancala {

// The board turned round for two rows of n/2 pits and no marks or flags.
inline Position rotate_plain(const Position& p, int n) {
  Position r;
  const int k = n / 2;
  for (int i = 0; i < k; ++i) {
    r.pits[static_cast<std::size_t>(i)] = p.pits[static_cast<std::size_t>(i + k)];
    r.pits[static_cast<std::size_t>(i + k)] = p.pits[static_cast<std::size_t>(i)];
  }
  return r;
}

// Exact detection of an endless turn (docs/rules/README.md): the sequence of lap-start
// states of a turn is deterministic, so it never ends iff some state repeats. Brent's
// algorithm finds a repeat with one saved state and no false positives; a relay that
// ends is never mistaken for a cycle, and a cycle is found within 2x its length after
// it starts.
//
//   EndlessTurnDetector guard;
//   while (relay) { if (guard.repeats(p, pit)) return endless; ... }
class EndlessTurnDetector {
 public:
  // Records the state at the start of a lap; true once a state repeats.
  bool repeats(const Position& p, int pit) {
    if (have_ && pit == saved_pit_ && p.pits == saved_.pits && p.marks == saved_.marks) return true;
    if (++steps_ == power_) {
      saved_ = p;
      saved_pit_ = pit;
      have_ = true;
      power_ *= 2;
      steps_ = 0;
    }
    return false;
  }

 private:
  Position saved_{};
  int saved_pit_ = -1;
  bool have_ = false;
  std::uint32_t power_ = 1;
  std::uint32_t steps_ = 0;
};

}  // namespace mancala
