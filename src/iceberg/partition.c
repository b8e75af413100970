/*
 * partition.c -- Iceberg partition specs and transforms (spec: "Partitioning",
 * "Partition Transforms", Appendix B "32-bit Hash Requirements").
 *
 * A partition field is a transform of one source column. weir declares them as text,
 * `day(ts)`, `bucket(16, id)`, `truncate(4, name)`, `identity(region)` (or just
 * `region`); iceberg_partition_field_parse reads that, iceberg_partition_field_bind
 * checks the source type against the spec's table and fixes the result type:
 *
 *   transform    sources                                      result
 *   identity     any primitive                                the source type
 *   year, month  date, timestamp[tz][_ns]                     int (years/months from 1970)
 *   day          date, timestamp[tz][_ns]                     date (days from 1970-01-01)
 *   hour         timestamp[tz][_ns]                           int (hours from 1970-01-01T00)
 *   bucket[N]    int, long, decimal, date, timestamp*, string, binary    int in [0, N)
 *   truncate[W]  int, long, decimal, string, binary           the source type
 *
 * Partition values are kept in Iceberg's single-value binary form (bounds.c), which is
 * what the manifest list's partition summaries hold and what pruning compares; the Avro
 * partition record of a manifest entry is decoded from it. Values are computed by the SQL
 * engine from the expression iceberg_partition_field_sql builds, so that the same code
 * computes a file's partition and the partition of a query literal; bucket uses the
 * engine function weir_bucket (src/engine/bucket.c), which hashes with util/murmur3.h.
 */
#include "iceberg/iceberg.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/murmur3.h"

/* ---- parsing and binding ------------------------------------------------------------ */

static const char *const XF_NAMES[] = {"identity", "year", "month", "day", "hour", "bucket", "truncate", "void"};

const char *iceberg_transform_kind_name(iceberg_transform_kind k) {
  return k >= 0 && k <= ICEBERG_XF_VOID ? XF_NAMES[k] : "?";
}

void iceberg_partition_field_clear(iceberg_partition_field *f) {
  if (!f) return;
  free(f->source);
  free(f->name);
  memset(f, 0, sizeof *f);
}

void iceberg_partition_spec_clear(iceberg_partition_spec *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n_fields; i++) iceberg_partition_field_clear(&s->fields[i]);
  free(s->fields);
  memset(s, 0, sizeof *s);
}

static void why_set(char *why, size_t n, const char *fmt, ...) WEIR_PRINTF(3, 4);
static void why_set(char *why, size_t n, const char *fmt, ...) {
  if (!why || !n) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, n, fmt, ap);
  va_end(ap);
}

static char *trim_dup(const char *s, size_t n) {
  while (n && isspace((unsigned char)*s)) s++, n--;
  while (n && isspace((unsigned char)s[n - 1])) n--;
  /* A quoted column name ("my col") keeps what is inside the quotes. */
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"') s++, n -= 2;
  return wr_strndup(s, n);
}

