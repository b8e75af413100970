/*
 * rule_sql.c -- the rules written in SQL: per-row `checks` (a boolean expression over
 * the row) and table `rules` (a query over {table} returning one number), run by the
 * embedded engine over the validated (cast) data, registered as an Arrow scan, so no
 * value is copied into the engine.
 *
 * Row numbers cannot come from row_number() OVER (): a parallel scan does not promise
 * the input order. The registered data carries an explicit int64 column __weir_row (the
 * global 0-based row number), so a violation names the row as it arrived.
 *
 * All checks of a table run in one scan: the query selects the rows where any check is
 * false, with one boolean per check. A check that is NULL passes, as in SQL CHECK
 * constraints (and as nulls pass every value rule).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"
#include "util/buf.h"

static atomic_long next_name = 0;

/* The row-number column of one batch: row_base .. row_base + len - 1. */
static void row_column(int64_t row_base, int64_t len, struct ArrowArray *out) {
  wr_arrow_array_init(out, len, 2, 0);
  int64_t *v = wr_arrow_array_alloc_buffer(out, 1, (size_t)len * 8);
  for (int64_t i = 0; i < len; i++) v[i] = row_base + i;
}

int wc_sql_register(wr_engine *e, const sql_input *in, bool with_row, char **name, wr_arrow_table *holder,
                 weir_error *err) {
  wr_arrow_table_init(holder);
  int64_t nc = in->schema->n_children;
  struct ArrowSchema schema;
  wr_arrow_schema_init(&schema, "+s", "", 0, nc + (with_row ? 1 : 0));
  for (int64_t c = 0; c < nc; c++) {
    struct ArrowSchema child;
    wr_arrow_schema_copy(in->schema->children[c], &child);
    wr_arrow_schema_set_child(&schema, c, &child);
  }
  if (with_row) {
    struct ArrowSchema rs;
    wr_arrow_schema_init(&rs, "l", "__weir_row", 0, 0);
    wr_arrow_schema_set_child(&schema, nc, &rs);
  }
  wr_arrow_table_set_schema(holder, &schema);
  for (size_t b = 0; b < in->n_batches; b++) {
    if (!with_row) {
      wr_arrow_table_append_batch(holder, in->batches[b]);
      continue;
    }
    const struct ArrowArray *ba = wr_arrow_batch_array(in->batches[b]);
    struct ArrowArray st;
    wr_arrow_array_init(&st, ba->length, 1, nc + 1);
    for (int64_t c = 0; c < nc; c++) {
      struct ArrowArray child;
      wr_arrow_batch_export_column(in->batches[b], c, &child);
      child.offset += ba->offset; /* the column on its own: fold the batch's offset in */
      wr_arrow_array_set_child(&st, c, &child);
    }
    struct ArrowArray rc;
    row_column(in->row_base[b], ba->length, &rc);
    wr_arrow_array_set_child(&st, nc, &rc);
    wr_arrow_table_append(holder, &st);
  }
  *name = wr_asprintf("__weir_validate_%ld", (long)atomic_fetch_add(&next_name, 1));
  int rc = wr_engine_register_arrow(e, *name, holder, err);
  if (rc) {
    free(*name);
    *name = NULL;
    wr_arrow_table_release(holder);
  }
  return rc;
}

