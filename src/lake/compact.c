/*
 * compact.c -- rewriting a table's small data files into large ones, as a commit that
 * changes no row (docs/versioning.md, "Compaction").
 *
 * Steps, against the branch head H when the compaction starts (its base):
 *   1. plan: the live data files of the table at H; those smaller than 3/4 of the target
 *      size are small (Iceberg's default for min-file-size-bytes); fewer than min_files
 *      small files, or no fewer output files than input ones, is nothing to do;
 *   2. write: the small files are read through a view with the table's schema, columns
 *      matched by field id (engine/attach.c, as every read), and written back by the same
 *      COPY as every weir write (engine/parquet_write.c: zstd, the same field ids, the
 *      statistics DuckDB returns), about target bytes per file. Their row count must equal
 *      the small files' (else nothing is committed);
 *   3. commit: one Iceberg "replace" snapshot (the small files DELETED, the new ones
 *      ADDED, summary weir.operation "compact") over whatever version the head holds when
 *      the commit lands. The serializable rules (serial.c) treat the small files as the
 *      write's read set: appends committed meanwhile are kept under it; a writer that
 *      replaced or deleted one of them refuses it.
 * No contract is validated: no row changes, and the schema (names, types, field ids) and
 * every table property stay exactly as they were.
 *
 * On a threshold: a table whose properties set weir.compact.min-files = N is compacted
 * right after an import appends to it and leaves more than N small files there, as a
 * commit of its own (lake_compact_after_append). The append is committed whatever
 * happens to the compaction, which an import's result reports.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/failpoint.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

#define DEFAULT_TARGET ((int64_t)128 * 1024 * 1024)
#define DEFAULT_MIN_FILES 2
/* Table property: after an append leaves more than this many small files, compact. */
#define PROP_AUTO_MIN_FILES "weir.compact.min-files"

typedef struct compact_plan {
  iceberg_data_file *files; /* every live data file at the base */
  size_t n_files;
  size_t *small;            /* indexes into files of the ones to rewrite */
  size_t n_small;
  int64_t small_bytes, small_rows;
  int64_t estimate;         /* output files, about */
} compact_plan;

static void plan_clear(compact_plan *p) {
  iceberg_data_files_free(p->files, p->n_files);
  free(p->small);
  memset(p, 0, sizeof *p);
}

/* Why there is nothing to do (in `why`), or NULL. */
static const char *plan_files(const iceberg_table *t, int64_t target, int64_t min_files, compact_plan *p,
                              char *why, size_t why_size, weir_error *err, int *rc) {
  memset(p, 0, sizeof *p);
  if ((*rc = iceberg_table_data_files(t, &p->files, &p->n_files, err))) return NULL;
  p->small = wr_calloc(p->n_files ? p->n_files : 1, sizeof *p->small);
  size_t partitioned = 0;
  for (size_t i = 0; i < p->n_files; i++) {
    /* Rewriting files of several partitions into one would put rows of many partitions
     * in a file with one partition tuple: partitioned files are left as they are. */
    if (p->files[i].n_partition > 0) {
      partitioned++;
      continue;
    }
    if (p->files[i].file_size * 4 >= target * 3) continue;
    p->small[p->n_small++] = i;
    p->small_bytes += p->files[i].file_size;
    p->small_rows += p->files[i].record_count;
  }
  p->estimate = p->n_small ? (p->small_bytes + target - 1) / target : 0;
  if (p->estimate < 1 && p->n_small) p->estimate = 1;
  if (partitioned && partitioned == p->n_files) {
    snprintf(why, why_size, "its %zu data files are partitioned, and weir compacts unpartitioned files only",
             p->n_files);
    return why;
  }
  if ((int64_t)p->n_small < min_files) {
    snprintf(why, why_size, "%zu of its %zu data files are small, fewer than the %lld it takes (min_files)",
             p->n_small, p->n_files, (long long)min_files);
    return why;
  }
  if (p->n_small < 2 || p->estimate >= (int64_t)p->n_small) {
    snprintf(why, why_size, "rewriting its %zu small files would not make fewer files", p->n_small);
    return why;
  }
  return NULL;
}

/* Writes the small files' rows again as files of about `target` bytes into the table's
 * data folder; fills out->files. */
