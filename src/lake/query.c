/*
 * query.c -- reading the lake at a ref: SQL queries over any commit, and table scans for
 * pipeline models (projected, filtered and checked against an input contract).
 *
 * Only the tables a query reads are attached (found with the engine's own parser), so a
 * query costs the same in a lake of ten tables or ten thousand. Each query gets its own
 * engine, owned by the result stream: the caller can keep reading after other calls on
 * the lake handle, and releasing the stream closes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

/* Attaches one table with the files `filters` (NULL: none) may need; records the plan in
 * `explain` (NULL: not recorded). */
static int attach_pruned(weir_lake *lake, wr_engine *engine, const char *hash, const wr_table_id *id,
                         const json_t *filters, json_t *explain, weir_error *err) {
  char full[2 * WEIR_NAME_MAX + 2];
  wr_table_id_format(id, full, sizeof full);
  iceberg_table *t = NULL;
  int rc = lake_table_at(lake, hash, full, false, &t, err);
  if (rc) return rc;
  iceberg_data_file *files = NULL;
  size_t n = 0;
  if ((rc = iceberg_table_data_files(t, &files, &n, err))) {
    iceberg_table_free(t);
    return rc;
  }
  bool *keep = wr_calloc(n ? n : 1, sizeof *keep);
  lake_scan_stats st;
  lake_plan_scan(engine, t, filters, files, n, keep, &st);
  const char **paths = wr_calloc(n ? n : 1, sizeof *paths);
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (keep[i]) paths[kept++] = files[i].path;
  rc = wr_engine_attach_table_probed(engine, id->ns, id->name, &t->schema, paths, kept,
                                     lake_table_has_name_mapping(t), err);
  if (rc == WEIR_OK && explain) {
    json_t *spec = json_object_get(t->json, "partition-specs");
    int64_t def = json_integer_value(json_object_get(t->json, "default-spec-id"));
    json_t *fields = json_array();
    size_t i;
    json_t *sp;
    json_array_foreach(spec, i, sp) {
      if (json_integer_value(json_object_get(sp, "spec-id")) == def) {
        json_decref(fields);
        fields = json_deep_copy(json_object_get(sp, "fields"));
      }
    }
    json_array_append_new(explain,
                          json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:o,s:O}", "table", full, "files_total",
                                    (json_int_t)st.files_total, "files_read", (json_int_t)st.files_read,
                                    "pruned_by_partition", (json_int_t)st.pruned_by_partition, "pruned_by_stats",
                                    (json_int_t)st.pruned_by_stats, "filters_used", (json_int_t)st.filters_used,
                                    "partition_fields", fields, "filters",
                                    filters ? (json_t *)filters : json_array()));
    if (!filters) json_decref(json_object_get(json_array_get(explain, json_array_size(explain) - 1), "filters"));
  }
  free(keep);
  free(paths);
  iceberg_data_files_free(files, n);
  iceberg_table_free(t);
  return rc;
}

int lake_attach_table(weir_lake *lake, wr_engine *engine, const char *hash,
                      const wr_table_id *id, weir_error *err) {
  return attach_pruned(lake, engine, hash, id, NULL, NULL, err);
}

/* The filters of the reference `schema`.`name` as written, when it is the table's only
 * reference in the query; NULL otherwise. */
static const json_t *filters_for(const json_t *all, const char *schema, const char *name) {
  size_t i;
  const json_t *t;
  json_array_foreach(all, i, t) {
    const char *s = json_string_value(json_object_get(t, "schema"));
    bool same = (!s && !schema) || (s && schema && !strcasecmp(s, schema));
    if (same && !strcasecmp(json_string_value(json_object_get(t, "name")), name))
      return json_integer_value(json_object_get(t, "count")) == 1 ? json_object_get(t, "filters") : NULL;
  }
  return NULL;
}

/* Schemas that belong to the engine, not the lake. */
static bool system_schema(const char *s) {
  return s && (strcmp(s, "information_schema") == 0 || strcmp(s, "pg_catalog") == 0);
}

