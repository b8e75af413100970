/*
 * report.c -- violations: what each check found (rule_hits), the violation objects of the
 * report, their order, and their one-line messages.
 *
 * Messages are built from the violation objects alone, so wr_violation_message gives
 * the CLI and the Python SDK exactly the text the validator put in its error, and a
 * report read back from a run record renders the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"
#include "util/buf.h"

/* ---- hits --------------------------------------------------------------------------------------- */

void wc_hits_init(rule_hits *h, int limit, bool collect_mask, size_t n_batches) {
  memset(h, 0, sizeof *h);
  h->limit = limit > 0 ? limit : 3;
  h->rows = wr_calloc((size_t)h->limit, sizeof *h->rows);
  h->samples = json_array();
  h->collect_mask = collect_mask;
  h->n_batches = n_batches;
  if (collect_mask) h->masks = wr_calloc(n_batches ? n_batches : 1, sizeof *h->masks);
}

void wc_hits_clear(rule_hits *h) {
  free(h->rows);
  json_decref(h->samples);
  if (h->masks)
    for (size_t i = 0; i < h->n_batches; i++) free(h->masks[i]);
  free(h->masks);
  memset(h, 0, sizeof *h);
}

void wc_hits_add(rule_hits *h, size_t batch, int64_t i, int64_t batch_rows, int64_t global, json_t *sample) {
  h->count++;
  bool kept = h->n_rows < h->limit;
  if (kept) h->rows[h->n_rows++] = global;
  if (h->collect_mask && batch < h->n_batches) {
    if (!h->masks[batch]) h->masks[batch] = wr_calloc((size_t)(batch_rows + 7) / 8 + 1, 1);
    wr_bit_set(h->masks[batch], i);
  }
  if (!sample) return;
  if (h->paired) {
    /* The value of this very row, next to it. */
    if (kept)
      json_array_append_new(h->samples, sample);
    else
      json_decref(sample);
    return;
  }
  if (json_array_size(h->samples) < (size_t)h->limit) {
    size_t k;
    json_t *s;
    json_array_foreach(h->samples, k, s) {
      if (json_equal(s, sample)) {
        json_decref(sample);
        return;
      }
    }
    json_array_append_new(h->samples, sample);
  } else {
    json_decref(sample);
  }
}

/* ---- violation objects ------------------------------------------------------------------------------ */

const char *wc_violation_kind_name(wr_violation_kind k) {
  switch (k) {
  case WEIR_V_MISSING: return "missing";
  case WEIR_V_UNKNOWN: return "unknown";
  case WEIR_V_TYPE: return "type";
  case WEIR_V_NULLS: return "nulls";
  case WEIR_V_UNIQUE: return "unique";
  case WEIR_V_ENUM: return "enum";
  case WEIR_V_PATTERN: return "pattern";
  case WEIR_V_RANGE: return "range";
  case WEIR_V_CHECK: return "check";
  case WEIR_V_TABLE_RULE: return "table_rule";
  }
  return "unknown";
}

json_t *wc_violation_new(wr_violation_kind kind, const char *column, const char *rule, wr_rule_mode mode,
                      int64_t count) {
  json_t *o = json_object();
  json_object_set_new(o, "kind", json_string(wc_violation_kind_name(kind)));
  json_object_set_new(o, "column", column ? json_string(column) : json_null());
  json_object_set_new(o, "rule", rule ? json_string(rule) : json_null());
  json_object_set_new(o, "mode", json_string(wr_rule_mode_name(mode)));
  json_object_set_new(o, "count", json_integer(count));
  json_object_set_new(o, "rows", json_array());
  json_object_set_new(o, "samples", json_array());
  return o;
}

void wc_findings_add(findings *f, long col_order, int rule_order, json_t *obj) {
  if (f->n == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 16;
    f->v = wr_realloc(f->v, f->cap * sizeof *f->v);
  }
  f->v[f->n] = (finding){col_order, rule_order, f->n, obj};
  f->n++;
}

void wc_findings_clear(findings *f) {
  for (size_t i = 0; i < f->n; i++) json_decref(f->v[i].obj);
  free(f->v);
  memset(f, 0, sizeof *f);
}