static int write_files(weir_lake *lake, const wr_table_id *id, const iceberg_table *t, const compact_plan *p,
                       int64_t target, lake_staged *out, weir_error *err) {
  wr_engine *engine = NULL;
  int rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &engine, err);
  if (rc) return rc;
  const char **paths = wr_calloc(p->n_small, sizeof *paths);
  for (size_t i = 0; i < p->n_small; i++) paths[i] = p->files[p->small[i]].path;
  char u[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(u);
  char *ns = wr_asprintf("__weir_compact_%.8s", u);
  size_t nc = t->schema.n_fields;
  const char **names = wr_calloc(nc ? nc : 1, sizeof *names);
  int32_t *ids = wr_calloc(nc ? nc : 1, sizeof *ids);
  wr_buf sel = WEIR_BUF_INIT;
  wr_buf_puts(&sel, "SELECT ");
  for (size_t i = 0; i < nc; i++) {
    names[i] = t->schema.fields[i].name;
    ids[i] = t->schema.fields[i].field_id;
    char *q = wr_sql_ident(names[i]);
    wr_buf_printf(&sel, "%s%s", i ? ", " : "", q);
    free(q);
  }
  char *qns = wr_sql_ident(ns);
  wr_buf_printf(&sel, " FROM %s.rows", qns);
  char *location = lake_table_location(lake, id);
  char *data_dir = wr_path_join(location, "data");
  wr_parquet_file *pfiles = NULL;
  size_t n_pfiles = 0;
  rc = wr_engine_attach_table_probed(engine, ns, "rows", &t->schema, paths, p->n_small,
                                       lake_table_has_name_mapping(t), err);
  if (rc == WEIR_OK)
    rc = wr_engine_write_parquet(engine, wr_buf_cstr(&sel), data_dir, names, ids, nc, target, &pfiles, &n_pfiles,
                                 err);
  {
    char *drop = wr_asprintf("DROP SCHEMA IF EXISTS %s CASCADE", qns);
    weir_error ignore = {0};
    wr_engine_exec(engine, drop, &ignore);
    weir_error_clear(&ignore);
    free(drop);
  }
  if (rc) wr_error_prefix(err, "cannot compact %s", out->table);
  int64_t rows = 0;
  for (size_t i = 0; i < n_pfiles; i++) rows += pfiles[i].record_count;
  if (rc == WEIR_OK && rows != p->small_rows) {
    rc = wr_seterr(err, WEIR_EENGINE, "cannot compact %s: the rewritten files hold %lld rows, the files they "
                   "replace %lld; nothing was committed", out->table, (long long)rows, (long long)p->small_rows);
  }
  if (rc == WEIR_OK) {
    out->files = wr_calloc(n_pfiles ? n_pfiles : 1, sizeof *out->files);
    for (size_t i = 0; i < n_pfiles; i++) lake_data_file_from_parquet(&pfiles[i], &out->schema, &out->files[i]);
    out->n_files = n_pfiles;
    out->rows = rows;
  } else {
    weir_error ignore = {0};
    for (size_t i = 0; i < n_pfiles; i++) wr_storage_delete(pfiles[i].path, &ignore);
    weir_error_clear(&ignore);
  }
  wr_parquet_files_free(pfiles, n_pfiles);
  free(data_dir);
  free(location);
  free(qns);
  wr_buf_free(&sel);
  free(names);
  free(ids);
  free(ns);
  free(paths);
  lake_engine_put(lake, engine, LAKE_ENGINE_WAREHOUSE);
  return rc;
}

/* Deletes the data files a compaction wrote and did not commit. */
static void remove_files(const lake_staged *s) {
  weir_error ignore = {0};
  for (size_t i = 0; i < s->n_files; i++) wr_storage_delete(s->files[i].path, &ignore);
  weir_error_clear(&ignore);
}

