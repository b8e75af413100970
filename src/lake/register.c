/*
 * register.c -- external data by reference: adopting an Iceberg table another engine
 * wrote (`weir table register`), and appending existing Parquet files to a table
 * (`weir import --register`).
 *
 * Invariants:
 *   - No file outside weir's own table folder is ever written: the external metadata
 *     files, manifests and data files are only read. weir writes its own metadata file,
 *     manifest list and manifest under warehouse/<ns>/<table>/metadata/, listing the
 *     external data files by their full paths (Iceberg allows data anywhere).
 *   - Everything is checked before anything is written or committed: the format version,
 *     every column's type, partitioning and delete files, required columns (by footer or
 *     manifest statistics; where a count is missing, by reading the data), the contract
 *     (by reading the data whenever it has rules statistics cannot decide). A refused
 *     registration leaves the catalog and the warehouse as they were.
 *   - Columns are matched by Iceberg field id, as every Iceberg reader (and weir's own
 *     views, engine/attach.c) reads them: a Parquet column's physical name (Avro-sanitised
 *     `id_x3Afoo` for `id:foo`, or a name changed by a rename) does not matter. A file
 *     without any field id (pyarrow's default, pyiceberg's add_files, Hive migrations) is
 *     matched by name, exactly, and the table then carries schema.name-mapping.default
 *     (name_mapping.c) so that every engine reads it the same way. A file with ids for
 *     some columns only is refused: readers disagree on it (pyiceberg falls back to the
 *     mapping for the whole file, DuckDB by field id per column).
 *   - The folders holding the adopted files are granted to the lake's warehouse engines
 *     (external.c) before the commit: a grant whose commit then failed gives access to a
 *     folder no table names, never a table whose files cannot be read.
 */
#include <errno.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "storage/location.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

/* ---- shared -------------------------------------------------------------------------- */

typedef struct reg_ctx {
  weir_lake *lake;
  wr_table_id id;
  char table[2 * WEIR_NAME_MAX + 2];
  const char *branch;
  char head[WEIR_HASH_HEX_SIZE];
  weir_contract *contract;   /* --contract, or NULL */
} reg_ctx;

static int reg_prepare(reg_ctx *c, weir_lake *lake, const char *table, const weir_register_options *opts,
                       weir_error *err) {
  memset(c, 0, sizeof *c);
  c->lake = lake;
  if (!table || !*table) return wr_seterr(err, WEIR_EINVALIDARG, "no table given");
  int rc = wr_table_id_parse(table, &c->id, err);
  if (rc) return rc;
  wr_table_id_format(&c->id, c->table, sizeof c->table);
  size_t nl = strlen(c->id.name);
  if (nl >= 12 && strcmp(c->id.name + nl - 12, "__quarantine") == 0)
    return wr_seterr(err, WEIR_EINVALIDNAME,
                     "invalid table name \"%s\": names ending in __quarantine are kept for rows rejected by "
                     "contracts",
                     table);
  c->branch = opts && opts->branch ? opts->branch : "main";
  if ((rc = lake_branch_head(lake, c->branch, c->head, err))) return rc;
  if (opts && opts->contract_path && (rc = wr_contract_load_file(opts->contract_path, &c->contract, err)))
    return rc;
  return WEIR_OK;
}

/* Makes `files` readable as view "__weir_register".<unique> with `schema` (by field id)
 * in `engine`; *view: its SQL name. */