bool iceberg_partition_field_parse(const char *text, iceberg_partition_field *out, char *why, size_t why_n) {
  memset(out, 0, sizeof *out);
  if (!text) text = "";
  const char *open = strchr(text, '(');
  if (!open) {
    char *name = trim_dup(text, strlen(text));
    if (!*name) {
      free(name);
      why_set(why, why_n, "an empty partition field: write a transform such as day(ts) or a column name");
      return false;
    }
    out->kind = ICEBERG_XF_IDENTITY;
    out->source = name;
    return true;
  }
  const char *close = strrchr(text, ')');
  char *fn = trim_dup(text, (size_t)(open - text));
  if (!close || close < open) {
    why_set(why, why_n, "partition field \"%s\" lacks its closing parenthesis", text);
    free(fn);
    return false;
  }
  for (const char *p = close + 1; *p; p++)
    if (!isspace((unsigned char)*p)) {
      why_set(why, why_n, "partition field \"%s\" has text after its closing parenthesis", text);
      free(fn);
      return false;
    }
  int kind = -1;
  for (int k = 0; k <= ICEBERG_XF_VOID; k++)
    if (strcasecmp(fn, XF_NAMES[k]) == 0) kind = k;
  /* Spark's and Java's spellings of the same transforms. */
  if (kind < 0 && (!strcasecmp(fn, "years"))) kind = ICEBERG_XF_YEAR;
  if (kind < 0 && (!strcasecmp(fn, "months"))) kind = ICEBERG_XF_MONTH;
  if (kind < 0 && (!strcasecmp(fn, "days"))) kind = ICEBERG_XF_DAY;
  if (kind < 0 && (!strcasecmp(fn, "hours"))) kind = ICEBERG_XF_HOUR;
  if (kind < 0) {
    why_set(why, why_n,
            "unknown partition transform \"%s\" in \"%s\" (transforms: identity, year, month, day, hour, "
            "bucket(N, col), truncate(W, col))",
            fn, text);
    free(fn);
    return false;
  }
  free(fn);
  out->kind = (iceberg_transform_kind)kind;
  char *args = wr_strndup(open + 1, (size_t)(close - open - 1));
  char *comma = strchr(args, ',');
  bool ok = true;
  if (kind == ICEBERG_XF_BUCKET || kind == ICEBERG_XF_TRUNCATE) {
    const char *what = kind == ICEBERG_XF_BUCKET ? "a bucket count" : "a width";
    if (!comma) {
      why_set(why, why_n, "%s takes %s and a column, e.g. %s(16, id): \"%s\"", XF_NAMES[kind], what,
              XF_NAMES[kind], text);
      ok = false;
    } else {
      *comma = 0;
      char *num = trim_dup(args, strlen(args));
      char *end = NULL;
      long v = strtol(num, &end, 10);
      if (!*num || *end || v <= 0 || v > INT32_MAX) {
        why_set(why, why_n, "%s(%s, ...) in \"%s\": %s must be a positive integer", XF_NAMES[kind], num, text,
                what);
        ok = false;
      }
      out->param = (int32_t)v;
      free(num);
      out->source = trim_dup(comma + 1, strlen(comma + 1));
    }
  } else {
    if (comma) {
      why_set(why, why_n, "%s takes one column: \"%s\"", XF_NAMES[kind], text);
      ok = false;
    }
    out->source = trim_dup(args, strlen(args));
  }
  free(args);
  if (ok && (!out->source || !*out->source)) {
    why_set(why, why_n, "partition field \"%s\" names no column", text);
    ok = false;
  }
  if (!ok) iceberg_partition_field_clear(out);
  return ok;
}

static bool is_ts(wr_type_id t) {
  return t == WEIR_TYPE_TS_US || t == WEIR_TYPE_TS_NS || t == WEIR_TYPE_TS_US_UTC || t == WEIR_TYPE_TS_NS_UTC;
}