/* The compaction itself; *out: the document's body (caller decrefs). */
static int compact(weir_lake *lake, const char *table, const weir_compact_options *opts, const char *why_msg,
                   json_t **out, weir_error *err) {
  *out = NULL;
  const char *branch = opts && opts->branch ? opts->branch : "main";
  int64_t target = opts && opts->target_file_size ? opts->target_file_size : DEFAULT_TARGET;
  int64_t min_files = opts && opts->min_files ? opts->min_files : DEFAULT_MIN_FILES;
  if (target < 0) return wr_seterr(err, WEIR_EINVALIDARG, "compact: --target-file-size %lld is negative", (long long)target);
  if (min_files < 0) return wr_seterr(err, WEIR_EINVALIDARG, "compact: --min-files %lld is negative", (long long)min_files);
  wr_table_id id;
  int rc = wr_table_id_parse(table, &id, err);
  if (rc) return rc;
  char full[2 * WEIR_NAME_MAX + 2];
  wr_table_id_format(&id, full, sizeof full);
  char base[WEIR_HASH_HEX_SIZE];
  if ((rc = lake_branch_head(lake, branch, base, err))) return rc;
  if ((rc = lake_table_fold_case(lake, base, &id, err))) return rc;
  wr_table_id_format(&id, full, sizeof full);
  iceberg_table *t = NULL;
  if ((rc = lake_table_at(lake, base, full, true, &t, err))) return rc;
  if (!t) return wr_seterr(err, WEIR_ENOTFOUND, "cannot compact table %s: it does not exist on branch %s", full, branch);

  compact_plan p;
  char why[160];
  const char *reason = plan_files(t, target, min_files, &p, why, sizeof why, err, &rc);
  lake_staged s;
  memset(&s, 0, sizeof s);
  char hash[WEIR_HASH_HEX_SIZE] = "";
  bool dry = opts && opts->dry_run;
  if (rc) goto done;
  if (!reason && !dry) {
    /* A protected branch would refuse the commit: say so before writing any file. */
    bool prot = false;
    if ((rc = catalog_branch_protected(lake->cat, branch, &prot, err))) goto done;
    if (prot) {
      rc = wr_seterr(err, WEIR_EINVALIDARG,
                     "branch %s is protected: it takes only merges (compact a branch and merge it into %s); "
                     "nothing was written", branch, branch);
      goto done;
    }
    lake_progress(lake, json_pack("{s:s,s:s,s:I,s:I}", "phase", "compact", "table", full, "files",
                                  (json_int_t)p.n_small, "bytes", (json_int_t)p.small_bytes));
    s.table = wr_strdup(full);
    s.mode = WEIR_MODE_REPLACE;
    wr_schema_copy(&s.schema, &t->schema);
    s.last_column_id = t->last_column_id;
    s.based_on = wr_strdup(t->metadata_location);
    s.properties = json_object(); /* nothing changes: not the contract, comment or lineage */
    s.summary = json_pack("{s:s}", "weir.operation", "compact");
    s.removed = wr_calloc(p.n_small, sizeof *s.removed);
    for (size_t i = 0; i < p.n_small; i++) s.removed[i] = wr_strdup(p.files[p.small[i]].path);
    s.n_removed = p.n_small;
    if ((rc = write_files(lake, &id, t, &p, target, &s, err))) goto done;
    /* The engine splits its output by its own estimate of the encoded size, so files just
     * under the target can come back as more, smaller ones: a compaction that would not
     * make fewer files is not committed (and the next one is then a no-op, not another
     * rewrite the other way). */
    if (s.n_files >= p.n_small) {
      snprintf(why, sizeof why, "rewriting its %zu small files made %zu files, no fewer; nothing was committed",
               p.n_small, s.n_files);
      reason = why;
      remove_files(&s);
      goto report;
    }
    if ((rc = WEIR_FAILPOINT("compact.data.after", err))) {
      remove_files(&s);
      goto done;
    }
    lake_progress(lake, json_pack("{s:s,s:s,s:I}", "phase", "commit", "table", full, "rows", (json_int_t)s.rows));
    char *msg = opts && opts->message ? NULL
                                      : wr_asprintf("compact %s: %zu files into %zu%s", full, p.n_small, s.n_files,
                                                    why_msg ? why_msg : "");
    json_t *props = json_pack("{s:s}", "weir.compact", full);
    lake_commit_request cr = {0};
    cr.branch = branch;
    cr.base = base;
    cr.message = msg ? msg : opts->message;
    cr.properties = props;
    rc = lake_commit_staged(lake, &cr, &s, 1, hash, err);
    json_decref(props);
    free(msg);
    if (rc) {
      /* Refused (the serializable rules, or the compare-and-swap lost every time): its
       * files belong to no commit, so they go now rather than wait for garbage
       * collection. After any other error the commit's outcome is not known for sure
       * (a catalog that failed after its COMMIT): the files stay, as every write's do. */
      if (rc == WEIR_ECONCURRENT) remove_files(&s);
      goto done;
    }
  }
report: {
    int64_t written_bytes = p.small_bytes;
    size_t written = (size_t)p.estimate;
    bool did = !reason && !dry;
    if (did) {
      written = s.n_files;
      written_bytes = 0;
      for (size_t i = 0; i < s.n_files; i++) written_bytes += s.files[i].file_size;
    }
    bool would = !reason;
    json_t *o = json_object();
    json_object_set_new(o, "table", json_string(full));
    json_object_set_new(o, "branch", json_string(branch));
    json_object_set_new(o, "base", json_string(base));
    json_object_set_new(o, "dry_run", json_boolean(dry));
    json_object_set_new(o, "compacted", json_boolean(did));
    json_object_set_new(o, "reason", reason ? json_string(reason) : json_null());
    json_object_set_new(o, "commit", did ? json_string(hash) : json_null());
    json_object_set_new(o, "target_file_size", json_integer(target));
    json_object_set_new(o, "files_before", json_integer((json_int_t)p.n_files));
    json_object_set_new(o, "files_after",
                        json_integer((json_int_t)(would ? p.n_files - p.n_small + written : p.n_files)));
    json_object_set_new(o, "files_rewritten", json_integer(would ? (json_int_t)p.n_small : 0));
    json_object_set_new(o, "files_written", json_integer(would ? (json_int_t)written : 0));
    json_object_set_new(o, "rows_rewritten", json_integer(would ? p.small_rows : 0));
    json_object_set_new(o, "bytes_rewritten", json_integer(would ? p.small_bytes : 0));
    json_object_set_new(o, "bytes_written", json_integer(would ? written_bytes : 0));
    *out = o;
  }
done:
  lake_staged_clear(&s);
  plan_clear(&p);
  iceberg_table_free(t);
  return rc;
}