static int attach_files(wr_engine *engine, const wr_schema *schema, const iceberg_data_file *files, size_t n,
                        char **view, weir_error *err) {
  char u[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(u);
  char name[32];
  snprintf(name, sizeof name, "v%.8s", u);
  const char **paths = wr_calloc(n ? n : 1, sizeof *paths);
  for (size_t i = 0; i < n; i++) paths[i] = files[i].path;
  int rc = wr_engine_attach_table_probed(engine, "__weir_register", name, schema, paths, n, true, err);
  free(paths);
  if (rc == WEIR_OK) *view = wr_asprintf("\"__weir_register\".\"%s\"", name);
  return rc;
}

static void detach_files(wr_engine *engine) {
  weir_error ignore = {0};
  wr_engine_exec(engine, "DROP SCHEMA IF EXISTS \"__weir_register\" CASCADE", &ignore);
  weir_error_clear(&ignore);
}

/* True when a contract has rules that only the data can decide (statistics decide types
 * and nullability). */
static bool needs_data(const weir_contract *c) {
  if (!c) return false;
  if (c->n_rules > 0) return true;
  for (size_t i = 0; i < c->n_columns; i++)
    if (c->columns[i].n_rules > 0) return true;
  return false;
}

static bool has_unique(const weir_contract *c) {
  for (size_t i = 0; c && i < c->n_columns; i++)
    for (size_t k = 0; k < c->columns[i].n_rules; k++)
      if (c->columns[i].rules[k].kind == WEIR_RULE_UNIQUE) return true;
  return false;
}

/* Reads the files' rows and validates them against `contract`. Referenced files cannot
 * be filtered, so rows a drop-mode rule would quarantine refuse the whole registration. */
static int validate_data(reg_ctx *c, wr_engine *engine, const weir_contract *contract, const wr_schema *schema,
                         const iceberg_data_file *files, size_t n, const char *subject, json_t **report,
                         weir_error *err) {
  char *view = NULL;
  wr_arrow_table data;
  wr_arrow_table_init(&data);
  wr_validation v = {0};
  wr_engine *sealed = NULL;
  int rc = attach_files(engine, schema, files, n, &view, err);
  if (rc == WEIR_OK) {
    char *sql = wr_asprintf("SELECT * FROM %s", view);
    rc = wr_engine_query_table(engine, sql, &data, err);
    free(sql);
  }
  detach_files(engine);
  if (rc == WEIR_OK && wr_contract_has_sql(contract)) rc = lake_engine_get(c->lake, LAKE_ENGINE_SEALED, &sealed, err);
  if (rc == WEIR_OK) {
    wr_validate_options vo = {0};
    vo.is_output = true;
    vo.subject = subject;
    vo.engine = sealed;
    rc = wr_contract_validate(contract, &data, &vo, &v, err);
    if (rc == WEIR_OK && v.quarantine.n_rows > 0)
      rc = wr_seterr(err, WEIR_ECONTRACT,
                     "contract violation in %s: %lld rows break drop-mode rules, and files adopted by "
                     "reference cannot be filtered (import them by copy to quarantine those rows)",
                     subject, (long long)v.quarantine.n_rows);
    if (rc == WEIR_OK && report && v.report) *report = json_incref(v.report);
  }
  if (sealed) lake_engine_put(c->lake, sealed, LAKE_ENGINE_SEALED);
  wr_validation_clear(&v);
  wr_arrow_table_release(&data);
  free(view);
  return rc;
}

/* Required columns whose statistics are missing in some files: counts their nulls by
 * reading those files. */
static int check_required_by_data(wr_engine *engine, const wr_schema *schema, const iceberg_data_file *files,
                                  size_t n, const char *what, weir_error *err) {
  wr_buf sql = WEIR_BUF_INIT;
  size_t n_req = 0;
  for (size_t i = 0; i < schema->n_fields; i++) {
    if (!schema->fields[i].required) continue;
    char *q = wr_sql_ident(schema->fields[i].name);
    wr_buf_printf(&sql, "%scount(*) FILTER (WHERE %s IS NULL)::BIGINT AS c%zu", n_req++ ? ", " : "SELECT ", q, i);
    free(q);
  }
  if (n_req == 0 || n == 0) {
    wr_buf_free(&sql);
    return WEIR_OK;
  }
  char *view = NULL;
  json_t *rows = NULL;
  int rc = attach_files(engine, schema, files, n, &view, err);
  if (rc == WEIR_OK) {
    wr_buf_printf(&sql, " FROM %s", view);
    rc = wr_engine_query_json(engine, wr_buf_cstr(&sql), &rows, err);
  }
  detach_files(engine);
  json_t *row = json_array_get(rows, 0);
  for (size_t i = 0; rc == WEIR_OK && i < schema->n_fields; i++) {
    if (!schema->fields[i].required) continue;
    char key[32];
    snprintf(key, sizeof key, "c%zu", i);
    json_int_t nulls = json_integer_value(json_object_get(row, key));
    if (nulls > 0)
      rc = wr_seterr(err, WEIR_EINPUT, "%s: column \"%s\" is required but its data holds %lld null%s", what,
                     schema->fields[i].name, (long long)nulls, nulls == 1 ? "" : "s");
  }
  json_decref(rows);
  free(view);
  wr_buf_free(&sql);
  return rc;
}

static const iceberg_column_stats *stats_of(const iceberg_data_file *f, int32_t id) {
  for (size_t k = 0; k < f->n_stats; k++)
    if (f->stats[k].field_id == id) return &f->stats[k];
  return NULL;
}

static char *reg_doc(const char *hash, reg_ctx *c, const char *mode, const char *source, size_t files,
                     int64_t rows, json_t *report) {
  json_t *o = json_object();
  json_object_set_new(o, "commit", json_string(hash));
  json_object_set_new(o, "branch", json_string(c->branch));
  json_object_set_new(o, "table", json_string(c->table));
  json_object_set_new(o, "mode", json_string(mode));
  json_object_set_new(o, "source", source ? json_string(source) : json_null());
  json_object_set_new(o, "files", json_integer((json_int_t)files));
  json_object_set_new(o, "rows", json_integer(rows));
  json_object_set_new(o, "report", report ? json_incref(report) : json_null());
  return wr_doc_dump(WR_DOC_REGISTER, o);
}

/* ---- weir table register --------------------------------------------------------------- */

/* The greatest *.metadata.json name in dir (engines number versions so that the newest
 * sorts last: v3.metadata.json, 00003-<uuid>.metadata.json; equal-length numbers compare
 * as text), or NULL when there is none. */
static char *newest_metadata_file(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char *best = NULL;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t n = strlen(de->d_name);
    if (n <= 14 || strcmp(de->d_name + n - 14, ".metadata.json") != 0) continue;
    size_t bn = best ? strlen(best) : 0;
    if (!best || n > bn || (n == bn && strcmp(de->d_name, best) > 0)) {
      free(best);
      best = wr_strdup(de->d_name);
    }
  }
  closedir(d);
  return best;
}

/* The metadata file a FILE_OR_URI names: itself, or for a table folder (or its metadata
 * folder) the version its version-hint.text names, as Hadoop catalogs keep it. */