/* The batch holding global row `row` (batches are in row order). */
static size_t batch_of(const sql_input *in, int64_t row) {
  size_t lo = 0, hi = in->n_batches;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (in->row_base[mid] <= row) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Prefixes a rule's error with where the rule is declared ("rules.yml:12:7: "), when the
 * contract came from a file: a SQL rule is compiled only when data is validated, and its
 * author needs the line, not just the message. A rule that does not run is a defect of
 * the contract, reported as bad input (exit 1), whatever the engine called it. */
static int locate(int rc, const char *origin, int line, int column, weir_error *err) {
  if (!rc) return rc;
  if (origin && line > 0) wr_error_prefix(err, "%s:%d:%d", origin, line, column > 0 ? column : 1);
  if (err && (err->code == WEIR_EINVALIDARG || err->code == WEIR_EENGINE)) err->code = WEIR_EINPUT;
  return rc == WEIR_EINVALIDARG || rc == WEIR_EENGINE ? WEIR_EINPUT : rc;
}

/* Undoes wc_sql_register: the data leaves the engine; the names are freed. */
static void release_input(wr_engine *e, char *name, char *qname, wr_arrow_table *holder) {
  weir_error ue = {0};
  wr_engine_unregister(e, name, &ue);
  weir_error_clear(&ue);
  wr_arrow_table_release(holder);
  free(qname);
  free(name);
}

/* Finds which check does not run, to name it instead of the combined query: first the
 * ones that do not compile (LIMIT 0, nothing read), then, for errors only real rows raise
 * (a string that does not convert), each check over the data. */
static int blame_check(wr_engine *e, const sql_input *in, const char *qname, const wr_column_rule *const *checks,
                       const char *const *columns, size_t n, weir_error *err) {
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = 0; k < n; k++) {
      char *sql = pass == 0 ? wr_asprintf("SELECT 1 FROM %s WHERE NOT (%s\n) LIMIT 0", qname, checks[k]->sql)
                            : wr_asprintf("SELECT count(*) FROM %s WHERE NOT (%s\n)", qname, checks[k]->sql);
      weir_error e2 = {0};
      wr_arrow_table t;
      wr_arrow_table_init(&t);
      int rc = wr_engine_query_table(e, sql, &t, &e2);
      wr_arrow_table_release(&t);
      free(sql);
      if (rc) {
        rc = wr_seterr(err, WEIR_EINPUT, "check \"%s\" of column \"%s\" (rule %s) does not run: %s", checks[k]->sql,
                         columns[k], checks[k]->name, e2.message ? e2.message : "engine error");
        weir_error_clear(&e2);
        wr_error_add_dialect_hint(err, checks[k]->sql);
        return locate(rc, in->origin, checks[k]->line, checks[k]->column, err);
      }
    }
  }
  return WEIR_OK;
}

