/*
 * delete_prune.c -- pruning a delete's data files by column statistics.
 *
 * The predicate's parse tree (DuckDB's json_serialize_sql) is walked; a file is skipped
 * only when its statistics PROVE that no row makes the predicate TRUE:
 *   - AND: some child proves it; OR: every child does;
 *   - `col OP constant` (either side; OP one of = < <= > >=), `col BETWEEN c1 AND c2`,
 *     `col IN (c1, ...)`: the column's lower/upper bounds (Iceberg's: every non-null value
 *     is within them; string bounds are truncated the safe way) lie outside what the
 *     comparison accepts, or the column holds only nulls (a comparison with NULL is never
 *     TRUE);
 *   - `col IS NULL`: the file's null count is 0; `col IS NOT NULL`: every value is null.
 * Anything else (NOT, functions, casts, arithmetic) proves nothing: the file is read. So
 * is a column without the statistic a rule needs (missing statistics mean unknown, never
 * "no nulls"), a floating-point column that may hold NaN (NaN sorts above every number
 * in DuckDB and is outside Iceberg's bounds), and any pairing of a column and a constant
 * whose comparison is not the column's own order (only numbers with numbers; strings,
 * dates and timestamps without time zone with string constants, which DuckDB casts to
 * the column's type). The comparison of a bound with the constant is left to DuckDB
 * (CAST('<bound>' AS <type>) OP <constant>), so the engine's own semantics decide, as
 * they do when the rows are read. An engine error in that comparison proves nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lake/delete_prune.h"
#include "util/buf.h"
#include "util/json.h"

struct lake_prune {
  json_t *tree;
};

int lake_prune_compile(wr_engine *engine, const char *where, lake_prune **out, weir_error *err) {
  *out = NULL;
  json_t *tree = NULL;
  int rc = wr_engine_sql_expression_tree(engine, where, &tree, err);
  if (rc) return rc;
  lake_prune *p = wr_calloc(1, sizeof *p);
  p->tree = tree;
  *out = p;
  return WEIR_OK;
}

void lake_prune_free(lake_prune *p) {
  if (!p) return;
  json_decref(p->tree);
  free(p);
}

/* The DuckDB type a bound is cast to, or NULL when the column's type is not pruned. */
static char *duck_type(weir_type t) {
  switch (t.id) {
    case WEIR_TYPE_INT32: return wr_strdup("INTEGER");
    case WEIR_TYPE_INT64: return wr_strdup("BIGINT");
    case WEIR_TYPE_FLOAT32: return wr_strdup("FLOAT");
    case WEIR_TYPE_FLOAT64: return wr_strdup("DOUBLE");
    case WEIR_TYPE_DECIMAL: return wr_asprintf("DECIMAL(%d,%d)", t.precision, t.scale);
    case WEIR_TYPE_STRING: return wr_strdup("VARCHAR");
    case WEIR_TYPE_DATE32: return wr_strdup("DATE");
    case WEIR_TYPE_TS_US: return wr_strdup("TIMESTAMP");
    case WEIR_TYPE_TS_NS: return wr_strdup("TIMESTAMP_NS");
    default: return NULL;
  }
}

static bool numeric(wr_type_id t) {
  return t == WEIR_TYPE_INT32 || t == WEIR_TYPE_INT64 || t == WEIR_TYPE_FLOAT32 || t == WEIR_TYPE_FLOAT64 ||
         t == WEIR_TYPE_DECIMAL;
}

/* A decimal constant's text: the unscaled digits with the point put back (25 at scale 1
 * is 2.5). */
static char *decimal_text(double unscaled, int64_t scale) {
  char digits[64];
  snprintf(digits, sizeof digits, "%.0f", fabs(unscaled));
  size_t nd = strlen(digits);
  wr_buf b = WEIR_BUF_INIT;
  if (unscaled < 0) wr_buf_putc(&b, '-');
  if ((int64_t)nd <= scale) {
    wr_buf_puts(&b, "0.");
    for (int64_t z = 0; z < scale - (int64_t)nd; z++) wr_buf_putc(&b, '0');
    wr_buf_puts(&b, digits);
  } else {
    wr_buf_append(&b, digits, nd - (size_t)scale);
    if (scale > 0) {
      wr_buf_putc(&b, '.');
      wr_buf_puts(&b, digits + nd - (size_t)scale);
    }
  }
  return wr_buf_detach(&b);
}

/* A constant node as SQL text, when its type pairs with a column of type `col` in the
 * column's own order (see the top); NULL otherwise. */