static char *resolve_metadata(const char *given, weir_error *err, int *rc) {
  char *loc = wr_location_from_uri(given);
  *rc = WEIR_OK;
  if (!wr_location_is_remote(loc) && loc[0] != '/' && !strstr(loc, "://")) {
    char *abs = wr_path_absolute(loc);
    free(loc);
    loc = abs;
  }
  if (wr_location_is_remote(loc) || !wr_fs_is_dir(loc)) {
    if (!wr_location_is_remote(loc) && !wr_fs_exists(loc)) {
      *rc = wr_seterr(err, WEIR_ENOTFOUND, "cannot register %s: no such file", given);
      free(loc);
      return NULL;
    }
    return loc;
  }
  char *meta = wr_asprintf("%s/metadata", loc);
  char *dir = wr_fs_is_dir(meta) ? meta : wr_strdup(loc);
  if (dir != meta) free(meta);
  char *hint = wr_asprintf("%s/version-hint.text", dir);
  char *text = NULL;
  size_t len = 0;
  char *out = NULL;
  if (!wr_fs_exists(hint)) {
    /* Suggest a metadata file that is there (the newest name, as engines number them),
     * never one made up. */
    char *newest = newest_metadata_file(dir);
    if (newest)
      *rc = wr_seterr(err, WEIR_ENOTFOUND,
                      "cannot register %s: it is a folder without version-hint.text, so which version is "
                      "current is not said (name the table's metadata file, e.g. the newest: %s/%s)",
                      given, dir, newest);
    else
      *rc = wr_seterr(err, WEIR_ENOTFOUND,
                      "cannot register %s: it is a folder with neither version-hint.text nor any "
                      "*.metadata.json file in %s (is it an Iceberg table's folder?)",
                      given, dir);
    free(newest);
  } else if ((*rc = wr_fs_read(hint, &text, &len, err)) == WEIR_OK) {
    long v = strtol(text, NULL, 10);
    out = wr_asprintf("%s/v%ld.metadata.json", dir, v);
    if (v <= 0 || !wr_fs_exists(out)) {
      *rc = wr_seterr(err, WEIR_ENOTFOUND, "cannot register %s: %s names version \"%.20s\", but %s does not exist",
                      given, hint, text, out);
      free(out);
      out = NULL;
    }
  }
  free(text);
  free(hint);
  free(dir);
  free(loc);
  return out;
}

/* The Iceberg type text of column `id` in the current schema, for messages. */
static char *iceberg_type_text(const iceberg_table *t, int32_t id) {
  const json_t *schemas = json_object_get(t->json, "schemas");
  size_t i, k;
  const json_t *s, *f;
  json_array_foreach(schemas, i, s) {
    if (json_integer_value(json_object_get(s, "schema-id")) != t->current_schema_id) continue;
    json_array_foreach(json_object_get(s, "fields"), k, f) {
      if (json_integer_value(json_object_get(f, "id")) != id) continue;
      const json_t *ty = json_object_get(f, "type");
      return json_is_string(ty) ? wr_strdup(json_string_value(ty)) : wr_json_compact(ty);
    }
  }
  return wr_strdup("unknown");
}

static int check_external(const iceberg_table *t, const char *source, weir_error *err) {
  for (size_t i = 0; i < t->schema.n_fields; i++) {
    const wr_field *f = &t->schema.fields[i];
    if (f->type.id == WEIR_TYPE_ANY) {
      char *ty = iceberg_type_text(t, f->field_id);
      int rc = wr_seterr(err, WEIR_EUNSUPPORTED,
                         "cannot register %s: column \"%s\" has Iceberg type %s, which weir does not store "
                         "(weir stores boolean, int, long, float, double, decimal, string, binary, date, "
                         "timestamp and timestamptz columns)",
                         source, f->name, ty);
      free(ty);
      return rc;
    }
  }
  /* Partitioned tables are adopted as they are (docs/partitioning.md): every spec must be
   * one weir reads (its transforms and their source types), since reads prune by it and
   * later writes use the default one. */
  size_t i;
  const json_t *sp;
  json_array_foreach(json_object_get(t->json, "partition-specs"), i, sp) {
    iceberg_partition_spec spec = {0};
    int rc = iceberg_partition_spec_from_json(sp, &t->schema, &spec, err);
    iceberg_partition_spec_clear(&spec);
    if (rc) {
      wr_error_prefix(err, "cannot register %s: partition spec %lld", source,
                      (long long)json_integer_value(json_object_get(sp, "spec-id")));
      return rc;
    }
  }
  return WEIR_OK;
}

/* The data files' footers, one pass: each file carries Iceberg field ids for every
 * column (read by id) or for none (read by name, under the table's name mapping); a file
 * with some ids is refused, and so is a file without ids that lacks a required column or
 * whose columns the mapping knows only by a name that is not the column's current one
 * (weir's views read such files by current name, so it would read as NULL).
 * *by_name: some file has no ids. */
static int check_field_ids(wr_engine *engine, const iceberg_data_file *files, size_t n, const wr_schema *schema,
                           const char *source, bool *by_name, weir_error *err) {
  *by_name = false;
  if (n == 0) return WEIR_OK;
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT file_name, count(field_id)::BIGINT AS with_ids, (count(*) - count(field_id))::BIGINT AS "
                    "without_ids, list(name) AS names, min(name) FILTER (WHERE field_id IS NULL) AS sample "
                    "FROM parquet_schema([");
  for (size_t i = 0; i < n; i++) {
    char *q = wr_sql_string(files[i].path);
    wr_buf_printf(&sql, "%s%s", i ? ", " : "", q);
    free(q);
  }
  wr_buf_puts(&sql, "]) WHERE coalesce(num_children, 0) = 0 GROUP BY file_name ORDER BY file_name");
  json_t *rows = NULL;
  int rc = wr_engine_query_json(engine, wr_buf_cstr(&sql), &rows, err);
  wr_buf_free(&sql);
  if (rc) {
    wr_error_prefix(err, "cannot register %s: reading its data files' footers", source);
    return rc;
  }
  size_t r;
  const json_t *row;
  json_array_foreach(rows, r, row) {
    json_int_t with = json_integer_value(json_object_get(row, "with_ids"));
    json_int_t without = json_integer_value(json_object_get(row, "without_ids"));
    const char *file = wr_json_str(row, "file_name", "?");
    if (without == 0) continue;
    if (with > 0) {
      rc = wr_seterr(err, WEIR_EINPUT,
                     "cannot register %s: data file %s carries Iceberg field ids for %lld column%s but not for "
                     "column \"%s\"; a file is read either by field id (all columns) or by name (none)",
                     source, file, (long long)with, with == 1 ? "" : "s", wr_json_str(row, "sample", "?"));
      break;
    }
    *by_name = true;
    const json_t *names = json_object_get(row, "names");
    for (size_t k = 0; k < schema->n_fields && rc == WEIR_OK; k++) {
      if (!schema->fields[k].required) continue;
      bool found = false;
      size_t j;
      const json_t *v;
      json_array_foreach(names, j, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), schema->fields[k].name) == 0) found = true;
      }
      if (!found)
        rc = wr_seterr(err, WEIR_EINPUT,
                       "cannot register %s: data file %s has no field ids and no column named \"%s\", which is "
                       "required",
                       source, file, schema->fields[k].name);
    }
    if (rc) break;
  }
  json_decref(rows);
  return rc;
}

