/*
 * validate.c -- wr_contract_validate: the order in which the stage-3 checks of
 * docs/contracts.md run, and the assembly of the result.
 *
 *   1. plan the columns from the schemas (check_columns.c): missing, unknown and
 *      uncastable columns are known before any value is read;
 *   2. per batch: build the validated batch (declared columns in declared order, cast
 *      where needed, shared where not), then run nulls, enum, range, pattern and unique
 *      on its columns while they are hot in cache;
 *   3. SQL checks in one engine scan over all validated batches;
 *   4. drop mode: rows rejected by drop rules leave the valid data for the quarantine;
 *   5. table rules over the data that would be written;
 *   6. the report, the `failed` flag, and the error message.
 * A table whose shape is broken (missing or uncastable columns) still has its other
 * columns checked, so one run reports everything; only the SQL rules, which may name
 * the broken columns, are skipped, and nothing is offered for writing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"
#include "util/buf.h"

void wr_validation_clear(wr_validation *v) {
  if (!v) return;
  wr_arrow_table_release(&v->valid);
  wr_arrow_table_release(&v->quarantine);
  json_decref(v->report);
  memset(v, 0, sizeof *v);
}

/* A rule of a declared column, with what it found. */
typedef struct rule_run {
  size_t col;                    /* declared column */
  size_t idx;                    /* index in the column's rules */
  const wr_column_rule *rule;
  compiled_rule *cr;             /* NULL for SQL checks */
  rule_hits hits;
  bool ran;
} rule_run;

typedef struct vstate {
  const weir_contract *c;
  const wr_validate_options *opts;
  int limit;
  plan p;
  findings f;
  size_t nb;
  int64_t *row_base;
  wr_arrow_batch **cb;         /* validated (cast) batches, before drops */
  rule_hits *nulls;              /* per declared column */
  rule_hits *overflow;           /* per declared column: values a cast could not hold (an
                                    exact cast: each with its row) */
  rule_run *runs;
  size_t n_runs;
  wr_engine *engine;
  bool own_engine;
  json_t *rule_results;          /* column rules, in declaration order */
  json_t *table_results;         /* table rules */
} vstate;

static void vstate_clear(vstate *s) {
  wc_plan_clear(&s->p);
  wc_findings_clear(&s->f);
  free(s->row_base);
  if (s->cb)
    for (size_t b = 0; b < s->nb; b++) wr_arrow_batch_unref(s->cb[b]);
  free(s->cb);
  for (size_t i = 0; s->nulls && i < s->c->n_columns; i++) wc_hits_clear(&s->nulls[i]);
  free(s->nulls);
  for (size_t i = 0; s->overflow && i < s->c->n_columns; i++) wc_hits_clear(&s->overflow[i]);
  free(s->overflow);
  for (size_t i = 0; i < s->n_runs; i++) {
    wc_compiled_rule_free(s->runs[i].cr);
    wc_hits_clear(&s->runs[i].hits);
  }
  free(s->runs);
  if (s->own_engine) wr_engine_close(s->engine);
  json_decref(s->rule_results);
  json_decref(s->table_results);
}

static json_t *rows_json(const rule_hits *h) {
  json_t *a = json_array();
  for (int i = 0; i < h->n_rows; i++) json_array_append_new(a, json_integer(h->rows[i]));
  return a;
}

static void set_hits(json_t *v, const rule_hits *h) {
  json_object_set_new(v, "rows", rows_json(h));
  json_object_set_new(v, "samples", json_deep_copy(h->samples));
}

/* ---- step 2: per batch ------------------------------------------------------------------------------ */