int lake_attach_for_sql(weir_lake *lake, wr_engine *engine, const char *hash, const char *sql,
                        json_t *explain, weir_error *err) {
  wr_sql_table_ref *refs = NULL;
  size_t n = 0;
  int rc = wr_engine_sql_tables(engine, sql, &refs, &n, err);
  if (rc == WEIR_EUNSUPPORTED)
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "weir query runs one read-only SELECT statement (tables change through "
                       "import, runs, merge and revert)");
  if (rc) return rc;
  /* The conditions on each table; without them (a query DuckDB cannot serialise) every
   * file is read. The same table under two spellings ("t" and "default.t") is two
   * references: each then counts once, but both attach one view, so pruning needs the
   * table to be written one way only. */
  json_t *filters = NULL;
  weir_error ignore = {0};
  if (wr_engine_sql_filters(engine, sql, &filters, &ignore) != WEIR_OK) filters = NULL;
  weir_error_clear(&ignore);
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    if (system_schema(refs[i].schema)) continue;
    char *text = refs[i].schema ? wr_asprintf("%s.%s", refs[i].schema, refs[i].name)
                                : wr_strdup(refs[i].name);
    wr_table_id id;
    weir_error inner = {0};
    if (wr_table_id_parse(text, &id, &inner) != WEIR_OK) {
      weir_error_clear(&inner);
      rc = wr_seterr(err, WEIR_ENOTFOUND, "table %s does not exist at commit %.12s", text, hash);
    } else if ((rc = lake_table_fold_case(lake, hash, &id, err)) == WEIR_OK) {
      const json_t *f = NULL;
      /* Only when no other reference names the same table another way. */
      size_t same = 0;
      for (size_t k = 0; k < n; k++) {
        wr_table_id other;
        char *ot = refs[k].schema ? wr_asprintf("%s.%s", refs[k].schema, refs[k].name) : wr_strdup(refs[k].name);
        weir_error ie = {0};
        if (wr_table_id_parse(ot, &other, &ie) == WEIR_OK && lake_table_fold_case(lake, hash, &other, &ie) == WEIR_OK &&
            !strcmp(other.ns, id.ns) && !strcmp(other.name, id.name))
          same++;
        weir_error_clear(&ie);
        free(ot);
      }
      if (same == 1) f = filters_for(filters, refs[i].schema, refs[i].name);
      rc = attach_pruned(lake, engine, hash, &id, f, explain, err);
    }
    free(text);
  }
  json_decref(filters);
  wr_sql_table_refs_free(refs, n);
  return rc;
}

/* ---- a stream that owns its engine -------------------------------------------------- */

typedef struct owned_stream {
  struct ArrowArrayStream inner;
  wr_engine *engine;
  lake_engine_pool *pool;   /* where the engine goes back; NULL: close it */
  lake_engine_kind kind;
} owned_stream;

static int os_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  owned_stream *o = s->private_data;
  return o->inner.get_schema(&o->inner, out);
}
static int os_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  owned_stream *o = s->private_data;
  return o->inner.get_next(&o->inner, out);
}
static const char *os_last_error(struct ArrowArrayStream *s) {
  owned_stream *o = s->private_data;
  return o->inner.get_last_error(&o->inner);
}
static void os_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  owned_stream *o = s->private_data;
  if (o->inner.release) o->inner.release(&o->inner);
  if (o->pool) lake_engine_put_pool(o->pool, o->engine, o->kind);
  else wr_engine_close(o->engine);
  free(o);
  s->release = NULL;
}

/* Wraps `inner` so that releasing the result also gives `engine` (taken over) back to the
 * lake's pool (a restricted engine, lent by lake_engine_get). */
static void own_engine(struct ArrowArrayStream *inner, weir_lake *lake, wr_engine *engine,
                       struct ArrowArrayStream *out) {
  owned_stream *o = wr_calloc(1, sizeof *o);
  o->inner = *inner;
  inner->release = NULL;
  o->engine = engine;
  o->pool = lake->engines;
  o->kind = LAKE_ENGINE_WAREHOUSE;
  out->get_schema = os_get_schema;
  out->get_next = os_get_next;
  out->get_last_error = os_last_error;
  out->release = os_release;
  out->private_data = o;
}

static char *trim_statement(const char *sql);

/* Attaches the tables `sql` reads (which also checks that it is one read-only SELECT),
 * then runs it, or the text rendering of it. */
static int run_query(weir_lake *lake, const char *sql, const char *ref, bool as_text,
                     struct ArrowArrayStream *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  if (!sql || !*sql) return wr_seterr(err, WEIR_EINVALIDARG, "no SQL given");
  char hash[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref, hash, err);
  if (rc) return rc;
  wr_engine *engine = NULL;
  char *wrapped = NULL;
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &engine, err))) return rc;
  if ((rc = lake_attach_for_sql(lake, engine, hash, sql, NULL, err))) goto fail;
  if (as_text) {
    char *body = trim_statement(sql);
    /* The newline keeps a trailing -- comment in the user's SQL from eating the ")". */
    wrapped = wr_asprintf("SELECT COLUMNS(*)::VARCHAR FROM (%s\n) AS q", body);
    free(body);
  }
  struct ArrowArrayStream inner;
  if ((rc = wr_engine_query_stream(engine, wrapped ? wrapped : sql, &inner, err))) goto fail;
  free(wrapped);
  own_engine(&inner, lake, engine, out);
  return WEIR_OK;
