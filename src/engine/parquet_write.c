/*
 * parquet_write.c -- query results to Parquet data files for Iceberg tables.
 *
 * One COPY statement does the work:
 *   COPY (<select>) TO '<dir>/.weir-tmp-<uuid>' (FORMAT parquet, COMPRESSION zstd,
 *        FIELD_IDS {col: id, ...}, RETURN_STATS true, FILE_SIZE_BYTES n, ...)
 * FIELD_IDS writes each top-level column's Iceberg field id into the Parquet schema, which
 * is how Iceberg readers match columns across renames. RETURN_STATS makes DuckDB return,
 * per file written, its row count, size and per-column statistics (min, max, null count,
 * value count, compressed size, NaN presence) gathered while writing, so no file is read
 * back to build the manifest. FILE_SIZE_BYTES starts a new file when one grows past the
 * target, so a large result becomes several files of about that size.
 *
 * Atomicity: DuckDB writes into a temporary folder inside `dir` (same file system). Each
 * finished file is fsync'ed and renamed to its final name <uuid>.parquet in `dir`, then
 * `dir` is fsync'ed and the temporary folder removed. A crash leaves either nothing under a
 * final name or a complete file; a failed statement removes the temporary folder. A crash
 * in the middle can leave a ".weir-tmp-*" folder behind, which nothing ever reads (the
 * hidden prefix marks it for cleanup).
 *
 * On S3 (`dir` an s3:// location) there is no rename: DuckDB's httpfs writes each file
 * with one upload, which becomes visible whole or not at all, into a fresh prefix
 * <dir>/<uuid>/ that only this write uses. A failed statement deletes what it wrote
 * under that prefix; a crash can leave objects there that no manifest references, which
 * nothing reads.
 *
 * Files with no rows are not kept: a data file with zero records carries nothing an
 * Iceberg snapshot needs.
 */
#include "engine/engine_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/location.h"
#include "storage/storage.h"
#include "util/fs.h"
#include "util/uuid.h"

#define DEFAULT_TARGET_BYTES ((int64_t)512 * 1024 * 1024)

void wr_parquet_files_free(wr_parquet_file *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) {
    free(v[i].path);
    json_decref(v[i].column_stats);
  }
  free(v);
}

static char *vec_string(duckdb_vector v, idx_t row) {
  duckdb_string_t *s = &((duckdb_string_t *)duckdb_vector_get_data(v))[row];
  return wr_strndup(duckdb_string_t_data(s), duckdb_string_t_length(*s));
}

static bool vec_valid(duckdb_vector v, idx_t row) {
  uint64_t *valid = duckdb_vector_get_validity(v);
  return !valid || duckdb_validity_row_is_valid(valid, row);
}

static int64_t vec_int(duckdb_vector v, idx_t row) {
  duckdb_logical_type t = duckdb_vector_get_column_type(v);
  duckdb_type id = duckdb_get_type_id(t);
  duckdb_destroy_logical_type(&t);
  void *d = duckdb_vector_get_data(v);
  switch (id) {
  case DUCKDB_TYPE_UBIGINT: return (int64_t)((uint64_t *)d)[row];
  case DUCKDB_TYPE_INTEGER: return ((int32_t *)d)[row];
  case DUCKDB_TYPE_UINTEGER: return ((uint32_t *)d)[row];
  default: return ((int64_t *)d)[row];
  }
}

/* DuckDB names columns in the statistics as SQL identifiers ("\"Age\""); the top-level
 * name is the identifier unquoted. Anything else (a nested path) is kept as written. */
static char *stats_key(const char *k) {
  size_t n = strlen(k);
  if (n < 2 || k[0] != '"' || k[n - 1] != '"') return wr_strdup(k);
  wr_buf b = WEIR_BUF_INIT;
  for (size_t i = 1; i + 1 < n; i++) {
    if (k[i] == '"') {
      if (k[i + 1] != '"' || i + 2 >= n) {
        wr_buf_free(&b);
        return wr_strdup(k); /* "a"."b": a path, not one identifier */
      }
      i++;
    }
    wr_buf_putc(&b, k[i]);
  }
  return wr_buf_detach(&b);
}

/* A statistic as a JSON string. Bounds of binary columns need not be UTF-8, which JSON
 * strings must be; their bytes are then written as \xHH escapes. */
static json_t *text_json(const char *v) {
  json_t *s = json_string(v);
  if (s) return s;
  wr_buf b = WEIR_BUF_INIT;
  for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
    if (*p >= 0x20 && *p < 0x7f && *p != '\\') wr_buf_putc(&b, (char)*p);
    else wr_buf_printf(&b, "\\x%02X", *p);
  }
  s = json_string(wr_buf_cstr(&b));
  wr_buf_free(&b);
  return s;
}