static int build_batch(vstate *s, wr_arrow_table *in, size_t bi, weir_error *err) {
  wr_arrow_batch *b = in->batches[bi];
  const struct ArrowArray *ba = wr_arrow_batch_array(b);
  int64_t len = ba->length;
  struct ArrowArray st;
  wr_arrow_array_init(&st, len, 1, s->p.n_out);
  for (int64_t k = 0; k < s->p.n_out; k++) {
    long in_idx = s->p.out_in[k], decl = s->p.out_decl[k];
    const struct ArrowArray *src = ba->children[in_idx];
    const struct ArrowSchema *field = in->schema.children[in_idx];
    struct ArrowArray child;
    if (decl < 0 || s->p.cols[decl].cast == WEIR_CAST_EXACT) {
      /* No cast: the same buffers, shared (the zero-copy path). */
      wr_arrow_batch_export_column(b, in_idx, &child);
      child.offset += ba->offset;
    } else {
      const wr_contract_column *col = &s->c->columns[decl];
      int rc = s->p.cols[decl].exact
                   ? wc_cast_exact_column(field, src, src->offset + ba->offset, len, col->field.type, b,
                                          &child, &s->overflow[decl], bi, s->row_base[bi], err)
                   : wc_cast_column(field, src, src->offset + ba->offset, len, col->field.type, b, &child,
                                    &s->overflow[decl], bi, s->row_base[bi], err);
      if (rc) {
        wr_error_prefix(err, "column \"%s\"", col->field.name);
        st.release(&st);
        return rc;
      }
    }
    wr_arrow_array_set_child(&st, k, &child);
  }
  s->cb[bi] = wr_arrow_batch_new(&st);
  return WEIR_OK;
}

/* `unique` in every mode runs after the other rules: uniqueness is judged over the rows
 * the drop-mode rules leave (docs/contracts.md, "Rule semantics"), so a fail-mode `unique`
 * does not count a row a drop-mode enum removed. */
static bool deferred(const rule_run *rr) { return rr->rule->kind == WEIR_RULE_UNIQUE; }

static void check_batch(vstate *s, size_t bi) {
  const struct ArrowArray *ba = wr_arrow_batch_array(s->cb[bi]);
  /* Two passes: every rule but `unique`, then `unique`, skipping the rows the others
   * drop (a duplicate of a row that is not written is not a duplicate). */
  uint8_t *skip = NULL;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (size_t r = 0; r < s->n_runs; r++) {
        const rule_run *rr = &s->runs[r];
        if (deferred(rr) || rr->rule->mode != WEIR_MODE_DROP || !rr->hits.masks || !rr->hits.masks[bi]) continue;
        if (!skip) skip = wr_calloc((size_t)(ba->length + 7) / 8 + 8, 1);
        for (int64_t w = 0; w < (ba->length + 7) / 8; w++) skip[w] |= rr->hits.masks[bi][w];
      }
    }
    for (int64_t k = 0; k < s->p.n_out; k++) {
      long decl = s->p.out_decl[k];
      if (decl < 0) continue;
      const wr_contract_column *col = &s->c->columns[decl];
      const struct ArrowArray *a = ba->children[k];
      col_view v = {a, s->p.out_schema.children[k], a->offset, ba->length, bi, s->row_base[bi], pass ? skip : NULL};
      if (pass == 0 && col->field.required) wc_check_nulls(&v, &s->nulls[decl]);
      if (col->field.type.id == WEIR_TYPE_ANY) continue;
      for (size_t r = 0; r < s->n_runs; r++) {
        rule_run *rr = &s->runs[r];
        if (rr->col != (size_t)decl || !rr->cr || deferred(rr) != (pass == 1)) continue;
        wc_compiled_rule_run(rr->cr, &v, &rr->hits);
        rr->ran = true;
      }
    }
  }
  free(skip);
}

/* Appends: the values already in the table go into each unique set first, without being
 * counted, so that an incoming row repeating one of them is a duplicate like any other. */