/* A name mapping that maps some field by a name other than its current one, for a table
 * with files without ids: weir would read those columns as NULL, so it refuses. */
static int check_mapping_names(const iceberg_table *t, const char *source, weir_error *err) {
  json_t *list = json_loads(wr_json_str(t->properties, LAKE_PROP_NAME_MAPPING, "[]"), 0, NULL);
  int rc = WEIR_OK;
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) {
    json_int_t id = json_integer_value(json_object_get(e, "field-id"));
    const char *current = NULL;
    for (size_t k = 0; k < t->schema.n_fields; k++)
      if (t->schema.fields[k].field_id == id) current = t->schema.fields[k].name;
    if (!current) continue;
    size_t j;
    json_t *v;
    json_array_foreach(json_object_get(e, "names"), j, v) {
      if (rc == WEIR_OK && json_is_string(v) && strcmp(json_string_value(v), current) != 0)
        rc = wr_seterr(err, WEIR_EUNSUPPORTED,
                       "cannot register %s: its name mapping reads column \"%s\" (field id %lld) also by the "
                       "former name \"%s\", and weir reads files without field ids by current names only",
                       source, current, (long long)id, json_string_value(v));
    }
  }
  json_decref(list);
  return rc;
}

int lake_table_register(weir_lake *lake, const char *table, const char *metadata,
                        const weir_register_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  reg_ctx c;
  int rc = reg_prepare(&c, lake, table, opts, err);
  if (rc) return rc;
  if (!metadata || !*metadata) {
    wr_contract_free(c.contract);
    return wr_seterr(err, WEIR_EINVALIDARG, "no metadata file given (--metadata FILE_OR_URI)");
  }
  iceberg_table *ext = NULL, *prev = NULL;
  iceberg_data_file *files = NULL;
  size_t n = 0;
  wr_engine *engine = NULL;
  json_t *report = NULL;
  lake_staged st = {0};
  char *subject = NULL;
  bool by_name = false; /* some data file has no field ids: the table needs a name mapping */
  char *loc = resolve_metadata(metadata, err, &rc);
  if (rc) goto done;
  if ((rc = iceberg_table_load(loc, &ext, err))) {
    wr_error_prefix(err, "cannot register %s as %s", metadata, c.table);
    goto done;
  }
  if ((rc = check_external(ext, loc, err))) goto done;
  if ((rc = lake_table_at(lake, c.head, c.table, true, &prev, err))) goto done;
  if (prev) {
    rc = wr_seterr(err, WEIR_EEXISTS, "cannot register %s as %s: table %s already exists on branch %s", loc,
                   c.table, c.table, c.branch);
    goto done;
  }
  if ((rc = iceberg_table_data_files(ext, &files, &n, err))) {
    wr_error_prefix(err, "cannot register %s", loc);
    goto done;
  }

  /* The table's schema: the external one, with the contract's nullability and docs. */
  wr_schema_copy(&st.schema, &ext->schema);
  if (c.contract) {
    for (size_t i = 0; i < c.contract->n_columns && rc == WEIR_OK; i++) {
      const wr_field *cf = &c.contract->columns[i].field;
      long k = wr_schema_find(&st.schema, cf->name);
      if (k < 0) continue; /* reported as missing by the validation */
      wr_field *f = &st.schema.fields[k];
      if (!wr_type_equal(f->type, cf->type)) {
        char a[WEIR_TYPE_NAME_MAX], b[WEIR_TYPE_NAME_MAX];
        wr_type_name(cf->type, a, sizeof a);
        wr_type_name(f->type, b, sizeof b);
        rc = wr_seterr(err, WEIR_ECONTRACT,
                       "cannot register %s as %s: the contract declares column \"%s\" as %s, but the "
                       "table's files hold %s (registered files are kept as they are)",
                       loc, c.table, cf->name, a, b);
        break;
      }
      f->required = cf->required;
      free(f->doc);
      f->doc = cf->doc ? wr_strdup(cf->doc) : NULL;
    }
    if (rc) goto done;
  }
  /* Statistics the schema has no column for (dropped or nested fields) are not carried. */
  for (size_t i = 0; i < n; i++) {
    size_t keep = 0;
    for (size_t k = 0; k < files[i].n_stats; k++) {
      bool known = false;
      for (size_t s = 0; s < st.schema.n_fields && !known; s++)
        known = st.schema.fields[s].field_id == files[i].stats[k].field_id;
      if (known) files[i].stats[keep++] = files[i].stats[k];
      else free(files[i].stats[k].lower), free(files[i].stats[k].upper);
    }
    files[i].n_stats = keep;
  }

  if ((rc = lake_engine_get(lake, LAKE_ENGINE_OPEN, &engine, err))) goto done;
  if ((rc = check_field_ids(engine, files, n, &st.schema, loc, &by_name, err))) goto done;
  if (by_name && (rc = check_mapping_names(ext, loc, err))) goto done;
  subject = wr_asprintf("registration of %s as %s", loc, c.table);
  if (c.contract) {
    char *s2 = wr_asprintf("%s (contract %s)", subject, c.contract->name ? c.contract->name : "unnamed");
    rc = validate_data(&c, engine, c.contract, &st.schema, files, n, s2, &report, err);
    free(s2);
    if (rc) goto done;
  } else {
    /* Required columns: a manifest's null count decides; a missing count means unknown,
     * settled by reading the files that lack it. */
    iceberg_data_file *unknown = wr_calloc(n ? n : 1, sizeof *unknown);
    size_t n_unknown = 0;
    for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
      bool missing = false;
      for (size_t s = 0; s < st.schema.n_fields && rc == WEIR_OK; s++) {
        const wr_field *f = &st.schema.fields[s];
        if (!f->required) continue;
        const iceberg_column_stats *cs = stats_of(&files[i], f->field_id);
        if (cs && cs->null_count > 0)
          rc = wr_seterr(err, WEIR_EINPUT,
                         "cannot register %s: column \"%s\" is required, but data file %s holds %lld null%s "
                         "(by its manifest)",
                         loc, f->name, files[i].path, (long long)cs->null_count, cs->null_count == 1 ? "" : "s");
        else if (!cs || cs->null_count < 0)
          missing = true;
      }
      if (missing) unknown[n_unknown++] = files[i]; /* shallow: paths borrowed */
    }
    if (rc == WEIR_OK && n_unknown > 0)
      rc = check_required_by_data(engine, &st.schema, unknown, n_unknown, subject, err);
    free(unknown);
    if (rc) goto done;
  }
  lake_engine_put(lake, engine, LAKE_ENGINE_OPEN);
  engine = NULL;

  /* The staged version: a new table whose files are the external ones. */
  st.table = wr_strdup(c.table);
  st.mode = WEIR_MODE_CREATE;
  st.last_column_id = ext->last_column_id;
  st.files = files;
  st.n_files = n;
  files = NULL;
  for (size_t i = 0; i < st.n_files; i++) st.rows += st.files[i].record_count;
  /* A partitioned table: its live files' spec becomes the new table's spec 0, each file
   * with its partition tuple as the external manifests hold it. Files of several specs
   * (partition evolution) would need one manifest per spec; refused for now. */
  for (size_t i = 0; i < st.n_files && rc == WEIR_OK; i++) {
    if (st.files[i].spec_id == st.files[0].spec_id) continue;
    rc = wr_seterr(err, WEIR_EUNSUPPORTED,
                   "cannot register %s: its live data files were written under two partition specs (%d and %d); "
                   "weir registers a table whose files share one spec (rewrite the older files first)",
                   loc, (int)st.files[0].spec_id, (int)st.files[i].spec_id);
  }
  if (rc == WEIR_OK && st.n_files && st.files[0].n_partition) {
    rc = iceberg_table_spec(ext, st.files[0].spec_id, &st.spec, err);
    if (rc) wr_error_prefix(err, "cannot register %s", loc);
    st.spec.spec_id = 0;
    for (size_t i = 0; i < st.n_files; i++) st.files[i].spec_id = 0;
  }
  if (rc) goto done;
  st.properties = json_object();
  {
    const char *k;
    json_t *v;
    json_object_foreach(ext->properties, k, v) {
      if (json_is_string(v)) json_object_set(st.properties, k, v);
    }
  }
  if (by_name) {
    /* Files without ids read by name in every engine: the mapping lists each column. */
    char *m = lake_name_mapping_merge(wr_json_str(ext->properties, LAKE_PROP_NAME_MAPPING, NULL), &st.schema);
    json_object_set_new(st.properties, LAKE_PROP_NAME_MAPPING, json_string(m));
    free(m);
  }
  if (c.contract) {
    json_t *ir = wr_contract_to_ir(c.contract);
    char *text = wr_json_canonical(ir);
    json_object_set_new(st.properties, "weir.contract", json_string(text));
    free(text);
    json_decref(ir);
    if (c.contract->description)
      json_object_set_new(st.properties, "comment", json_string(c.contract->description));
  }
  {
    char *uri = wr_location_to_uri(loc);
    st.summary = json_pack("{s:s,s:s}", "weir.operation", "register", "weir.registered-from", uri);
    free(uri);
  }
  if ((rc = lake_external_grant(lake, ext->location, st.files, st.n_files, err))) goto done;
  {
    char *msg = opts && opts->message ? NULL : wr_asprintf("register %s as %s", wr_path_basename(loc), c.table);
    lake_commit_request cr = {0};
    cr.branch = c.branch;
    cr.base = c.head;
    cr.message = opts && opts->message ? opts->message : msg;
    char hash[WEIR_HASH_HEX_SIZE];
    rc = lake_commit_staged(lake, &cr, &st, 1, hash, err);
    free(msg);
    if (rc == WEIR_OK) *out_json = reg_doc(hash, &c, "create", loc, st.n_files, st.rows, report);
  }