fail:
  free(wrapped);
  lake_engine_put(lake, engine, LAKE_ENGINE_WAREHOUSE);
  return rc;
}

int lake_restrict_engine(weir_lake *lake, wr_engine *engine, const char *extra_dir, weir_error *err) {
  /* The warehouse, `extra_dir`, and the folders of registered external data (register.c),
   * which the tables this engine reads may reference. */
  char *grants = lake_external_grants(lake);
  size_t cap = lake_external_count(grants);
  const char **dirs = wr_calloc(cap + 2, sizeof *dirs);
  size_t n = 0;
  dirs[n++] = lake->warehouse;
  if (extra_dir) dirs[n++] = extra_dir;
  n += lake_external_split(grants, dirs + n, cap);
  int rc = wr_engine_restrict_files(engine, dirs, n, err);
  free(dirs);
  free(grants);
  return rc;
}

int lake_query_run(weir_lake *lake, const char *sql, const char *ref, struct ArrowArrayStream *out,
               weir_error *err) {
  return run_query(lake, sql, ref, false, out, err);
}

int lake_query_run_text(weir_lake *lake, const char *sql, const char *ref, struct ArrowArrayStream *out,
                    weir_error *err) {
  return run_query(lake, sql, ref, true, out, err);
}

/* Strips trailing blanks and semicolons so the query can be nested in COPY (...). */
static char *trim_statement(const char *sql) {
  size_t n = strlen(sql);
  while (n > 0 && (sql[n - 1] == ';' || sql[n - 1] == ' ' || sql[n - 1] == '\n' || sql[n - 1] == '\t' ||
                   sql[n - 1] == '\r'))
    n--;
  return wr_strndup(sql, n);
}

/* Copies a file to standard output. */
static int copy_to_stdout(const char *path, weir_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return wr_seterr(err, WEIR_EIO, "cannot read %s", path);
  char buf[1 << 16];
  size_t n;
  int rc = WEIR_OK;
  fflush(stdout);
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    if (fwrite(buf, 1, n, stdout) != n) {
      rc = wr_seterr(err, WEIR_EIO, "cannot write to standard output");
      break;
    }
  fflush(stdout);
  fclose(f);
  return rc;
}

/* True when `path` (a file that may not exist yet) is in the lake's folder: its folder,
 * resolved through symbolic links, is the lake's or below it. An output written there
 * could overwrite the catalog or a data file. */
static bool inside_lake(const weir_lake *lake, const char *path) {
  char *copy = wr_strdup(path);
  char *slash = strrchr(copy, '/');
  const char *dir = slash ? (slash == copy ? "/" : (*slash = 0, copy)) : ".";
  char *real_dir = realpath(dir, NULL);
  char *real_lake = realpath(lake->path, NULL);
  bool in = false;
  if (real_dir && real_lake) {
    size_t n = strlen(real_lake);
    in = strncmp(real_dir, real_lake, n) == 0 && (real_dir[n] == 0 || real_dir[n] == '/');
  }
  free(real_dir);
  free(real_lake);
  free(copy);
  return in;
}