static void seed_unique(vstate *s, const wr_arrow_table *seed) {
  for (size_t r = 0; r < s->n_runs; r++) {
    rule_run *rr = &s->runs[r];
    if (!rr->cr || rr->rule->kind != WEIR_RULE_UNIQUE) continue;
    const wr_contract_column *col = &s->c->columns[rr->col];
    long k = wr_arrow_table_find(seed, col->field.name);
    if (k < 0) continue;
    const struct ArrowSchema *field = seed->schema.children[k];
    if (field->dictionary || wr_cast_check(field, col->field.type, NULL) != WEIR_CAST_EXACT) continue;
    rule_hits scratch;
    wc_hits_init(&scratch, 0, false, seed->n_batches);
    for (size_t b = 0; b < seed->n_batches; b++) {
      const struct ArrowArray *ba = wr_arrow_batch_array(seed->batches[b]);
      const struct ArrowArray *a = ba->children[k];
      col_view v = {a, field, a->offset + ba->offset, ba->length, b, 0, NULL};
      wc_compiled_rule_run(rr->cr, &v, &scratch);
    }
    wc_hits_clear(&scratch);
  }
}

/* ---- step 3: SQL checks --------------------------------------------------------------------------------- */

static int need_engine(vstate *s, weir_error *err) {
  if (s->engine) return WEIR_OK;
  if (s->opts->engine) {
    s->engine = s->opts->engine;
    return WEIR_OK;
  }
  int rc = wr_engine_open(NULL, &s->engine, err);
  if (rc) {
    wr_error_prefix(err, "cannot start the SQL engine for the contract's SQL rules");
    return rc;
  }
  s->own_engine = true;
  /* A contract's SQL sees the data being validated and nothing else: no files. */
  if ((rc = wr_engine_restrict_files(s->engine, NULL, 0, err))) return rc;
  return WEIR_OK;
}

static int run_checks(vstate *s, weir_error *err) {
  size_t n = 0;
  for (size_t r = 0; r < s->n_runs; r++)
    if (s->runs[r].rule->kind == WEIR_RULE_CHECK) n++;
  if (!n) return WEIR_OK;
  int rc = need_engine(s, err);
  if (rc) return rc;
  const wr_column_rule **checks = wr_calloc(n, sizeof *checks);
  const char **cols = wr_calloc(n, sizeof *cols);
  rule_hits *hits = wr_calloc(n, sizeof *hits);
  size_t k = 0;
  for (size_t r = 0; r < s->n_runs; r++) {
    rule_run *rr = &s->runs[r];
    if (rr->rule->kind != WEIR_RULE_CHECK) continue;
    checks[k] = rr->rule;
    cols[k] = s->c->columns[rr->col].field.name;
    hits[k] = rr->hits; /* moved in, moved back below */
    k++;
  }
  sql_input in = {&s->p.out_schema, s->cb, s->nb, s->row_base, s->c->origin};
  rc = wc_sql_run_checks(s->engine, &in, checks, cols, n, hits, err);
  k = 0;
  for (size_t r = 0; r < s->n_runs; r++) {
    rule_run *rr = &s->runs[r];
    if (rr->rule->kind != WEIR_RULE_CHECK) continue;
    rr->hits = hits[k++];
    rr->ran = rc == WEIR_OK;
  }
  free(checks);
  free(cols);
  free(hits);
  return rc;
}

/* ---- step 4: drops --------------------------------------------------------------------------------------- */

static void quarantine_schema(const struct ArrowSchema *out_schema, struct ArrowSchema *q) {
  int64_t n = out_schema->n_children;
  wr_arrow_schema_init(q, "+s", "", 0, n + 1);
  for (int64_t c = 0; c < n; c++) {
    struct ArrowSchema child;
    wr_arrow_schema_copy(out_schema->children[c], &child);
    wr_arrow_schema_set_child(q, c, &child);
  }
  struct ArrowSchema rule;
  wr_arrow_schema_init(&rule, "U", "_weir_rule", 0, 0);
  wr_arrow_schema_set_child(q, n, &rule);
}

