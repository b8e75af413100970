/*
 * attach.c -- a lake table (a list of Parquet files and a schema) as a DuckDB view.
 *
 * The view exposes exactly the table's columns, in its order and with its types:
 *   - when every column has an Iceberg field id, read_parquet's `schema` parameter maps
 *     columns by field id, as Iceberg requires: a column renamed since a file was written
 *     is still found, and a column added since reads as NULL in older files;
 *   - otherwise columns are matched by name across files (union_by_name) and cast to the
 *     declared type;
 *   - with no files, a typed empty relation (SELECT CAST(NULL AS T) AS c ... WHERE false),
 *     so that queries still bind and plan.
 * Namespaces are DuckDB schemas. The default namespace's tables also answer to their bare
 * name (a view in `main`), which is how SQL names them; `default.x` works too (see the
 * rewrite in quote.c).
 */
#include "engine/engine_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/names.h"

static bool duck_type(weir_type t, char *out, size_t size) { return wr_type_duckdb_name(t, out, size); }

static bool by_field_id(const wr_schema *s) {
  for (size_t i = 0; i < s->n_fields; i++) {
    char tn[WEIR_TYPE_NAME_MAX];
    if (s->fields[i].field_id <= 0 || !duck_type(s->fields[i].type, tn, sizeof tn)) return false;
  }
  return true;
}

static void put_files(wr_buf *b, const char *const *files, size_t n) {
  wr_buf_putc(b, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) wr_buf_puts(b, ", ");
    wr_eng_put_string(b, files[i]);
  }
  wr_buf_putc(b, ']');
}

static void put_body(wr_buf *b, const wr_schema *s, const char *const *files, size_t n_files) {
  char tn[WEIR_TYPE_NAME_MAX];
  wr_buf_puts(b, "SELECT ");
  for (size_t i = 0; i < s->n_fields; i++) {
    const wr_field *f = &s->fields[i];
    if (i) wr_buf_puts(b, ", ");
    bool typed = duck_type(f->type, tn, sizeof tn);
    if (n_files == 0) {
      /* Any has no DuckDB type: a bare NULL. */
      if (typed) wr_buf_printf(b, "CAST(NULL AS %s)", tn);
      else wr_buf_puts(b, "NULL");
      wr_buf_puts(b, " AS ");
    } else if (typed && !by_field_id(s)) {
      wr_buf_puts(b, "CAST(");
      wr_eng_put_ident(b, f->name);
      wr_buf_printf(b, " AS %s) AS ", tn);
    }
    wr_eng_put_ident(b, f->name);
  }
  if (n_files == 0) {
    wr_buf_puts(b, " WHERE false");
    return;
  }
  wr_buf_puts(b, " FROM read_parquet(");
  put_files(b, files, n_files);
  if (by_field_id(s)) {
    wr_buf_puts(b, ", schema = MAP {");
    for (size_t i = 0; i < s->n_fields; i++) {
      const wr_field *f = &s->fields[i];
      duck_type(f->type, tn, sizeof tn);
      if (i) wr_buf_puts(b, ", ");
      wr_buf_printf(b, "%d: {name: ", (int)f->field_id);
      wr_eng_put_string(b, f->name);
      wr_buf_puts(b, ", type: ");
      wr_eng_put_string(b, tn);
      wr_buf_puts(b, ", default_value: NULL}");
    }
    wr_buf_puts(b, "})");
  } else {
    wr_buf_puts(b, ", union_by_name = true)");
  }
}

int wr_engine_attach_table(wr_engine *e, const char *ns, const char *name,
                             const wr_schema *schema, const char *const *files,
                             size_t n_files, weir_error *err) {
  wr_eng_settle(e);
  if (!schema || schema->n_fields == 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "cannot attach table %s.%s: it has no columns", ns, name);
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "CREATE SCHEMA IF NOT EXISTS ");
  wr_eng_put_ident(&sql, ns);
  wr_buf_puts(&sql, "; CREATE OR REPLACE VIEW ");
  wr_eng_put_ident(&sql, ns);
  wr_buf_putc(&sql, '.');
  wr_eng_put_ident(&sql, name);
  wr_buf_puts(&sql, " AS ");
  put_body(&sql, schema, files, n_files);
  if (strcmp(ns, WEIR_DEFAULT_NAMESPACE) == 0) {
    wr_buf_puts(&sql, "; CREATE OR REPLACE VIEW main.");
    wr_eng_put_ident(&sql, name);
    wr_buf_puts(&sql, " AS SELECT * FROM ");
    wr_eng_put_ident(&sql, ns);
    wr_buf_putc(&sql, '.');
    wr_eng_put_ident(&sql, name);
  }
  char *what = wr_asprintf("cannot attach table %s.%s", ns, name);
  int rc = wr_eng_run(e, wr_buf_cstr(&sql), what, err);
  free(what);
  wr_buf_free(&sql);
  return rc;
}
