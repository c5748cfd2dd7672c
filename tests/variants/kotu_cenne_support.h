// Helpers shared by test_kotu_baendum.cpp and test_cenne.cpp: turns printed in the
// format of `mancala-tb moves`, random position generators, comparison keys.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "mancala/notation.h"
#include "mancala/rules.h"

namespace kc_test {

using namespace mancala;

inline ParsedPosition parse_or_die(const std::string& text) {
  auto p = parse_position(text);
  EXPECT_TRUE(p) << text << ": " << (p ? "" : p.error().message);
  if (!p) throw std::runtime_error("bad test position " + text);
  return *p;
}

// Every turn of a position, shortened from the lines `mancala-tb moves` prints:
//   "0 -> kotu-baendum 1,5,5,5,0,5,5/5,5,0,5,5,5,5 N | 0 0"
inline std::vector<std::string> turns(const std::string& text) {
  const ParsedPosition pp = parse_or_die(text);
  std::vector<Child> kids;
  pp.variant->children(pp.position, kids);
  std::vector<std::string> out;
  for (const Child& c : kids) {
    const Side next = c.same_side ? pp.side : opposite(pp.side);
    out.push_back(pp.variant->move_name(c.move) + " -> " +
                  (c.game_over ? std::string("(game over)") : format_position(*pp.variant, c.next, next)) + " | " +
                  std::to_string(c.gain_mover) + " " + std::to_string(c.gain_opponent));
  }
  return out;
}

// A normalised position written out completely (pits, marks, flags, jeppe).
inline std::string key_of(const Position& p, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    s += std::to_string(p.pits[static_cast<std::size_t>(i)]);
    const Mark m = p.marks[static_cast<std::size_t>(i)];
    s += m == Mark::South ? "S," : m == Mark::North ? "N," : m == Mark::Closed ? "x," : ",";
  }
  return s + " f" + std::to_string(p.flags) + " j" + std::to_string(p.jeppe);
}

inline int live_seeds(const Position& p, int n) { return p.seeds_in(0, n); }

}  // namespace kc_test