static int apply_drops(vstate *s, wr_validation *out, weir_error *err) {
  wr_arrow_table_init(&out->valid);
  wr_arrow_table_init(&out->quarantine);
  struct ArrowSchema vs;
  wr_arrow_schema_copy(&s->p.out_schema, &vs);
  wr_arrow_table_set_schema(&out->valid, &vs);
  /* The quarantine has its schema even when empty: a replace writes it empty, so that the
   * quarantine of the table keeps the rejections of the table's current data only. */
  struct ArrowSchema qs;
  quarantine_schema(&s->p.out_schema, &qs);
  wr_arrow_table_set_schema(&out->quarantine, &qs);
  bool any_drop = false;
  for (size_t r = 0; r < s->n_runs; r++)
    if (s->runs[r].rule->mode == WEIR_MODE_DROP && s->runs[r].hits.count) any_drop = true;
  if (!any_drop) {
    for (size_t b = 0; b < s->nb; b++) wr_arrow_table_append_batch(&out->valid, s->cb[b]);
    return WEIR_OK;
  }
  for (size_t b = 0; b < s->nb; b++) {
    int64_t len = wr_arrow_batch_length(s->cb[b]);
    int64_t n_drop = 0;
    uint8_t *mask = wr_calloc((size_t)(len + 7) / 8 + 1, 1);
    for (size_t r = 0; r < s->n_runs; r++) {
      rule_run *rr = &s->runs[r];
      if (rr->rule->mode != WEIR_MODE_DROP || !rr->hits.masks || !rr->hits.masks[b]) continue;
      for (int64_t w = 0; w < (len + 7) / 8; w++) mask[w] |= rr->hits.masks[b][w];
    }
    n_drop = wr_bitmap_count(mask, 0, len);
    if (!n_drop) {
      free(mask);
      wr_arrow_table_append_batch(&out->valid, s->cb[b]);
      continue;
    }
    int64_t *keep = wr_malloc((size_t)(len - n_drop + 1) * sizeof *keep);
    int64_t *drop = wr_malloc((size_t)n_drop * sizeof *drop);
    int64_t nk = 0, nd = 0;
    for (int64_t i = 0; i < len; i++) {
      if (wr_bit_get(mask, i)) drop[nd++] = i;
      else keep[nk++] = i;
    }
    /* `_weir_rule`: the names of every drop rule that rejected the row, comma-separated. */
    char **names = wr_calloc((size_t)nd, sizeof *names);
    wr_buf nb = WEIR_BUF_INIT;
    for (int64_t d = 0; d < nd; d++) {
      wr_buf_clear(&nb);
      for (size_t r = 0; r < s->n_runs; r++) {
        rule_run *rr = &s->runs[r];
        if (rr->rule->mode != WEIR_MODE_DROP || !rr->hits.masks || !rr->hits.masks[b]) continue;
        if (!wr_bit_get(rr->hits.masks[b], drop[d])) continue;
        if (nb.len) wr_buf_putc(&nb, ',');
        wr_buf_puts(&nb, rr->rule->name);
      }
      names[d] = wr_strdup(wr_buf_cstr(&nb));
    }
    wr_buf_free(&nb);
    struct ArrowArray kept, dropped, rulecol;
    int rc = WEIR_OK;
    if (nk) rc = wc_filter_take_batch(&s->p.out_schema, s->cb[b], keep, nk, &kept, err);
    if (!rc) rc = wc_filter_take_batch(&s->p.out_schema, s->cb[b], drop, nd, &dropped, err);
    if (!rc) {
      wc_filter_string_column((const char *const *)names, nd, &rulecol);
      /* The quarantine batch: the dropped rows plus the rule column. */
      struct ArrowArray qb;
      int64_t nc = dropped.n_children;
      wr_arrow_array_init(&qb, nd, 1, nc + 1);
      for (int64_t c = 0; c < nc; c++) {
        struct ArrowArray ch = *dropped.children[c];
        dropped.children[c]->release = NULL; /* moved out, as the C data interface allows */
        wr_arrow_array_set_child(&qb, c, &ch);
      }
      wr_arrow_array_set_child(&qb, nc, &rulecol);
      dropped.release(&dropped);
      wr_arrow_table_append(&out->quarantine, &qb);
      if (nk) wr_arrow_table_append(&out->valid, &kept);
    } else if (nk && kept.release) {
      kept.release(&kept);
    }
    for (int64_t d = 0; d < nd; d++) free(names[d]);
    free(names);
    free(keep);
    free(drop);
    free(mask);
    if (rc) return rc;
  }
  return WEIR_OK;
}