int lake_query_export(weir_lake *lake, const char *sql, const char *ref, const char *format,
                      const char *path, int64_t *rows_out, weir_error *err) {
  if (rows_out) *rows_out = 0;
  if (!sql || !*sql) return wr_seterr(err, WEIR_EINVALIDARG, "no SQL given");
  const char *opts;
  if (!format || strcmp(format, "csv") == 0) opts = "FORMAT csv, HEADER true";
  else if (strcmp(format, "json") == 0) opts = "FORMAT json, ARRAY true";
  else if (strcmp(format, "parquet") == 0) opts = "FORMAT parquet, COMPRESSION zstd";
  else
    return wr_seterr(err, WEIR_EINVALIDARG, "unknown output format \"%s\" (expected csv, json or parquet)",
                       format);
  bool to_stdout = !path || strcmp(path, "-") == 0;
  if (to_stdout && format && strcmp(format, "parquet") == 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "parquet output needs a file (--output FILE)");
  if (!to_stdout && inside_lake(lake, path))
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "cannot write the query result to %s: it is inside the lake %s, whose files "
                       "only weir writes (choose a path outside it)",
                       path, lake->path);
  char hash[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref, hash, err);
  if (rc) return rc;
  /* Standard output is written by weir, not by the engine: DuckDB would open
   * /dev/stdout with O_TRUNC and wipe a file the output is appended to. The engine writes
   * a temporary file instead, which is then copied. */
  char *tmpdir = NULL, *target_path = NULL, *final_path = NULL;
  if (to_stdout) {
    const char *base = getenv("TMPDIR");
    char *tmpl = wr_asprintf("%s/weir-query-XXXXXX", base && *base ? base : "/tmp");
    tmpdir = mkdtemp(tmpl) ? tmpl : NULL;
    if (!tmpdir) {
      free(tmpl);
      return wr_seterr(err, WEIR_EIO, "cannot create a temporary folder for the query result");
    }
    target_path = wr_asprintf("%s/result.%s", tmpdir, format ? format : "csv");
  } else {
    /* The engine writes beside the file and the file is renamed over it only once the
     * query succeeded: a failing query leaves no file (or the old one untouched), never
     * an empty or partial one. */
    final_path = wr_path_absolute(path);
    char uuid[WEIR_UUID_STR_LEN + 1];
    wr_uuid4(uuid);
    char *dir = wr_path_dirname(final_path);
    target_path = wr_asprintf("%s/.%s.weir-%s.%s", dir, wr_path_basename(final_path), uuid, format ? format : "csv");
    free(dir);
  }
  wr_engine *engine = NULL;
  char *body = trim_statement(sql);
  char *target = wr_sql_string(target_path);
  char *copy = wr_asprintf("COPY (%s\n) TO %s (%s)", body, target, opts);
  char *out_dir = wr_path_dirname(target_path);
  double rows = 0;
  bool is_null = false;
  if ((rc = lake_engine_open(lake, &engine, err))) goto done;
  if ((rc = lake_attach_for_sql(lake, engine, hash, body, NULL, err))) goto done;
  if ((rc = lake_restrict_engine(lake, engine, out_dir, err))) goto done;
  rc = wr_engine_query_double(engine, copy, &rows, &is_null, err);
  if (rc == WEIR_OK && rows_out) *rows_out = (int64_t)rows;
  if (rc == WEIR_OK && to_stdout) rc = copy_to_stdout(target_path, err);
  if (final_path && rc == WEIR_OK && rename(target_path, final_path) != 0)
    rc = wr_seterr(err, WEIR_EIO, "cannot write %s: %s", final_path, strerror(errno));
done:
  wr_engine_close(engine);
  if (final_path && rc != WEIR_OK) (void)unlink(target_path);
  free(final_path);
  if (tmpdir) {
    weir_error ignore = {0};
    wr_fs_remove_tree(tmpdir, &ignore);
    weir_error_clear(&ignore);
  }
  free(out_dir);
  free(copy);
  free(target);
  free(body);
  free(target_path);
  free(tmpdir);
  return rc;
}

/* ---- scans for model inputs -------------------------------------------------------- */