static char *constant_sql(const json_t *node, wr_type_id col) {
  if (strcmp(wr_json_str(node, "class", ""), "CONSTANT") != 0) return NULL;
  const json_t *v = json_object_get(node, "value");
  if (json_is_true(json_object_get(v, "is_null"))) return NULL;
  const json_t *type_j = json_object_get(v, "type");
  const char *type = wr_json_str(type_j, "id", "");
  const json_t *val = json_object_get(v, "value");
  static const char *const numbers[] = {"TINYINT",  "SMALLINT", "INTEGER", "BIGINT", "UTINYINT",
                                        "USMALLINT", "UINTEGER", "UBIGINT", "FLOAT",  "DOUBLE"};
  bool is_number = false;
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) is_number |= strcmp(type, numbers[i]) == 0;
  if (is_number || strcmp(type, "DECIMAL") == 0) {
    if (!numeric(col) || !json_is_number(val)) return NULL;
    double x = json_number_value(val);
    if (!isfinite(x) || fabs(x) > 9007199254740992.0) return NULL; /* exact only below 2^53 as a JSON real */
    if (strcmp(type, "DECIMAL") == 0) {
      int64_t scale = wr_json_int(json_object_get(type_j, "type_info"), "scale", -1);
      if (scale < 0 || scale > 18 || x != floor(x)) return NULL;
      return decimal_text(x, scale);
    }
    if (strcmp(type, "FLOAT") == 0 || strcmp(type, "DOUBLE") == 0) return wr_asprintf("%.17g::DOUBLE", x);
    if (x != floor(x)) return NULL;
    return wr_asprintf("%.0f", x);
  }
  if (strcmp(type, "VARCHAR") == 0 && json_is_string(val)) {
    if (col != WEIR_TYPE_STRING && col != WEIR_TYPE_DATE32 && col != WEIR_TYPE_TS_US && col != WEIR_TYPE_TS_NS)
      return NULL;
    return wr_sql_string(json_string_value(val));
  }
  return NULL;
}

/* The schema column a COLUMN_REF node names (one unqualified name), or -1. */
static int column_of(const json_t *node, const wr_schema *schema) {
  if (strcmp(wr_json_str(node, "class", ""), "COLUMN_REF") != 0) return -1;
  const json_t *names = json_object_get(node, "column_names");
  if (json_array_size(names) != 1) return -1;
  const char *name = json_string_value(json_array_get(names, 0));
  for (size_t i = 0; name && i < schema->n_fields; i++)
    if (strcasecmp(schema->fields[i].name, name) == 0) return (int)i;
  return -1;
}

typedef struct file_ctx {
  wr_engine *engine;
  const wr_schema *schema;
  const iceberg_data_file *f;
} file_ctx;

static const iceberg_column_stats *stats_of(const file_ctx *c, int col) {
  int32_t id = c->schema->fields[col].field_id;
  for (size_t i = 0; i < c->f->n_stats; i++)
    if (c->f->stats[i].field_id == id) return &c->f->stats[i];
  return NULL;
}

/* The constant expression `sql` is TRUE, by the engine; *ok false when it did not run
 * or gave NULL. */
static bool engine_true(file_ctx *c, const char *sql, bool *ok) {
  char *q = wr_asprintf("SELECT CASE WHEN (%s) THEN 1 ELSE 0 END", sql);
  double v = 0;
  bool is_null = false;
  weir_error e = {0};
  *ok = wr_engine_query_double(c->engine, q, &v, &is_null, &e) == WEIR_OK && !is_null;
  weir_error_clear(&e);
  free(q);
  return *ok && v == 1.0;
}

/* Can a row's value of column `col` make `col OP constant` TRUE? op: "=", "<", "<=",
 * ">", ">=". False only when the statistics prove it cannot. */