/* ---- step 5: table rules ---------------------------------------------------------------------------------- */

static bool compare(double v, const char *op, double t) {
  if (!strcmp(op, "<")) return v < t;
  if (!strcmp(op, ">=")) return v >= t;
  if (!strcmp(op, ">")) return v > t;
  if (!strcmp(op, "==")) return v == t;
  if (!strcmp(op, "!=")) return v != t;
  return v <= t;
}

static json_t *number_json(double d) {
  if (d == (double)(json_int_t)d && fabs(d) < 9e15) return json_integer((json_int_t)d);
  return wc_value_double_json(d);
}

static int run_table_rules(vstate *s, wr_validation *out, weir_error *err) {
  if (!s->c->n_rules) return WEIR_OK;
  int rc = need_engine(s, err);
  if (rc) return rc;
  int64_t *bases = wr_calloc(out->valid.n_batches + 1, sizeof *bases);
  for (size_t b = 1; b < out->valid.n_batches; b++) bases[b] = bases[b - 1] + wr_arrow_batch_length(out->valid.batches[b - 1]);
  sql_input in = {&out->valid.schema, out->valid.batches, out->valid.n_batches, bases, s->c->origin};
  for (size_t i = 0; i < s->c->n_rules && !rc; i++) {
    const wr_table_rule *r = &s->c->rules[i];
    double value;
    bool is_null;
    rc = wc_sql_run_table_rule(s->engine, &in, r, &value, &is_null, err);
    if (rc) break;
    /* A rule whose query returns NULL (no rows to aggregate) has no value to pass with. */
    bool passed = !is_null && !isnan(value) && compare(value, r->op, r->threshold);
    json_t *res = json_object();
    json_object_set_new(res, "rule", json_string(r->name));
    json_object_set_new(res, "kind", json_string("table_rule"));
    json_object_set_new(res, "column", json_null());
    json_object_set_new(res, "mode", json_string(wr_rule_mode_name(r->mode)));
    json_object_set_new(res, "value", is_null ? json_null() : number_json(value));
    json_object_set_new(res, "threshold", number_json(r->threshold));
    json_object_set_new(res, "op", json_string(r->op));
    json_object_set_new(res, "rows_affected", json_null());
    json_object_set_new(res, "passed", json_boolean(passed));
    json_array_append_new(s->table_results, res);
    if (passed) continue;
    json_t *v = wc_violation_new(WEIR_V_TABLE_RULE, NULL, r->name, r->mode, 0);
    json_object_set_new(v, "sql", json_string(r->sql));
    json_object_set_new(v, "value", is_null ? json_null() : number_json(value));
    json_object_set_new(v, "threshold", number_json(r->threshold));
    json_object_set_new(v, "op", json_string(r->op));
    wc_findings_add(&s->f, (long)(s->c->n_columns + (size_t)wr_arrow_table_ncols(&out->valid) + 1000000), (int)i, v);
  }
  free(bases);
  return rc;
}

/* ---- step 6: findings of the column rules, and the report ------------------------------------------------- */

static wr_violation_kind vkind(wr_rule_kind k) {
  switch (k) {
  case WEIR_RULE_UNIQUE: return WEIR_V_UNIQUE;
  case WEIR_RULE_ENUM: return WEIR_V_ENUM;
  case WEIR_RULE_PATTERN: return WEIR_V_PATTERN;
  case WEIR_RULE_RANGE: return WEIR_V_RANGE;
  default: return WEIR_V_CHECK;
  }
}

