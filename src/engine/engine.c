/*
 * engine.c -- opening and closing the engine, running statements, and the wording of
 * engine errors.
 *
 * Settings are fixed when the database is opened, as global settings, so that every
 * statement sees the same ones whatever ran before it:
 *   - no extension is installed or loaded behind weir's back (the machine may be offline,
 *     and a query must not change behaviour because a download happened to work);
 *   - TimeZone is UTC, so TIMESTAMP WITH TIME ZONE values export as "tsu:UTC" and render
 *     the same on every machine;
 *   - arrow_large_buffer_size: strings and blobs export as large_string / large_binary
 *     ("U" / "Z"), the types weir stores (docs/types.md), so no cast follows the export.
 */
#include "engine/engine_internal.h"
#include "storage/storage.h"
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- errors ------------------------------------------------------------------------- */

int wr_eng_fail(weir_error *err, int code, const char *duck_msg, const char *sql,
                  const char *what_fmt, ...) {
  /* DuckDB's out-of-memory errors (its memory_limit reached, or malloc failing inside
   * it) are weir's: WEIR_ENOMEM, the message led by "out of memory". */
  if (duck_msg && strncmp(duck_msg, "Out of Memory Error", 19) == 0) code = WEIR_ENOMEM;
  if (!err) return code;
  wr_buf b = WEIR_BUF_INIT;
  va_list ap;
  va_start(ap, what_fmt);
  char what[1024];
  vsnprintf(what, sizeof what, what_fmt, ap);
  va_end(ap);
  if (code == WEIR_ENOMEM) wr_buf_puts(&b, "out of memory: ");
  wr_buf_puts(&b, what);
  wr_buf_puts(&b, ": ");
  const char *m = duck_msg && *duck_msg ? duck_msg : "unknown error";
  size_t first = strcspn(m, "\n");
  while (first > 0 && (m[first - 1] == ' ' || m[first - 1] == '\r')) first--;
  wr_buf_append(&b, m, first);
  /* DuckDB's C API gives the SQL line it stopped at only as "LINE n: ..." under the
   * message: this is the one place that reads it (the boundary with DuckDB), and it
   * becomes a structured detail (wr_error_add_sql_position) that the layers above read.
   * In a one-line statement the line adds nothing to the message; in a longer one it is
   * where to look. */
  const char *line = strstr(m, "\nLINE ");
  long n = line ? strtol(line + 6, NULL, 10) : 0;
  if (n > 0 && sql && strchr(sql, '\n')) wr_buf_printf(&b, " (SQL line %ld)", n);
  if (wr_buf_status(&b) != WEIR_OK) return wr_oom(err);
  code = wr_seterr(err, code, "%s", wr_buf_cstr(&b));
  if (n > 0 && code != WEIR_ENOMEM) {
    char *first_line = wr_strndup(m, first);
    if (first_line) wr_error_add_sql_position(err, first_line, (int)n, 0);
    else wr_oom(err);
    free(first_line);
    code = err->code;
  }
  wr_buf_free(&b);
  return code;
}

int wr_eng_run(wr_engine *e, const char *sql, const char *what, weir_error *err) {
  duckdb_result res;
  int rc = WEIR_OK;
  if (duckdb_query(e->conn, sql, &res) == DuckDBError)
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_result_error(&res), sql, "%s", what);
  duckdb_destroy_result(&res);
  return rc;
}

/* ---- lifetime ----------------------------------------------------------------------- */

static int set_config(duckdb_config cfg, const char *key, const char *value, weir_error *err) {
  if (duckdb_set_config(cfg, key, value) == DuckDBError)
    return wr_seterr(err, WEIR_EENGINE, "cannot open the SQL engine: DuckDB refused the setting %s = %s",
                       key, value);
  return WEIR_OK;
}

