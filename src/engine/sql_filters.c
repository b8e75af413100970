/*
 * sql_filters.c -- the conditions a query puts on each table it reads, for pruning data
 * files before the query runs (lake/scan_plan.c).
 *
 * From DuckDB's AST (json_serialize_sql): for each SELECT whose FROM is one base table,
 * the conjuncts of its WHERE that compare a column of that table with a constant:
 *   col = c, col < c, col <= c, col > c, col >= c (either side), col BETWEEN a AND b,
 *   col IN (c, ...), col = a OR col = b ..., col IS NULL, col IS NOT NULL.
 * Anything else (functions of columns, casts of columns, joins, OR over columns) is left
 * out: a filter may only ever be weaker than the query's condition, never stronger, so a
 * file the filters rule out is one the query would read no row of. A constant keeps the
 * type the SQL gave it (a string, an integer, a boolean, or a CAST of a string); the
 * caller decides whether that compares with the column as its own value would.
 *
 * Every base-table reference is counted: a table read twice (a self-join, a subquery)
 * has `count` > 1 and its files are read whole, since one view serves both references.
 */
#include "engine/engine_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/json.h"

/* The entry of table (schema, name) in `tables`, created when missing. */
static json_t *table_entry(json_t *tables, const char *schema, const char *name) {
  size_t i;
  json_t *t;
  json_array_foreach(tables, i, t) {
    const char *s = json_string_value(json_object_get(t, "schema"));
    bool same_schema = (!s && !schema) || (s && schema && !strcasecmp(s, schema));
    if (same_schema && !strcasecmp(json_string_value(json_object_get(t, "name")), name)) return t;
  }
  t = json_pack("{s:o,s:s,s:i,s:[]}", "schema", schema ? json_string(schema) : json_null(), "name", name, "count", 0,
                "filters");
  json_array_append_new(tables, t);
  return t;
}

/* A constant as {"value": text, "kind": "string"|"integer"|"boolean", "cast": TYPE|null};
 * NULL when it is not one weir can compare exactly. */
static json_t *constant_of(const json_t *e) {
  const char *cast = NULL;
  const char *cls = json_string_value(json_object_get(e, "class"));
  if (cls && !strcmp(cls, "CAST")) {
    if (json_is_true(json_object_get(e, "try_cast"))) return NULL;
    cast = json_string_value(json_object_get(json_object_get(e, "cast_type"), "id"));
    e = json_object_get(e, "child");
    cls = json_string_value(json_object_get(e, "class"));
  }
  if (!cls || strcmp(cls, "CONSTANT") != 0) return NULL;
  const json_t *v = json_object_get(e, "value");
  if (json_is_true(json_object_get(v, "is_null"))) return NULL;
  const char *tid = json_string_value(json_object_get(json_object_get(v, "type"), "id"));
  const json_t *val = json_object_get(v, "value");
  if (!tid) return NULL;
  if (!strcmp(tid, "VARCHAR") && json_is_string(val))
    return json_pack("{s:s,s:s,s:o}", "value", json_string_value(val), "kind", "string", "cast",
                     cast ? json_string(cast) : json_null());
  if (cast) return NULL;
  if ((!strcmp(tid, "INTEGER") || !strcmp(tid, "BIGINT") || !strcmp(tid, "SMALLINT") || !strcmp(tid, "TINYINT")) &&
      json_is_number(val)) {
    double d = json_number_value(val);
    /* Integers arrive as doubles: exact below 2^53 only. */
    if (fabs(d) >= 9007199254740992.0 || d != floor(d)) return NULL;
    char buf[32];
    snprintf(buf, sizeof buf, "%.0f", d);
    return json_pack("{s:s,s:s,s:n}", "value", buf, "kind", "integer", "cast");
  }
  if (!strcmp(tid, "BOOLEAN") && json_is_boolean(val))
    return json_pack("{s:s,s:s,s:n}", "value", json_is_true(val) ? "true" : "false", "kind", "boolean", "cast");
  return NULL;
}

/* The column a COLUMN_REF names, if it is one of the table (unqualified, or qualified by
 * the table's alias or name). */