done:
  if (engine) lake_engine_put(lake, engine, LAKE_ENGINE_OPEN);
  lake_staged_clear(&st);
  iceberg_data_files_free(files, n);
  iceberg_table_free(ext);
  iceberg_table_free(prev);
  json_decref(report);
  wr_contract_free(c.contract);
  free(subject);
  free(loc);
  return rc;
}

/* ---- weir import --register ------------------------------------------------------------ */

/* One Parquet file's footer, checked against the table schema, as a data file entry. */
static int footer_file(wr_engine *engine, const char *path, const char *table, const wr_schema *schema,
                       iceberg_data_file *out, bool *out_by_name, weir_error *err) {
  memset(out, 0, sizeof *out);
  *out_by_name = false;
  json_t *cols = NULL, *types = NULL, *stats = NULL, *count = NULL;
  char *q = wr_sql_string(path);
  char *sql = wr_asprintf("SELECT name, field_id::BIGINT AS field_id, repetition_type, num_children::BIGINT AS "
                          "num_children FROM parquet_schema(%s)",
                          q);
  int rc = wr_engine_query_json(engine, sql, &cols, err);
  free(sql);
  if (rc == WEIR_OK) {
    sql = wr_asprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(%s))", q);
    rc = wr_engine_query_json(engine, sql, &types, err);
    free(sql);
  }
  if (rc == WEIR_OK) {
    sql = wr_asprintf("SELECT path_in_schema AS name, count(*)::BIGINT AS chunks, count(stats_null_count)::BIGINT "
                      "AS known, sum(stats_null_count)::BIGINT AS nulls, sum(num_values)::BIGINT AS vals, "
                      "sum(total_compressed_size)::BIGINT AS size FROM parquet_metadata(%s) GROUP BY 1",
                      q);
    rc = wr_engine_query_json(engine, sql, &stats, err);
    free(sql);
  }
  if (rc == WEIR_OK) {
    sql = wr_asprintf("SELECT count(*)::BIGINT AS n FROM read_parquet(%s)", q);
    rc = wr_engine_query_json(engine, sql, &count, err);
    free(sql);
  }
  free(q);
  if (rc) {
    wr_error_prefix(err, "cannot read the Parquet footer of %s", path);
    goto done;
  }
  struct stat sb;
  if (stat(path, &sb) != 0) {
    rc = wr_seterr(err, WEIR_EIO, "cannot stat %s: %s", path, strerror(errno));
    goto done;
  }
  out->path = wr_strdup(path);
  out->file_size = (int64_t)sb.st_size;
  out->record_count = json_integer_value(json_object_get(json_array_get(count, 0), "n"));
  out->stats = wr_calloc(schema->n_fields ? schema->n_fields : 1, sizeof *out->stats);
  bool *seen = wr_calloc(schema->n_fields ? schema->n_fields : 1, sizeof *seen);
  /* Row 0 of parquet_schema is the root; the others are the columns (flat files only).
   * The file is matched by field id when every column has one, by name when none has. */
  size_t with_ids = 0, without_ids = 0;
  const char *first_with = NULL, *first_without = NULL;
  for (size_t r = 1; r < json_array_size(cols); r++) {
    const json_t *col = json_array_get(cols, r);
    if (json_is_integer(json_object_get(col, "field_id"))) {
      if (!with_ids++) first_with = wr_json_str(col, "name", "");
    } else if (!without_ids++) {
      first_without = wr_json_str(col, "name", "");
    }
  }
  if (with_ids && without_ids) {
    rc = wr_seterr(err, WEIR_EINPUT,
                   "cannot register %s into %s: %zu of its columns carry Iceberg field ids (\"%s\", ...) but "
                   "%zu do not (\"%s\", ...); a file is matched to the table either by field id (all columns) "
                   "or by name (none), so rewrite it with ids for every column or none, or import it by copy "
                   "(weir import %s --table %s --mode append)",
                   path, table, with_ids, first_with, without_ids, first_without, path, table);
  }
  out_by_name[0] = without_ids > 0;
  for (size_t r = 1; r < json_array_size(cols) && rc == WEIR_OK; r++) {
    const json_t *col = json_array_get(cols, r);
    const char *name = wr_json_str(col, "name", "");
    if (json_integer_value(json_object_get(col, "num_children")) > 0) {
      rc = wr_seterr(err, WEIR_EINPUT, "cannot register %s into %s: column \"%s\" is nested; weir registers "
                     "files of flat columns", path, table, name);
      break;
    }
    const json_t *fid = json_object_get(col, "field_id");
    size_t k = 0;
    if (!json_is_integer(fid)) {
      /* By name, exactly (as Iceberg's name mapping matches). */
      while (k < schema->n_fields && strcmp(schema->fields[k].name, name) != 0) k++;
      if (k == schema->n_fields) {
        size_t ci = 0;
        while (ci < schema->n_fields && strcasecmp(schema->fields[ci].name, name) != 0) ci++;
        if (ci < schema->n_fields)
          rc = wr_seterr(err, WEIR_EINPUT,
                         "cannot register %s into %s: its column \"%s\" (no field id) differs from the table's "
                         "column \"%s\" in case; files without field ids are matched by exact name",
                         path, table, name, schema->fields[ci].name);
        else
          rc = wr_seterr(err, WEIR_EINPUT,
                         "cannot register %s into %s: its column \"%s\" (no field id, so matched by name) is no "
                         "column of the table",
                         path, table, name);
        break;
      }
    } else {
      int32_t id = (int32_t)json_integer_value(fid);
      while (k < schema->n_fields && schema->fields[k].field_id != id) k++;
      if (k == schema->n_fields) {
        rc = wr_seterr(err, WEIR_EINPUT,
                       "cannot register %s into %s: column \"%s\" has field id %d, which is no column of the table",
                       path, table, name, (int)id);
        break;
      }
    }
    const wr_field *f = &schema->fields[k];
    int32_t id = f->field_id;
    if (seen[k]) {
      rc = wr_seterr(err, WEIR_EINPUT, "cannot register %s into %s: two columns carry field id %d (\"%s\")", path,
                     table, (int)id, f->name);
      break;
    }
    seen[k] = true;
    /* Type: the file's as DuckDB reads it, equal to the table's or an Iceberg promotion. */
    const char *dtype = NULL;
    for (size_t t = 0; t < json_array_size(types); t++)
      if (strcmp(wr_json_str(json_array_get(types, t), "column_name", ""), name) == 0)
        dtype = wr_json_str(json_array_get(types, t), "column_type", NULL);
    weir_type ft;
    bool ok = dtype && wr_type_from_duckdb(dtype, &ft);
    bool compatible = ok && (wr_type_equal(ft, f->type) ||
                             (ft.id == WEIR_TYPE_INT32 && f->type.id == WEIR_TYPE_INT64) ||
                             (ft.id == WEIR_TYPE_FLOAT32 && f->type.id == WEIR_TYPE_FLOAT64));
    if (!compatible) {
      char want[WEIR_TYPE_NAME_MAX];
      wr_type_name(f->type, want, sizeof want);
      rc = wr_seterr(err, WEIR_EINPUT,
                     "cannot register %s into %s: column \"%s\" (column \"%s\" of the table, field id %d) holds %s, "
                     "but the table's column is %s",
                     path, table, name, f->name, (int)id, dtype ? dtype : "a type weir cannot read", want);
      break;
    }
    const json_t *st = NULL;
    for (size_t t = 0; t < json_array_size(stats); t++)
      if (strcmp(wr_json_str(json_array_get(stats, t), "name", ""), name) == 0) st = json_array_get(stats, t);
    iceberg_column_stats *cs = &out->stats[out->n_stats++];
    cs->field_id = id;
    cs->value_count = st ? json_integer_value(json_object_get(st, "vals")) : -1;
    bool known = st && json_integer_value(json_object_get(st, "known")) == json_integer_value(json_object_get(st, "chunks"));
    cs->null_count = known ? json_integer_value(json_object_get(st, "nulls")) : -1;
    cs->column_size = st ? json_integer_value(json_object_get(st, "size")) : -1;
    cs->nan_count = -1;
    if (f->required) {
      if (cs->null_count > 0)
        rc = wr_seterr(err, WEIR_EINPUT,
                       "cannot register %s into %s: column \"%s\" is required, but the file's footer counts %lld null%s",
                       path, table, f->name, (long long)cs->null_count, cs->null_count == 1 ? "" : "s");
      else if (strcmp(wr_json_str(col, "repetition_type", ""), "REQUIRED") != 0)
        rc = wr_seterr(err, WEIR_EINPUT,
                       "cannot register %s into %s: column \"%s\" is required, but its Parquet field is optional "
                       "(write it as a required field, or import the file by copy)",
                       path, table, f->name);
    }
  }
  for (size_t k = 0; k < schema->n_fields && rc == WEIR_OK; k++)
    if (!seen[k] && schema->fields[k].required)
      rc = wr_seterr(err, WEIR_EINPUT, "cannot register %s into %s: it lacks the required column \"%s\" (field id %d)",
                     path, table, schema->fields[k].name, (int)schema->fields[k].field_id);
  free(seen);