bool iceberg_partition_field_bind(iceberg_partition_field *f, weir_type src, char *why, size_t why_n) {
  char tn[WEIR_TYPE_NAME_MAX];
  wr_type_name(src, tn, sizeof tn);
  wr_type_id t = src.id;
  bool ok = false;
  weir_type result = src;
  switch (f->kind) {
    case ICEBERG_XF_IDENTITY: ok = t != WEIR_TYPE_ANY && t != WEIR_TYPE_DATE64 && t != WEIR_TYPE_INVALID; break;
    case ICEBERG_XF_YEAR:
    case ICEBERG_XF_MONTH:
      ok = t == WEIR_TYPE_DATE32 || is_ts(t);
      result = (weir_type){WEIR_TYPE_INT32, 0, 0};
      break;
    case ICEBERG_XF_DAY:
      ok = t == WEIR_TYPE_DATE32 || is_ts(t);
      result = (weir_type){WEIR_TYPE_DATE32, 0, 0};
      break;
    case ICEBERG_XF_HOUR:
      ok = is_ts(t);
      result = (weir_type){WEIR_TYPE_INT32, 0, 0};
      break;
    case ICEBERG_XF_BUCKET:
      ok = t == WEIR_TYPE_INT32 || t == WEIR_TYPE_INT64 || t == WEIR_TYPE_DECIMAL || t == WEIR_TYPE_DATE32 ||
           is_ts(t) || t == WEIR_TYPE_STRING || t == WEIR_TYPE_BINARY;
      result = (weir_type){WEIR_TYPE_INT32, 0, 0};
      break;
    case ICEBERG_XF_TRUNCATE:
      ok = t == WEIR_TYPE_INT32 || t == WEIR_TYPE_INT64 || t == WEIR_TYPE_DECIMAL || t == WEIR_TYPE_STRING ||
           t == WEIR_TYPE_BINARY;
      break;
    case ICEBERG_XF_VOID: ok = true; break;
  }
  if (!ok) {
    static const char *const accepts[] = {
        "any column with an Iceberg type",
        "Date32 and timestamp columns",
        "Date32 and timestamp columns",
        "Date32 and timestamp columns",
        "timestamp columns",
        "Int32, Int64, Decimal, Date32, timestamp, String and Binary columns",
        "Int32, Int64, Decimal, String and Binary columns",
        "any column",
    };
    why_set(why, why_n, "transform %s cannot apply to column \"%s\" of type %s: %s applies to %s", XF_NAMES[f->kind],
            f->source, tn, XF_NAMES[f->kind], accepts[f->kind]);
    return false;
  }
  f->source_type = src;
  f->result_type = result;
  free(f->name);
  static const char *const suffix[] = {"", "_year", "_month", "_day", "_hour", "_bucket", "_trunc", "_null"};
  f->name = wr_asprintf("%s%s", f->source, suffix[f->kind]);
  return true;
}

void iceberg_partition_field_transform(const iceberg_partition_field *f, char *out, size_t n) {
  if (f->kind == ICEBERG_XF_BUCKET || f->kind == ICEBERG_XF_TRUNCATE)
    snprintf(out, n, "%s[%d]", XF_NAMES[f->kind], (int)f->param);
  else
    snprintf(out, n, "%s", XF_NAMES[f->kind]);
}

char *iceberg_partition_field_text(const iceberg_partition_field *f) {
  if (f->kind == ICEBERG_XF_BUCKET || f->kind == ICEBERG_XF_TRUNCATE)
    return wr_asprintf("%s(%d, %s)", XF_NAMES[f->kind], (int)f->param, f->source);
  return wr_asprintf("%s(%s)", XF_NAMES[f->kind], f->source);
}

/* ---- specs as JSON -------------------------------------------------------------------- */

json_t *iceberg_partition_spec_to_json(const iceberg_partition_spec *s) {
  json_t *fields = json_array();
  for (size_t i = 0; i < s->n_fields; i++) {
    const iceberg_partition_field *f = &s->fields[i];
    char tr[48];
    iceberg_partition_field_transform(f, tr, sizeof tr);
    json_array_append_new(fields, json_pack("{s:i,s:i,s:s,s:s}", "source-id", (int)f->source_id, "field-id",
                                            (int)f->field_id, "name", f->name, "transform", tr));
  }
  return json_pack("{s:i,s:o}", "spec-id", (int)s->spec_id, "fields", fields);
}

static const wr_field *field_by_id(const wr_schema *schema, int32_t id) {
  for (size_t i = 0; i < schema->n_fields; i++)
    if (schema->fields[i].field_id == id) return &schema->fields[i];
  return NULL;
}

