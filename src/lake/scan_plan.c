/*
 * scan_plan.c -- which data files of a table a query must read: the files that may hold
 * a row satisfying the query's conditions on the table (engine/sql_filters.c), judged by
 * each file's partition tuple and then by its column statistics.
 *
 * A file is skipped only when some condition is proved false for every row of it:
 *   - partition: col = v (or IN) skips a file whose partition value of a transform of col
 *     is not T(v) for any v (T computed by the engine, as it computed the file's value);
 *     col < v / <= v skips files whose value of an order-preserving transform (identity,
 *     year, month, day, hour, truncate; not bucket) is above T(v), > / >= below it; a null
 *     partition value means the file's col is null in every row, which no comparison
 *     matches; IS NULL skips files with a non-null value;
 *   - statistics: bounds (lower <= every value <= upper) against v; counts for IS NULL
 *     (null_count 0) and for comparisons (every value null). A statistic that is missing
 *     is unknown: it never skips a file ("no null count" is not "no nulls"). Floating
 *     point upper bounds do not count NaN, which SQL orders above every number, so they
 *     skip files only when the file's NaN count is known to be 0.
 * A condition whose constant cannot be read exactly as the column's type (an integer
 * column against 2.5, a cast to another type) is not used.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lake/lake.h"
#include "util/buf.h"

typedef struct lit {
  uint8_t *v;          /* the constant as the column's type, binary form */
  size_t len;
  char *sql;           /* CAST(<constant> AS <column type>) */
} lit;

typedef struct cond {
  const wr_field *col;
  const char *op;
  lit *lits;
  size_t n_lits;
  bool usable;
} cond;

static const char *type_base(const char *duck, char *buf, size_t n) {
  size_t k = strcspn(duck, "(");
  snprintf(buf, n, "%.*s", (int)k, duck);
  return buf;
}

static bool is_ts(wr_type_id t) {
  return t == WEIR_TYPE_TS_US || t == WEIR_TYPE_TS_NS || t == WEIR_TYPE_TS_US_UTC || t == WEIR_TYPE_TS_NS_UTC;
}

/* Does a constant of this kind (and cast) compare with the column as its own value? */
static bool constant_fits(const wr_field *col, const char *kind, const char *cast, const char *duck) {
  wr_type_id t = col->type.id;
  char base[64];
  if (!strcmp(kind, "string")) {
    if (!cast) return true;
    if (!strcasecmp(cast, type_base(duck, base, sizeof base))) return true;
    return !strcasecmp(cast, "DATE") && is_ts(t);
  }
  if (!strcmp(kind, "integer"))
    return t == WEIR_TYPE_INT32 || t == WEIR_TYPE_INT64 || t == WEIR_TYPE_DECIMAL || t == WEIR_TYPE_FLOAT32 ||
           t == WEIR_TYPE_FLOAT64;
  if (!strcmp(kind, "boolean")) return t == WEIR_TYPE_BOOL;
  return false;
}

/* One value the engine computes, as text (NULL on any failure: the condition is unused). */
static char *engine_text(wr_engine *engine, const char *expr) {
  char *sql = wr_asprintf("SELECT %s AS v", expr);
  json_t *rows = NULL;
  weir_error e = {0};
  int rc = wr_engine_query_json(engine, sql, &rows, &e);
  free(sql);
  weir_error_clear(&e);
  if (rc) return NULL;
  const char *v = json_string_value(json_object_get(json_array_get(rows, 0), "v"));
  char *out = v ? wr_strdup(v) : NULL;
  json_decref(rows);
  return out;
}