/* Row `row` of MAP(VARCHAR, MAP(VARCHAR, VARCHAR)) as {"col": {"min": .., ...}}. */
static json_t *stats_json(duckdb_vector map, idx_t row) {
  json_t *obj = json_object();
  if (!vec_valid(map, row)) return obj;
  duckdb_list_entry le = ((duckdb_list_entry *)duckdb_vector_get_data(map))[row];
  duckdb_vector entries = duckdb_list_vector_get_child(map);
  duckdb_vector keys = duckdb_struct_vector_get_child(entries, 0);
  duckdb_vector vals = duckdb_struct_vector_get_child(entries, 1);
  duckdb_vector inner = duckdb_list_vector_get_child(vals);
  duckdb_vector ikeys = duckdb_struct_vector_get_child(inner, 0);
  duckdb_vector ivals = duckdb_struct_vector_get_child(inner, 1);
  for (idx_t j = le.offset; j < le.offset + le.length; j++) {
    char *raw = vec_string(keys, j);
    char *col = stats_key(raw);
    free(raw);
    json_t *st = json_object();
    if (vec_valid(vals, j)) {
      duckdb_list_entry ie = ((duckdb_list_entry *)duckdb_vector_get_data(vals))[j];
      for (idx_t m = ie.offset; m < ie.offset + ie.length; m++) {
        if (!vec_valid(ivals, m)) continue; /* unknown: left out */
        char *k = vec_string(ikeys, m);
        char *v = vec_string(ivals, m);
        if (strcmp(k, "min") == 0 || strcmp(k, "max") == 0) {
          json_object_set_new(st, k, text_json(v));
        } else if (strcmp(k, "has_nan") == 0) {
          json_object_set_new(st, k, json_boolean(strcmp(v, "true") == 0));
        } else {
          char *end;
          long long n = strtoll(v, &end, 10);
          json_object_set_new(st, k, *end == 0 && end != v ? json_integer(n) : json_string(v));
        }
        free(k);
        free(v);
      }
    }
    json_object_set_new(obj, col, st);
    free(col);
  }
  return obj;
}

static int fsync_path(const char *path, weir_error *err) {
  int fd = open(path, O_RDONLY);
  if (fd < 0 || fsync(fd) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return wr_seterr(err, WEIR_EIO, "cannot write Parquet: cannot sync %s: %s", path, strerror(e));
  }
  close(fd);
  return WEIR_OK;
}

/* The result columns of `text` (prepared, not run). */
static int result_columns(wr_engine *e, const char *text, const char *sql, char ***names,
                          size_t *n, weir_error *err) {
  duckdb_prepared_statement ps = NULL;
  int rc = WEIR_OK;
  if (duckdb_prepare(e->conn, text, &ps) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_prepare_error(ps), sql, "cannot write Parquet");
  } else {
    *n = duckdb_prepared_statement_column_count(ps);
    *names = wr_calloc(*n ? *n : 1, sizeof **names);
    for (size_t i = 0; i < *n; i++) {
      const char *c = duckdb_prepared_statement_column_name(ps, i);
      (*names)[i] = wr_strdup(c ? c : "");
      duckdb_free((void *)c);
    }
  }
  duckdb_destroy_prepare(&ps);
  return rc;
}

/* Every result column listed exactly once, every listed column in the result. */
static int check_columns(char **res, size_t n_res, const char *const *columns, size_t n_columns,
                         weir_error *err) {
  for (size_t i = 0; i < n_res; i++) {
    for (size_t j = 0; j < i; j++)
      if (strcmp(res[i], res[j]) == 0)
        return wr_seterr(err, WEIR_EINVALIDARG,
                           "cannot write Parquet: the query returns two columns named \"%s\"", res[i]);
    bool listed = false;
    for (size_t j = 0; j < n_columns && !listed; j++) listed = strcmp(res[i], columns[j]) == 0;
    if (!listed)
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "cannot write Parquet: result column \"%s\" has no field id", res[i]);
  }
  for (size_t j = 0; j < n_columns; j++) {
    bool found = false;
    for (size_t i = 0; i < n_res && !found; i++) found = strcmp(res[i], columns[j]) == 0;
    if (!found)
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "cannot write Parquet: column \"%s\" has a field id but the query does not return it",
                         columns[j]);
  }
  return WEIR_OK;
}

/* The user's SELECT inside COPY ( ... ): trailing semicolons and blanks dropped, and on a
 * line of its own so that a trailing "-- comment" cannot swallow the closing parenthesis. */
static void put_select(wr_buf *b, const char *text) {
  size_t n = strlen(text);
  while (n > 0 && (text[n - 1] == ';' || text[n - 1] == ' ' || text[n - 1] == '\n' ||
                   text[n - 1] == '\t' || text[n - 1] == '\r'))
    n--;
  wr_buf_puts(b, "(\n");
  wr_buf_append(b, text, n);
  wr_buf_puts(b, "\n)");
}

