#include <gtest/gtest.h>

#include "mancala/index.h"

using namespace mancala;

TEST(Index, WorkedExample) {
  DistributionIndex plain(3, 10, {});
  EXPECT_EQ(plain.count(2), 6u);
  const Seeds x[3] = {1, 1, 0};
  EXPECT_EQ(plain.rank(x, 2), 4u);
  DistributionIndex filtered(3, 10, {1, 3});
  EXPECT_EQ(filtered.count(2), 5u);
  EXPECT_EQ(filtered.rank(x, 2), 3u);
}
