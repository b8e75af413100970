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
#include "util/buf.h"
#include "util/fs.h"
#include "harness.h"

/* A fixed-width column of n values of `width` bytes; value i is written by fill(i, dst),
 * and row i is null when null_every > 0 and i % null_every == 0. */
typedef void (*fill_fn)(int64_t i, void *dst);

static inline void tu_fixed(struct ArrowArray *a, int64_t n, size_t width, fill_fn fill,
                            int null_every) {
  wr_arrow_array_init(a, n, 2, 0);
  uint8_t *data = wr_arrow_array_alloc_buffer(a, 1, (size_t)n * width);
  for (int64_t i = 0; i < n; i++) fill(i, data + (size_t)i * width);
  if (null_every > 0) {
    uint8_t *valid = wr_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
      if (i % null_every == 0) nulls++;
      else wr_bit_set(valid, i);
    }
    a->null_count = nulls;
  }
}

/* A boolean column: value i is i % 3 == 0. */
static inline void tu_bool(struct ArrowArray *a, int64_t n, int null_every) {
  wr_arrow_array_init(a, n, 2, 0);
  uint8_t *bits = wr_arrow_array_alloc_buffer(a, 1, (size_t)(n + 7) / 8);
  for (int64_t i = 0; i < n; i++)
    if (i % 3 == 0) wr_bit_set(bits, i);
  if (null_every > 0) {
    uint8_t *valid = wr_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
      if (i % null_every == 0) nulls++;
      else wr_bit_set(valid, i);
    }
    a->null_count = nulls;
  }
}

/* A utf8/binary column with 32-bit (large = false) or 64-bit offsets; value i is str(i). */
typedef const char *(*str_fn)(int64_t i, char *buf);

static inline void tu_strings(struct ArrowArray *a, int64_t n, bool large, str_fn str,
                              int null_every) {
  wr_arrow_array_init(a, n, 3, 0);
  size_t total = 0;
  char tmp[256];
  for (int64_t i = 0; i < n; i++) total += strlen(str(i, tmp));
  char *data = wr_arrow_array_alloc_buffer(a, 2, total ? total : 1);
  void *offs = wr_arrow_array_alloc_buffer(a, 1, (size_t)(n + 1) * (large ? 8 : 4));
  size_t pos = 0;
  uint8_t *valid = null_every > 0 ? wr_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8) : NULL;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    if (large) ((int64_t *)offs)[i] = (int64_t)pos;
    else ((int32_t *)offs)[i] = (int32_t)pos;
    bool is_null = null_every > 0 && i % null_every == 0;
    if (is_null) {
      nulls++;
      continue;
    }
    if (valid) wr_bit_set(valid, i);
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
  wr_arrow_schema_init(s, "+s", "", 0, n);
  for (int i = 0; i < n; i++) {
    struct ArrowSchema c;
    wr_arrow_schema_init(&c, formats[i], names[i], ARROW_FLAG_NULLABLE, 0);
    wr_arrow_schema_set_child(s, i, &c);
  }
}

/* A batch (struct array) of n rows from columns (moved in). */
static inline void tu_batch(struct ArrowArray *out, int64_t n, int ncols, struct ArrowArray *cols) {
  wr_arrow_array_init(out, n, 1, ncols);
  for (int i = 0; i < ncols; i++) wr_arrow_array_set_child(out, i, &cols[i]);
}

/* The first row of a JSON result as a compact string of the named column, or "(none)". */
static inline char *tu_json_value(wr_engine *e, const char *sql, const char *col) {
  json_t *rows = NULL;
  weir_error err = {0};
  if (wr_engine_query_json(e, sql, &rows, &err) != 0) {
    char *m = wr_asprintf("ERROR: %s", err.message);
    weir_error_clear(&err);
    return m;
  }
  json_t *v = json_object_get(json_array_get(rows, 0), col);
  char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("(none)");
  json_decref(rows);
  return s;
}

static inline double tu_double(wr_engine *e, const char *sql) {
  double d = -12345.678;
  bool is_null = false;
  weir_error err = {0};
  if (wr_engine_query_double(e, sql, &d, &is_null, &err) != 0) {
    fprintf(stderr, "  query failed: %s: %s\n", sql, err.message);
    weir_error_clear(&err);
  }
  return is_null ? -999999.0 : d;
}

static inline wr_engine *tu_open(void) {
  wr_engine *e = NULL;
  weir_error err = {0};
  if (wr_engine_open(NULL, &e, &err) != 0) {
    fprintf(stderr, "cannot open engine: %s\n", err.message);
    exit(99);
  }
  return e;
}

/* ---- canonical cell text, for comparing data across Arrow layouts ---------------------
 * Equal logical values give equal text whatever the physical form: strings in any layout
 * as their bytes, timestamps as nanoseconds (plus "Z" when they have a time zone), dates
 * as days, decimals as their unscaled integer and scale, dictionaries as their values. */