static const char *column_of(const json_t *e, const char *alias, const char *table) {
  if (strcmp(json_string_value(json_object_get(e, "class")) ? json_string_value(json_object_get(e, "class")) : "",
             "COLUMN_REF") != 0)
    return NULL;
  const json_t *names = json_object_get(e, "column_names");
  size_t n = json_array_size(names);
  if (n == 1) return json_string_value(json_array_get(names, 0));
  if (n == 2) {
    const char *q = json_string_value(json_array_get(names, 0));
    if (q && ((alias && *alias && !strcasecmp(q, alias)) || ((!alias || !*alias) && !strcasecmp(q, table))))
      return json_string_value(json_array_get(names, 1));
  }
  return NULL;
}

static void add_filter(json_t *filters, const char *column, const char *op, json_t *values) {
  json_array_append_new(filters, json_pack("{s:s,s:s,s:o}", "column", column, "op", op, "values", values));
}

static const char *flip(const char *op) {
  if (!strcmp(op, "lt")) return "gt";
  if (!strcmp(op, "le")) return "ge";
  if (!strcmp(op, "gt")) return "lt";
  if (!strcmp(op, "ge")) return "le";
  return op;
}

/* col = c, or col IN (...): the column and its values appended to `values`; for ORs. */
static const char *equality(const json_t *e, const char *alias, const char *table, json_t *values) {
  const char *type = json_string_value(json_object_get(e, "type"));
  if (!type) return NULL;
  if (!strcmp(type, "COMPARE_EQUAL")) {
    const json_t *l = json_object_get(e, "left"), *r = json_object_get(e, "right");
    const char *col = column_of(l, alias, table);
    json_t *c = col ? constant_of(r) : NULL;
    if (!col) {
      col = column_of(r, alias, table);
      c = col ? constant_of(l) : NULL;
    }
    if (!col || !c) {
      json_decref(c);
      return NULL;
    }
    json_array_append_new(values, c);
    return col;
  }
  if (!strcmp(type, "COMPARE_IN")) {
    const json_t *ch = json_object_get(e, "children");
    const char *col = column_of(json_array_get(ch, 0), alias, table);
    if (!col) return NULL;
    for (size_t i = 1; i < json_array_size(ch); i++) {
      json_t *c = constant_of(json_array_get(ch, i));
      if (!c) return NULL;
      json_array_append_new(values, c);
    }
    return col;
  }
  if (!strcmp(type, "CONJUNCTION_OR")) {
    const json_t *ch = json_object_get(e, "children");
    const char *col = NULL;
    for (size_t i = 0; i < json_array_size(ch); i++) {
      const char *c = equality(json_array_get(ch, i), alias, table, values);
      if (!c || (col && strcasecmp(col, c))) return NULL;
      col = c;
    }
    return col;
  }
  return NULL;
}

static void conjuncts(const json_t *e, const char *alias, const char *table, json_t *filters) {
  const char *type = json_string_value(json_object_get(e, "type"));
  if (!type) return;
  if (!strcmp(type, "CONJUNCTION_AND")) {
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(e, "children"), i, c) conjuncts(c, alias, table, filters);
    return;
  }
  static const struct {
    const char *type, *op;
  } cmp[] = {{"COMPARE_LESSTHAN", "lt"},
             {"COMPARE_LESSTHANOREQUALTO", "le"},
             {"COMPARE_GREATERTHAN", "gt"},
             {"COMPARE_GREATERTHANOREQUALTO", "ge"}};
  for (size_t k = 0; k < sizeof cmp / sizeof cmp[0]; k++) {
    if (strcmp(type, cmp[k].type) != 0) continue;
    const json_t *l = json_object_get(e, "left"), *r = json_object_get(e, "right");
    const char *col = column_of(l, alias, table);
    json_t *c = NULL;
    const char *op = cmp[k].op;
    if (col) c = constant_of(r);
    else if ((col = column_of(r, alias, table))) c = constant_of(l), op = flip(op);
    if (col && c) add_filter(filters, col, op, json_pack("[o]", c));
    else json_decref(c);
    return;
  }
  if (!strcmp(type, "COMPARE_BETWEEN")) {
    const char *col = column_of(json_object_get(e, "input"), alias, table);
    if (!col) return;
    json_t *lo = constant_of(json_object_get(e, "lower")), *hi = constant_of(json_object_get(e, "upper"));
    if (lo) add_filter(filters, col, "ge", json_pack("[o]", lo));
    if (hi) add_filter(filters, col, "le", json_pack("[o]", hi));
    return;
  }
  if (!strcmp(type, "OPERATOR_IS_NULL") || !strcmp(type, "OPERATOR_IS_NOT_NULL")) {
    const char *col = column_of(json_array_get(json_object_get(e, "children"), 0), alias, table);
    if (col) add_filter(filters, col, strcmp(type, "OPERATOR_IS_NULL") ? "not_null" : "is_null", json_array());
    return;
  }
  json_t *values = json_array();
  const char *col = equality(e, alias, table, values);
  if (col) add_filter(filters, col, json_array_size(values) == 1 ? "eq" : "in", values);
  else json_decref(values);
}

