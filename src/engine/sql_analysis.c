/*
 * sql_analysis.c -- what a query reads and what it returns, without running it.
 *
 * Tables: DuckDB's own parser, through json_serialize_sql, turns the SELECT into its AST
 * as JSON; every BASE_TABLE node is a table the query reads. Walking the whole tree finds
 * them wherever they hide (joins, subqueries in FROM, WHERE, SELECT lists, set operations,
 * lateral joins, table function arguments). CTEs are scoped as SQL scopes them: a query
 * node's WITH names hide tables of the same name inside that node (its body and its CTE
 * definitions, which covers recursive CTEs) and nowhere else. No regular expression could
 * get quoting, comments and scoping right; the parser does by construction.
 *
 * Types: the statement is prepared (bound and planned, not executed) and its result
 * columns' logical types are mapped to weir types by name. Preparing reads no rows; for a
 * view over Parquet it reads the files' footers for their schemas.
 */
#include "engine/engine_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/json.h"
#include "util/names.h"

void wr_sql_table_refs_free(wr_sql_table_ref *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) {
    free(v[i].schema);
    free(v[i].name);
  }
  free(v);
}

/* ---- positions ------------------------------------------------------------------------ */

typedef struct position_map {
  const char *sql;    /* the caller's text */
  size_t *map;        /* offset in the text DuckDB parsed -> offset in sql */
  size_t text_len;
} position_map;

/* 1-based line and column (in characters) of byte offset `off` of the parsed text. */
static void line_col(const position_map *pm, size_t off, int *line, int *col) {
  if (off > pm->text_len) off = pm->text_len;
  size_t src = pm->map[off];
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < src && pm->sql[i]; i++) {
    unsigned char c = (unsigned char)pm->sql[i];
    if (c == '\n') {
      (*line)++;
      *col = 1;
    } else if ((c & 0xC0) != 0x80) {
      (*col)++;
    }
  }
}

/* ---- the AST walk ---------------------------------------------------------------------- */

typedef struct walker {
  const position_map *pm;
  const char **scope;   /* CTE names visible here */
  size_t n_scope, cap_scope;
  wr_sql_table_ref *refs;
  size_t *locs;         /* offset of each ref's first appearance, for ordering */
  size_t n_refs, cap_refs;
} walker;

static bool in_scope(const walker *w, const char *name) {
  for (size_t i = 0; i < w->n_scope; i++)
    if (strcasecmp(w->scope[i], name) == 0) return true;
  return false;
}

static void add_ref(walker *w, const char *catalog, const char *schema, const char *name, size_t loc) {
  char *full_schema = NULL;
  if (catalog && *catalog) full_schema = wr_asprintf("%s.%s", catalog, schema ? schema : "");
  else if (schema && *schema) full_schema = wr_strdup(schema);
  /* SQL identifiers are case-insensitive: the same table spelled twice is one input. */
  for (size_t i = 0; i < w->n_refs; i++) {
    bool same_schema = (!full_schema && !w->refs[i].schema) ||
                       (full_schema && w->refs[i].schema && strcasecmp(full_schema, w->refs[i].schema) == 0);
    if (same_schema && strcasecmp(w->refs[i].name, name) == 0) {
      if (loc < w->locs[i]) {
        w->locs[i] = loc;
        line_col(w->pm, loc, &w->refs[i].line, &w->refs[i].column);
      }
      free(full_schema);
      return;
    }
  }
  if (w->n_refs == w->cap_refs) {
    w->cap_refs = w->cap_refs ? w->cap_refs * 2 : 8;
    w->refs = wr_realloc(w->refs, w->cap_refs * sizeof *w->refs);
    w->locs = wr_realloc(w->locs, w->cap_refs * sizeof *w->locs);
  }
  wr_sql_table_ref *r = &w->refs[w->n_refs];
  memset(r, 0, sizeof *r);
  r->schema = full_schema;
  r->name = wr_strdup(name);
  w->locs[w->n_refs] = loc;
  if (loc != (size_t)-1) line_col(w->pm, loc, &r->line, &r->column);
  w->n_refs++;
}

