/*
 * harness.h -- the C test harness: one executable per test file, each TEST a function.
 *
 *   #include "harness.h"
 *   TEST(parses_names) { CHECK_INT(wr_x(...), WEIR_OK); CHECK_STR(s, "expected"); }
 *   TEST_MAIN()
 *
 * A failing CHECK prints file:line with both values and marks the test failed; the test
 * goes on so one run shows every failure. `./test_x name` runs only tests whose name
 * contains `name`.
 *
 * Exit status: 0 when every test that ran passed, 1 when one failed, 2 when the run proves
 * nothing: no test ran (none registered, or `name` matches none), more tests were
 * registered than TEST_MAX holds, or the arguments are not understood. A test binary
 * never exits 0 with a failure (the count of failures is printed, not returned: 256
 * failures would otherwise read as success). tests/c/util/test_harness.c holds it to this.
 */
#ifndef WEIR_TEST_HARNESS_H
#define WEIR_TEST_HARNESS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weir.h"

typedef void (*test_fn)(void);
typedef struct test_case {
  const char *name;
  test_fn fn;
} test_case;

#ifndef TEST_MAX
#define TEST_MAX 512
#endif
static test_case test_cases_[TEST_MAX];
static int test_count_;
static int test_dropped_; /* registrations past TEST_MAX: the run fails rather than skip them */
static int test_failed_current_;
static const char *test_current_name_;

#define TEST(name)                                                                        \
  static void test_##name(void);                                                          \
  __attribute__((constructor)) static void test_register_##name(void) {                   \
    if (test_count_ < TEST_MAX) test_cases_[test_count_++] = (test_case){#name, test_##name}; \
    else test_dropped_++;                                                                   \
  }                                                                                       \
  static void test_##name(void)

#define TEST_FAIL_(...)                                                  \
  do {                                                                   \
    fprintf(stderr, "  FAIL %s (%s:%d): ", test_current_name_, __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                        \
    fputc('\n', stderr);                                                 \
    test_failed_current_ = 1;                                            \
  } while (0)

#define CHECK(cond)                                   \
  do {                                                \
    if (!(cond)) TEST_FAIL_("expected %s", #cond);    \
  } while (0)

#define CHECK_INT(actual, expected)                                                         \
  do {                                                                                      \
    long long a_ = (long long)(actual), e_ = (long long)(expected);                         \
    if (a_ != e_) TEST_FAIL_("%s is %lld, expected %lld", #actual, a_, e_);                 \
  } while (0)

#define CHECK_STR(actual, expected)                                                         \
  do {                                                                                      \
    const char *a_ = (actual), *e_ = (expected);                                            \
    if (!a_ || !e_ || strcmp(a_, e_) != 0)                                                  \
      TEST_FAIL_("%s is \"%s\", expected \"%s\"", #actual, a_ ? a_ : "(null)", e_ ? e_ : "(null)"); \
  } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                    \
  do {                                                                                      \
    const char *h_ = (haystack), *n_ = (needle);                                            \
    if (!h_ || !strstr(h_, n_))                                                             \
      TEST_FAIL_("%s is \"%s\", expected it to contain \"%s\"", #haystack, h_ ? h_ : "(null)", n_); \
  } while (0)

static inline const char *test_err_message_(const weir_error *e) {
  return e && e->message ? e->message : "(no message)";
}

/* Checks a weir status and prints the error message when it is not the expected one. */
#define CHECK_OK(expr, errp)                                                                \
  do {                                                                                      \
    int rc_ = (expr);                                                                       \
    const weir_error *ep_ = (errp);                                                         \
    if (rc_ != 0)                                                                           \
      TEST_FAIL_("%s returned %d: %s", #expr, rc_, test_err_message_(ep_));                 \
  } while (0)

/* A fresh empty folder under $TMPDIR for this test process; removed by the caller. */
static inline char *test_tmpdir(void) {
  const char *base = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof tmpl, "%s/weir-test-XXXXXX", base && *base ? base : "/tmp");
  char *d = mkdtemp(tmpl);
  if (!d) {
    fprintf(stderr, "cannot create a temporary folder: %s\n", strerror(errno));
    exit(99);
  }
  return strdup(d);
}

static inline void test_rmtree(const char *path) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", path);
}

/* Path of a file in the source tree (WEIR_SOURCE_DIR is set by CTest). Static buffer. */
static inline const char *test_source_path(const char *rel) {
  static char buf[4096];
  const char *root = getenv("WEIR_SOURCE_DIR");
  snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", rel);
  return buf;
}

#define TEST_MAIN()                                                                         \
  int main(int argc, char **argv) {                                                         \
    if (argc > 2) {                                                                         \
      fprintf(stderr, "usage: %s [NAME-SUBSTRING]\n", argv[0]);                              \
      return 2;                                                                             \
    }                                                                                       \
    if (test_dropped_) {                                                                    \
      fprintf(stderr, "%d tests registered past TEST_MAX (%d): raise it in harness.h\n",     \
              test_dropped_, TEST_MAX);                                                     \
      return 2;                                                                             \
    }                                                                                       \
    int failed = 0, ran = 0;                                                                \
    for (int i = 0; i < test_count_; i++) {                                                 \
      if (argc > 1 && !strstr(test_cases_[i].name, argv[1])) continue;                      \
      test_current_name_ = test_cases_[i].name;                                             \
      test_failed_current_ = 0;                                                             \
      test_cases_[i].fn();                                                                  \
      ran++;                                                                                \
      if (test_failed_current_) failed++;                                                   \
      fprintf(stderr, "%s %s\n", test_failed_current_ ? "not ok" : "ok", test_cases_[i].name); \
    }                                                                                       \
    if (ran == 0) {                                                                         \
      if (argc > 1) fprintf(stderr, "no test matches \"%s\" (%d tests)\n", argv[1], test_count_); \
      else fprintf(stderr, "no tests registered\n");                                        \
      return 2;                                                                             \
    }                                                                                       \
    fprintf(stderr, "%d of %d tests failed\n", failed, ran);                                \
    return failed ? 1 : 0;                                                                  \
  }

#endif