static void walk(const json_t *v, json_t *tables, json_t *ctes) {
  if (json_is_array(v)) {
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item) walk(item, tables, ctes);
    return;
  }
  if (!json_is_object(v)) return;
  size_t i;
  json_t *entry;
  json_array_foreach(json_object_get(json_object_get(v, "cte_map"), "map"), i, entry) {
    const char *key = json_string_value(json_object_get(entry, "key"));
    if (key) json_array_append_new(ctes, json_string(key));
  }
  const char *type = json_string_value(json_object_get(v, "type"));
  if (type && !strcmp(type, "BASE_TABLE")) {
    const char *schema = json_string_value(json_object_get(v, "schema_name"));
    const char *catalog = json_string_value(json_object_get(v, "catalog_name"));
    const char *name = json_string_value(json_object_get(v, "table_name"));
    if (name && !(catalog && *catalog)) {
      json_t *t = table_entry(tables, schema && *schema ? schema : NULL, name);
      json_object_set_new(t, "count", json_integer(json_integer_value(json_object_get(t, "count")) + 1));
    }
  }
  if (type && !strcmp(type, "SELECT_NODE")) {
    const json_t *from = json_object_get(v, "from_table");
    const json_t *where = json_object_get(v, "where_clause");
    const char *ft = json_string_value(json_object_get(from, "type"));
    const char *catalog = json_string_value(json_object_get(from, "catalog_name"));
    if (ft && !strcmp(ft, "BASE_TABLE") && json_is_object(where) && !(catalog && *catalog)) {
      const char *schema = json_string_value(json_object_get(from, "schema_name"));
      const char *name = json_string_value(json_object_get(from, "table_name"));
      const char *alias = json_string_value(json_object_get(from, "alias"));
      if (name) {
        json_t *t = table_entry(tables, schema && *schema ? schema : NULL, name);
        conjuncts(where, alias, name, json_object_get(t, "filters"));
      }
    }
  }
  const char *key;
  json_t *child;
  json_object_foreach((json_t *)v, key, child) walk(child, tables, ctes);
}

int wr_engine_sql_filters(wr_engine *e, const char *sql, json_t **out, weir_error *err) {
  *out = NULL;
  wr_eng_settle(e);
  char *text = wr_eng_sql_text(sql, NULL);
  json_t *ast = NULL;
  int rc = wr_eng_sql_serialize(e, text, &ast, err);
  free(text);
  if (rc) return rc;
  json_t *tables = json_array(), *ctes = json_array();
  if (!json_is_true(json_object_get(ast, "error"))) walk(json_object_get(ast, "statements"), tables, ctes);
  /* A CTE named like a table hides it in some scopes: its references cannot be told
   * apart here, so such a table is read whole. */
  size_t i;
  json_t *t, *c;
  json_array_foreach(tables, i, t) {
    size_t k;
    json_array_foreach(ctes, k, c) {
      if (!strcasecmp(json_string_value(c), json_string_value(json_object_get(t, "name"))))
        json_object_set_new(t, "count", json_integer(2));
    }
  }
  json_decref(ctes);
  json_decref(ast);
  *out = tables;
  return WEIR_OK;
}
