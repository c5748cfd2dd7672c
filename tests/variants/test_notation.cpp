#include <gtest/gtest.h>

#include <random>

#include "mancala/notation.h"

using namespace mancala;

TEST(Notation, RoundTripStart) {
  auto p = parse_position("djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(format_position(*p->variant, p->position, p->side), "djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S");
}

// One error type: an unknown variant is InvalidArgument from make_variant and
// BadPosition inside a position, as every other malformed position text.
TEST(Notation, ErrorCodes) {
  const auto v = make_variant("no-such-game");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, Error::InvalidArgument);
  EXPECT_NE(v.error().message.find("known:"), std::string::npos) << v.error().message;
  EXPECT_EQ(make_variant("kalah:9").error().code, Error::InvalidArgument);
  for (const char* text : {"no-such-game 1,1/1,1 S", "oware 4,4,4/4,4,4 S", "oware 4,4,4,4,4,4/4,4,4,4,4,4 X", ""}) {
    const auto p = parse_position(text);
    ASSERT_FALSE(p) << text;
    EXPECT_EQ(p.error().code, Error::BadPosition) << text;
    EXPECT_FALSE(p.error().message.empty()) << text;
  }
}

namespace {

// The plain board's grammar read the naive way, a twin of parse_plain_board (which
// parse_position itself tries first): blanks, then the pits as cells of one to three
// digits (at most 255) separated by commas, South's half and North's by a slash, one
// space, S or N, then nothing but blanks.
bool naive_plain_board(const Variant& v, std::string_view s, Position& out, Side& side) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  std::size_t i = 0;
  while (i < s.size() && blank(s[i])) ++i;
  const std::size_t space = s.find(' ', i);
  if (space == std::string_view::npos || space + 1 >= s.size() || (s[space + 1] != 'S' && s[space + 1] != 'N')) return false;
  for (std::size_t k = space + 2; k < s.size(); ++k)
    if (!blank(s[k])) return false;
  const std::string_view board = s.substr(i, space - i);
  const std::size_t slash = board.find('/');
  if (slash == std::string_view::npos || board.find('/', slash + 1) != std::string_view::npos) return false;
  Position a;
  const int south = v.south_pits(a);
  int idx = 0;
  const std::string_view halves[2] = {board.substr(0, slash), board.substr(slash + 1)};
  for (int h = 0; h < 2; ++h) {
    const std::string_view half = halves[h];
    std::size_t from = 0;
    for (;;) {
      const std::size_t comma = std::min(half.find(',', from), half.size());
      const std::string_view cell = half.substr(from, comma - from);
      if (cell.empty() || cell.size() > 3 || cell.find_first_not_of("0123456789") != std::string_view::npos) return false;
      const int n = std::stoi(std::string(cell));
      if (n > 255 || idx >= v.pits()) return false;
      a.pits[static_cast<std::size_t>(idx++)] = static_cast<Seeds>(n);
      if (comma == half.size()) break;
      from = comma + 1;
    }
    if (h == 0 && idx != south) return false;
  }
  if (idx != v.pits()) return false;
  out = a;
  side = s[space + 1] == 'S' ? Side::South : Side::North;
  return true;
}

}  // namespace

// The one-pass reading of a plain board (mtb_value's shortest way, and parse_position's
// first try) reads as its naive twin: on texts made from written positions and then
// damaged at random (a character inserted, deleted or replaced, from the characters of
// a board and a few others, or a number of up to three digits inserted), both accept the
// same texts, as the same board and side; every written position they accept.
TEST(Notation, PlainBoardReadsAsItsNaiveTwin) {
  std::mt19937_64 rng(20261206);
  const std::string alphabet = "0123456789,/ SN\t\nx-";
  int accepted = 0, damaged_accepted = 0, refused = 0;
  for (const char* name : {"oware", "kalah:6:empty", "enkeshui:12", "djenon-aboure", "kotu-baendum", "cenne:7:7"}) {
    const auto v = make_variant(name);
    ASSERT_TRUE(v) << name;
    for (int round = 0; round < 3000; ++round) {
      Position a;
      for (int i = 0; i < (*v)->pits(); ++i)
        a.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(rng() % 16 == 0 ? rng() % 256 : rng() % 3);
      const Side side = rng() % 2 ? Side::South : Side::North;
      std::string text = format_position(**v, side == Side::South ? a : (*v)->rotate(a), side);
      const bool damaged = round % 3 != 0;
      for (int k = 0; damaged && k < 1 + static_cast<int>(rng() % 3); ++k) {
        const std::size_t at = text.find(' ') + 1 + rng() % (text.size() - text.find(' '));
        const char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 4) {
          case 0: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
          case 1: text.insert(at, std::to_string(rng() % 1000)); break;
          case 2: if (at < text.size()) text.erase(at, 1); break;
          default: if (at < text.size()) text[at] = c;
        }
      }
      const std::string_view rest = std::string_view(text).substr(text.find(' '));
      Position plain, naive;
      Side plain_side = Side::South, naive_side = Side::South;
      const bool one_pass = parse_plain_board(**v, rest, plain, plain_side);
      ASSERT_EQ(one_pass, naive_plain_board(**v, rest, naive, naive_side)) << text;
      if (!one_pass) {
        EXPECT_TRUE(damaged) << "a written position of plain numbers: " << text;
        ++refused;
        continue;
      }
      ++accepted;
      damaged_accepted += damaged;
      EXPECT_EQ(plain, naive) << text;
      EXPECT_EQ(plain_side, naive_side) << text;
      if (!damaged) {
        EXPECT_EQ(plain, a) << text;
      }
    }
  }
  EXPECT_GT(damaged_accepted, 1000);  // the damage left many texts plain, and refused many
  EXPECT_GT(refused, 1000);
  EXPECT_GT(accepted, 5000);
}
