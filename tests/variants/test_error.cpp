// The one error type and the budget (mancala/error.h).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "mancala/error.h"

using namespace mancala;

TEST(Error, CodeNamesAreDistinctAndStable) {
  EXPECT_EQ(error_code_name(Error::Cancelled), "cancelled");
  EXPECT_EQ(error_code_name(Error::Limit), "limit");
  EXPECT_EQ(error_code_name(Error::MissingTable), "missing_table");
  EXPECT_EQ(error_code_name(Error::BadPosition), "bad_position");
  for (int a = Error::InvalidArgument; a <= Error::Internal; ++a)
    for (int b = a + 1; b <= Error::Internal; ++b)
      EXPECT_NE(error_code_name(Error::Code(a)), error_code_name(Error::Code(b)));
}

TEST(Error, FailWithMakesAnUnexpected) {
  Result<int> r = fail_with(Error::NotFound, "no such folder");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Error::NotFound);
  EXPECT_EQ(r.error().message, "no such folder");
}

TEST(Budget, UnlimitedNeverStops) {
  Budget b;
  EXPECT_FALSE(b.limited());
  EXPECT_FALSE(b.stopped(UINT64_MAX - 1));
  EXPECT_FALSE(b.check("x", 1'000'000'000));
}

TEST(Budget, WorkLimit) {
  Budget b;
  b.work_limit(100);
  EXPECT_TRUE(b.limited());
  EXPECT_FALSE(b.stopped(99));
  auto e = b.check("search", 100);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, Error::Limit);
  EXPECT_NE(e->message.find("search"), std::string::npos);
}

TEST(Budget, CancelComesFirst) {
  std::atomic<bool> flag{false};
  Budget b;
  b.cancel_on(&flag).work_limit(10);
  EXPECT_FALSE(b.stopped(0));
  flag = true;
  EXPECT_EQ(b.stop_code(50), Error::Cancelled);  // cancelled and over the limit: Cancelled
  EXPECT_EQ(b.check("generate")->code, Error::Cancelled);
}

TEST(Budget, Deadline) {
  Budget b;
  b.deadline_in(0.02);
  EXPECT_TRUE(b.has_deadline());
  EXPECT_FALSE(b.expired());
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  EXPECT_TRUE(b.expired());
  EXPECT_EQ(b.stop_code(), Error::Limit);
  Budget none;
  none.deadline_in(0);  // no deadline
  EXPECT_FALSE(none.has_deadline());
}