int iceberg_partition_spec_from_json(const json_t *j, const wr_schema *schema, iceberg_partition_spec *out,
                                     weir_error *err) {
  memset(out, 0, sizeof *out);
  out->spec_id = (int32_t)json_integer_value(json_object_get(j, "spec-id"));
  const json_t *fields = json_object_get(j, "fields");
  size_t n = json_array_size(fields);
  out->fields = wr_calloc(n ? n : 1, sizeof *out->fields);
  for (size_t i = 0; i < n; i++) {
    const json_t *fj = json_array_get(fields, i);
    const char *tr = json_string_value(json_object_get(fj, "transform"));
    const char *name = json_string_value(json_object_get(fj, "name"));
    int32_t sid = (int32_t)json_integer_value(json_object_get(fj, "source-id"));
    const wr_field *src = field_by_id(schema, sid);
    if (!tr || !name) {
      iceberg_partition_spec_clear(out);
      return wr_seterr(err, WEIR_EINPUT, "partition spec %d: field %zu lacks a transform or a name",
                       (int)out->spec_id, i + 1);
    }
    /* "bucket[16]" -> "bucket(16, col)": the parser reads one spelling. */
    char *text;
    const char *br = strchr(tr, '[');
    const char *srcname = src ? src->name : "?";
    if (br) text = wr_asprintf("%.*s(%.*s, %s)", (int)(br - tr), tr, (int)strcspn(br + 1, "]"), br + 1, srcname);
    else text = wr_asprintf("%s(%s)", tr, srcname);
    char why[256];
    iceberg_partition_field *f = &out->fields[out->n_fields];
    bool ok = iceberg_partition_field_parse(text, f, why, sizeof why);
    free(text);
    if (ok && !src) {
      snprintf(why, sizeof why, "its source column (field id %d) is not in the schema", (int)sid);
      iceberg_partition_field_clear(f);
      ok = false;
    }
    if (ok && !iceberg_partition_field_bind(f, src->type, why, sizeof why)) {
      iceberg_partition_field_clear(f);
      ok = false;
    }
    if (!ok) {
      iceberg_partition_spec_clear(out);
      return wr_seterr(err, WEIR_EINPUT, "partition spec %d, field \"%s\": %s", (int)out->spec_id, name, why);
    }
    out->n_fields++;
    free(f->name);
    f->name = wr_strdup(name);
    f->source_id = sid;
    f->field_id = (int32_t)json_integer_value(json_object_get(fj, "field-id"));
  }
  return WEIR_OK;
}

bool iceberg_partition_spec_same(const iceberg_partition_spec *a, const iceberg_partition_spec *b) {
  if (a->n_fields != b->n_fields) return false;
  for (size_t i = 0; i < a->n_fields; i++) {
    const iceberg_partition_field *x = &a->fields[i], *y = &b->fields[i];
    if (x->source_id != y->source_id || x->kind != y->kind || x->param != y->param) return false;
  }
  return true;
}

int iceberg_table_spec(const iceberg_table *t, int32_t spec_id, iceberg_partition_spec *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  size_t i;
  const json_t *sp;
  json_array_foreach(json_object_get(t->json, "partition-specs"), i, sp) {
    if (json_integer_value(json_object_get(sp, "spec-id")) == spec_id)
      return iceberg_partition_spec_from_json(sp, &t->schema, out, err);
  }
  /* Older weir tables all have an unpartitioned spec 0; a table without specs is read as
   * one. */
  if (spec_id == 0) return WEIR_OK;
  return wr_seterr(err, WEIR_EINPUT, "%s: no partition spec %d", t->metadata_location, (int)spec_id);
}

/* ---- SQL ------------------------------------------------------------------------------- */

static void pow10_text(int s, char *out, size_t n, bool inverse) {
  wr_buf b = WEIR_BUF_INIT;
  if (inverse) {
    wr_buf_puts(&b, s ? "0." : "1");
    for (int i = 1; i < s; i++) wr_buf_putc(&b, '0');
    if (s) wr_buf_putc(&b, '1');
  } else {
    wr_buf_putc(&b, '1');
    for (int i = 0; i < s; i++) wr_buf_putc(&b, '0');
  }
  snprintf(out, n, "%s", wr_buf_cstr(&b));
  wr_buf_free(&b);
}

