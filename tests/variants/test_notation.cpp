#include <gtest/gtest.h>

#include "mancala/notation.h"

using namespace mancala;

TEST(Notation, RoundTripStart) {
  auto p = parse_position("djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(format_position(*p->variant, p->position, p->side), "djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S");
}