static bool compare_maybe(file_ctx *c, int col, const char *op, const char *constant) {
  const iceberg_column_stats *st = stats_of(c, col);
  if (!st) return true;
  if (st->value_count >= 0 && st->null_count >= 0 && st->value_count == st->null_count) return false; /* nulls */
  weir_type t = c->schema->fields[col].type;
  if ((t.id == WEIR_TYPE_FLOAT32 || t.id == WEIR_TYPE_FLOAT64) && st->nan_count != 0) return true;
  char *dt = duck_type(t);
  if (!dt) return true;
  bool eq = strcmp(op, "=") == 0;
  bool need_lo = eq || op[0] == '<';
  bool need_hi = eq || op[0] == '>';
  char *lo = need_lo && st->lower ? iceberg_bound_to_text(t, st->lower, st->lower_len) : NULL;
  char *hi = need_hi && st->upper ? iceberg_bound_to_text(t, st->upper, st->upper_len) : NULL;
  bool maybe = true;
  if ((!need_lo || lo) && (!need_hi || hi)) {
    char *qlo = lo ? wr_sql_string(lo) : NULL, *qhi = hi ? wr_sql_string(hi) : NULL;
    char *sql;
    if (eq)
      sql = wr_asprintf("CAST(%s AS %s) <= %s AND %s <= CAST(%s AS %s)", qlo, dt, constant, constant, qhi, dt);
    else
      sql = wr_asprintf("CAST(%s AS %s) %s %s", need_lo ? qlo : qhi, dt, op, constant);
    bool ok = false;
    bool possible = engine_true(c, sql, &ok);
    maybe = !ok || possible;
    free(sql);
    free(qlo);
    free(qhi);
  }
  free(lo);
  free(hi);
  free(dt);
  return maybe;
}

static const char *op_of(const char *type, bool flip) {
  static const struct {
    const char *type, *op, *flipped;
  } ops[] = {{"COMPARE_EQUAL", "=", "="},
             {"COMPARE_LESSTHAN", "<", ">"},
             {"COMPARE_LESSTHANOREQUALTO", "<=", ">="},
             {"COMPARE_GREATERTHAN", ">", "<"},
             {"COMPARE_GREATERTHANOREQUALTO", ">=", "<="}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(type, ops[i].type) == 0) return flip ? ops[i].flipped : ops[i].op;
  return NULL;
}

/* May some row of the file make `node` TRUE? */
static bool maybe_true(file_ctx *c, const json_t *node) {
  const char *cls = wr_json_str(node, "class", ""), *type = wr_json_str(node, "type", "");
  if (strcmp(cls, "CONJUNCTION") == 0) {
    bool is_and = strcmp(type, "CONJUNCTION_AND") == 0;
    if (!is_and && strcmp(type, "CONJUNCTION_OR") != 0) return true;
    size_t i;
    const json_t *ch;
    json_array_foreach(json_object_get(node, "children"), i, ch) {
      bool m = maybe_true(c, ch);
      if (is_and && !m) return false;
      if (!is_and && m) return true;
    }
    return is_and;
  }
  if (strcmp(cls, "COMPARISON") == 0) {
    const json_t *l = json_object_get(node, "left"), *r = json_object_get(node, "right");
    int col = column_of(l, c->schema);
    bool flip = false;
    if (col < 0) col = column_of(r, c->schema), flip = true;
    const char *op = op_of(type, flip);
    if (col < 0 || !op) return true;
    char *k = constant_sql(flip ? l : r, c->schema->fields[col].type.id);
    if (!k) return true;
    bool m = compare_maybe(c, col, op, k);
    free(k);
    return m;
  }
  if (strcmp(cls, "BETWEEN") == 0) {
    int col = column_of(json_object_get(node, "input"), c->schema);
    if (col < 0) return true;
    wr_type_id t = c->schema->fields[col].type.id;
    char *lo = constant_sql(json_object_get(node, "lower"), t), *hi = constant_sql(json_object_get(node, "upper"), t);
    bool m = true;
    if (lo && hi) m = compare_maybe(c, col, ">=", lo) && compare_maybe(c, col, "<=", hi);
    free(lo);
    free(hi);
    return m;
  }
  if (strcmp(cls, "OPERATOR") == 0) {
    const json_t *ch = json_object_get(node, "children");
    int col = column_of(json_array_get(ch, 0), c->schema);
    if (col < 0) return true;
    const iceberg_column_stats *st = stats_of(c, col);
    if (strcmp(type, "OPERATOR_IS_NULL") == 0) return !(st && st->null_count == 0);
    if (strcmp(type, "OPERATOR_IS_NOT_NULL") == 0)
      return !(st && st->value_count >= 0 && st->null_count >= 0 && st->value_count == st->null_count);
    if (strcmp(type, "COMPARE_IN") == 0) {
      if (json_array_size(ch) < 2) return true;
      for (size_t i = 1; i < json_array_size(ch); i++) {
        char *k = constant_sql(json_array_get(ch, i), c->schema->fields[col].type.id);
        bool m = !k || compare_maybe(c, col, "=", k);
        free(k);
        if (m) return true;
      }
      return false;
    }
  }
  return true;
}

void lake_prune_file(wr_engine *engine, const lake_prune *p, const wr_schema *schema, const iceberg_data_file *f,
                     bool *maybe) {
  file_ctx c = {engine, schema, f};
  *maybe = maybe_true(&c, p->tree);
}