int lake_table_compact(weir_lake *lake, const char *table, const weir_compact_options *opts, char **out_json,
                       weir_error *err) {
  *out_json = NULL;
  json_t *o = NULL;
  int rc = compact(lake, table, opts, NULL, &o, err);
  if (rc == WEIR_OK && !(*out_json = wr_doc_dump(WR_DOC_COMPACT, o))) rc = wr_oom(err);
  return rc;
}

/* The threshold a table version sets (weir.compact.min-files: a whole number >= 1), or 0. */
static int64_t auto_threshold(const iceberg_table *t) {
  const char *v = json_string_value(json_object_get(t->properties, PROP_AUTO_MIN_FILES));
  if (!v || !*v) return 0;
  char *end;
  long long n = strtoll(v, &end, 10);
  return *end == 0 && n >= 1 ? (int64_t)n : 0;
}

bool lake_compact_threshold_set(const iceberg_table *t) { return t && auto_threshold(t) > 0; }

json_t *lake_compact_after_append(weir_lake *lake, const char *table, const char *branch) {
  char head[WEIR_HASH_HEX_SIZE];
  weir_error err = {0};
  iceberg_table *t = NULL;
  json_t *out = NULL;
  int64_t n = 0;
  if (lake_branch_head(lake, branch, head, &err) == WEIR_OK && lake_table_at(lake, head, table, true, &t, &err) == WEIR_OK &&
      t)
    n = auto_threshold(t);
  iceberg_table_free(t);
  if (n > 0 && n < INT64_MAX) {
    weir_compact_options o = WEIR_COMPACT_OPTIONS_INIT;
    o.branch = branch;
    o.min_files = n + 1; /* more than N small files */
    char why[64];
    snprintf(why, sizeof why, " (%s %lld)", PROP_AUTO_MIN_FILES, (long long)n);
    json_t *doc = NULL;
    if (compact(lake, table, &o, why, &doc, &err) != WEIR_OK)
      out = json_pack("{s:o}", "error", wr_json_error(&err));
    else if (json_is_true(json_object_get(doc, "compacted")))
      out = json_incref(doc);
    json_decref(doc);
  }
  weir_error_clear(&err);
  return out;
}