static int cmp_finding(const void *a, const void *b) {
  const finding *x = a, *y = b;
  if (x->col_order != y->col_order) return x->col_order < y->col_order ? -1 : 1;
  if (x->rule_order != y->rule_order) return x->rule_order < y->rule_order ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void wc_findings_finish(findings *f) {
  if (f->n > 1) qsort(f->v, f->n, sizeof *f->v, cmp_finding);
  for (size_t i = 0; i < f->n; i++) {
    char *m = wr_violation_message(f->v[i].obj);
    json_object_set_new(f->v[i].obj, "message", json_string(m));
    free(m);
  }
}

/* What a refused narrowing cast that an exact cast could apply says: the two fixes. */
#define EXACT_FIXES                                                                                   \
  ": cast it in the model, or declare the column's cast exact, with cast: exact in YAML or "          \
  "TableField(cast=\"exact\") in Python, to apply it when every value converts without loss"
#define NARROWING_HINT " (narrowing casts are not applied" EXACT_FIXES ")"

/* An integer type to a floating-point one is not a narrowing: its risk is rounding.
 * Returns the target's significand bits (double 53, float 24), or 0 for other pairs. */
static int float_from_int_bits(const char *found, const char *expected) {
  if (!found || !expected || !(strncmp(found, "int", 3) == 0 || strncmp(found, "uint", 4) == 0)) return 0;
  if (strcmp(expected, "double") == 0) return 53;
  if (strcmp(expected, "float") == 0) return 24;
  return 0;
}

/* ---- messages ------------------------------------------------------------------------------------- */

/* Values are printed as a reader would type them: numbers bare, strings of string
 * columns in double quotes, dates and decimals bare. */
static void put_value(wr_buf *b, const json_t *v, bool quote) {
  if (json_is_string(v)) {
    if (quote) {
      wr_buf_putc(b, '"');
      wr_buf_puts(b, json_string_value(v));
      wr_buf_putc(b, '"');
    } else {
      wr_buf_puts(b, json_string_value(v));
    }
  } else if (json_is_integer(v)) {
    wr_buf_printf(b, "%lld", (long long)json_integer_value(v));
  } else if (json_is_real(v)) {
    char d[40];
    wc_value_double_format(json_real_value(v), d, sizeof d);
    wr_buf_puts(b, d);
  } else if (json_is_true(v)) {
    wr_buf_puts(b, "true");
  } else if (json_is_false(v)) {
    wr_buf_puts(b, "false");
  } else {
    wr_buf_puts(b, "null");
  }
}

static void put_list(wr_buf *b, const json_t *arr, bool quote, size_t max) {
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    if (i == max) {
      wr_buf_puts(b, ", ...");
      break;
    }
    if (i) wr_buf_puts(b, ", ");
    put_value(b, v, quote);
  }
}

/* " (e.g. 3, 4)" when there are samples. */
static void put_samples(wr_buf *b, const json_t *o, bool quote) {
  const json_t *s = json_object_get(o, "samples");
  if (!json_array_size(s)) return;
  wr_buf_puts(b, " (e.g. ");
  put_list(b, s, quote, 100);
  wr_buf_putc(b, ')');
}

/* " (rows 4, 17, 90)", with ", ..." when more rows violate than are listed. */
static void put_rows(wr_buf *b, const json_t *o, int64_t count) {
  const json_t *r = json_object_get(o, "rows");
  size_t n = json_array_size(r);
  if (!n) return;
  wr_buf_puts(b, n == 1 && count == 1 ? " (row " : " (rows ");
  put_list(b, r, false, 100);
  if ((int64_t)n < count) wr_buf_puts(b, ", ...");
  wr_buf_putc(b, ')');
}

/* " (row 0: 11645.6)", " (row 3: 1.5, row 7: 2.5, ...)": rows with their values side by
 * side (samples paired with rows). */
static void put_row_values(wr_buf *b, const json_t *o, int64_t count) {
  const json_t *r = json_object_get(o, "rows"), *s = json_object_get(o, "samples");
  size_t n = json_array_size(r);
  if (!n) return;
  wr_buf_puts(b, " (");
  for (size_t i = 0; i < n; i++) {
    if (i) wr_buf_puts(b, ", ");
    wr_buf_puts(b, "row ");
    put_value(b, json_array_get(r, i), false);
    if (i < json_array_size(s)) {
      wr_buf_puts(b, ": ");
      put_value(b, json_array_get(s, i), false);
    }
  }
  if ((int64_t)n < count) wr_buf_puts(b, ", ...");
  wr_buf_putc(b, ')');
}