static bool read_cond(wr_engine *engine, const iceberg_table *t, const json_t *f, cond *c) {
  memset(c, 0, sizeof *c);
  const char *name = json_string_value(json_object_get(f, "column"));
  c->op = json_string_value(json_object_get(f, "op"));
  if (!name || !c->op) return false;
  for (size_t i = 0; i < t->schema.n_fields && !c->col; i++)
    if (!strcasecmp(t->schema.fields[i].name, name)) c->col = &t->schema.fields[i];
  char duck[WEIR_TYPE_NAME_MAX];
  if (!c->col || !wr_type_duckdb_name(c->col->type, duck, sizeof duck)) return false;
  const json_t *vals = json_object_get(f, "values");
  c->lits = wr_calloc(json_array_size(vals) + 1, sizeof *c->lits);
  size_t i;
  const json_t *v;
  json_array_foreach(vals, i, v) {
    const char *text = json_string_value(json_object_get(v, "value"));
    const char *kind = json_string_value(json_object_get(v, "kind"));
    const char *cast = json_string_value(json_object_get(v, "cast"));
    if (!text || !kind || !constant_fits(c->col, kind, cast, duck)) return false;
    char *q = !strcmp(kind, "string") ? wr_sql_string(text) : wr_strdup(text);
    char *inner = cast ? wr_asprintf("CAST(%s AS %s)", q, cast) : wr_strdup(q);
    free(q);
    lit *l = &c->lits[c->n_lits++];
    l->sql = wr_asprintf("CAST(%s AS %s)", inner, duck);
    free(inner);
    char *shown = c->col->type.id == WEIR_TYPE_BINARY ? wr_asprintf("hex(%s)", l->sql)
                                                       : wr_asprintf("CAST(%s AS VARCHAR)", l->sql);
    char *res = engine_text(engine, shown);
    free(shown);
    if (!res) return false;
    bool ok = iceberg_partition_value_from_text(c->col->type, res, &l->v, &l->len);
    free(res);
    if (!ok) return false;
  }
  c->usable = true;
  return true;
}

static void cond_clear(cond *c) {
  for (size_t i = 0; i < c->n_lits; i++) {
    free(c->lits[i].v);
    free(c->lits[i].sql);
  }
  free(c->lits);
}

static const iceberg_column_stats *stats_of(const iceberg_data_file *f, int32_t id) {
  for (size_t i = 0; i < f->n_stats; i++)
    if (f->stats[i].field_id == id) return &f->stats[i];
  return NULL;
}

/* Can a row of file `f` satisfy `c`, by the file's statistics? */
static bool stats_may_match(const cond *c, const iceberg_data_file *f) {
  const iceberg_column_stats *s = stats_of(f, c->col->field_id);
  if (!s) return true;
  bool all_null = s->value_count >= 0 && s->null_count >= 0 && s->null_count == s->value_count;
  if (!strcmp(c->op, "is_null")) return s->null_count != 0;
  if (!strcmp(c->op, "not_null")) return !all_null;
  if (all_null) return false;
  weir_type t = c->col->type;
  bool floating = t.id == WEIR_TYPE_FLOAT32 || t.id == WEIR_TYPE_FLOAT64;
  bool upper_ok = s->upper && (!floating || s->nan_count == 0);
  for (size_t i = 0; i < c->n_lits; i++) {
    const lit *l = &c->lits[i];
    int lo = s->lower ? iceberg_value_compare(t, l->v, l->len, s->lower, s->lower_len) : 1;  /* v vs lower */
    int hi = upper_ok ? iceberg_value_compare(t, l->v, l->len, s->upper, s->upper_len) : -1; /* v vs upper */
    bool may;
    if (!strcmp(c->op, "eq") || !strcmp(c->op, "in")) may = lo >= 0 && hi <= 0;
    else if (!strcmp(c->op, "lt")) may = !s->lower || lo > 0;
    else if (!strcmp(c->op, "le")) may = !s->lower || lo >= 0;
    else if (!strcmp(c->op, "gt")) may = !upper_ok || hi < 0;
    else if (!strcmp(c->op, "ge")) may = !upper_ok || hi <= 0;
    else may = true;
    if (may) return true;
  }
  return c->n_lits == 0;
}

/* The partition fields of one spec, with each condition's constants transformed. */
typedef struct spec_plan {
  int32_t spec_id;
  iceberg_partition_spec spec;
  bool ok;
  /* xf[cond][field][lit]: T(v) in binary, NULL when not computed */
  iceberg_partition_value ***xf;
} spec_plan;

static void plan_spec(wr_engine *engine, const iceberg_table *t, int32_t id, cond *conds, size_t nc, spec_plan *p) {
  memset(p, 0, sizeof *p);
  p->spec_id = id;
  weir_error e = {0};
  if (iceberg_table_spec(t, id, &p->spec, &e) != WEIR_OK) {
    weir_error_clear(&e);
    return;
  }
  p->ok = true;
  p->xf = wr_calloc(nc ? nc : 1, sizeof *p->xf);
  for (size_t c = 0; c < nc; c++) {
    p->xf[c] = wr_calloc(p->spec.n_fields ? p->spec.n_fields : 1, sizeof **p->xf);
    if (!conds[c].usable) continue;
    for (size_t k = 0; k < p->spec.n_fields; k++) {
      const iceberg_partition_field *pf = &p->spec.fields[k];
      if (pf->source_id != conds[c].col->field_id || pf->kind == ICEBERG_XF_VOID) continue;
      p->xf[c][k] = wr_calloc(conds[c].n_lits + 1, sizeof ***p->xf);
      for (size_t l = 0; l < conds[c].n_lits; l++) {
        char *x = iceberg_partition_field_sql(pf, conds[c].lits[l].sql);
        char *tx = iceberg_partition_value_sql_text(pf, x);
        char *res = engine_text(engine, tx);
        free(x);
        free(tx);
        iceberg_partition_value *v = &p->xf[c][k][l];
        if (!res || !iceberg_partition_value_from_text(pf->result_type, res, &v->value, &v->len)) v->is_null = true;
        free(res);
      }
    }
  }
}

