/*
 * tool_harness_demo.c -- a test binary for tests/c/util/test_harness.c to run: one test
 * that passes, one that fails, and 256 that fail (the count that wrapped to exit 0 when
 * the exit status was the number of failures).
 */
#include "harness.h"

TEST(pass_ok) { CHECK_INT(1 + 1, 2); }
TEST(fail_one) { CHECK_INT(1 + 1, 3); }

#define MANY1(p) TEST(many_##p) { CHECK(0); }
#define MANY4(p) MANY1(p##0) MANY1(p##1) MANY1(p##2) MANY1(p##3)
#define MANY16(p) MANY4(p##0) MANY4(p##1) MANY4(p##2) MANY4(p##3)
#define MANY64(p) MANY16(p##0) MANY16(p##1) MANY16(p##2) MANY16(p##3)
#define MANY256(p) MANY64(p##0) MANY64(p##1) MANY64(p##2) MANY64(p##3)
MANY256(x)

TEST_MAIN()