static void column_findings(vstate *s, const struct ArrowSchema *in_schema) {
  for (size_t i = 0; i < s->c->n_columns; i++) {
    const wr_contract_column *col = &s->c->columns[i];
    char expected[96];
    wr_type_arrow_name(col->field.type, expected, sizeof expected);
    if (s->overflow[i].count) {
      /* A timestamp too far out for the finer unit (the cast would change it), or values
       * an exact cast cannot convert without loss. */
      json_t *v = wc_violation_new(WEIR_V_TYPE, col->field.name, NULL, WEIR_MODE_FAIL, s->overflow[i].count);
      char found[160];
      wr_arrow_type_name(in_schema->children[s->p.cols[i].in_idx], found, sizeof found);
      json_object_set_new(v, "expected", json_string(expected));
      json_object_set_new(v, "found", json_string(found));
      json_object_set_new(v, s->p.cols[i].exact ? "cast" : "overflow",
                          s->p.cols[i].exact ? json_string("exact") : json_true());
      set_hits(v, &s->overflow[i]);
      wc_findings_add(&s->f, (long)i, 0, v);
    }
    if (s->nulls[i].count) {
      json_t *v = wc_violation_new(WEIR_V_NULLS, col->field.name, NULL, WEIR_MODE_FAIL, s->nulls[i].count);
      json_object_set_new(v, "rows", rows_json(&s->nulls[i]));
      wc_findings_add(&s->f, (long)i, 1, v);
    }
  }
  for (size_t r = 0; r < s->n_runs; r++) {
    rule_run *rr = &s->runs[r];
    const wr_column_rule *rule = rr->rule;
    const wr_contract_column *col = &s->c->columns[rr->col];
    char vt[96];
    wr_type_arrow_name(col->field.type, vt, sizeof vt);
    json_t *res = json_object();
    json_object_set_new(res, "rule", json_string(rule->name));
    json_object_set_new(res, "kind", json_string(contract_rule_kind_name(rule->kind)));
    json_object_set_new(res, "column", json_string(col->field.name));
    json_object_set_new(res, "mode", json_string(wr_rule_mode_name(rule->mode)));
    json_object_set_new(res, "value", rr->ran ? json_integer(rr->hits.count) : json_null());
    json_object_set_new(res, "threshold", json_integer(0));
    json_object_set_new(res, "rows_affected", rr->ran ? json_integer(rr->hits.count) : json_null());
    json_object_set_new(res, "passed", rr->ran ? json_boolean(rr->hits.count == 0) : json_null());
    if (!rr->ran) json_object_set_new(res, "skipped", json_string("the table's columns do not match the contract"));
    json_array_append_new(s->rule_results, res);
    if (!rr->hits.count) continue;
    json_t *v = wc_violation_new(vkind(rule->kind), col->field.name, rule->name, rule->mode, rr->hits.count);
    json_object_set_new(v, "value_type", json_string(vt));
    set_hits(v, &rr->hits);
    switch (rule->kind) {
    case WEIR_RULE_ENUM:
      json_object_set_new(v, "values", json_deep_copy(rule->values));
      if (rule->value_names) json_object_set_new(v, "value_names", json_deep_copy(rule->value_names));
      break;
    case WEIR_RULE_PATTERN: json_object_set_new(v, "pattern", json_string(rule->pattern)); break;
    case WEIR_RULE_RANGE:
      json_object_set_new(v, "min", rule->min ? json_deep_copy(rule->min) : json_null());
      json_object_set_new(v, "max", rule->max ? json_deep_copy(rule->max) : json_null());
      break;
    case WEIR_RULE_CHECK: json_object_set_new(v, "sql", json_string(rule->sql)); break;
    default: break;
    }
    wc_findings_add(&s->f, (long)rr->col, 2 + (int)rr->idx, v);
  }
}

