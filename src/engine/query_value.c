/*
 * query_value.c -- small results for metadata: a single number, or rows as JSON.
 *
 * query_json goes through the same Arrow export as data queries, then renders each value
 * from its Arrow form: JSON has numbers, strings, booleans and null, and everything else
 * (dates, timestamps, decimals, blobs, intervals) is written as text in the form DuckDB
 * prints it, so that the JSON says what `SELECT` shows. Decimals are text too: a JSON
 * number would be read back as a double and lose digits. Lists and structs become JSON
 * arrays and objects.
 */
#include "engine/engine_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- query_double ------------------------------------------------------------------ */

static double pow10i(int n) {
  double d = 1;
  while (n-- > 0) d *= 10;
  return d;
}

/* The value of row `row` of a flat vector of type t as a double; false when the type is
 * not a number. */
static bool vector_double(duckdb_vector v, duckdb_logical_type t, idx_t row, double *out) {
  void *d = duckdb_vector_get_data(v);
  duckdb_type id = duckdb_get_type_id(t);
  if (id == DUCKDB_TYPE_DECIMAL) {
    double scale = pow10i(duckdb_decimal_scale(t));
    switch (duckdb_decimal_internal_type(t)) {
    case DUCKDB_TYPE_SMALLINT: *out = ((int16_t *)d)[row] / scale; return true;
    case DUCKDB_TYPE_INTEGER: *out = ((int32_t *)d)[row] / scale; return true;
    case DUCKDB_TYPE_BIGINT: *out = (double)((int64_t *)d)[row] / scale; return true;
    case DUCKDB_TYPE_HUGEINT: *out = duckdb_hugeint_to_double(((duckdb_hugeint *)d)[row]) / scale; return true;
    default: return false;
    }
  }
  switch (id) {
  case DUCKDB_TYPE_BOOLEAN: *out = ((bool *)d)[row] ? 1 : 0; return true;
  case DUCKDB_TYPE_TINYINT: *out = ((int8_t *)d)[row]; return true;
  case DUCKDB_TYPE_SMALLINT: *out = ((int16_t *)d)[row]; return true;
  case DUCKDB_TYPE_INTEGER: *out = ((int32_t *)d)[row]; return true;
  case DUCKDB_TYPE_BIGINT: *out = (double)((int64_t *)d)[row]; return true;
  case DUCKDB_TYPE_UTINYINT: *out = ((uint8_t *)d)[row]; return true;
  case DUCKDB_TYPE_USMALLINT: *out = ((uint16_t *)d)[row]; return true;
  case DUCKDB_TYPE_UINTEGER: *out = ((uint32_t *)d)[row]; return true;
  case DUCKDB_TYPE_UBIGINT: *out = (double)((uint64_t *)d)[row]; return true;
  case DUCKDB_TYPE_FLOAT: *out = ((float *)d)[row]; return true;
  case DUCKDB_TYPE_DOUBLE: *out = ((double *)d)[row]; return true;
  case DUCKDB_TYPE_HUGEINT: *out = duckdb_hugeint_to_double(((duckdb_hugeint *)d)[row]); return true;
  case DUCKDB_TYPE_UHUGEINT: *out = duckdb_uhugeint_to_double(((duckdb_uhugeint *)d)[row]); return true;
  default: return false;
  }
}

int wr_engine_query_double(wr_engine *e, const char *sql, double *out, bool *is_null,
                             weir_error *err) {
  *out = 0;
  if (is_null) *is_null = false;
  wr_eng_settle(e);
  char *text = wr_eng_sql_text(sql, NULL);
  duckdb_result res;
  int rc = WEIR_OK;
  if (duckdb_query(e->conn, text, &res) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_result_error(&res), sql, "cannot run query");
    goto done;
  }
  if (duckdb_column_count(&res) != 1) {
    rc = wr_seterr(err, WEIR_EINVALIDARG, "cannot read a number from a query with %llu columns (expected one): %s",
                     (unsigned long long)duckdb_column_count(&res), sql);
    goto done;
  }
  duckdb_logical_type t = duckdb_column_logical_type(&res, 0);
  idx_t rows = 0;
  bool got = false, ok = true, null = false;
  double v = 0;
  duckdb_data_chunk ch;
  while ((ch = duckdb_fetch_chunk(res)) != NULL) {
    idx_t n = duckdb_data_chunk_get_size(ch);
    if (n && !got) {
      duckdb_vector vec = duckdb_data_chunk_get_vector(ch, 0);
      uint64_t *valid = duckdb_vector_get_validity(vec);
      null = valid && !duckdb_validity_row_is_valid(valid, 0);
      if (!null) ok = vector_double(vec, t, 0, &v);
      got = true;
    }
    rows += n;
    duckdb_destroy_data_chunk(&ch);
  }
  char *tn = wr_eng_type_name(t);
  duckdb_destroy_logical_type(&t);
  if (duckdb_result_error(&res))
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_result_error(&res), sql, "cannot run query");
  else if (rows != 1)
    rc = wr_seterr(err, WEIR_EINVALIDARG, "cannot read a number from a query that returned %llu rows (expected one): %s",
                     (unsigned long long)rows, sql);
  else if (!ok)
    rc = wr_seterr(err, WEIR_EINVALIDARG, "cannot read a number from a query returning %s: %s", tn, sql);
  else {
    *out = v;
    if (is_null) *is_null = null;
  }
  free(tn);