char *iceberg_partition_field_sql(const iceberg_partition_field *f, const char *e) {
  wr_type_id t = f->source_type.id;
  bool ns = t == WEIR_TYPE_TS_NS || t == WEIR_TYPE_TS_NS_UTC;
  switch (f->kind) {
    case ICEBERG_XF_IDENTITY: return wr_asprintf("(%s)", e);
    case ICEBERG_XF_YEAR: return wr_asprintf("CAST(year(%s) - 1970 AS INTEGER)", e);
    case ICEBERG_XF_MONTH: return wr_asprintf("CAST((year(%s) - 1970) * 12 + month(%s) - 1 AS INTEGER)", e, e);
    case ICEBERG_XF_DAY: return wr_asprintf("CAST(%s AS DATE)", e);
    case ICEBERG_XF_HOUR: {
      /* Floor division: hours before 1970 are negative, and the remainder of DuckDB's %
       * takes the sign of the dividend. */
      const char *unit = ns ? "3600000000000" : "3600000000";
      char *x = wr_asprintf("%s(%s)", ns ? "epoch_ns" : "epoch_us", e);
      char *s = wr_asprintf("CAST((%s - ((%s %% %s) + %s) %% %s) // %s AS INTEGER)", x, x, unit, unit, unit, unit);
      free(x);
      return s;
    }
    case ICEBERG_XF_BUCKET: {
      /* weir_bucket(value, N) hashes as the spec says for each type: ints, longs, dates
       * (days) and timestamps (micros, also for _ns types) as a long, strings as UTF-8,
       * binary as bytes, decimals as their unscaled value (passed as text). */
      int n = (int)f->param;
      switch (t) {
        case WEIR_TYPE_INT32:
        case WEIR_TYPE_INT64: return wr_asprintf("weir_bucket(CAST(%s AS BIGINT), %d)", e, n);
        case WEIR_TYPE_DATE32: return wr_asprintf("weir_bucket(CAST(%s - DATE '1970-01-01' AS BIGINT), %d)", e, n);
        case WEIR_TYPE_TS_US:
        case WEIR_TYPE_TS_US_UTC: return wr_asprintf("weir_bucket(epoch_us(%s), %d)", e, n);
        case WEIR_TYPE_TS_NS:
        case WEIR_TYPE_TS_NS_UTC:
          /* Nanoseconds hash as their microseconds (floored), so that a timestamp_ns
           * column buckets as the same instant in microseconds does (as pyiceberg). */
          return wr_asprintf("weir_bucket((epoch_ns(%s) - ((epoch_ns(%s) %% 1000) + 1000) %% 1000) // 1000, %d)", e,
                             e, n);
        case WEIR_TYPE_DECIMAL: return wr_asprintf("weir_bucket_decimal(CAST(%s AS VARCHAR), %d)", e, n);
        default: return wr_asprintf("weir_bucket(%s, %d)", e, n);
      }
    }
    case ICEBERG_XF_TRUNCATE: {
      int w = (int)f->param;
      if (t == WEIR_TYPE_STRING) return wr_asprintf("substring(%s, 1, %d)", e, w);
      if (t == WEIR_TYPE_BINARY) return wr_asprintf("CAST(%s AS BLOB)[1:%d]", e, w);
      if (t == WEIR_TYPE_DECIMAL) {
        char p10[64], inv[64];
        pow10_text(f->source_type.scale, p10, sizeof p10, false);
        pow10_text(f->source_type.scale, inv, sizeof inv, true);
        int p = f->source_type.precision, s = f->source_type.scale;
        return wr_asprintf("CAST(%s - CAST(((CAST(%s * %s AS HUGEINT) %% %d) + %d) %% %d AS DECIMAL(38, 0)) * "
                           "CAST('%s' AS DECIMAL(%d, %d)) AS DECIMAL(%d, %d))",
                           e, e, p10, w, w, w, inv, p, s, p, s);
      }
      const char *ty = t == WEIR_TYPE_INT32 ? "INTEGER" : "BIGINT";
      return wr_asprintf("CAST(%s - ((%s %% %d) + %d) %% %d AS %s)", e, e, w, w, w, ty);
    }
    case ICEBERG_XF_VOID: return wr_strdup("CAST(NULL AS INTEGER)");
  }
  return wr_strdup("NULL");
}

