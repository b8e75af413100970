/* tool_harness_empty.c -- a test binary with no tests (test_harness.c: it must fail). */
#include "harness.h"

TEST_MAIN()