int lake_worker_scan(weir_lake *lake, const char *table, const char *ref, const char *spec_json,
              struct ArrowArrayStream *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  wr_table_id id;
  int rc = wr_table_id_parse(table, &id, err);
  if (rc) return rc;
  char hash[WEIR_HASH_HEX_SIZE];
  if ((rc = lake_resolve(lake, ref, hash, err))) return rc;
  json_t *spec = NULL;
  if (spec_json && *spec_json && (rc = wr_json_parse(spec_json, "scan spec", &spec, err))) return rc;

  wr_engine *engine = NULL, *sealed = NULL;
  weir_contract *contract = NULL;
  wr_arrow_table data;
  wr_arrow_table_init(&data);
  wr_validation v = {0};
  wr_buf sql = WEIR_BUF_INIT;
  char full[2 * WEIR_NAME_MAX + 2];
  wr_table_id_format(&id, full, sizeof full);

  json_t *ir = json_object_get(spec, "contract");
  if (json_is_object(ir) && (rc = wr_contract_from_ir(ir, "input contract", &contract, err))) goto done;
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &engine, err))) goto done;
  if ((rc = lake_attach_table(lake, engine, hash, &id, err))) goto done;

  /* Projection: the columns the model declared (a contract's, or an explicit list). */
  wr_buf_puts(&sql, "SELECT ");
  json_t *cols = json_object_get(spec, "columns");
  if (contract && contract->n_columns > 0) {
    for (size_t i = 0; i < contract->n_columns; i++) {
      char *q = wr_sql_ident(contract->columns[i].field.name);
      wr_buf_printf(&sql, "%s%s", i ? ", " : "", q);
      free(q);
    }
  } else if (json_array_size(cols) > 0) {
    size_t i;
    json_t *c;
    json_array_foreach(cols, i, c) {
      char *q = wr_sql_ident(json_string_value(c) ? json_string_value(c) : "");
      wr_buf_printf(&sql, "%s%s", i ? ", " : "", q);
      free(q);
    }
  } else {
    wr_buf_puts(&sql, "*");
  }
  char *qn = wr_sql_ident(id.ns), *qt = wr_sql_ident(id.name);
  wr_buf_printf(&sql, " FROM %s.%s", qn, qt);
  free(qn);
  free(qt);
  const char *filter = wr_json_str(spec, "filter", NULL);
  if (filter && *filter) wr_buf_printf(&sql, " WHERE (%s\n)", filter);

  if (!contract) {
    struct ArrowArrayStream inner;
    if ((rc = wr_engine_query_stream(engine, wr_buf_cstr(&sql), &inner, err))) {
      wr_error_prefix(err, "cannot read %s", full);
      goto done;
    }
    own_engine(&inner, lake, engine, out);
    engine = NULL;
    goto done;
  }
  /* A projected input: a declared column the table lacks is reported by the validator
   * with the other violations, so select only the columns that exist. */
  if ((rc = wr_engine_query_table(engine, wr_buf_cstr(&sql), &data, err))) {
    weir_error_clear(err);
    wr_buf_clear(&sql);
    wr_buf_puts(&sql, "SELECT * FROM ");
    qn = wr_sql_ident(id.ns);
    qt = wr_sql_ident(id.name);
    wr_buf_printf(&sql, "%s.%s", qn, qt);
    free(qn);
    free(qt);
    if (filter && *filter) wr_buf_printf(&sql, " WHERE (%s\n)", filter);
    wr_arrow_table_release(&data);
    wr_arrow_table_init(&data);
    if ((rc = wr_engine_query_table(engine, wr_buf_cstr(&sql), &data, err))) {
      wr_error_prefix(err, "cannot read %s", full);
      goto done;
    }
  }
  /* An input contract's SQL runs on a sealed engine (no files), like an output's. */
  if (wr_contract_has_sql(contract) && (rc = lake_engine_get(lake, LAKE_ENGINE_SEALED, &sealed, err)))
    goto done;
  wr_validate_options vo = {0};
  vo.is_output = false;
  vo.project = true;
  vo.engine = sealed;
  const char *subject = wr_json_str(spec, "subject", NULL);
  char *dflt = wr_asprintf("input %s (schema %s)", full, contract->name ? contract->name : "unnamed");
  vo.subject = subject ? subject : dflt;
  rc = wr_contract_validate(contract, &data, &vo, &v, err);
  free(dflt);
  if (rc) goto done;
  wr_arrow_table_to_stream(&v.valid, true, out);

done:
  wr_buf_free(&sql);
  wr_validation_clear(&v);
  wr_arrow_table_release(&data);
  wr_contract_free(contract);
  if (sealed) lake_engine_put(lake, sealed, LAKE_ENGINE_SEALED);
  if (engine) lake_engine_put(lake, engine, LAKE_ENGINE_WAREHOUSE);
  json_decref(spec);
  return rc;
}

int lake_query_explain(weir_lake *lake, const char *sql, const char *ref, char **out_json, weir_error *err) {
  *out_json = NULL;
  if (!sql || !*sql) return wr_seterr(err, WEIR_EINVALIDARG, "no SQL given");
  char hash[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref, hash, err);
  if (rc) return rc;
  wr_engine *engine = NULL;
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &engine, err))) return rc;
  json_t *tables = json_array();
  rc = lake_attach_for_sql(lake, engine, hash, sql, tables, err);
  lake_engine_put(lake, engine, LAKE_ENGINE_WAREHOUSE);
  if (rc) {
    json_decref(tables);
    return rc;
  }
  *out_json = wr_doc_dump(WR_DOC_QUERY_EXPLAIN, json_pack("{s:s,s:o}", "commit", hash, "tables", tables));
  return WEIR_OK;
}