static json_t *casts_json(vstate *s, const struct ArrowSchema *in_schema) {
  json_t *a = json_array();
  for (size_t i = 0; i < s->c->n_columns; i++) {
    const col_plan *cp = &s->p.cols[i];
    if (cp->in_idx < 0 || cp->cast != WEIR_CAST_WIDEN) continue;
    char from[160], to[96];
    wr_arrow_type_name(in_schema->children[cp->in_idx], from, sizeof from);
    wr_type_arrow_name(s->c->columns[i].field.type, to, sizeof to);
    json_t *o = json_object();
    json_object_set_new(o, "column", json_string(s->c->columns[i].field.name));
    json_object_set_new(o, "from", json_string(from));
    json_object_set_new(o, "to", json_string(to));
    json_object_set_new(o, "cast", json_string(cp->exact ? "exact" : "widen"));
    json_array_append_new(a, o);
  }
  return a;
}

/* ---- the entry point ----------------------------------------------------------------------------------------- */

int wr_contract_validate(const weir_contract *c, wr_arrow_table *in, const wr_validate_options *opts,
                           wr_validation *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  wr_arrow_table_init(&out->valid);
  wr_arrow_table_init(&out->quarantine);
  /* Without options the data is judged as a model output: the strictest reading. */
  wr_validate_options dflt = {.is_output = true};
  if (!opts) opts = &dflt;
  if (!c || !in) return wr_seterr(err, WEIR_EINVALIDARG, "contract validation: no contract or no data");

  /* A contract built by hand (not through the loaders) gets the same rule checks. */
  for (size_t i = 0; i < c->n_columns; i++)
    for (size_t j = 0; j < c->columns[i].n_rules; j++) {
      char why[512];
      if (!contract_rule_check(&c->columns[i], &c->columns[i].rules[j], why, sizeof why)) {
        wr_arrow_table_release(in);
        return wr_seterr(err, WEIR_EINVALIDARG, "contract %s: rule \"%s\" of column \"%s\": %s", c->name ? c->name : "",
                           c->columns[i].rules[j].name ? c->columns[i].rules[j].name : "?", c->columns[i].field.name, why);
      }
    }

  vstate s;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.opts = opts;
  s.limit = opts->sample_limit > 0 ? opts->sample_limit : 3;
  s.f.sample_limit = s.limit;
  s.rule_results = json_array();
  s.table_results = json_array();
  s.nb = in->n_batches;
  int rc = WEIR_OK;
  wc_plan_columns(c, &in->schema, opts, &s.p, &s.f);

  s.row_base = wr_calloc(s.nb + 1, sizeof *s.row_base);
  for (size_t b = 1; b <= s.nb; b++) s.row_base[b] = s.row_base[b - 1] + wr_arrow_batch_length(in->batches[b - 1]);
  s.cb = wr_calloc(s.nb ? s.nb : 1, sizeof *s.cb);
  s.nulls = wr_calloc(c->n_columns ? c->n_columns : 1, sizeof *s.nulls);
  s.overflow = wr_calloc(c->n_columns ? c->n_columns : 1, sizeof *s.overflow);
  size_t n_rules = 0;
  for (size_t i = 0; i < c->n_columns; i++) {
    wc_hits_init(&s.nulls[i], s.limit, false, s.nb);
    wc_hits_init(&s.overflow[i], s.limit, false, s.nb);
    s.overflow[i].paired = s.p.cols[i].exact; /* each row with the value that does not convert */
    n_rules += c->columns[i].n_rules;
  }
  s.runs = wr_calloc(n_rules ? n_rules : 1, sizeof *s.runs);
  for (size_t i = 0; i < c->n_columns && !rc; i++) {
    for (size_t j = 0; j < c->columns[i].n_rules && !rc; j++) {
      const wr_column_rule *r = &c->columns[i].rules[j];
      rule_run *rr = &s.runs[s.n_runs++];
      rr->col = i;
      rr->idx = j;
      rr->rule = r;
      wc_hits_init(&rr->hits, s.limit, r->mode == WEIR_MODE_DROP, s.nb);
      /* Rules of a column that is missing or cannot be cast cannot run. */
      if (s.p.cols[i].out_idx < 0 || r->kind == WEIR_RULE_CHECK) continue;
      rc = wc_compiled_rule_new(&c->columns[i], r, s.row_base[s.nb], &rr->cr, err);
    }
  }

  if (!rc && opts->unique_seed) seed_unique(&s, opts->unique_seed);

  for (size_t b = 0; b < s.nb && !rc; b++) {
    rc = build_batch(&s, in, b, err);
    if (!rc) check_batch(&s, b);
  }
  const struct ArrowSchema *in_schema = &in->schema;
  json_t *casts = NULL;
  if (!rc && in_schema->release) casts = casts_json(&s, in_schema);
  int64_t rows_in = in->n_rows;
  bool cast_broken = false;
  for (size_t i = 0; i < c->n_columns; i++) cast_broken |= s.overflow[i].count > 0;
  bool broken = s.p.broken || cast_broken;

  if (!rc && !broken) rc = run_checks(&s, err);
  if (!rc && !broken) rc = apply_drops(&s, out, err);
  if (!rc && !broken) rc = run_table_rules(&s, out, err);
  if (rc) {
    json_decref(casts);
    wr_validation_clear(out);
    wr_arrow_table_release(in);
    vstate_clear(&s);
    return rc;
  }
  if (broken) {
    /* Nothing may be written from a table of the wrong shape: no valid data. */
    wr_arrow_table_release(&out->valid);
    wr_arrow_table_release(&out->quarantine);
    for (size_t i = 0; i < c->n_rules; i++) {
      json_t *res = json_object();
      json_object_set_new(res, "rule", json_string(c->rules[i].name));
      json_object_set_new(res, "kind", json_string("table_rule"));
      json_object_set_new(res, "column", json_null());
      json_object_set_new(res, "mode", json_string(wr_rule_mode_name(c->rules[i].mode)));
      json_object_set_new(res, "value", json_null());
      json_object_set_new(res, "threshold", number_json(c->rules[i].threshold));
      json_object_set_new(res, "op", json_string(c->rules[i].op));
      json_object_set_new(res, "rows_affected", json_null());
      json_object_set_new(res, "passed", json_null());
      json_object_set_new(res, "skipped", json_string("the table's columns do not match the contract"));
      json_array_append_new(s.table_results, res);
    }
  }
  column_findings(&s, in_schema);
  json_t *ordered = json_deep_copy(s.rule_results);
  json_array_extend(ordered, s.table_results);
  wc_findings_finish(&s.f);

  json_t *violations = json_array();
  bool failed = false;
  for (size_t i = 0; i < s.f.n; i++) {
    json_array_append(violations, s.f.v[i].obj);
    if (!strcmp(json_string_value(json_object_get(s.f.v[i].obj, "mode")), "fail")) failed = true;
  }
  out->failed = failed;
  json_t *report = json_object();
  json_object_set_new(report, "ok", json_boolean(!failed));
  json_object_set_new(report, "rows_in", json_integer(rows_in));
  json_object_set_new(report, "rows_valid", json_integer(out->valid.n_rows));
  json_object_set_new(report, "rows_quarantined", json_integer(out->quarantine.n_rows));
  json_object_set_new(report, "violations", violations);
  json_object_set_new(report, "rules", ordered);
  json_object_set_new(report, "casts", casts ? casts : json_array());
  out->report = report;

  if (failed) {
    wr_buf m = WEIR_BUF_INIT;
    const char *subject = opts->subject ? opts->subject : (c->name ? c->name : "the data");
    wr_buf_printf(&m, "contract violation in %s:", subject);
    for (size_t i = 0; i < s.f.n; i++) {
      const json_t *v = s.f.v[i].obj;
      if (strcmp(json_string_value(json_object_get(v, "mode")), "fail")) continue;
      wr_buf_printf(&m, "\n  - %s", json_string_value(json_object_get(v, "message")));
    }
    rc = wr_seterr(err, WEIR_ECONTRACT, "%s", wr_buf_cstr(&m));
    wr_buf_free(&m);
    wr_error_set_details(err, json_deep_copy(violations));
  }
  wr_arrow_table_release(in);
  vstate_clear(&s);
  return rc;
}
