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

int wr_eng_sql_serialize(wr_engine *e, const char *text, json_t **out, weir_error *err) {
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
  unsigned long jf = wr_json_alloc_failures();
  *out = json_loadb(duckdb_string_t_data(s), duckdb_string_t_length(*s), JSON_DECODE_INT_AS_REAL, &jerr);
  duckdb_destroy_data_chunk(&ch);
  if (wr_json_alloc_failures() != jf) { /* jansson ran out of memory: not the AST's fault */
    json_decref(*out);
    *out = NULL;
    rc = wr_oom(err);
  } else if (!*out) rc = wr_seterr(err, WEIR_EENGINE, "cannot analyse SQL: DuckDB's AST is not JSON: %s", jerr.text);
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
  int rc = wr_eng_sql_serialize(e, text, &ast, err);
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
  int rc = wr_eng_sql_serialize(e, text, &ast, err);
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
        wr_error_add_sql_position(err, msg, line, col);
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
  int rc = wr_eng_sql_serialize(e, text, &ast, err);
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

int wr_engine_sql_expression_tree(wr_engine *e, const char *sql, json_t **out, weir_error *err) {
  *out = NULL;
  wr_eng_settle(e);
  char *text = wr_asprintf("SELECT %s\n", sql);
  json_t *ast = NULL;
  int rc = wr_eng_sql_serialize(e, text, &ast, err);
  free(text);
  if (rc == WEIR_OK && json_is_true(json_object_get(ast, "error")))
    rc = wr_seterr(err, WEIR_EINPUT, "cannot parse SQL: %s", wr_json_str(ast, "error_message", "unknown error"));
  if (rc == WEIR_OK) {
    json_t *node = json_object_get(json_array_get(json_object_get(ast, "statements"), 0), "node");
    json_t *item = json_array_get(json_object_get(node, "select_list"), 0);
    if (json_array_size(json_object_get(node, "select_list")) != 1 || !json_is_object(item))
      rc = wr_seterr(err, WEIR_EINPUT, "is not one SQL expression");
    else
      *out = json_incref(item);
  }
  json_decref(ast);
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

/* ---- nullability ------------------------------------------------------------------------- */

/*
 * Which output columns of a SELECT can be NULL, from the inputs' declared nullability and
 * the query's shape (DuckDB's AST; docs/engine.md, "NOT NULL inference"). Three answers per
 * expression: proven non-null, may be null (a nullable input column, the outer side of a
 * join, NULL itself, a CASE without ELSE, ... can reach it), and unknown (a construct this
 * analysis does not follow: a subquery expression, a set operation, a table function, an
 * unknown function over non-null arguments). Only "may be null" is ever reported; unknown
 * keeps today's behaviour (checked on the data at run time), so the analysis can only
 * find problems, never invent them from what it does not understand.
 *
 * Rules: a column reference takes its column's state in the FROM scope; the nullable side
 * of a LEFT/RIGHT/FULL join makes every column of that side nullable; WHERE conjuncts (and
 * an inner join's ON conjuncts) that are `x IS NOT NULL`, a comparison, IN or BETWEEN of a
 * column make it non-null below them (a NULL there is never true); count() is non-null;
 * other aggregates follow their argument under GROUP BY (a group has rows) and are unknown
 * without one (an empty input gives NULL); COALESCE is non-null when one argument is;
 * CASE is non-null when every branch (ELSE included: none is NULL) is; arithmetic,
 * comparisons and CAST are null exactly when an argument is; TRY_CAST and NULLIF may be.
 */

typedef enum nstate { NS_NONNULL = 0, NS_NULLABLE = 1, NS_UNKNOWN = 2 } nstate;

typedef struct nval {
  nstate s;
  char *why;     /* NS_NULLABLE: what can make it null, for the message (owned) */
  size_t loc;    /* where that is (offset in the parsed text), or -1 */
} nval;

typedef struct ncol {
  char *name;
  nval v;
} ncol;

typedef struct nrel {
  char *name;    /* alias or table name; "" for a join's USING columns */
  ncol *cols;
  size_t n;
} nrel;

typedef struct nscope {
  nrel *rels;
  size_t n;
  bool opaque;   /* a FROM item was not followed: unknown columns are not errors */
} nscope;

typedef struct nctx {
  const wr_sql_input *inputs;
  size_t n_inputs;
  const json_t *ctes[16];  /* cte_map arrays in scope, innermost last */
  size_t n_ctes;
  int depth;
} nctx;

static nval nv(nstate s, const char *why, size_t loc) {
  nval v = {s, why ? wr_strdup(why) : NULL, loc};
  return v;
}

static void nscope_free(nscope *sc) {
  for (size_t i = 0; i < sc->n; i++) {
    for (size_t j = 0; j < sc->rels[i].n; j++) {
      free(sc->rels[i].cols[j].name);
      free(sc->rels[i].cols[j].v.why);
    }
    free(sc->rels[i].cols);
    free(sc->rels[i].name);
  }
  free(sc->rels);
  memset(sc, 0, sizeof *sc);
}

static nrel *nscope_add(nscope *sc, const char *name) {
  sc->rels = wr_realloc(sc->rels, (sc->n + 1) * sizeof *sc->rels);
  nrel *r = &sc->rels[sc->n++];
  r->name = wr_strdup(name ? name : "");
  r->cols = NULL;
  r->n = 0;
  return r;
}

static void nrel_add(nrel *r, const char *name, nval v) {
  r->cols = wr_realloc(r->cols, (r->n + 1) * sizeof *r->cols);
  r->cols[r->n].name = wr_strdup(name);
  r->cols[r->n].v = v;
  r->n++;
}

/* Moves every relation of `from` to the end of `to`. */
static void nscope_take(nscope *to, nscope *from) {
  if (from->n == 0) { /* nothing to move (from->rels may be NULL: memcpy must not see it) */
    to->opaque = to->opaque || from->opaque;
    free(from->rels);
    memset(from, 0, sizeof *from);
    return;
  }
  to->rels = wr_realloc(to->rels, (to->n + from->n + 1) * sizeof *to->rels);
  memcpy(to->rels + to->n, from->rels, from->n * sizeof *from->rels);
  to->n += from->n;
  to->opaque = to->opaque || from->opaque;
  free(from->rels);
  memset(from, 0, sizeof *from);
}

/* A short rendering of an expression for messages ("b.x", "coalesce(...)", "CASE"). */
static void render(const json_t *e, wr_buf *b) {
  const char *cls = wr_json_str(e, "class", "");
  if (strcmp(cls, "COLUMN_REF") == 0) {
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(e, "column_names"), i, p) wr_buf_printf(b, "%s%s", i ? "." : "", json_string_value(p));
  } else if (strcmp(cls, "CONSTANT") == 0) {
    const json_t *val = json_object_get(e, "value"), *x = json_object_get(val, "value");
    if (json_is_true(json_object_get(val, "is_null"))) wr_buf_puts(b, "NULL");
    else if (json_is_integer(x)) wr_buf_printf(b, "%lld", (long long)json_integer_value(x));
    else if (json_is_real(x) && json_real_value(x) == (double)(long long)json_real_value(x))
      wr_buf_printf(b, "%lld", (long long)json_real_value(x)); /* integers arrive as reals */
    else if (json_is_real(x)) wr_buf_printf(b, "%g", json_real_value(x));
    else if (json_is_string(x)) wr_buf_printf(b, "'%s'", json_string_value(x));
    else wr_buf_puts(b, "a constant");
  } else if (strcmp(cls, "FUNCTION") == 0) {
    const char *fn = wr_json_str(e, "function_name", "?");
    const json_t *ch = json_object_get(e, "children");
    if (json_is_true(json_object_get(e, "is_operator")) && json_array_size(ch) == 2) {
      render(json_array_get(ch, 0), b);
      wr_buf_printf(b, " %s ", fn);
      render(json_array_get(ch, 1), b);
    } else {
      wr_buf_printf(b, "%s(", fn);
      size_t i;
      const json_t *c;
      json_array_foreach(ch, i, c) {
        if (i) wr_buf_puts(b, ", ");
        render(c, b);
      }
      wr_buf_puts(b, ")");
    }
  } else if (strcmp(cls, "CAST") == 0) {
    wr_buf_puts(b, json_is_true(json_object_get(e, "try_cast")) ? "TRY_CAST(" : "CAST(");
    render(json_object_get(e, "child"), b);
    wr_buf_puts(b, " AS ...)");
  } else if (strcmp(cls, "CASE") == 0) {
    wr_buf_puts(b, "CASE ... END");
  } else if (strcmp(wr_json_str(e, "type", ""), "OPERATOR_COALESCE") == 0) {
    wr_buf_puts(b, "COALESCE(...)");
  } else {
    wr_buf_puts(b, "an expression");
  }
}

static char *render_s(const json_t *e) {
  wr_buf b = WEIR_BUF_INIT;
  render(e, &b);
  char *s = wr_strdup(wr_buf_cstr(&b));
  wr_buf_free(&b);
  return s;
}

/* The column a reference names, or NULL (not found, or ambiguous without a qualifier). */
static ncol *lookup(nscope *sc, const json_t *ref) {
  const json_t *parts = json_object_get(ref, "column_names");
  size_t np = json_array_size(parts);
  if (np == 0) return NULL;
  const char *col = json_string_value(json_array_get(parts, np - 1));
  const char *rel = np >= 2 ? json_string_value(json_array_get(parts, np - 2)) : NULL;
  for (size_t i = 0; i < sc->n; i++) {
    if (rel && strcasecmp(sc->rels[i].name, rel) != 0) continue;
    for (size_t j = 0; j < sc->rels[i].n; j++)
      if (strcasecmp(sc->rels[i].cols[j].name, col) == 0) return &sc->rels[i].cols[j];
  }
  return NULL;
}

static bool is_agg(const char *fn) {
  static const char *const aggs[] = {"sum", "min", "max", "avg", "mean", "first", "last", "any_value", "arg_min",
                                     "arg_max", "median", "mode", "string_agg", "group_concat", "bool_and",
                                     "bool_or", "product", "fsum", "favg", "stddev", "variance", "list", NULL};
  for (size_t i = 0; aggs[i]; i++)
    if (strcasecmp(fn, aggs[i]) == 0) return true;
  return false;
}

/* Functions that are NULL exactly when an argument is (for non-null arguments they return
 * a value): arithmetic, and common scalar functions. */
static bool is_strict(const char *fn) {
  static const char *const fns[] = {"+", "-", "*", "/", "||", "abs", "round", "floor", "ceil", "ceiling", "upper",
                                    "lower", "ucase", "lcase", "length", "strlen", "trim", "ltrim", "rtrim",
                                    "substring", "substr", "year", "month", "day", "hour", "minute", "second",
                                    "date_trunc", "sign", "sqrt", "ln", "log", "exp", "power", "pow", "left",
                                    "right", "replace", "reverse", "lpad", "rpad", "strftime", NULL};
  for (size_t i = 0; fns[i]; i++)
    if (strcasecmp(fn, fns[i]) == 0) return true;
  return false;
}

static nval neval(nctx *cx, nscope *sc, const json_t *e, bool grouped);

/* Null when any argument may be: the first such argument's reason. */
static nval strict_of(nctx *cx, nscope *sc, const json_t *args, bool grouped, bool nonnull_if_all) {
  nval out = nv(nonnull_if_all ? NS_NONNULL : NS_UNKNOWN, NULL, (size_t)-1);
  size_t i;
  const json_t *a;
  json_array_foreach(args, i, a) {
    nval v = neval(cx, sc, a, grouped);
    if (v.s == NS_NULLABLE && out.s != NS_NULLABLE) {
      free(out.why);
      out = v;
      continue;
    }
    if (v.s == NS_UNKNOWN && out.s == NS_NONNULL) out.s = NS_UNKNOWN;
    free(v.why);
  }
  return out;
}

static nval coalesce_of(nctx *cx, nscope *sc, const json_t *args, bool grouped, const json_t *e) {
  bool all_nullable = json_array_size(args) > 0;
  size_t i;
  const json_t *a;
  json_array_foreach(args, i, a) {
    nval v = neval(cx, sc, a, grouped);
    free(v.why);
    if (v.s == NS_NONNULL) return nv(NS_NONNULL, NULL, (size_t)-1);
    if (v.s != NS_NULLABLE) all_nullable = false;
  }
  return all_nullable ? nv(NS_NULLABLE, "every argument of COALESCE may be null", location_of(e))
                      : nv(NS_UNKNOWN, NULL, (size_t)-1);
}

static nval neval(nctx *cx, nscope *sc, const json_t *e, bool grouped) {
  const char *cls = wr_json_str(e, "class", "");
  const char *type = wr_json_str(e, "type", "");
  if (strcmp(cls, "COLUMN_REF") == 0) {
    ncol *c = lookup(sc, e);
    if (!c) return nv(NS_UNKNOWN, NULL, (size_t)-1);
    nval v = nv(c->v.s, c->v.why, c->v.loc);
    if (v.s == NS_NULLABLE && v.loc == (size_t)-1) v.loc = location_of(e);
    return v;
  }
  if (strcmp(cls, "CONSTANT") == 0)
    return json_is_true(json_object_get(json_object_get(e, "value"), "is_null")) ? nv(NS_NULLABLE, "NULL", location_of(e))
                                                                                  : nv(NS_NONNULL, NULL, (size_t)-1);
  if (strcmp(cls, "CAST") == 0) {
    nval v = neval(cx, sc, json_object_get(e, "child"), grouped);
    if (json_is_true(json_object_get(e, "try_cast")) && v.s == NS_NONNULL) {
      v.s = NS_NULLABLE;
      v.why = wr_strdup("TRY_CAST gives NULL for a value that does not convert");
      v.loc = location_of(e);
    }
    return v;
  }
  if (strcmp(type, "OPERATOR_IS_NULL") == 0 || strcmp(type, "OPERATOR_IS_NOT_NULL") == 0 ||
      strcmp(type, "COMPARE_DISTINCT_FROM") == 0 || strcmp(type, "COMPARE_NOT_DISTINCT_FROM") == 0)
    return nv(NS_NONNULL, NULL, (size_t)-1);
  if (strcmp(type, "OPERATOR_COALESCE") == 0) return coalesce_of(cx, sc, json_object_get(e, "children"), grouped, e);
  if (strcmp(cls, "COMPARISON") == 0) {
    json_t *args = json_pack("[OO]", json_object_get(e, "left"), json_object_get(e, "right"));
    nval v = strict_of(cx, sc, args, grouped, true);
    json_decref(args);
    return v;
  }
  if (strcmp(cls, "OPERATOR") == 0 || strcmp(cls, "CONJUNCTION") == 0)
    return strict_of(cx, sc, json_object_get(e, "children"), grouped, true);
  if (strcmp(cls, "CASE") == 0) {
    nval out = nv(NS_NONNULL, NULL, (size_t)-1);
    json_t *branches = json_array();
    size_t i;
    const json_t *ck;
    json_array_foreach(json_object_get(e, "case_checks"), i, ck) json_array_append(branches, json_object_get(ck, "then_expr"));
    const json_t *el = json_object_get(e, "else_expr");
    bool no_else = !el || (strcmp(wr_json_str(el, "class", ""), "CONSTANT") == 0 &&
                           json_is_true(json_object_get(json_object_get(el, "value"), "is_null")) &&
                           location_of(el) == (size_t)-1);
    if (no_else) {
      json_decref(branches);
      return nv(NS_NULLABLE, "a CASE without ELSE gives NULL when no WHEN matches", location_of(e));
    }
    json_array_append(branches, (json_t *)el);
    free(out.why);
    out = strict_of(cx, sc, branches, grouped, true);
    json_decref(branches);
    return out;
  }
  if (strcmp(cls, "FUNCTION") == 0) {
    const char *fn = wr_json_str(e, "function_name", "");
    const json_t *args = json_object_get(e, "children");
    if (strcasecmp(fn, "count_star") == 0 || strcasecmp(fn, "count") == 0) return nv(NS_NONNULL, NULL, (size_t)-1);
    if (strcasecmp(fn, "coalesce") == 0 || strcasecmp(fn, "ifnull") == 0) return coalesce_of(cx, sc, args, grouped, e);
    if (strcasecmp(fn, "nullif") == 0) return nv(NS_NULLABLE, "NULLIF gives NULL when its arguments are equal", location_of(e));
    if (is_agg(fn)) {
      nval v = strict_of(cx, sc, args, grouped, true);
      if (!grouped && v.s == NS_NONNULL) v.s = NS_UNKNOWN; /* no GROUP BY: an empty input gives NULL */
      return v;
    }
    if (is_strict(fn)) return strict_of(cx, sc, args, grouped, true);
    return nv(NS_UNKNOWN, NULL, (size_t)-1);
  }
  if (strcmp(cls, "WINDOW") == 0) {
    const char *fn = wr_json_str(e, "function_name", "");
    if (strcasecmp(fn, "row_number") == 0 || strcasecmp(fn, "rank") == 0 || strcasecmp(fn, "dense_rank") == 0 ||
        strcasecmp(fn, "count_star") == 0)
      return nv(NS_NONNULL, NULL, (size_t)-1);
  }
  return nv(NS_UNKNOWN, NULL, (size_t)-1);
}

/* A WHERE or inner ON conjunct that is never true for a NULL column makes it non-null. */
static void set_nonnull(nscope *sc, const json_t *e) {
  if (strcmp(wr_json_str(e, "class", ""), "COLUMN_REF") != 0) return;
  ncol *c = lookup(sc, e);
  if (!c) return;
  c->v.s = NS_NONNULL;
  free(c->v.why);
  c->v.why = NULL;
}

static void apply_filter(nscope *sc, const json_t *e) {
  if (!json_is_object(e)) return;
  const char *cls = wr_json_str(e, "class", "");
  const char *type = wr_json_str(e, "type", "");
  size_t i;
  const json_t *c;
  if (strcmp(type, "CONJUNCTION_AND") == 0) {
    json_array_foreach(json_object_get(e, "children"), i, c) apply_filter(sc, c);
  } else if (strcmp(type, "OPERATOR_IS_NOT_NULL") == 0) {
    json_array_foreach(json_object_get(e, "children"), i, c) set_nonnull(sc, c);
  } else if (strcmp(cls, "COMPARISON") == 0 && strcmp(type, "COMPARE_DISTINCT_FROM") != 0 &&
             strcmp(type, "COMPARE_NOT_DISTINCT_FROM") != 0) {
    set_nonnull(sc, json_object_get(e, "left"));
    set_nonnull(sc, json_object_get(e, "right"));
  } else if (strcmp(type, "COMPARE_IN") == 0) {
    set_nonnull(sc, json_array_get(json_object_get(e, "children"), 0));
  } else if (strcmp(cls, "BETWEEN") == 0) {
    set_nonnull(sc, json_object_get(e, "input"));
  }
}

static bool select_cols(nctx *cx, const json_t *node, nrel *out);

static const json_t *find_cte(nctx *cx, const char *name) {
  for (size_t k = cx->n_ctes; k-- > 0;) {
    size_t i;
    const json_t *m;
    json_array_foreach(cx->ctes[k], i, m) if (strcasecmp(wr_json_str(m, "key", ""), name) == 0)
        return json_object_get(json_object_get(json_object_get(m, "value"), "query"), "node");
  }
  return NULL;
}

/* Column aliases `t AS u(a, b)` rename the relation's first columns. */
static void rename_cols(nrel *r, const json_t *node) {
  size_t i;
  const json_t *a;
  json_array_foreach(json_object_get(node, "column_name_alias"), i, a) if (i < r->n && json_is_string(a)) {
    free(r->cols[i].name);
    r->cols[i].name = wr_strdup(json_string_value(a));
  }
}

/* Makes every column of sc nullable: the outer side of a join. */
static void outer_side(nscope *sc, const char *join) {
  for (size_t i = 0; i < sc->n; i++)
    for (size_t j = 0; j < sc->rels[i].n; j++) {
      ncol *c = &sc->rels[i].cols[j];
      if (c->v.s == NS_NULLABLE) continue;
      free(c->v.why);
      c->v.why = wr_asprintf("%s%s%s comes from the nullable side of a %s JOIN (no match gives NULL)", sc->rels[i].name,
                             *sc->rels[i].name ? "." : "", c->name, join);
      c->v.s = NS_NULLABLE;
      c->v.loc = (size_t)-1;
    }
}

static ncol *find_in(nscope *sc, const char *name) {
  for (size_t i = 0; i < sc->n; i++)
    for (size_t j = 0; j < sc->rels[i].n; j++)
      if (strcasecmp(sc->rels[i].cols[j].name, name) == 0) return &sc->rels[i].cols[j];
  return NULL;
}

static void from_item(nctx *cx, const json_t *t, nscope *sc) {
  const char *type = wr_json_str(t, "type", "");
  const char *alias = wr_json_str(t, "alias", "");
  if (strcmp(type, "EMPTY") == 0) return;
  if (strcmp(type, "BASE_TABLE") == 0) {
    const char *name = wr_json_str(t, "table_name", "");
    const char *schema = wr_json_str(t, "schema_name", "");
    const json_t *cte = *schema ? NULL : find_cte(cx, name);
    nrel *r = nscope_add(sc, *alias ? alias : name);
    if (cte) {
      if (!select_cols(cx, cte, r)) sc->opaque = true;
      rename_cols(r, t);
      return;
    }
    for (size_t i = 0; i < cx->n_inputs; i++) {
      const wr_sql_input *in = &cx->inputs[i];
      if (strcasecmp(in->name, name) != 0 || (*schema && (!in->schema || strcasecmp(in->schema, schema) != 0)))
        continue;
      for (size_t k = 0; k < in->columns->n_fields; k++) {
        const wr_field *f = &in->columns->fields[k];
        char *why = f->required ? NULL : wr_asprintf("column %s of %s is nullable", f->name, name);
        nstate s = f->required ? NS_NONNULL : in->unknown_nullable ? NS_UNKNOWN : NS_NULLABLE;
        nrel_add(r, f->name, nv(s, s == NS_NULLABLE ? why : NULL, (size_t)-1));
        free(why);
      }
      rename_cols(r, t);
      return;
    }
    sc->opaque = true;
    return;
  }
  if (strcmp(type, "SUBQUERY") == 0) {
    nrel *r = nscope_add(sc, alias);
    if (!select_cols(cx, json_object_get(json_object_get(t, "subquery"), "node"), r)) sc->opaque = true;
    rename_cols(r, t);
    return;
  }
  if (strcmp(type, "JOIN") == 0) {
    nscope l = {0}, r = {0};
    from_item(cx, json_object_get(t, "left"), &l);
    from_item(cx, json_object_get(t, "right"), &r);
    const char *jt = wr_json_str(t, "join_type", "INNER");
    /* USING columns, merged as the engine merges them: first, so that unqualified
     * references find them. */
    nscope u = {0};
    const json_t *using = json_object_get(t, "using_columns");
    if (json_array_size(using)) {
      nrel *ur = nscope_add(&u, "");
      size_t i;
      const json_t *c;
      json_array_foreach(using, i, c) {
        ncol *a = find_in(&l, json_string_value(c)), *b = find_in(&r, json_string_value(c));
        nval v = nv(NS_UNKNOWN, NULL, (size_t)-1);
        const ncol *pick = strcmp(jt, "LEFT") == 0 ? a : strcmp(jt, "RIGHT") == 0 ? b : NULL;
        if (pick) v = nv(pick->v.s, pick->v.why, pick->v.loc);
        else if ((a && a->v.s == NS_NONNULL) || (b && b->v.s == NS_NONNULL)) v.s = NS_NONNULL;
        else if (a && b && a->v.s == NS_NULLABLE && b->v.s == NS_NULLABLE) v = nv(NS_NULLABLE, a->v.why, a->v.loc);
        nrel_add(ur, json_string_value(c), v);
      }
    }
    if (strcmp(jt, "LEFT") == 0) outer_side(&r, "LEFT");
    else if (strcmp(jt, "RIGHT") == 0) outer_side(&l, "RIGHT");
    else if (strcmp(jt, "OUTER") == 0 || strcmp(jt, "FULL") == 0) {
      outer_side(&l, "FULL");
      outer_side(&r, "FULL");
    }
    nscope_take(sc, &u);
    nscope_take(sc, &l);
    nscope_take(sc, &r);
    if (strcmp(jt, "INNER") == 0) apply_filter(sc, json_object_get(t, "condition"));
    return;
  }
  sc->opaque = true; /* table functions, PIVOT, ... */
}

/* The output columns of a SELECT node into `out` (names: alias, else the referenced
 * column, else ""). False when the node is not one this analysis follows. */
static bool select_cols(nctx *cx, const json_t *node, nrel *out) {
  if (!node || strcmp(wr_json_str(node, "type", ""), "SELECT_NODE") != 0 || cx->depth > 32) return false;
  if (cx->n_ctes >= sizeof cx->ctes / sizeof cx->ctes[0]) return false;
  cx->depth++;
  cx->ctes[cx->n_ctes++] = json_object_get(json_object_get(node, "cte_map"), "map");
  nscope sc = {0};
  from_item(cx, json_object_get(node, "from_table"), &sc);
  apply_filter(&sc, json_object_get(node, "where_clause"));
  bool grouped = json_array_size(json_object_get(node, "group_expressions")) > 0;
  bool ok = true;
  size_t i;
  const json_t *e;
  json_array_foreach(json_object_get(node, "select_list"), i, e) {
    if (strcmp(wr_json_str(e, "class", ""), "STAR") == 0) {
      const char *rel = wr_json_str(e, "relation_name", "");
      if (sc.opaque || json_array_size(json_object_get(e, "exclude_list")) ||
          json_array_size(json_object_get(e, "replace_list")) || json_is_true(json_object_get(e, "columns"))) {
        ok = false;
        break;
      }
      /* `*` over a USING join shows each merged column once, from the USING list (the
       * scope's first relation, named ""). */
      nscope merged = {sc.n && !*sc.rels[0].name ? &sc.rels[0] : NULL, sc.n && !*sc.rels[0].name ? 1 : 0, false};
      for (size_t r = 0; r < sc.n; r++) {
        if (*rel && strcasecmp(sc.rels[r].name, rel) != 0) continue;
        for (size_t k = 0; k < sc.rels[r].n; k++) {
          if (!*rel && *sc.rels[r].name && find_in(&merged, sc.rels[r].cols[k].name)) continue;
          const ncol *c = &sc.rels[r].cols[k];
          nrel_add(out, c->name, nv(c->v.s, c->v.why, c->v.loc));
        }
      }
      continue;
    }
    nval v = neval(cx, &sc, e, grouped);
    const char *alias = wr_json_str(e, "alias", "");
    const char *name = alias;
    if (!*name && strcmp(wr_json_str(e, "class", ""), "COLUMN_REF") == 0) {
      const json_t *parts = json_object_get(e, "column_names");
      name = json_string_value(json_array_get(parts, json_array_size(parts) - 1));
    }
    if (v.s == NS_NULLABLE && v.loc == (size_t)-1) v.loc = location_of(e);
    nrel_add(out, name ? name : "", v);
    /* The expression itself, for messages: kept in why's prefix. */
    ncol *c = &out->cols[out->n - 1];
    if (c->v.s == NS_NULLABLE) {
      char *expr = render_s(e);
      char *why = wr_asprintf("%s\x1f%s", expr, c->v.why ? c->v.why : "it may be null");
      free(c->v.why);
      c->v.why = why;
      free(expr);
    }
  }
  nscope_free(&sc);
  cx->n_ctes--;
  cx->depth--;
  return ok;
}

int wr_engine_sql_nullability(wr_engine *e, const char *sql, const wr_sql_input *inputs, size_t n_inputs,
                              json_t **out, weir_error *err) {
  *out = NULL;
  wr_eng_settle(e);
  position_map pm = {sql, NULL, 0};
  char *text = wr_eng_sql_text(sql, &pm.map);
  pm.text_len = strlen(text);
  json_t *ast = NULL;
  int rc = wr_eng_sql_serialize(e, text, &ast, err);
  if (rc == WEIR_OK && json_is_true(json_object_get(ast, "error")))
    rc = wr_seterr(err, WEIR_EINPUT, "cannot parse SQL: %s", wr_json_str(ast, "error_message", "unknown error"));
  if (rc == WEIR_OK && json_array_size(json_object_get(ast, "statements")) == 1) {
    nctx cx = {inputs, n_inputs, {0}, 0, 0};
    nrel r = {0};
    const json_t *node = json_object_get(json_array_get(json_object_get(ast, "statements"), 0), "node");
    if (select_cols(&cx, node, &r)) {
      *out = json_array();
      for (size_t i = 0; i < r.n; i++) {
        const ncol *c = &r.cols[i];
        json_t *o = json_pack("{s:s,s:s}", "column", c->name, "state",
                              c->v.s == NS_NONNULL ? "non-null" : c->v.s == NS_NULLABLE ? "nullable" : "unknown");
        if (c->v.s == NS_NULLABLE) {
          const char *sep = c->v.why ? strchr(c->v.why, '\x1f') : NULL;
          char *expr = sep ? wr_strndup(c->v.why, (size_t)(sep - c->v.why)) : wr_strdup(c->name);
          json_object_set_new(o, "expression", json_string(expr));
          json_object_set_new(o, "why", json_string(sep ? sep + 1 : c->v.why ? c->v.why : "it may be null"));
          free(expr);
          int line = 0, col = 0;
          if (c->v.loc != (size_t)-1) line_col(&pm, c->v.loc, &line, &col);
          json_object_set_new(o, "line", line ? json_integer(line) : json_null());
          json_object_set_new(o, "column_number", col ? json_integer(col) : json_null());
        }
        json_array_append_new(*out, o);
      }
    }
    for (size_t i = 0; i < r.n; i++) {
      free(r.cols[i].name);
      free(r.cols[i].v.why);
    }
    free(r.cols);
    free(r.name);
  }
  json_decref(ast);
  free(pm.map);
  free(text);
  return rc;
}

/* ---- narrowing casts ---------------------------------------------------------------------- */

/*
 * Which explicit casts can change a value (docs/engine.md, "Checked casts"). The parser's
 * AST gives the casts the text writes (CAST, ::) with their positions and target types;
 * it cannot give an operand's type, which depends on the inputs. The binder can: DuckDB's
 * json_serialize_plan gives the logical plan before optimisation, whose BOUND_CAST nodes
 * keep the query_location of the expression they were bound from and their child's
 * return type. A bound cast is the text's when location and target type agree, which
 * leaves out the casts the binder adds itself (implicit casts carry their operand's
 * location, never a CAST node's) and those of macros weir defines (weir_checked_cast's
 * body is bound from the macro's text, and the typed NULL weir adds to its call is no
 * operand). A constant's cast is not reported: the value is in the text.
 */

typedef struct cast_site {
  size_t loc;
  const json_t *node; /* the parser's CAST node */
} cast_site;

typedef struct cast_sites {
  cast_site *v;
  size_t n, cap;
} cast_sites;

static void collect_casts(const json_t *v, cast_sites *out) {
  if (json_is_array(v)) {
    size_t i;
    const json_t *x;
    json_array_foreach(v, i, x) collect_casts(x, out);
    return;
  }
  if (!json_is_object(v)) return;
  if (strcmp(wr_json_str(v, "class", ""), "CAST") == 0 && !json_is_true(json_object_get(v, "try_cast"))) {
    const json_t *child = json_object_get(v, "child");
    /* A constant's cast is the value the author wrote ('2024-01-01'::DATE), and the
     * typed NULL weir adds to weir_checked_cast's calls is one. */
    bool constant = strcmp(wr_json_str(child, "class", ""), "CONSTANT") == 0;
    size_t loc = location_of(v);
    if (!constant && loc != (size_t)-1) {
      if (out->n == out->cap) {
        out->cap = out->cap ? out->cap * 2 : 8;
        out->v = wr_realloc(out->v, out->cap * sizeof *out->v);
      }
      out->v[out->n].loc = loc;
      out->v[out->n].node = v;
      out->n++;
    }
  }
  const char *k;
  const json_t *x;
  json_object_foreach((json_t *)v, k, x) if (json_is_object(x) || json_is_array(x)) collect_casts(x, out);
}

/* DuckDB's name of a serialised type ("INTEGER", "DECIMAL(5,2)"). */
static void type_name_of(const json_t *t, char *buf, size_t n) {
  const char *id = wr_json_str(t, "id", "?");
  const json_t *info = json_object_get(t, "type_info");
  if (strcmp(id, "DECIMAL") == 0 && json_is_object(info))
    snprintf(buf, n, "DECIMAL(%lld,%lld)", (long long)wr_json_int(info, "width", 18),
             (long long)wr_json_int(info, "scale", 3));
  else snprintf(buf, n, "%s", id);
}

/* Integer types: bits and signedness; 0 for other types. */
static int int_bits(const char *id, bool *is_signed) {
  static const struct {
    const char *id;
    int bits;
    bool is_signed;
  } ints[] = {{"TINYINT", 8, true},    {"SMALLINT", 16, true},  {"INTEGER", 32, true},  {"BIGINT", 64, true},
              {"HUGEINT", 128, true},  {"UTINYINT", 8, false},  {"USMALLINT", 16, false}, {"UINTEGER", 32, false},
              {"UBIGINT", 64, false}, {"UHUGEINT", 128, false}};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (strcmp(id, ints[i].id) == 0) {
      *is_signed = ints[i].is_signed;
      return ints[i].bits;
    }
  return 0;
}

/* Decimal digits an integer type needs (its largest magnitude's). */
static int int_digits(int bits) { return bits == 8 ? 3 : bits == 16 ? 5 : bits == 32 ? 10 : bits == 64 ? 20 : 39; }

/* Fractional-second digits of a time point type; -1 for a date, -2 for other types. */
static int time_digits(const char *id) {
  if (strcmp(id, "TIMESTAMP_NS") == 0) return 9;
  if (strcmp(id, "TIMESTAMP") == 0 || strcmp(id, "TIMESTAMP WITH TIME ZONE") == 0) return 6;
  if (strcmp(id, "TIMESTAMP_MS") == 0) return 3;
  if (strcmp(id, "TIMESTAMP_S") == 0) return 0;
  if (strcmp(id, "DATE") == 0) return -1;
  return -2;
}

/* Why a cast from `from` to `to` can change or refuse a value, or NULL when every value
 * converts exactly (widening, or a change of representation such as BIGINT to DOUBLE,
 * which docs/types.md does not call narrowing). */
static const char *narrowing(const json_t *from, const json_t *to, char *buf, size_t n) {
  const char *f = wr_json_str(from, "id", ""), *t = wr_json_str(to, "id", "");
  const json_t *fi = json_object_get(from, "type_info"), *ti = json_object_get(to, "type_info");
  bool fs = false, ts = false;
  int fb = int_bits(f, &fs), tb = int_bits(t, &ts);
  bool f_float = strcmp(f, "FLOAT") == 0 || strcmp(f, "DOUBLE") == 0;
  bool f_dec = strcmp(f, "DECIMAL") == 0, t_dec = strcmp(t, "DECIMAL") == 0;
  long long fw = wr_json_int(fi, "width", 18), fsc = wr_json_int(fi, "scale", 3);
  long long tw = wr_json_int(ti, "width", 18), tsc = wr_json_int(ti, "scale", 3);
  int fd = time_digits(f), td = time_digits(t);
  if (strcmp(f, "VARCHAR") == 0 && strcmp(t, "VARCHAR") != 0)
    snprintf(buf, n, "text converts only when it spells a value of %s, and another spelling (' 7' or '007' for "
                     "7) does not come back the same", t);
  else if (tb && (f_float || (f_dec && fsc > 0)))
    snprintf(buf, n, "fractions are rounded away, and values beyond %s's range fail", t);
  else if (tb && fb && (ts ? (fs ? tb < fb : tb <= fb) : (fs || tb < fb)))
    snprintf(buf, n, "values beyond %s's range fail", t);
  else if (tb && f_dec && fw - fsc > int_digits(tb) - 1)
    snprintf(buf, n, "values beyond %s's range fail", t);
  else if (strcmp(f, "DOUBLE") == 0 && strcmp(t, "FLOAT") == 0)
    snprintf(buf, n, "digits beyond FLOAT's precision (about 7) are rounded away");
  else if (f_float && t_dec)
    snprintf(buf, n, "digits beyond the scale %lld are rounded away, and values beyond %lld integer digits fail", tsc,
             tw - tsc);
  else if (f_dec && t_dec && tsc < fsc)
    snprintf(buf, n, "digits beyond the scale %lld are rounded away", tsc);
  else if (f_dec && t_dec && tw - tsc < fw - fsc)
    snprintf(buf, n, "values beyond %lld integer digits fail", tw - tsc);
  else if (fb && t_dec && tw - tsc < int_digits(fb))
    snprintf(buf, n, "values beyond %lld integer digits fail", tw - tsc);
  else if (fd >= 0 && td == -1)
    snprintf(buf, n, "the time of day is dropped");
  else if (fd >= 0 && strcmp(t, "TIME") == 0)
    snprintf(buf, n, "the date is dropped");
  else if (fd >= 0 && td >= 0 && td < fd)
    snprintf(buf, n, "%s", td == 6 ? "sub-microsecond digits are dropped"
                           : td == 3 ? "sub-millisecond digits are dropped"
                                     : "fractions of a second are dropped");
  else return NULL;
  return buf;
}

/* The plan's casts, by location: (location, child return type, return type). */
static void collect_bound_casts(const json_t *v, json_t *out) {
  if (json_is_array(v)) {
    size_t i;
    const json_t *x;
    json_array_foreach(v, i, x) collect_bound_casts(x, out);
    return;
  }
  if (!json_is_object(v)) return;
  if (strcmp(wr_json_str(v, "expression_class", ""), "BOUND_CAST") == 0 &&
      !json_is_true(json_object_get(v, "try_cast"))) {
    size_t loc = location_of(v);
    const json_t *child = json_object_get(json_object_get(v, "child"), "return_type");
    if (!child) child = json_object_get(json_object_get(json_object_get(v, "child"), "value"), "type");
    if (loc != (size_t)-1 && child)
      json_array_append_new(out, json_pack("{s:I,s:O,s:O}", "loc", (json_int_t)loc, "from", child, "to",
                                           json_object_get(v, "return_type")));
  }
  const char *k;
  const json_t *x;
  json_object_foreach((json_t *)v, k, x) if (json_is_object(x) || json_is_array(x)) collect_bound_casts(x, out);
}

static json_t *serialize_plan(wr_engine *e, const char *text) {
  duckdb_prepared_statement ps = NULL;
  duckdb_result res;
  bool have_res = false;
  json_t *out = NULL;
  if (duckdb_prepare(e->conn, "SELECT json_serialize_plan($1::VARCHAR)", &ps) == DuckDBError) goto done;
  duckdb_bind_varchar(ps, 1, text);
  have_res = true;
  if (duckdb_execute_prepared(ps, &res) == DuckDBError) goto done;
  duckdb_data_chunk ch = duckdb_fetch_chunk(res);
  if (!ch) goto done;
  if (duckdb_data_chunk_get_size(ch) == 1) {
    duckdb_string_t *s = duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, 0));
    out = json_loadb(duckdb_string_t_data(s), duckdb_string_t_length(*s), JSON_DECODE_INT_AS_REAL, NULL);
  }
  duckdb_destroy_data_chunk(&ch);