static inline int64_t tu_read_int(const void *buf, char f, int64_t i) {
  switch (f) {
  case 'c': return ((const int8_t *)buf)[i];
  case 'C': return ((const uint8_t *)buf)[i];
  case 's': return ((const int16_t *)buf)[i];
  case 'S': return ((const uint16_t *)buf)[i];
  case 'i': return ((const int32_t *)buf)[i];
  case 'I': return ((const uint32_t *)buf)[i];
  default: return ((const int64_t *)buf)[i];
  }
}

static inline void tu_cell(const struct ArrowSchema *f, const struct ArrowArray *a, int64_t row, char *out,
                           size_t size) {
  const char *fmt = f->format;
  int64_t i = a->offset + row;
  if (a->null_count != 0 && a->buffers[0] && !wr_bit_get(a->buffers[0], i)) {
    snprintf(out, size, "NULL");
    return;
  }
  if (f->dictionary) {
    tu_cell(f->dictionary, a->dictionary, tu_read_int(a->buffers[1], fmt[0], i) - a->dictionary->offset, out, size);
    return;
  }
  const void *d = a->buffers[1];
  if (strcmp(fmt, "b") == 0) snprintf(out, size, "%s", wr_bit_get(d, i) ? "true" : "false");
  else if (strchr("csilCSI", fmt[0]) && fmt[1] == 0) snprintf(out, size, "%lld", (long long)tu_read_int(d, fmt[0], i));
  else if (strcmp(fmt, "L") == 0) snprintf(out, size, "%llu", (unsigned long long)((const uint64_t *)d)[i]);
  else if (strcmp(fmt, "f") == 0) snprintf(out, size, "%.9g", ((const float *)d)[i]);
  else if (strcmp(fmt, "g") == 0) snprintf(out, size, "%.17g", ((const double *)d)[i]);
  else if (fmt[0] == 'd') {
    int p, s;
    sscanf(fmt, "d:%d,%d", &p, &s);
    const int64_t *w = (const int64_t *)d + 2 * i;
    snprintf(out, size, "%lld:%llu/%d", (long long)w[1], (unsigned long long)w[0], s);
  } else if (strchr("uUzZ", fmt[0]) || strcmp(fmt, "vu") == 0 || strcmp(fmt, "vz") == 0) {
    const uint8_t *p;
    int64_t n;
    if (fmt[0] == 'v') {
      const uint8_t *view = (const uint8_t *)d + 16 * i;
      int32_t len, bi, off;
      memcpy(&len, view, 4);
      n = len;
      if (len <= 12) p = view + 4;
      else {
        memcpy(&bi, view + 8, 4);
        memcpy(&off, view + 12, 4);
        p = (const uint8_t *)a->buffers[2 + bi] + off;
      }
    } else if (fmt[0] == 'U' || fmt[0] == 'Z') {
      const int64_t *o = d;
      p = (const uint8_t *)a->buffers[2] + o[i];
      n = o[i + 1] - o[i];
    } else {
      const int32_t *o = d;
      p = (const uint8_t *)a->buffers[2] + o[i];
      n = o[i + 1] - o[i];
    }
    size_t pos = (size_t)snprintf(out, size, "s:");
    for (int64_t k = 0; k < n && pos + 3 < size; k++) pos += (size_t)snprintf(out + pos, size - pos, "%02x", p[k]);
  } else if (strcmp(fmt, "tdD") == 0) snprintf(out, size, "day %d", ((const int32_t *)d)[i]);
  else if (strcmp(fmt, "tdm") == 0) snprintf(out, size, "day %lld", (long long)(((const int64_t *)d)[i] / 86400000));
  else if (fmt[0] == 't' && fmt[1] == 's') {
    int64_t v = ((const int64_t *)d)[i];
    int64_t mul = fmt[2] == 's' ? 1000000000 : fmt[2] == 'm' ? 1000000 : fmt[2] == 'u' ? 1000 : 1;
    snprintf(out, size, "ts %lld%s", (long long)(v * mul), fmt[4] ? "Z" : "");
  } else snprintf(out, size, "?%s", fmt);
}

/* Compares column `ca` of table a with column `cb` of table b row by row; returns the
 * number of differing rows and prints the first few. */
static inline int64_t tu_compare_columns(const wr_arrow_table *a, int64_t ca, const wr_arrow_table *b, int64_t cb) {
  int64_t diffs = 0;
  size_t bi = 0, bj = 0;
  int64_t ri = 0, rj = 0;
  char x[512], y[512];
  while (bi < a->n_batches && bj < b->n_batches) {
    const struct ArrowArray *A = wr_arrow_batch_array(a->batches[bi]);
    const struct ArrowArray *B = wr_arrow_batch_array(b->batches[bj]);
    if (ri >= A->length) { bi++; ri = 0; continue; }
    if (rj >= B->length) { bj++; rj = 0; continue; }
    tu_cell(a->schema.children[ca], A->children[ca], A->offset + ri, x, sizeof x);
    tu_cell(b->schema.children[cb], B->children[cb], B->offset + rj, y, sizeof y);
    if (strcmp(x, y) != 0 && diffs++ < 3)
      fprintf(stderr, "  column %s row %lld: %s != %s\n", a->schema.children[ca]->name, (long long)ri, x, y);
    ri++;
    rj++;
  }
  return diffs;
}

#endif
