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
 * Files without Iceberg field ids (added under the table property
 * schema.name-mapping.default, as pyiceberg's add_files and Hive migrations leave them)
 * are matched by name instead: when the caller asks for it (`probe_ids`), the footers are
 * read once, the files split into those with ids (read by field id) and those without
 * (read by name, union_by_name, cast to the declared types; a column no such file has reads
 * as NULL), and the view is the UNION ALL of both reads, columns in the table's order. A
 * file with ids for some leaf columns but not others is refused: no reader agrees on it.
 * Namespaces are DuckDB schemas. The default namespace's tables also answer to their bare
 * name (a view in `main`), which is how SQL names them; `default.x` works too (see the
 * rewrite in quote.c).
 */
#include "engine/engine_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* The columns of `s` read from `files` by field id (or, for a schema without ids for every
 * column, by name across files). */
static void put_read(wr_buf *b, const wr_schema *s, const char *const *files, size_t n_files) {
  char tn[WEIR_TYPE_NAME_MAX];
  bool ids = by_field_id(s);
  wr_buf_puts(b, "SELECT ");
  for (size_t i = 0; i < s->n_fields; i++) {
    const wr_field *f = &s->fields[i];
    if (i) wr_buf_puts(b, ", ");
    if (duck_type(f->type, tn, sizeof tn) && !ids) {
      wr_buf_puts(b, "CAST(");
      wr_eng_put_ident(b, f->name);
      wr_buf_printf(b, " AS %s) AS ", tn);
    }
    wr_eng_put_ident(b, f->name);
  }
  wr_buf_puts(b, " FROM read_parquet(");
  put_files(b, files, n_files);
  if (ids) {
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

/* The columns of `s` read by name from files without field ids; present[i]: some file
 * has column i (else it reads as NULL, as Iceberg reads a column a file lacks). */
static void put_read_by_name(wr_buf *b, const wr_schema *s, const char *const *files, size_t n_files,
                             const bool *present) {
  char tn[WEIR_TYPE_NAME_MAX];
  wr_buf_puts(b, "SELECT ");
  for (size_t i = 0; i < s->n_fields; i++) {
    const wr_field *f = &s->fields[i];
    if (i) wr_buf_puts(b, ", ");
    bool typed = duck_type(f->type, tn, sizeof tn);
    wr_buf_puts(b, "CAST(");
    if (present[i]) wr_eng_put_ident(b, f->name);
    else wr_buf_puts(b, "NULL");
    wr_buf_printf(b, " AS %s) AS ", typed ? tn : "VARCHAR");
    wr_eng_put_ident(b, f->name);
  }
  wr_buf_puts(b, " FROM read_parquet(");
  put_files(b, files, n_files);
  wr_buf_puts(b, ", union_by_name = true)");
}

static void put_empty(wr_buf *b, const wr_schema *s) {
  char tn[WEIR_TYPE_NAME_MAX];
  wr_buf_puts(b, "SELECT ");
  for (size_t i = 0; i < s->n_fields; i++) {
    const wr_field *f = &s->fields[i];
    if (i) wr_buf_puts(b, ", ");
    /* Any has no DuckDB type: a bare NULL. */
    if (duck_type(f->type, tn, sizeof tn)) wr_buf_printf(b, "CAST(NULL AS %s)", tn);
    else wr_buf_puts(b, "NULL");
    wr_buf_puts(b, " AS ");
    wr_eng_put_ident(b, f->name);
  }
  wr_buf_puts(b, " WHERE false");
}

/* Which of `files` carry no field ids (by_name[i]) and which schema columns the files
 * without ids hold by name (present). One pass over the footers. */
static int probe_ids(wr_engine *e, const wr_schema *s, const char *const *files, size_t n, bool *by_name,
                     bool *present, weir_error *err) {
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT file_name, name, field_id IS NOT NULL AS has_id FROM parquet_schema(");
  put_files(&sql, files, n);
  wr_buf_puts(&sql, ") WHERE coalesce(num_children, 0) = 0");
  json_t *rows = NULL;
  int rc = wr_engine_query_json(e, wr_buf_cstr(&sql), &rows, err);
  wr_buf_free(&sql);
  if (rc) return rc;
  size_t *with = wr_calloc(n ? n : 1, sizeof *with), *without = wr_calloc(n ? n : 1, sizeof *without);
  const char **sample = wr_calloc(n ? n : 1, sizeof *sample);
  size_t r;
  const json_t *row;
  json_array_foreach(rows, r, row) {
    const char *fn = json_string_value(json_object_get(row, "file_name"));
    size_t i = 0;
    while (i < n && (!fn || strcmp(fn, files[i]) != 0)) i++;
    if (i == n) continue;
    if (json_is_true(json_object_get(row, "has_id"))) with[i]++;
    else {
      without[i]++;
      if (!sample[i]) sample[i] = json_string_value(json_object_get(row, "name"));
    }
  }
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    if (with[i] && without[i])
      rc = wr_seterr(err, WEIR_EINPUT,
                     "data file %s has Iceberg field ids for %zu column%s but none for column \"%s\" (and %zu "
                     "more): a file is read either by field id or, without any ids, by name",
                     files[i], with[i], with[i] == 1 ? "" : "s", sample[i] ? sample[i] : "?", without[i] - 1);
    by_name[i] = with[i] == 0;
  }
  for (size_t k = 0; k < s->n_fields; k++) present[k] = false;
  json_array_foreach(rows, r, row) {
    const char *fn = json_string_value(json_object_get(row, "file_name"));
    const char *name = json_string_value(json_object_get(row, "name"));
    size_t i = 0;
    while (i < n && (!fn || strcmp(fn, files[i]) != 0)) i++;
    if (i == n || !by_name[i] || !name) continue;
    for (size_t k = 0; k < s->n_fields; k++)
      if (strcasecmp(name, s->fields[k].name) == 0) present[k] = true;
  }
  free(with);
  free(without);
  free(sample);
  json_decref(rows);
  return rc;
}

static int put_body(wr_engine *e, wr_buf *b, const wr_schema *s, const char *const *files, size_t n_files,
                    bool probe, weir_error *err) {
  if (n_files == 0) {
    put_empty(b, s);
    return WEIR_OK;
  }
  if (!probe || !by_field_id(s)) {
    put_read(b, s, files, n_files);
    return WEIR_OK;
  }
  bool *by_name = wr_calloc(n_files, sizeof *by_name);
  bool *present = wr_calloc(s->n_fields ? s->n_fields : 1, sizeof *present);
  int rc = probe_ids(e, s, files, n_files, by_name, present, err);
  if (rc == WEIR_OK) {
    const char **ids = wr_calloc(n_files, sizeof *ids), **names = wr_calloc(n_files, sizeof *names);
    size_t n_ids = 0, n_names = 0;
    for (size_t i = 0; i < n_files; i++) {
      if (by_name[i]) names[n_names++] = files[i];
      else ids[n_ids++] = files[i];
    }
    if (n_ids) put_read(b, s, ids, n_ids);
    if (n_ids && n_names) wr_buf_puts(b, " UNION ALL ");
    if (n_names) put_read_by_name(b, s, names, n_names, present);
    free(ids);
    free(names);
  }
  free(by_name);
  free(present);
  return rc;
}

int wr_engine_attach_table(wr_engine *e, const char *ns, const char *name,
                             const wr_schema *schema, const char *const *files,
                             size_t n_files, weir_error *err) {
  return wr_engine_attach_table_probed(e, ns, name, schema, files, n_files, false, err);
}

int wr_engine_attach_table_probed(wr_engine *e, const char *ns, const char *name, const wr_schema *schema,
                                  const char *const *files, size_t n_files, bool probe_ids, weir_error *err) {
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
  int rc = put_body(e, &sql, schema, files, n_files, probe_ids, err);
  if (rc) {
    wr_error_prefix(err, "cannot attach table %s.%s", ns, name);
    wr_buf_free(&sql);
    return rc;
  }
  if (strcmp(ns, WEIR_DEFAULT_NAMESPACE) == 0) {
    wr_buf_puts(&sql, "; CREATE OR REPLACE VIEW main.");
    wr_eng_put_ident(&sql, name);
    wr_buf_puts(&sql, " AS SELECT * FROM ");
    wr_eng_put_ident(&sql, ns);
    wr_buf_putc(&sql, '.');
    wr_eng_put_ident(&sql, name);
  }
  char *what = wr_asprintf("cannot attach table %s.%s", ns, name);
  rc = wr_eng_run(e, wr_buf_cstr(&sql), what, err);
  free(what);
  wr_buf_free(&sql);
  return rc;
}
