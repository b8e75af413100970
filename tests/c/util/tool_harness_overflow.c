/* tool_harness_overflow.c -- more tests than its TEST_MAX holds (test_harness.c: it must
 * fail instead of running the first two and passing). */
#define TEST_MAX 2
#include "harness.h"

TEST(one) { CHECK(1); }
TEST(two) { CHECK(1); }
TEST(three) { CHECK(1); }

TEST_MAIN()