char *iceberg_partition_value_sql_text(const iceberg_partition_field *f, const char *value_expr) {
  /* Binary values travel as hex (DuckDB's VARCHAR of a BLOB escapes bytes). */
  if (f->result_type.id == WEIR_TYPE_BINARY) return wr_asprintf("hex(%s)", value_expr);
  return wr_asprintf("CAST(%s AS VARCHAR)", value_expr);
}

bool iceberg_partition_value_from_text(weir_type t, const char *text, uint8_t **out, size_t *len) {
  *out = NULL;
  *len = 0;
  if (t.id == WEIR_TYPE_STRING) {
    size_t n = strlen(text);
    *out = wr_malloc(n ? n : 1);
    memcpy(*out, text, n);
    *len = n;
    return true;
  }
  if (t.id == WEIR_TYPE_BINARY) {
    size_t n = strlen(text);
    if (n % 2) return false;
    *out = wr_malloc(n / 2 ? n / 2 : 1);
    for (size_t i = 0; i < n / 2; i++) {
      unsigned v;
      if (sscanf(text + 2 * i, "%2x", &v) != 1) {
        free(*out);
        *out = NULL;
        return false;
      }
      (*out)[i] = (uint8_t)v;
    }
    *len = n / 2;
    return true;
  }
  return iceberg_bound_from_text(t, text, false, out, len);
}

/* ---- comparing single-value binaries ------------------------------------------------ */

static int64_t le_int(const uint8_t *d, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n && i < 8; i++) v |= (uint64_t)d[i] << (8 * i);
  if (n == 4) return (int32_t)(uint32_t)v;
  return (int64_t)v;
}

static __int128 be_decimal(const uint8_t *d, size_t n) {
  if (!n) return 0;
  __int128 v = (d[0] & 0x80) ? -1 : 0;
  for (size_t i = 0; i < n; i++) v = (__int128)(((unsigned __int128)v << 8) | d[i]);
  return v;
}

int iceberg_value_compare(weir_type t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
  switch (t.id) {
    case WEIR_TYPE_BOOL:
    case WEIR_TYPE_INT32:
    case WEIR_TYPE_INT64:
    case WEIR_TYPE_DATE32:
    case WEIR_TYPE_TS_US:
    case WEIR_TYPE_TS_NS:
    case WEIR_TYPE_TS_US_UTC:
    case WEIR_TYPE_TS_NS_UTC: {
      int64_t x = le_int(a, alen), y = le_int(b, blen);
      return (x > y) - (x < y);
    }
    case WEIR_TYPE_FLOAT32: {
      float x, y;
      if (alen != 4 || blen != 4) return 0;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return (x > y) - (x < y);
    }
    case WEIR_TYPE_FLOAT64: {
      double x, y;
      if (alen != 8 || blen != 8) return 0;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return (x > y) - (x < y);
    }
    case WEIR_TYPE_DECIMAL: {
      __int128 x = be_decimal(a, alen), y = be_decimal(b, blen);
      return (x > y) - (x < y);
    }
    default: {
      /* Strings (UTF-8 orders as code points) and binary: unsigned bytes. */
      size_t m = alen < blen ? alen : blen;
      int c = m ? memcmp(a, b, m) : 0;
      if (c) return c < 0 ? -1 : 1;
      return (alen > blen) - (alen < blen);
    }
  }
}