int wr_engine_write_parquet(wr_engine *e, const char *select_sql, const char *dir,
                              const char *const *columns, const int32_t *field_ids,
                              size_t n_columns, int64_t target_file_bytes,
                              wr_parquet_file **out, size_t *n_out, weir_error *err) {
  *out = NULL;
  *n_out = 0;
  if (target_file_bytes < 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "cannot write Parquet: target file size %lld is negative",
                       (long long)target_file_bytes);
  if (target_file_bytes == 0) target_file_bytes = DEFAULT_TARGET_BYTES;
  wr_eng_settle(e);
  char *text = wr_eng_sql_text(select_sql, NULL);
  char **res_cols = NULL;
  size_t n_res = 0;
  bool remote = wr_location_is_remote(dir);
  char *absdir = remote ? wr_strdup(dir) : wr_path_absolute(dir);
  char *tmpdir = NULL;
  wr_parquet_file *files = NULL;
  size_t n_files = 0;
  duckdb_result res;
  bool have_res = false;
  int rc = result_columns(e, text, select_sql, &res_cols, &n_res, err);
  if (!rc) rc = check_columns(res_cols, n_res, columns, n_columns, err);
  if (!rc && !remote) rc = wr_fs_mkdirs(absdir, err);
  if (rc) goto done;

  char id[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(id);
  char *tmpname = remote ? wr_strdup(id) : wr_asprintf(".weir-tmp-%s", id);
  tmpdir = wr_location_join(absdir, tmpname);
  free(tmpname);

  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "COPY ");
  put_select(&sql, text);
  wr_buf_puts(&sql, " TO ");
  wr_eng_put_string(&sql, tmpdir);
  wr_buf_puts(&sql, " (FORMAT parquet, COMPRESSION zstd, RETURN_STATS true, FIELD_IDS {");
  for (size_t i = 0; i < n_columns; i++) {
    if (i) wr_buf_puts(&sql, ", ");
    wr_eng_put_ident(&sql, columns[i]);
    wr_buf_printf(&sql, ": %d", (int)field_ids[i]);
  }
  wr_buf_printf(&sql, "}, FILE_SIZE_BYTES %lld, FILENAME_PATTERN 'part_{uuid}')", (long long)target_file_bytes);
  have_res = true;
  if (duckdb_query(e->conn, wr_buf_cstr(&sql), &res) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_result_error(&res), select_sql, "cannot write Parquet");
    wr_buf_free(&sql);
    goto done;
  }
  wr_buf_free(&sql);

  size_t cap = 0;
  duckdb_data_chunk ch;
  while (!rc && (ch = duckdb_fetch_chunk(res)) != NULL) {
    idx_t n = duckdb_data_chunk_get_size(ch);
    duckdb_vector v_name = duckdb_data_chunk_get_vector(ch, 0);
    duckdb_vector v_count = duckdb_data_chunk_get_vector(ch, 1);
    duckdb_vector v_size = duckdb_data_chunk_get_vector(ch, 2);
    duckdb_vector v_stats = duckdb_data_chunk_get_vector(ch, 4);
    for (idx_t r = 0; r < n && !rc; r++) {
      char *written = vec_string(v_name, r);
      int64_t count = vec_int(v_count, r);
      if (count == 0) {
        weir_error ignore = {0};
        wr_storage_delete(written, &ignore);
        weir_error_clear(&ignore);
        free(written);
        continue;
      }
      if (n_files == cap) {
        cap = cap ? cap * 2 : 4;
        files = wr_realloc(files, cap * sizeof *files);
      }
      wr_parquet_file *f = &files[n_files];
      memset(f, 0, sizeof *f);
      char final_name[WEIR_UUID_STR_LEN + 16];
      wr_uuid4(id);
      snprintf(final_name, sizeof final_name, "%s.parquet", id);
      f->path = remote ? wr_strdup(written) : wr_path_join(absdir, final_name);
      f->record_count = count;
      f->file_size = vec_int(v_size, r);
      f->column_stats = stats_json(v_stats, r);
      n_files++;
      if (remote) {
        free(written);
        continue;
      }
      rc = fsync_path(written, err);
      if (!rc && rename(written, f->path) != 0)
        rc = wr_seterr(err, WEIR_EIO, "cannot write Parquet: cannot rename %s to %s: %s", written, f->path,
                         strerror(errno));
      free(written);
    }
    duckdb_destroy_data_chunk(&ch);
  }
  if (!rc && !remote) rc = wr_fs_sync_dir(absdir, err);

done:
  if (have_res) duckdb_destroy_result(&res);
  if (tmpdir && !remote && wr_fs_exists(tmpdir)) wr_fs_remove_tree(tmpdir, NULL);
  if (rc && remote && tmpdir) {
    /* What the failed statement uploaded, under its own prefix. */
    char **objs = NULL;
    size_t no = 0;
    weir_error ignore = {0};
    if (wr_storage_list(tmpdir, &objs, &no, &ignore) == WEIR_OK)
      for (size_t i = 0; i < no; i++) wr_storage_delete(objs[i], &ignore);
    wr_storage_list_free(objs, no);
    weir_error_clear(&ignore);
  }
  if (rc) {
    /* Files already renamed are complete but belong to a write that failed: remove them
     * so that the caller never sees part of a result. */
    for (size_t i = 0; i < n_files && !remote; i++) unlink(files[i].path);
    wr_parquet_files_free(files, n_files);
  } else {
    *out = files;
    *n_out = n_files;
  }
  for (size_t i = 0; i < n_res; i++) free(res_cols[i]);
  free(res_cols);
  free(tmpdir);
  free(absdir);
  free(text);
  return rc;
}
