/*
 * test_harness.c -- the harness itself (tests/c/harness.h): a run that proves nothing or
 * holds a failure never exits 0. Runs the tool_harness_* binaries built beside it.
 */
#include <sys/wait.h>

#include "harness.h"

/* Exit status of `tool [arg]` from the build folder, its output discarded; -1 when it did
 * not exit normally. */
static int run_tool(const char *tool, const char *arg) {
  const char *dir = getenv("WEIR_BUILD_DIR");
  char cmd[4600];
  snprintf(cmd, sizeof cmd, "'%s/util_%s' %s%s%s >/dev/null 2>&1", dir ? dir : ".", tool, arg ? "'" : "",
           arg ? arg : "", arg ? "'" : "");
  int st = system(cmd);
  return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(passing_tests_exit_0) { CHECK_INT(run_tool("tool_harness_demo", "pass_ok"), 0); }

TEST(one_failure_exits_1) { CHECK_INT(run_tool("tool_harness_demo", "fail_one"), 1); }

TEST(failures_never_wrap_to_0) {
  /* 256 failures: an exit status of "the number of failures" is 0 modulo 256. */
  CHECK_INT(run_tool("tool_harness_demo", "many_"), 1);
  CHECK_INT(run_tool("tool_harness_demo", NULL), 1);
}

TEST(a_filter_that_matches_nothing_fails) { CHECK_INT(run_tool("tool_harness_demo", "no_such_test"), 2); }

TEST(zero_tests_fail) { CHECK_INT(run_tool("tool_harness_empty", NULL), 2); }

TEST(tests_past_test_max_fail) { CHECK_INT(run_tool("tool_harness_overflow", NULL), 2); }

TEST(extra_arguments_fail) {
  const char *dir = getenv("WEIR_BUILD_DIR");
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "'%s/util_tool_harness_demo' pass_ok extra >/dev/null 2>&1", dir ? dir : ".");
  int st = system(cmd);
  CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

TEST_MAIN()
