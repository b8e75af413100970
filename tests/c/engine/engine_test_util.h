/*
 * engine_test_util.h -- building Arrow data by hand for the engine's tests (there is no
 * Arrow library in C tests), and reading query results back.
 */
#ifndef WEIR_TEST_ENGINE_UTIL_H
#define WEIR_TEST_ENGINE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "engine/engine.h"
#include "harness.h"

/* A fixed-width column of n values of `width` bytes; value i is written by fill(i, dst),
 * and row i is null when null_every > 0 and i % null_every == 0. */
typedef void (*fill_fn)(int64_t i, void *dst);

static inline void tu_fixed(struct ArrowArray *a, int64_t n, size_t width, fill_fn fill,
                            int null_every) {
  weir_arrow_array_init(a, n, 2, 0);
  uint8_t *data = weir_arrow_array_alloc_buffer(a, 1, (size_t)n * width);
  for (int64_t i = 0; i < n; i++) fill(i, data + (size_t)i * width);
  if (null_every > 0) {
    uint8_t *valid = weir_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
      if (i % null_every == 0) nulls++;
      else weir_bit_set(valid, i);
    }
    a->null_count = nulls;
  }
}

/* A boolean column: value i is i % 3 == 0. */
static inline void tu_bool(struct ArrowArray *a, int64_t n, int null_every) {
  weir_arrow_array_init(a, n, 2, 0);
  uint8_t *bits = weir_arrow_array_alloc_buffer(a, 1, (size_t)(n + 7) / 8);
  for (int64_t i = 0; i < n; i++)
    if (i % 3 == 0) weir_bit_set(bits, i);
  if (null_every > 0) {
    uint8_t *valid = weir_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
      if (i % null_every == 0) nulls++;
      else weir_bit_set(valid, i);
    }
    a->null_count = nulls;
  }
}

/* A utf8/binary column with 32-bit (large = false) or 64-bit offsets; value i is str(i). */
typedef const char *(*str_fn)(int64_t i, char *buf);

static inline void tu_strings(struct ArrowArray *a, int64_t n, bool large, str_fn str,
                              int null_every) {
  weir_arrow_array_init(a, n, 3, 0);
  size_t total = 0;
  char tmp[256];
  for (int64_t i = 0; i < n; i++) total += strlen(str(i, tmp));
  char *data = weir_arrow_array_alloc_buffer(a, 2, total ? total : 1);
  void *offs = weir_arrow_array_alloc_buffer(a, 1, (size_t)(n + 1) * (large ? 8 : 4));
  size_t pos = 0;
  uint8_t *valid = null_every > 0 ? weir_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8) : NULL;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    if (large) ((int64_t *)offs)[i] = (int64_t)pos;
    else ((int32_t *)offs)[i] = (int32_t)pos;
    bool is_null = null_every > 0 && i % null_every == 0;
    if (is_null) {
      nulls++;
      continue;
    }
    if (valid) weir_bit_set(valid, i);
    const char *s = str(i, tmp);
    memcpy(data + pos, s, strlen(s));
    pos += strlen(s);
  }
  if (large) ((int64_t *)offs)[n] = (int64_t)pos;
  else ((int32_t *)offs)[n] = (int32_t)pos;
  a->null_count = nulls;
}

/* A struct schema with the given child formats and names. */
static inline void tu_schema(struct ArrowSchema *s, int n, const char *const *names,
                             const char *const *formats) {
  weir_arrow_schema_init(s, "+s", "", 0, n);
  for (int i = 0; i < n; i++) {
    struct ArrowSchema c;
    weir_arrow_schema_init(&c, formats[i], names[i], ARROW_FLAG_NULLABLE, 0);
    weir_arrow_schema_set_child(s, i, &c);
  }
}

/* A batch (struct array) of n rows from columns (moved in). */
static inline void tu_batch(struct ArrowArray *out, int64_t n, int ncols, struct ArrowArray *cols) {
  weir_arrow_array_init(out, n, 1, ncols);
  for (int i = 0; i < ncols; i++) weir_arrow_array_set_child(out, i, &cols[i]);
}

/* The first row of a JSON result as a compact string of the named column, or "(none)". */
static inline char *tu_json_value(weir_engine *e, const char *sql, const char *col) {
  json_t *rows = NULL;
  weir_error err = {0};
  if (weir_engine_query_json(e, sql, &rows, &err) != 0) {
    char *m = weir_asprintf("ERROR: %s", err.message);
    weir_error_clear(&err);
    return m;
  }
  json_t *v = json_object_get(json_array_get(rows, 0), col);
  char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("(none)");
  json_decref(rows);
  return s;
}

static inline double tu_double(weir_engine *e, const char *sql) {
  double d = -12345.678;
  bool is_null = false;
  weir_error err = {0};
  if (weir_engine_query_double(e, sql, &d, &is_null, &err) != 0) {
    fprintf(stderr, "  query failed: %s: %s\n", sql, err.message);
    weir_error_clear(&err);
  }
  return is_null ? -999999.0 : d;
}

static inline weir_engine *tu_open(void) {
  weir_engine *e = NULL;
  weir_error err = {0};
  if (weir_engine_open(NULL, &e, &err) != 0) {
    fprintf(stderr, "cannot open engine: %s\n", err.message);
    exit(99);
  }
  return e;
}

#endif
