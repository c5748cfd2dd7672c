#include <gtest/gtest.h>

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