static void spec_plan_clear(spec_plan *p, const cond *conds, size_t nc) {
  if (p->xf) {
    for (size_t c = 0; c < nc; c++) {
      for (size_t k = 0; k < p->spec.n_fields; k++) {
        if (!p->xf[c][k]) continue;
        for (size_t l = 0; l < conds[c].n_lits; l++) free(p->xf[c][k][l].value);
        free(p->xf[c][k]);
      }
      free(p->xf[c]);
    }
    free(p->xf);
  }
  iceberg_partition_spec_clear(&p->spec);
}

/* Can a row of `f` satisfy `c`, by its partition tuple? */
static bool partition_may_match(const cond *c, size_t ci, const spec_plan *p, const iceberg_data_file *f) {
  if (!p->ok || f->n_partition != p->spec.n_fields) return true;
  for (size_t k = 0; k < p->spec.n_fields; k++) {
    if (!p->xf[ci][k]) continue;
    const iceberg_partition_field *pf = &p->spec.fields[k];
    const iceberg_partition_value *pv = &f->partition[k];
    if (!strcmp(c->op, "is_null")) {
      if (!pv->is_null) return false;
      continue;
    }
    if (pv->is_null) return false; /* every row's column is null */
    if (!strcmp(c->op, "not_null")) continue;
    bool eq = !strcmp(c->op, "eq") || !strcmp(c->op, "in");
    if (!eq && pf->kind == ICEBERG_XF_BUCKET) continue; /* buckets do not keep order */
    bool may = false, known = true;
    for (size_t l = 0; l < c->n_lits && !may; l++) {
      const iceberg_partition_value *x = &p->xf[ci][k][l];
      if (x->is_null) {
        known = false;
        break;
      }
      int cmp = iceberg_value_compare(pf->result_type, pv->value, pv->len, x->value, x->len);
      if (eq) may = cmp == 0;
      else if (!strcmp(c->op, "lt") || !strcmp(c->op, "le")) may = cmp <= 0;
      else may = cmp >= 0;
    }
    if (known && !may) return false;
  }
  return true;
}

int lake_plan_scan(wr_engine *engine, const iceberg_table *t, const json_t *filters, const iceberg_data_file *files,
                   size_t n, bool *keep, lake_scan_stats *st) {
  memset(st, 0, sizeof *st);
  st->files_total = n;
  for (size_t i = 0; i < n; i++) keep[i] = true;
  size_t nc = json_array_size(filters);
  if (!nc || !n) {
    st->files_read = n;
    return WEIR_OK;
  }
  cond *conds = wr_calloc(nc, sizeof *conds);
  for (size_t c = 0; c < nc; c++) {
    if (!read_cond(engine, t, json_array_get(filters, c), &conds[c])) conds[c].usable = false;
    else st->filters_used++;
  }
  spec_plan *plans = NULL;
  size_t np = 0;
  for (size_t i = 0; i < n; i++) {
    const iceberg_data_file *f = &files[i];
    spec_plan *p = NULL;
    for (size_t k = 0; k < np && !p; k++)
      if (plans[k].spec_id == f->spec_id) p = &plans[k];
    if (!p) {
      plans = wr_realloc(plans, (np + 1) * sizeof *plans);
      p = &plans[np++];
      plan_spec(engine, t, f->spec_id, conds, nc, p);
    }
    for (size_t c = 0; c < nc && keep[i]; c++) {
      if (!conds[c].usable) continue;
      if (!partition_may_match(&conds[c], c, p, f)) {
        keep[i] = false;
        st->pruned_by_partition++;
      } else if (!stats_may_match(&conds[c], f)) {
        keep[i] = false;
        st->pruned_by_stats++;
      }
    }
    if (keep[i]) st->files_read++;
  }
  for (size_t k = 0; k < np; k++) spec_plan_clear(&plans[k], conds, nc);
  free(plans);
  for (size_t c = 0; c < nc; c++) cond_clear(&conds[c]);
  free(conds);
  return WEIR_OK;
}