int wc_sql_run_checks(wr_engine *e, const sql_input *in, const wr_column_rule *const *checks,
                   const char *const *columns, size_t n, rule_hits *hits, weir_error *err) {
  /* Each check is pasted into one query: each must be one expression, by the parser. */
  for (size_t k = 0; k < n; k++) {
    weir_error why = {0};
    int src = wr_engine_sql_shape(e, checks[k]->sql, true, &why);
    if (src) {
      int rc = wr_seterr(err, WEIR_EINPUT, "check \"%s\" of column \"%s\" (rule %s) %s", checks[k]->sql,
                           columns[k], checks[k]->name, why.message ? why.message : "is not valid");
      weir_error_clear(&why);
      return locate(rc, in->origin, checks[k]->line, checks[k]->column, err);
    }
  }
  char *name = NULL;
  wr_arrow_table holder;
  int rc = wc_sql_register(e, in, true, &name, &holder, err);
  if (rc) return rc;
  char *qname = wr_sql_ident(name);
  /* A check is a condition: DuckDB would read an integer as one (non-zero is true). */
  for (size_t k = 0; k < n && rc == WEIR_OK; k++) {
    char *sql = wr_asprintf("SELECT (%s\n) AS ok FROM %s", checks[k]->sql, qname);
    wr_schema out = {0};
    weir_error ignore = {0};
    if (wr_engine_describe(e, sql, &out, &ignore) == WEIR_OK && out.n_fields == 1 &&
        out.fields[0].type.id != WEIR_TYPE_BOOL) {
      char tn[WEIR_TYPE_NAME_MAX];
      wr_type_name(out.fields[0].type, tn, sizeof tn);
      rc = wr_seterr(err, WEIR_EINPUT, "check \"%s\" of column \"%s\" (rule %s) is not a condition: it is %s, "
                       "not Bool", checks[k]->sql, columns[k], checks[k]->name, tn);
      rc = locate(rc, in->origin, checks[k]->line, checks[k]->column, err);
    }
    weir_error_clear(&ignore);
    wr_schema_clear(&out);
    free(sql);
  }
  if (rc) {
    release_input(e, name, qname, &holder);
    return rc;
  }
  wr_buf q = WEIR_BUF_INIT;
  wr_buf_puts(&q, "SELECT __weir_row");
  /* "\n)": a check ending in a -- comment must not comment out the parenthesis. */
  for (size_t k = 0; k < n; k++) wr_buf_printf(&q, ", COALESCE(NOT (%s\n), false)", checks[k]->sql);
  wr_buf_printf(&q, " FROM %s WHERE ", qname);
  for (size_t k = 0; k < n; k++) wr_buf_printf(&q, "%s(NOT (%s\n))", k ? " OR " : "", checks[k]->sql);
  wr_buf_puts(&q, " ORDER BY 1");
  wr_arrow_table res;
  wr_arrow_table_init(&res);
  rc = wr_engine_query_table(e, wr_buf_cstr(&q), &res, err);
  if (rc) {
    weir_error why = {0};
    int brc = blame_check(e, in, qname, checks, columns, n, &why);
    if (brc) {
      wr_error_move(err, &why);
      rc = brc;
    }
    weir_error_clear(&why);
  } else {
    for (size_t b = 0; b < res.n_batches; b++) {
      const struct ArrowArray *ra = wr_arrow_batch_array(res.batches[b]);
      const struct ArrowArray *rows = ra->children[0];
      const int64_t *rv = (const int64_t *)rows->buffers[1] + rows->offset + ra->offset;
      for (int64_t i = 0; i < ra->length; i++) {
        int64_t row = rv[i];
        size_t ib = batch_of(in, row);
        int64_t local = row - in->row_base[ib];
        int64_t blen = wr_arrow_batch_length(in->batches[ib]);
        for (size_t k = 0; k < n; k++) {
          const struct ArrowArray *bc = ra->children[k + 1];
          const uint8_t *bits = bc->buffers[1];
          const uint8_t *valid = bc->buffers[0];
          int64_t at = bc->offset + ra->offset + i;
          if (valid && !wr_bit_get(valid, at)) continue;
          if (wr_bit_get(bits, at)) wc_hits_add(&hits[k], ib, local, blen, row, NULL);
        }
      }
    }
  }
  wr_arrow_table_release(&res);
  wr_buf_free(&q);
  release_input(e, name, qname, &holder);
  return rc;
}

/* {table} -> the registered name, everywhere it appears. */
static char *expand(const char *sql, const char *qname) {
  wr_buf b = WEIR_BUF_INIT;
  const char *p = sql;
  for (const char *q; (q = strstr(p, "{table}")); p = q + 7) {
    wr_buf_append(&b, p, (size_t)(q - p));
    wr_buf_puts(&b, qname);
  }
  wr_buf_puts(&b, p);
  return wr_buf_detach(&b);
}

int wc_sql_run_table_rule(wr_engine *e, const sql_input *in, const wr_table_rule *r, double *value, bool *is_null,
                       weir_error *err) {
  char *name = NULL;
  wr_arrow_table holder;
  int rc = wc_sql_register(e, in, false, &name, &holder, err);
  if (rc) return rc;
  char *qname = wr_sql_ident(name);
  char *sql = expand(r->sql, qname);
  *value = NAN;
  *is_null = false;
  weir_error why = {0};
  if (wr_engine_sql_shape(e, sql, false, &why) != WEIR_OK) {
    /* Nothing ran: a table rule is one SELECT, by the parser (no PRAGMA, ATTACH, ...). */
    rc = wr_seterr(err, WEIR_EINPUT, "rule \"%s\" %s", r->name, why.message ? why.message : "is not valid");
    weir_error_clear(&why);
    rc = locate(rc, in->origin, r->line, r->column, err);
  } else {
    rc = wr_engine_query_double(e, sql, value, is_null, err);
    if (rc) {
      wr_error_prefix(err, "rule \"%s\" does not run", r->name);
      wr_error_add_dialect_hint(err, r->sql);
      rc = locate(rc, in->origin, r->line, r->column, err);
    }
  }
  free(sql);
  release_input(e, name, qname, &holder);
  return rc;
}