done:
  duckdb_destroy_result(&res);
  free(text);
  return rc;
}

/* ---- Arrow values as JSON ------------------------------------------------------------- */

/* Days since 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's algorithm). */
static void civil(int64_t days, int64_t *y, int *m, int *d) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

static void put_date(wr_buf *b, int64_t days) {
  int64_t y;
  int m, d;
  civil(days, &y, &m, &d);
  if (y <= 0) wr_buf_printf(b, "%04" PRId64 "-%02d-%02d (BC)", 1 - y, m, d);
  else wr_buf_printf(b, "%04" PRId64 "-%02d-%02d", y, m, d);
}

/* "HH:MM:SS" plus the fraction without trailing zeros; `units` per second (10^digits). */
static void put_time(wr_buf *b, int64_t t, int64_t units, int digits) {
  int64_t secs = t / units, frac = t % units;
  wr_buf_printf(b, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, secs / 3600, secs / 60 % 60, secs % 60);
  if (frac) {
    char f[16];
    snprintf(f, sizeof f, "%0*" PRId64, digits, frac);
    size_t n = strlen(f);
    while (n > 0 && f[n - 1] == '0') f[--n] = 0;
    wr_buf_printf(b, ".%s", f);
  }
}

static void put_timestamp(wr_buf *b, int64_t v, int64_t units, int digits, const char *tz) {
  int64_t per_day = 86400 * units;
  int64_t days = floordiv(v, per_day);
  put_date(b, days);
  wr_buf_putc(b, ' ');
  put_time(b, v - days * per_day, units, digits);
  if (tz && *tz) {
    if (strcmp(tz, "UTC") == 0 || strcmp(tz, "+00:00") == 0) wr_buf_puts(b, "+00");
    else wr_buf_printf(b, " %s", tz);
  }
}

/* DuckDB's interval text: "1 year 2 months 3 days 04:05:06.5". */
static void put_interval(wr_buf *b, int64_t months, int64_t days, int64_t micros) {
  bool any = false;
  const int64_t parts[3] = {months / 12, months % 12, days};
  const char *names[3] = {"year", "month", "day"};
  for (int k = 0; k < 3; k++) {
    if (!parts[k]) continue;
    wr_buf_printf(b, "%s%" PRId64 " %s%s", any ? " " : "", parts[k], names[k], llabs(parts[k]) == 1 ? "" : "s");
    any = true;
  }
  if (micros || !any) {
    if (any) wr_buf_putc(b, ' ');
    if (micros < 0) {
      wr_buf_putc(b, '-');
      micros = -micros;
    }
    put_time(b, micros, 1000000, 6);
  }
}

/* A 128-bit two's complement integer with `scale` digits after the point. */
static void put_decimal(wr_buf *b, const uint8_t *p, int width_bytes, int scale) {
  unsigned __int128 u = 0;
  bool neg = (p[width_bytes - 1] & 0x80) != 0;
  for (int i = width_bytes - 1; i >= 0; i--) u = (u << 8) | p[i];
  if (neg) {
    if (width_bytes < 16) u |= ~(unsigned __int128)0 << (8 * width_bytes);
    u = ~u + 1;
  }
  char digits[64];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= scale) digits[n++] = '0';
  if (neg) wr_buf_putc(b, '-');
  for (int i = n - 1; i >= 0; i--) {
    wr_buf_putc(b, digits[i]);
    if (i == scale && scale > 0) wr_buf_putc(b, '.');
  }
}

static void put_blob(wr_buf *b, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') wr_buf_putc(b, (char)p[i]);
    else wr_buf_printf(b, "\\x%02X", p[i]);
  }
}

static json_t *text_value(wr_buf *b) {
  json_t *s = json_stringn(b->data ? b->data : "", b->len);
  wr_buf_free(b);
  return s ? s : json_string("(invalid UTF-8)");
}