done:
  json_decref(cols);
  json_decref(types);
  json_decref(stats);
  json_decref(count);
  if (rc) iceberg_data_file_clear(out);
  return rc;
}

int lake_table_register_files(weir_lake *lake, const char *table, const char *const *paths, size_t n_paths,
                              const weir_register_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  reg_ctx c;
  int rc = reg_prepare(&c, lake, table, opts, err);
  if (rc) return rc;
  iceberg_table *prev = NULL;
  iceberg_data_file *have = NULL;
  size_t n_have = 0;
  wr_engine *engine = NULL;
  weir_contract *stored = NULL;
  json_t *report = NULL;
  lake_staged st = {0};
  bool by_name = false; /* some file is matched by name: the table needs a name mapping */
  if (n_paths == 0) {
    rc = wr_seterr(err, WEIR_EINVALIDARG, "no Parquet files given to register into %s", c.table);
    goto done;
  }
  if ((rc = lake_table_at(lake, c.head, c.table, true, &prev, err))) goto done;
  if (!prev) {
    rc = wr_seterr(err, WEIR_ENOTFOUND,
                   "cannot register files into %s: it does not exist on branch %s (to adopt a whole Iceberg "
                   "table, use weir table register)",
                   c.table, c.branch);
    goto done;
  }
  {
    /* A loose file has no partition tuple: registered into a partitioned table, it would
     * make the table's default spec an unpartitioned one (docs/partitioning.md). */
    iceberg_partition_spec spec = {0};
    int32_t def = (int32_t)json_integer_value(json_object_get(prev->json, "default-spec-id"));
    if ((rc = iceberg_table_spec(prev, def, &spec, err))) goto done;
    if (spec.n_fields) {
      char *first = iceberg_partition_field_text(&spec.fields[0]);
      rc = wr_seterr(err, WEIR_EUNSUPPORTED,
                     "cannot register files into %s: the table is partitioned (spec %d: %s%s) and a loose Parquet "
                     "file has no partition tuple; import the file by copy (weir import FILE --table %s --mode "
                     "append), which writes its rows under the table's spec",
                     c.table, (int)spec.spec_id, first ? first : "?", spec.n_fields > 1 ? ", ..." : "", c.table);
      free(first);
    }
    iceberg_partition_spec_clear(&spec);
    if (rc) goto done;
  }
  if ((rc = iceberg_table_data_files(prev, &have, &n_have, err))) goto done;
  st.files = wr_calloc(n_paths, sizeof *st.files);
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_OPEN, &engine, err))) goto done;
  for (size_t i = 0; i < n_paths && rc == WEIR_OK; i++) {
    const char *p = paths[i];
    char *abs = NULL;
    if (!p || !*p) {
      rc = wr_seterr(err, WEIR_EINVALIDARG, "an empty file name among the files to register into %s", c.table);
      break;
    }
    char *local = wr_location_from_uri(p);
    if (wr_location_is_remote(local)) {
      rc = wr_seterr(err, WEIR_EUNSUPPORTED, "cannot register %s: registering object-store files is not supported yet",
                     p);
      free(local);
      break;
    }
    if (!wr_fs_exists(local) || wr_fs_is_dir(local)) {
      rc = wr_seterr(err, WEIR_ENOTFOUND, "cannot register %s into %s: no such file", p, c.table);
      free(local);
      break;
    }
    abs = wr_path_absolute(local);
    free(local);
    for (size_t k = 0; k < n_have && rc == WEIR_OK; k++)
      if (strcmp(have[k].path, abs) == 0)
        rc = wr_seterr(err, WEIR_EEXISTS, "cannot register %s: it is already a data file of %s on branch %s", abs,
                       c.table, c.branch);
    for (size_t k = 0; k < st.n_files && rc == WEIR_OK; k++)
      if (strcmp(st.files[k].path, abs) == 0)
        rc = wr_seterr(err, WEIR_EINVALIDARG, "cannot register %s twice into %s", abs, c.table);
    bool file_by_name = false;
    if (rc == WEIR_OK &&
        (rc = footer_file(engine, abs, c.table, &prev->schema, &st.files[st.n_files], &file_by_name, err)) == WEIR_OK) {
      st.rows += st.files[st.n_files++].record_count;
      by_name = by_name || file_by_name;
    }
    free(abs);
  }
  if (rc) goto done;

  /* The stored contract (and --contract): types and nullability were decided by the
   * footers above; rules beyond them need the rows. */
  bool has_contract = false;
  stored = lake_table_type(prev, c.table, &has_contract);
  const weir_contract *checks[2] = {has_contract ? stored : NULL, c.contract};
  for (int i = 0; i < 2 && rc == WEIR_OK; i++) {
    const weir_contract *k = checks[i];
    if (!k || (i == 0 && !needs_data(k))) continue;
    char *subject = wr_asprintf("registration of %zu file%s into %s (%s contract %s)", st.n_files,
                                st.n_files == 1 ? "" : "s", c.table, i == 0 ? "the table's" : "the given",
                                k->name ? k->name : "unnamed");
    json_decref(report);
    report = NULL;
    if (has_unique(k)) {
      /* A `unique` rule holds across the table: the rows it has and the files added are
       * validated together, and the append is then not blind (it read the table, serial.h). */
      iceberg_data_file *all = wr_calloc(n_have + st.n_files, sizeof *all);
      memcpy(all, have, n_have * sizeof *all);
      memcpy(all + n_have, st.files, st.n_files * sizeof *all);
      rc = validate_data(&c, engine, k, &prev->schema, all, n_have + st.n_files, subject, &report, err);
      free(all); /* shallow: the entries belong to `have` and `st` */
      st.read_rows = true;
    } else {
      rc = validate_data(&c, engine, k, &prev->schema, st.files, st.n_files, subject, &report, err);
    }
    free(subject);
  }
  if (rc) goto done;
  lake_engine_put(lake, engine, LAKE_ENGINE_OPEN);
  engine = NULL;

  st.table = wr_strdup(c.table);
  st.mode = WEIR_MODE_APPEND;
  wr_schema_copy(&st.schema, &prev->schema);
  st.last_column_id = prev->last_column_id;
  st.based_on = wr_strdup(prev->metadata_location);
  st.properties = json_object();
  if (by_name) {
    char *m = lake_name_mapping_merge(wr_json_str(prev->properties, LAKE_PROP_NAME_MAPPING, NULL), &prev->schema);
    json_object_set_new(st.properties, LAKE_PROP_NAME_MAPPING, json_string(m));
    free(m);
  }
  st.summary = json_pack("{s:s,s:I}", "weir.operation", "register-files", "weir.registered-files", (json_int_t)st.n_files);
  if ((rc = lake_external_grant(lake, NULL, st.files, st.n_files, err))) goto done;
  {
    char *msg = opts && opts->message ? NULL
                                      : wr_asprintf("register %zu Parquet file%s into %s", st.n_files,
                                                    st.n_files == 1 ? "" : "s", c.table);
    lake_commit_request cr = {0};
    cr.branch = c.branch;
    cr.base = c.head;
    cr.message = opts && opts->message ? opts->message : msg;
    char hash[WEIR_HASH_HEX_SIZE];
    rc = lake_commit_staged(lake, &cr, &st, 1, hash, err);
    free(msg);
    if (rc == WEIR_OK) *out_json = reg_doc(hash, &c, "append", NULL, st.n_files, st.rows, report);
  }

done:
  if (engine) lake_engine_put(lake, engine, LAKE_ENGINE_OPEN);
  lake_staged_clear(&st);
  iceberg_data_files_free(have, n_have);
  iceberg_table_free(prev);
  wr_contract_free(stored);
  wr_contract_free(c.contract);
  json_decref(report);
  return rc;
}