done:
  if (have_res) duckdb_destroy_result(&res);
  duckdb_destroy_prepare(&ps);
  return out;
}

int wr_engine_sql_casts(wr_engine *e, const char *sql, json_t **out, weir_error *err) {
  *out = NULL;
  wr_eng_settle(e);
  position_map pm = {sql, NULL, 0};
  char *text = wr_eng_sql_text(sql, &pm.map);
  pm.text_len = strlen(text);
  json_t *ast = NULL, *plan = NULL, *bound = json_array();
  cast_sites sites = {0};
  int rc = wr_eng_sql_serialize(e, text, &ast, err);
  if (rc == WEIR_OK && json_is_true(json_object_get(ast, "error")))
    rc = wr_seterr(err, WEIR_EINPUT, "cannot parse SQL: %s", wr_json_str(ast, "error_message", "unknown error"));
  if (rc) goto done;
  *out = json_array();
  collect_casts(json_object_get(ast, "statements"), &sites);
  if (sites.n == 0) goto done;
  plan = serialize_plan(e, text);
  if (!plan || json_is_true(json_object_get(plan, "error"))) goto done;
  collect_bound_casts(json_object_get(plan, "plans"), bound);
  /* In the order of the text: insertion sort over a handful of casts. */
  for (size_t i = 1; i < sites.n; i++)
    for (size_t j = i; j > 0 && sites.v[j].loc < sites.v[j - 1].loc; j--) {
      cast_site t = sites.v[j];
      sites.v[j] = sites.v[j - 1];
      sites.v[j - 1] = t;
    }
  for (size_t i = 0; i < sites.n; i++) {
    const json_t *to = json_object_get(sites.v[i].node, "cast_type");
    size_t k;
    const json_t *b;
    json_array_foreach(bound, k, b) {
      if ((size_t)wr_json_int(b, "loc", -1) != sites.v[i].loc) continue;
      if (strcmp(wr_json_str(json_object_get(b, "to"), "id", "?"), wr_json_str(to, "id", "!")) != 0) continue;
      char why[256], from_name[64], to_name[64];
      const json_t *bto = json_object_get(b, "to");
      if (!narrowing(json_object_get(b, "from"), bto, why, sizeof why)) break;
      type_name_of(json_object_get(b, "from"), from_name, sizeof from_name);
      type_name_of(bto, to_name, sizeof to_name);
      char *operand = render_s(json_object_get(sites.v[i].node, "child"));
      wr_buf r = WEIR_BUF_INIT;
      wr_buf_printf(&r, "CAST(%s AS %s)", operand, to_name);
      int line = 0, col = 0;
      line_col(&pm, sites.v[i].loc, &line, &col);
      json_array_append_new(*out, json_pack("{s:i,s:i,s:s,s:s,s:s,s:s,s:s}", "line", line, "column_number", col,
                                            "expression", wr_buf_cstr(&r), "operand", operand, "from", from_name,
                                            "to", to_name, "why", why));
      wr_buf_free(&r);
      free(operand);
      break;
    }
  }
done:
  free(sites.v);
  json_decref(bound);
  json_decref(plan);
  json_decref(ast);
  free(pm.map);
  free(text);
  return rc;
}