/* query_location: a byte offset, or 2^64-1 ("unknown"), which arrives as a double since
 * JSON integers beyond int64 cannot be kept exactly. */
static size_t location_of(const json_t *node) {
  json_t *l = json_object_get(node, "query_location");
  if (!json_is_number(l)) return (size_t)-1;
  double d = json_number_value(l);
  if (d < 0 || d >= 9.2e18) return (size_t)-1;
  return (size_t)d;
}

static void walk(walker *w, json_t *v) {
  if (json_is_array(v)) {
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item) walk(w, item);
    return;
  }
  if (!json_is_object(v)) return;
  size_t scope_mark = w->n_scope;
  json_t *cte_map = json_object_get(v, "cte_map");
  json_t *ctes = json_object_get(cte_map, "map");
  if (json_is_array(ctes)) {
    size_t i;
    json_t *entry;
    json_array_foreach(ctes, i, entry) {
      const char *key = json_string_value(json_object_get(entry, "key"));
      if (!key) continue;
      if (w->n_scope == w->cap_scope) {
        w->cap_scope = w->cap_scope ? w->cap_scope * 2 : 8;
        w->scope = wr_realloc(w->scope, w->cap_scope * sizeof *w->scope);
      }
      w->scope[w->n_scope++] = key;
    }
    json_array_foreach(ctes, i, entry) walk(w, json_object_get(entry, "value"));
  }
  const char *type = json_string_value(json_object_get(v, "type"));
  if (type && strcmp(type, "BASE_TABLE") == 0) {
    const char *catalog = json_string_value(json_object_get(v, "catalog_name"));
    const char *schema = json_string_value(json_object_get(v, "schema_name"));
    const char *name = json_string_value(json_object_get(v, "table_name"));
    bool qualified = (schema && *schema) || (catalog && *catalog);
    if (name && (qualified || !in_scope(w, name))) add_ref(w, catalog, schema, name, location_of(v));
  }
  const char *key;
  json_t *child;
  json_object_foreach(v, key, child) {
    if (strcmp(key, "cte_map") != 0) walk(w, child);
  }
  w->n_scope = scope_mark;
}

/* ---- sql_tables ------------------------------------------------------------------------- */

static int serialize(wr_engine *e, const char *text, json_t **out, weir_error *err) {
  duckdb_prepared_statement ps = NULL;
  duckdb_result res;
  bool have_res = false;
  int rc = WEIR_OK;
  *out = NULL;
  if (duckdb_prepare(e->conn, "SELECT json_serialize_sql($1::VARCHAR)", &ps) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_prepare_error(ps), NULL, "cannot analyse SQL");
    goto done;
  }
  duckdb_bind_varchar(ps, 1, text);
  have_res = true;
  if (duckdb_execute_prepared(ps, &res) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_result_error(&res), NULL, "cannot analyse SQL");
    goto done;
  }
  duckdb_data_chunk ch = duckdb_fetch_chunk(res);
  if (!ch || duckdb_data_chunk_get_size(ch) != 1) {
    if (ch) duckdb_destroy_data_chunk(&ch);
    rc = wr_seterr(err, WEIR_EENGINE, "cannot analyse SQL: json_serialize_sql returned no result");
    goto done;
  }
  duckdb_string_t *s = duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, 0));
  json_error_t jerr;
  *out = json_loadb(duckdb_string_t_data(s), duckdb_string_t_length(*s), JSON_DECODE_INT_AS_REAL, &jerr);
  duckdb_destroy_data_chunk(&ch);
  if (!*out) rc = wr_seterr(err, WEIR_EENGINE, "cannot analyse SQL: DuckDB's AST is not JSON: %s", jerr.text);
done:
  if (have_res) duckdb_destroy_result(&res);
  duckdb_destroy_prepare(&ps);
  return rc;
}