static const char *plural(int64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

char *wr_violation_message(const json_t *v) {
  wr_buf b = WEIR_BUF_INIT;
  const char *kind = json_string_value(json_object_get(v, "kind"));
  const char *col = json_string_value(json_object_get(v, "column"));
  const char *expected = json_string_value(json_object_get(v, "expected"));
  const char *found = json_string_value(json_object_get(v, "found"));
  const char *vt = json_string_value(json_object_get(v, "value_type"));
  bool quote = vt && (!strcmp(vt, "large_string") || !strcmp(vt, "large_binary"));
  int64_t count = json_integer_value(json_object_get(v, "count"));
  if (!kind) kind = "";
  if (!col) col = "";

  if (!strcmp(kind, "missing")) {
    wr_buf_printf(&b, "missing column \"%s\" (expected %s)", col, expected ? expected : "?");
  } else if (!strcmp(kind, "unknown")) {
    wr_buf_printf(&b, "unknown column \"%s\" (has type %s)", col, found ? found : "?");
  } else if (!strcmp(kind, "type")) {
    const char *cast = json_string_value(json_object_get(v, "cast"));
    if (cast && !strcmp(cast, "exact")) {
      wr_buf_printf(&b, "column \"%s\" has %lld %s of type %s that %s not convert exactly to %s", col,
                      (long long)count, plural(count, "value", "values"), found ? found : "?",
                      count == 1 ? "does" : "do", expected ? expected : "?");
      put_row_values(&b, v, count);
    } else if (json_is_true(json_object_get(v, "overflow"))) {
      wr_buf_printf(&b, "column \"%s\" has %lld %s of type %s outside the range of %s", col, (long long)count,
                      plural(count, "value", "values"), found ? found : "?", expected ? expected : "?");
      put_rows(&b, v, count);
    } else {
      wr_buf_printf(&b, "column \"%s\" has type %s, expected %s", col, found ? found : "?",
                      expected ? expected : "?");
      bool exact_possible = json_is_true(json_object_get(v, "exact_cast_possible"));
      int bits = float_from_int_bits(found, expected);
      if (bits && (exact_possible || json_is_true(json_object_get(v, "narrowing"))))
        /* Not a narrowing (every int64 is in double's range) but a rounding one. */
        wr_buf_printf(&b, " (%s to %s rounds integers beyond 2^%d, so it is not applied%s)", found, expected, bits,
                      exact_possible ? EXACT_FIXES : "");
      else if (exact_possible)
        wr_buf_puts(&b, NARROWING_HINT);
      else if (json_is_true(json_object_get(v, "narrowing")))
        wr_buf_puts(&b, " (narrowing casts are not applied)");
    }
  } else if (!strcmp(kind, "nulls")) {
    wr_buf_printf(&b, "column \"%s\" has %lld null %s but is required", col, (long long)count,
                    plural(count, "value", "values"));
    put_rows(&b, v, count);
  } else if (!strcmp(kind, "enum")) {
    wr_buf_printf(&b, "column \"%s\" has %lld %s outside the enum [", col, (long long)count,
                    plural(count, "value", "values"));
    put_list(&b, json_object_get(v, "values"), quote, 10);
    wr_buf_putc(&b, ']');
    put_samples(&b, v, quote);
  } else if (!strcmp(kind, "pattern")) {
    const char *pat = json_string_value(json_object_get(v, "pattern"));
    wr_buf_printf(&b, "column \"%s\" has %lld %s not matching the pattern \"%s\"", col, (long long)count,
                    plural(count, "value", "values"), pat ? pat : "");
    put_samples(&b, v, true);
  } else if (!strcmp(kind, "range")) {
    const json_t *mn = json_object_get(v, "min"), *mx = json_object_get(v, "max");
    bool has_min = mn && !json_is_null(mn), has_max = mx && !json_is_null(mx);
    wr_buf_printf(&b, "column \"%s\" has %lld %s ", col, (long long)count, plural(count, "value", "values"));
    if (has_min && has_max) {
      wr_buf_puts(&b, "outside the range [");
      put_value(&b, mn, quote);
      wr_buf_puts(&b, ", ");
      put_value(&b, mx, quote);
      wr_buf_putc(&b, ']');
    } else if (has_max) {
      wr_buf_puts(&b, "above the maximum ");
      put_value(&b, mx, quote);
    } else {
      wr_buf_puts(&b, "below the minimum ");
      put_value(&b, mn, quote);
    }
    put_samples(&b, v, quote);
  } else if (!strcmp(kind, "unique")) {
    wr_buf_printf(&b, "column \"%s\" has %lld duplicate %s", col, (long long)count,
                    plural(count, "value", "values"));
    put_samples(&b, v, quote);
  } else if (!strcmp(kind, "check")) {
    const char *sql = json_string_value(json_object_get(v, "sql"));
    wr_buf_printf(&b, "check \"%s\" fails for %lld %s", sql ? sql : "", (long long)count,
                    plural(count, "row", "rows"));
    put_rows(&b, v, count);
  } else if (!strcmp(kind, "table_rule")) {
    const char *rule = json_string_value(json_object_get(v, "rule"));
    const char *op = json_string_value(json_object_get(v, "op"));
    wr_buf_printf(&b, "rule \"%s\" returned ", rule ? rule : "");
    const json_t *val = json_object_get(v, "value");
    if (!val || json_is_null(val)) wr_buf_puts(&b, "NULL"); /* as SQL says it */
    else put_value(&b, val, false);
    wr_buf_printf(&b, ", expected %s ", op ? op : "<=");
    put_value(&b, json_object_get(v, "threshold"), false);
  } else {
    wr_buf_printf(&b, "contract violation of kind %s", kind);
  }
  return wr_buf_detach(&b);
}
