/*
 * fuzz.h -- what the libFuzzer targets of tests/fuzz share (docs/fuzzing.md).
 *
 * Each fuzz_<target>.c feeds one parser of untrusted input with the bytes libFuzzer
 * gives it and checks, besides "no crash, no leak, no undefined behaviour" (ASan, LSan
 * and UBSan do that), the parser's own promises: an error always has a message that is
 * valid UTF-8 (it goes into --json output), names its origin, and points inside the input;
 * a success round-trips. A broken promise is reported with fuzz_fail, which aborts, so
 * that libFuzzer saves the input as a crash.
 */
#ifndef WEIR_TESTS_FUZZ_H
#define WEIR_TESTS_FUZZ_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn, unused));
static void fuzz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("fuzz: broken promise: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

/* The input as a NUL-terminated string (caller frees); embedded NULs are kept, so C
 * string functions see the text up to the first one, as they would in a file read
 * with wr_fs_read. */
static char *fuzz_cstr(const uint8_t *data, size_t size) __attribute__((unused));
static char *fuzz_cstr(const uint8_t *data, size_t size) {
  char *s = wr_malloc(size + 1);
  if (size) memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

static bool fuzz_utf8(const char *s) __attribute__((unused));
static bool fuzz_utf8(const char *s) {
  json_t *j = json_string(s);
  json_decref(j);
  return j != NULL;
}

/* Every error a parser returns: a non-zero code, a message, valid UTF-8 (it goes into
 * JSON documents), that starts with `origin` when origin is not NULL. */
static void fuzz_check_error(int rc, const weir_error *err, const char *origin) __attribute__((unused));
static void fuzz_check_error(int rc, const weir_error *err, const char *origin) {
  if (rc == 0) fuzz_fail("error check on success");
  if (err->code != rc) fuzz_fail("error code %d but return code %d", err->code, rc);
  if (!err->message || !err->message[0]) fuzz_fail("error %d has no message", rc);
  if (!fuzz_utf8(err->message)) fuzz_fail("error message is not valid UTF-8: %s", err->message);
  if (origin && strncmp(err->message, origin, strlen(origin)) != 0)
    fuzz_fail("error message does not start with \"%s\": %s", origin, err->message);
}

/* An upper bound of the lines in data, as YAML counts them: a line break is \n, \r, or
 * (YAML 1.1) U+0085, U+2028, U+2029, whose UTF-8 encodings end in 0x85, 0xA8, 0xA9. */
static int fuzz_lines(const uint8_t *data, size_t size) __attribute__((unused));
static int fuzz_lines(const uint8_t *data, size_t size) {
  /* UTF-16 (after its byte order mark): any unit may be a break. */
  if (size >= 2 && ((data[0] == 0xFE && data[1] == 0xFF) || (data[0] == 0xFF && data[1] == 0xFE)))
    return (int)(size / 2) + 1;
  int n = 1;
  for (size_t i = 0; i < size; i++)
    if (data[i] == '\n' || data[i] == '\r' || data[i] == 0x85 || data[i] == 0xA8 || data[i] == 0xA9) n++;
  return n;
}

/* The line of a "<origin>:<line>:<col>: ..." message, or 0 when it has none. */
static int fuzz_message_line(const char *msg, const char *origin) __attribute__((unused));
static int fuzz_message_line(const char *msg, const char *origin) {
  size_t n = strlen(origin);
  if (strncmp(msg, origin, n) != 0 || msg[n] != ':') return 0;
  return atoi(msg + n + 1);
}

#endif