int wr_engine_sql_shape(wr_engine *e, const char *sql, bool expression, weir_error *err) {
  wr_eng_settle(e);
  /* "\n": a trailing -- comment must not swallow what follows in weir's queries. */
  char *text = expression ? wr_asprintf("SELECT %s\n", sql) : wr_asprintf("%s\n", sql);
  json_t *ast = NULL;
  int rc = serialize(e, text, &ast, err);
  free(text);
  if (rc) return rc;
  const char *what = expression ? "one SQL expression" : "one SELECT statement";
  if (json_is_true(json_object_get(ast, "error"))) {
    if (strcmp(wr_json_str(ast, "error_type", ""), "not implemented") == 0)
      rc = wr_seterr(err, WEIR_EINPUT, "is not %s: it holds a statement other than SELECT", what);
    else
      rc = wr_seterr(err, WEIR_EINPUT, "is not %s: %s", what, wr_json_str(ast, "error_message", "unknown error"));
    json_decref(ast);
    return rc;
  }
  json_t *stmts = json_object_get(ast, "statements");
  if (json_array_size(stmts) != 1) {
    rc = wr_seterr(err, WEIR_EINPUT, "is not %s: it holds %zu statements", what, json_array_size(stmts));
  } else if (expression) {
    json_t *node = json_object_get(json_array_get(stmts, 0), "node");
    bool plain = strcmp(wr_json_str(node, "type", ""), "SELECT_NODE") == 0 &&
                 json_array_size(json_object_get(node, "select_list")) == 1 &&
                 strcmp(wr_json_str(json_object_get(node, "from_table"), "type", ""), "EMPTY") == 0 &&
                 json_is_null(json_object_get(node, "where_clause")) &&
                 json_array_size(json_object_get(node, "group_expressions")) == 0 &&
                 json_is_null(json_object_get(node, "having")) && json_is_null(json_object_get(node, "qualify")) &&
                 json_array_size(json_object_get(node, "modifiers")) == 0 &&
                 json_is_null(json_object_get(node, "sample")) &&
                 json_object_size(json_object_get(json_object_get(node, "cte_map"), "map")) == 0 &&
                 json_array_size(json_object_get(json_object_get(node, "cte_map"), "map")) == 0;
    if (!plain)
      rc = wr_seterr(err, WEIR_EINPUT,
                       "is not %s (a check is a condition on one row: no FROM, WHERE, GROUP BY, ORDER BY, "
                       "LIMIT, WITH or second item; a subquery goes in parentheses)",
                       what);
  }
  json_decref(ast);
  return rc;
}

int wr_engine_sql_tables(wr_engine *e, const char *sql, wr_sql_table_ref **out, size_t *n,
                           weir_error *err) {
  *out = NULL;
  *n = 0;
  wr_eng_settle(e);
  position_map pm = {sql, NULL, 0};
  char *text = wr_eng_sql_text(sql, &pm.map);
  pm.text_len = strlen(text);
  json_t *ast = NULL;
  int rc = serialize(e, text, &ast, err);
  if (rc) goto done;
  if (json_is_true(json_object_get(ast, "error"))) {
    const char *etype = wr_json_str(ast, "error_type", "");
    const char *msg = wr_json_str(ast, "error_message", "unknown error");
    if (strcmp(etype, "parser") == 0) {
      const char *pos = json_string_value(json_object_get(ast, "position"));
      int line = 0, col = 0;
      if (pos) line_col(&pm, (size_t)strtoull(pos, NULL, 10), &line, &col);
      if (line) {
        rc = wr_seterr(err, WEIR_EINPUT, "cannot parse SQL: %s (line %d, column %d)", msg, line, col);
        wr_error_add_detail(err, json_pack("{s:s, s:i, s:i}", "message", msg, "line", line, "column", col));
      } else {
        rc = wr_seterr(err, WEIR_EINPUT, "cannot parse SQL: %s", msg);
      }
    } else if (strcmp(etype, "not implemented") == 0) {
      rc = wr_seterr(err, WEIR_EUNSUPPORTED, "cannot analyse SQL: only a SELECT statement can be analysed (%s)", msg);
    } else {
      rc = wr_seterr(err, WEIR_EINPUT, "cannot analyse SQL: %s", msg);
    }
    goto done;
  }
  json_t *stmts = json_object_get(ast, "statements");
  if (json_array_size(stmts) != 1) {
    rc = wr_seterr(err, WEIR_EUNSUPPORTED, "cannot analyse SQL: expected one SELECT statement, found %zu",
                     json_array_size(stmts));
    goto done;
  }
  walker w = {0};
  w.pm = &pm;
  walk(&w, json_array_get(stmts, 0));
  /* In order of first appearance in the text (the tree's order is not the text's: a
   * set operation's CTEs come before its branches, for instance). Unknown positions
   * last, in tree order. Insertion sort: a query reads a handful of tables. */
  for (size_t i = 1; i < w.n_refs; i++) {
    for (size_t j = i; j > 0 && w.locs[j] < w.locs[j - 1]; j--) {
      wr_sql_table_ref tr = w.refs[j];
      w.refs[j] = w.refs[j - 1];
      w.refs[j - 1] = tr;
      size_t tl = w.locs[j];
      w.locs[j] = w.locs[j - 1];
      w.locs[j - 1] = tl;
    }
  }
  free(w.scope);
  free(w.locs);
  *out = w.refs;
  *n = w.n_refs;
done:
  json_decref(ast);
  free(pm.map);
  free(text);
  return rc;
}