/* weir_checked_cast(expr, 'TYPE') (docs/engine.md, "Checked casts"): the cast, or an
 * error naming the value, its type and the target type when the value would change.
 * wr_eng_sql_text adds the third argument, a NULL of the target type, to every call
 * written with a type literal: cast_to_type(v, target) casts to target's type, and
 * cast_to_type(c, v) back to v's. Exact means the round trip gives the value back
 * (IS NOT DISTINCT FROM: NaN is NaN); a cast that fails (300 to TINYINT) is inexact too,
 * through try(). The value is evaluated once: it becomes the lambda's argument. The
 * two-argument form is reached only when the type is not a literal the rewrite accepts,
 * and says so. */
#define CHECKED_CAST_MACRO                                                                                    \
  "CREATE OR REPLACE MACRO weir_checked_cast(x, t) AS error('weir_checked_cast: the target type must be a "  \
  "string literal naming a type, such as ''INTEGER'' or ''DECIMAL(10,2)'''), "                              \
  "(x, t, target) AS list_transform([x], lambda v: CASE WHEN v IS NULL THEN cast_to_type(v, target) "       \
  "WHEN try(cast_to_type(cast_to_type(v, target), v)) IS NOT DISTINCT FROM v THEN cast_to_type(v, target) " \
  "ELSE error(format('weir_checked_cast: {} value {} does not convert exactly to {}', typeof(v), "          \
  "CAST(v AS VARCHAR), t)) END)[1]"

int wr_engine_open(const wr_engine_options *opts, wr_engine **out, weir_error *err) {
  *out = NULL;
  if (opts && opts->threads < 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "cannot open the SQL engine: threads must be 0 or more, not %d",
                       opts->threads);
  int rc = wr_duckdb_load(opts ? opts->library : NULL, err);
  if (rc) return rc;
  duckdb_config cfg;
  if (duckdb_create_config(&cfg) == DuckDBError)
    return wr_seterr(err, WEIR_EENGINE, "cannot open the SQL engine: DuckDB could not create a configuration");
  rc = set_config(cfg, "autoinstall_known_extensions", "false", err);
  if (!rc) rc = set_config(cfg, "autoload_known_extensions", "false", err);
  if (!rc) rc = set_config(cfg, "arrow_large_buffer_size", "true", err);
  if (!rc && opts && opts->threads > 0) {
    char n[32];
    snprintf(n, sizeof n, "%d", opts->threads);
    rc = set_config(cfg, "threads", n, err);
  }
  if (!rc && opts && opts->memory_limit) rc = set_config(cfg, "memory_limit", opts->memory_limit, err);
  if (!rc && opts && opts->temp_dir) rc = set_config(cfg, "temp_directory", opts->temp_dir, err);
  if (rc) {
    duckdb_destroy_config(&cfg);
    return rc;
  }
  duckdb_database db;
  char *open_err = NULL;
  if (duckdb_open_ext(NULL, &db, cfg, &open_err) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, open_err, NULL, "cannot open the SQL engine");
    duckdb_free(open_err);
    duckdb_destroy_config(&cfg);
    return rc;
  }
  duckdb_destroy_config(&cfg);

  wr_engine *e = wr_calloc(1, sizeof *e);
  e->db = db;
  atomic_init(&e->refs, 1);
  pthread_mutex_init(&e->mu, NULL);
  e->next_reg_id = 1;
  if (duckdb_connect(db, &e->conn) == DuckDBError) {
    duckdb_close(&e->db);
    pthread_mutex_destroy(&e->mu);
    free(e);
    return wr_seterr(err, WEIR_EENGINE, "cannot open the SQL engine: DuckDB refused a connection");
  }
  /* TimeZone belongs to the ICU extension, which registers it only once the database is
   * up, so it cannot go in the configuration above. */
  rc = wr_eng_run(e, "SET GLOBAL TimeZone = 'UTC'", "cannot open the SQL engine", err);
  if (!rc) rc = wr_eng_run(e, CHECKED_CAST_MACRO, "cannot open the SQL engine: cannot define weir_checked_cast", err);
  if (!rc) rc = wr_eng_scan_install(e, err);
  if (!rc) rc = wr_eng_bucket_install(e, err);
  if (rc) {
    wr_engine_close(e);
    return rc;
  }
  *out = e;
  return WEIR_OK;
}