static int64_t read_int(const void *buf, char f, int64_t i) {
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

static json_t *value_json(const struct ArrowSchema *f, const struct ArrowArray *a, int64_t i);

/* The bytes of element idx of a binary-like array (offsets or views). */
static const uint8_t *var_bytes(const char *fmt, const struct ArrowArray *a, int64_t idx, size_t *len) {
  if (fmt[0] == 'v') {
    const uint8_t *view = (const uint8_t *)a->buffers[1] + 16 * idx;
    int32_t n, bi, off;
    memcpy(&n, view, 4);
    *len = (size_t)n;
    if (n <= 12) return view + 4;
    memcpy(&bi, view + 8, 4);
    memcpy(&off, view + 12, 4);
    return (const uint8_t *)a->buffers[2 + bi] + off;
  }
  if (fmt[0] == 'U' || fmt[0] == 'Z') {
    const int64_t *o = a->buffers[1];
    *len = (size_t)(o[idx + 1] - o[idx]);
    return (const uint8_t *)a->buffers[2] + o[idx];
  }
  const int32_t *o = a->buffers[1];
  *len = (size_t)(o[idx + 1] - o[idx]);
  return (const uint8_t *)a->buffers[2] + o[idx];
}

static json_t *value_json(const struct ArrowSchema *f, const struct ArrowArray *a, int64_t i) {
  const char *fmt = f->format;
  int64_t idx = a->offset + i;
  if (strcmp(fmt, "n") == 0) return json_null();
  bool has_validity = !(fmt[0] == '+' && (fmt[1] == 'u' || fmt[1] == 'r'));
  if (has_validity && a->null_count != 0 && a->n_buffers > 0 && a->buffers[0] &&
      !wr_bit_get(a->buffers[0], idx))
    return json_null();
  if (f->dictionary) return value_json(f->dictionary, a->dictionary, read_int(a->buffers[1], fmt[0], idx));
  wr_buf b = WEIR_BUF_INIT;
  const void *d = a->n_buffers > 1 ? a->buffers[1] : NULL;
  switch (fmt[0]) {
  case 'b': return json_boolean(wr_bit_get(d, idx));
  case 'c': case 's': case 'i': case 'l': case 'C': case 'S': case 'I':
    if (fmt[1] == 0) return json_integer(read_int(d, fmt[0], idx));
    break;
  case 'L':
    if (fmt[1] == 0) {
      uint64_t u = ((const uint64_t *)d)[idx];
      if (u <= INT64_MAX) return json_integer((json_int_t)u);
      wr_buf_printf(&b, "%" PRIu64, u);
      return text_value(&b);
    }
    break;
  case 'f': case 'g':
    if (fmt[1] == 0) {
      double v = fmt[0] == 'f' ? ((const float *)d)[idx] : ((const double *)d)[idx];
      if (isfinite(v)) return json_real(v);
      return json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    }
    break;
  case 'd': {
    int p = 0, s = 0, bits = 128;
    if (sscanf(fmt, "d:%d,%d,%d", &p, &s, &bits) >= 2) {
      /* Integers that went through a decimal (DuckDB exports HUGEINT, what sum() of
       * integers returns, as decimal(38, 0)) are JSON numbers when they fit. */
      if (s == 0 && bits >= 64) {
        const uint8_t *raw = (const uint8_t *)d + (size_t)idx * (size_t)(bits / 8);
        int64_t lo;
        memcpy(&lo, raw, 8);
        bool fits = true;
        for (int k = 8; k < bits / 8; k++) fits = fits && raw[k] == (lo < 0 ? 0xFF : 0x00);
        if (fits) return json_integer(lo);
      }
      put_decimal(&b, (const uint8_t *)d + (size_t)idx * (size_t)(bits / 8), bits / 8, s);
      return text_value(&b);
    }
    break;
  }
  case 'u': case 'U': case 'z': case 'Z': case 'v': {
    size_t n;
    const uint8_t *p = var_bytes(fmt, a, idx, &n);
    bool binary = fmt[0] == 'z' || fmt[0] == 'Z' || strcmp(fmt, "vz") == 0;
    if (binary) put_blob(&b, p, n);
    else wr_buf_append(&b, p, n);
    return text_value(&b);
  }
  case 't':
    if (fmt[1] == 'd') {
      put_date(&b, fmt[2] == 'D' ? ((const int32_t *)d)[idx] : floordiv(((const int64_t *)d)[idx], 86400000));
      return text_value(&b);
    }
    if (fmt[1] == 't') {
      switch (fmt[2]) {
      case 's': put_time(&b, ((const int32_t *)d)[idx], 1, 0); break;
      case 'm': put_time(&b, ((const int32_t *)d)[idx], 1000, 3); break;
      case 'u': put_time(&b, ((const int64_t *)d)[idx], 1000000, 6); break;
      default: put_time(&b, ((const int64_t *)d)[idx], 1000000000, 9); break;
      }
      return text_value(&b);
    }
    if (fmt[1] == 's' && fmt[2] && fmt[3] == ':') {
      int64_t v = ((const int64_t *)d)[idx];
      switch (fmt[2]) {
      case 's': put_timestamp(&b, v, 1, 0, fmt + 4); break;
      case 'm': put_timestamp(&b, v, 1000, 3, fmt + 4); break;
      case 'u': put_timestamp(&b, v, 1000000, 6, fmt + 4); break;
      default: put_timestamp(&b, v, 1000000000, 9, fmt + 4); break;
      }
      return text_value(&b);
    }
    if (fmt[1] == 'D') {
      int64_t v = ((const int64_t *)d)[idx];
      int64_t us = fmt[2] == 's' ? v * 1000000 : fmt[2] == 'm' ? v * 1000 : fmt[2] == 'u' ? v : v / 1000;
      put_interval(&b, 0, 0, us);
      return text_value(&b);
    }
    if (fmt[1] == 'i') {
      const uint8_t *p = d;
      int32_t months = 0, days = 0;
      int64_t nanos = 0;
      if (fmt[2] == 'M') memcpy(&months, p + 4 * idx, 4);
      else if (fmt[2] == 'D') {
        int32_t ms;
        memcpy(&days, p + 8 * idx, 4);
        memcpy(&ms, p + 8 * idx + 4, 4);
        nanos = (int64_t)ms * 1000000;
      } else {
        memcpy(&months, p + 16 * idx, 4);
        memcpy(&days, p + 16 * idx + 4, 4);
        memcpy(&nanos, p + 16 * idx + 8, 8);
      }
      put_interval(&b, months, days, nanos / 1000);
      return text_value(&b);
    }
    break;
  case 'w':
    if (fmt[1] == ':') {
      int w = atoi(fmt + 2);
      put_blob(&b, (const uint8_t *)d + (size_t)idx * (size_t)w, (size_t)w);
      return text_value(&b);
    }
    break;
  case '+':
    if (fmt[1] == 'l' || fmt[1] == 'L' || fmt[1] == 'w' || fmt[1] == 'm') {
      int64_t start, end;
      if (fmt[1] == 'L') {
        start = ((const int64_t *)d)[idx];
        end = ((const int64_t *)d)[idx + 1];
      } else if (fmt[1] == 'w') {
        int64_t w = atoll(fmt + 3);
        start = idx * w;
        end = start + w;
      } else {
        start = ((const int32_t *)d)[idx];
        end = ((const int32_t *)d)[idx + 1];
      }
      json_t *arr = json_array();
      for (int64_t k = start; k < end; k++)
        json_array_append_new(arr, value_json(f->children[0], a->children[0], k));
      return arr;
    }
    if (fmt[1] == 's') {
      json_t *obj = json_object();
      for (int64_t k = 0; k < f->n_children; k++)
        json_object_set_new(obj, f->children[k]->name ? f->children[k]->name : "",
                            value_json(f->children[k], a->children[k], idx));
      return obj;
    }
    break;
  default: break;
  }
  char tn[128];
  wr_arrow_type_name(f, tn, sizeof tn);
  wr_buf_printf(&b, "(%s value)", tn);
  return text_value(&b);
}

int wr_engine_query_json(wr_engine *e, const char *sql, json_t **out, weir_error *err) {
  *out = NULL;
  wr_arrow_table t;
  int rc = wr_engine_query_table(e, sql, &t, err);
  if (rc) return rc;
  json_t *rows = json_array();
  int64_t ncols = wr_arrow_table_ncols(&t);
  for (size_t bi = 0; bi < t.n_batches; bi++) {
    const struct ArrowArray *batch = wr_arrow_batch_array(t.batches[bi]);
    for (int64_t r = 0; r < batch->length; r++) {
      json_t *row = json_object();
      for (int64_t c = 0; c < ncols; c++)
        json_object_set_new(row, t.schema.children[c]->name,
                            value_json(t.schema.children[c], batch->children[c], batch->offset + r));
      json_array_append_new(rows, row);
    }
  }
  wr_arrow_table_release(&t);
  *out = rows;
  return WEIR_OK;
}