/* ---- columns ---------------------------------------------------------------------------- */

static void add_name(json_t *names, const char *name) {
  size_t i;
  json_t *v;
  json_array_foreach(names, i, v) if (strcasecmp(json_string_value(v), name) == 0) return;
  json_array_append_new(names, json_string(name));
}

/* Every column reference under `v`: a COLUMN_REF's last name part (the column; earlier
 * parts qualify it), a join's USING columns; a STAR (`*`, `t.*`, COLUMNS(*)) reads all. */
static void walk_columns(const json_t *v, json_t *names, bool *star) {
  if (json_is_array(v)) {
    size_t i;
    const json_t *x;
    json_array_foreach(v, i, x) walk_columns(x, names, star);
    return;
  }
  if (!json_is_object(v)) return;
  const char *cls = wr_json_str(v, "class", "");
  if (strcmp(cls, "COLUMN_REF") == 0) {
    const json_t *parts = json_object_get(v, "column_names");
    const json_t *last = json_array_get(parts, json_array_size(parts) ? json_array_size(parts) - 1 : 0);
    if (json_is_string(last)) add_name(names, json_string_value(last));
  } else if (strcmp(cls, "STAR") == 0) {
    *star = true;
  }
  const json_t *using = json_object_get(v, "using_columns");
  if (json_is_array(using)) {
    size_t i;
    const json_t *x;
    json_array_foreach(using, i, x) if (json_is_string(x)) add_name(names, json_string_value(x));
  }
  const char *k;
  const json_t *x;
  json_object_foreach((json_t *)v, k, x) if (json_is_object(x) || json_is_array(x)) walk_columns(x, names, star);
}

int wr_engine_sql_columns(wr_engine *e, const char *sql, bool expression, json_t **names, bool *star,
                          weir_error *err) {
  *names = NULL;
  *star = false;
  wr_eng_settle(e);
  char *whole = expression ? wr_asprintf("SELECT %s", sql) : wr_strdup(sql);
  size_t *map = NULL;
  char *text = wr_eng_sql_text(whole, &map);
  json_t *ast = NULL;
  int rc = serialize(e, text, &ast, err);
  if (rc == WEIR_OK && json_is_true(json_object_get(ast, "error")))
    rc = wr_seterr(err, WEIR_EINPUT, "cannot parse SQL: %s", wr_json_str(ast, "error_message", "unknown error"));
  if (rc == WEIR_OK) {
    *names = json_array();
    walk_columns(json_object_get(ast, "statements"), *names, star);
  }
  json_decref(ast);
  free(map);
  free(text);
  free(whole);
  return rc;
}