void wr_eng_ref(wr_engine *e) { atomic_fetch_add(&e->refs, 1); }

void wr_eng_unref(wr_engine *e) {
  if (atomic_fetch_sub(&e->refs, 1) != 1) return;
  /* Nothing can be reading from the connection now: every stream holds a reference. */
  wr_eng_scan_clear(e);
  duckdb_disconnect(&e->conn);
  duckdb_close(&e->db);
  pthread_mutex_destroy(&e->mu);
  free(e);
}

void wr_engine_close(wr_engine *e) {
  if (e) wr_eng_unref(e);
}

void wr_eng_settle(wr_engine *e) {
  pthread_mutex_lock(&e->mu);
  if (e->active) wr_eng_stream_drain(e->active);
  pthread_mutex_unlock(&e->mu);
}

void wr_engine_interrupt(wr_engine *e) {
  /* No settle and no lock: the connection is busy with the statement to stop, and
   * DuckDB's interrupt only sets a flag its executing threads check. */
  if (e && e->conn) duckdb_interrupt(e->conn);
}

void *wr_engine_connection(wr_engine *e) {
  /* The caller is about to use the connection directly: free it from any stream. */
  wr_eng_settle(e);
  return e->conn;
}

int wr_engine_restrict_files(wr_engine *e, const char *const *dirs, size_t n, weir_error *err) {
  wr_eng_settle(e);
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SET allowed_directories = [");
  for (size_t i = 0; i < n; i++) {
    if (i) wr_buf_puts(&sql, ", ");
    wr_eng_put_string(&sql, dirs[i]);
  }
  /* Once external access is off it cannot come back on, and locking the configuration
   * keeps a statement from widening the allowed folders. */
  wr_buf_puts(&sql, "]; SET enable_external_access = false; SET lock_configuration = true;");
  int rc = wr_eng_run(e, wr_buf_cstr(&sql), "cannot restrict the SQL engine's file access", err);
  wr_buf_free(&sql);
  return rc;
}

#ifndef WEIR_DUCKDB_EXTENSION_DIR
#define WEIR_DUCKDB_EXTENSION_DIR ""
#endif

int wr_engine_connect_warehouse(wr_engine *e, const char *prefix, weir_error *err) {
  wr_eng_settle(e);
  const char *dir = getenv("WEIR_DUCKDB_EXTENSION_DIR");
  if (!dir || !*dir) dir = WEIR_DUCKDB_EXTENSION_DIR;
  char *ext = wr_asprintf("%s/httpfs.duckdb_extension", dir);
  if (!*dir || access(ext, R_OK) != 0) {
    int rc = wr_seterr(err, WEIR_EENGINE,
                       "cannot reach the warehouse %s: DuckDB's httpfs extension is not at %s (run "
                       "scripts/bootstrap.sh, or set WEIR_DUCKDB_EXTENSION_DIR to the folder holding "
                       "httpfs.duckdb_extension)",
                       prefix, *dir ? ext : "(no folder configured)");
    free(ext);
    return rc;
  }
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "LOAD ");
  wr_eng_put_string(&sql, ext);
  free(ext);
  int rc = wr_eng_run(e, wr_buf_cstr(&sql), "cannot load DuckDB's httpfs extension", err);
  wr_buf_free(&sql);
  if (rc) return rc;
  char *secret = NULL;
  if ((rc = wr_storage_duckdb_secret_sql(prefix, &secret, err))) return rc;
  /* The statement holds credentials: its error text is replaced, never echoed. */
  duckdb_result res;
  if (duckdb_query(e->conn, secret, &res) == DuckDBError)
    rc = wr_seterr(err, WEIR_EENGINE, "cannot give DuckDB the S3 credentials for %s", prefix);
  duckdb_destroy_result(&res);
  free(secret);
  return rc;
}

int wr_engine_exec(wr_engine *e, const char *sql, weir_error *err) {
  wr_eng_settle(e);
  char *text = wr_eng_sql_text(sql, NULL);
  int rc = wr_eng_run(e, text, "cannot run SQL", err);
  free(text);
  return rc;
}