/* ---- describe -------------------------------------------------------------------------- */

int wr_engine_describe(wr_engine *e, const char *sql, wr_schema *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  wr_eng_settle(e);
  char *text = wr_eng_sql_text(sql, NULL);
  duckdb_prepared_statement ps = NULL;
  int rc = WEIR_OK;
  if (duckdb_prepare(e->conn, text, &ps) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_prepare_error(ps), sql, "cannot describe query");
    goto done;
  }
  idx_t n = duckdb_prepared_statement_column_count(ps);
  for (idx_t i = 0; i < n; i++) {
    const char *name = duckdb_prepared_statement_column_name(ps, i);
    duckdb_logical_type t = duckdb_prepared_statement_column_logical_type(ps, i);
    char *tn = wr_eng_type_name(t);
    duckdb_destroy_logical_type(&t);
    wr_field f;
    memset(&f, 0, sizeof f);
    f.name = wr_strdup(name ? name : "");
    duckdb_free((void *)name);
    /* A DuckDB type with no exact weir name (TINYINT, HUGEINT, LIST, ...) is Any: the
     * column is there, but weir does not claim its type. The doc keeps DuckDB's name. */
    if (!wr_type_from_duckdb(tn, &f.type)) {
      memset(&f.type, 0, sizeof f.type);
      f.type.id = WEIR_TYPE_ANY;
      f.doc = tn;
      tn = NULL;
    }
    free(tn);
    f.required = false; /* DuckDB's prepared statements do not report nullability */
    wr_schema_add(out, &f);
    wr_field_clear(&f);
  }
done:
  duckdb_destroy_prepare(&ps);
  free(text);
  return rc;
}

/* ---- create_empty ----------------------------------------------------------------------- */

/* The DuckDB type for a weir type. Any has none: its columns are VARCHAR, which plans any
 * use that text supports. */
static void put_duck_type(wr_buf *b, weir_type t) {
  char name[WEIR_TYPE_NAME_MAX];
  if (wr_type_duckdb_name(t, name, sizeof name)) wr_buf_puts(b, name);
  else wr_buf_puts(b, "VARCHAR");
}

int wr_engine_create_empty(wr_engine *e, const char *ns, const char *name,
                             const wr_schema *schema, weir_error *err) {
  wr_eng_settle(e);
  if (!schema || schema->n_fields == 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "cannot create table %s.%s: it has no columns", ns, name);
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "CREATE SCHEMA IF NOT EXISTS ");
  wr_eng_put_ident(&sql, ns);
  wr_buf_puts(&sql, "; CREATE OR REPLACE TABLE ");
  wr_eng_put_ident(&sql, ns);
  wr_buf_putc(&sql, '.');
  wr_eng_put_ident(&sql, name);
  wr_buf_puts(&sql, " (");
  for (size_t i = 0; i < schema->n_fields; i++) {
    const wr_field *f = &schema->fields[i];
    if (i) wr_buf_puts(&sql, ", ");
    wr_eng_put_ident(&sql, f->name);
    wr_buf_putc(&sql, ' ');
    put_duck_type(&sql, f->type);
    if (f->required) wr_buf_puts(&sql, " NOT NULL");
  }
  wr_buf_putc(&sql, ')');
  if (strcmp(ns, WEIR_DEFAULT_NAMESPACE) == 0) {
    /* Models name default tables bare, as they do when the table has data. */
    wr_buf_puts(&sql, "; CREATE OR REPLACE VIEW main.");
    wr_eng_put_ident(&sql, name);
    wr_buf_puts(&sql, " AS SELECT * FROM ");
    wr_eng_put_ident(&sql, ns);
    wr_buf_putc(&sql, '.');
    wr_eng_put_ident(&sql, name);
  }
  char *what = wr_asprintf("cannot create table %s.%s", ns, name);
  int rc = wr_eng_run(e, wr_buf_cstr(&sql), what, err);
  free(what);
  wr_buf_free(&sql);
  return rc;
}
