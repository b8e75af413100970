/*
 * delete.c -- row-level deletes as copy-on-write (docs/versioning.md, "Deletes"):
 * `weir delete TABLE --where PREDICATE`.
 *
 * Steps, against the write's base B (the branch head, or --expect-head):
 *   1. the predicate is judged for shape by DuckDB's parser (one expression over a row:
 *      no second statement, no FROM) and bound on a sealed engine (no file access at all)
 *      against an empty table of the table's schema, so a bad predicate is an error naming
 *      it before any data is read;
 *   2. the live data files at B are pruned by their column statistics (delete_prune.c):
 *      a file whose bounds prove the predicate false for every row is left alone
 *      (missing statistics mean unknown: the file is read);
 *   3. each other file is read (columns by field id, as every read) into Arrow; the
 *      predicate runs on the sealed engine over those rows; a row is deleted when the
 *      predicate is TRUE (NULL keeps it, as SQL's DELETE does). A file without a
 *      matching row is left alone; a file with some is rewritten without them by the
 *      same Parquet writer as every weir write (field ids, zstd, statistics); a file
 *      whose rows all match is dropped;
 *   4. when the stored contract has table-level rules (a minimum row count, a SQL table
 *      rule), the result is read and validated: a delete that breaks them is refused
 *      (WEIR_ECONTRACT, exit 3) and the files it wrote are removed;
 *   5. one commit: an Iceberg "overwrite" snapshot (the rewritten files DELETED, their
 *      rewrites ADDED, the untouched files kept as they are; "delete" when no file was
 *      rewritten, only dropped), summary weir.operation "delete". It lands only if the
 *      table did not change since B (serial.c: a delete never removes rows it did not
 *      read). The commit's properties say how many rows went.
 * No row matching is no commit: the document says so (deleted false, with a reason).
 * Older commits keep their files, so time travel still reads the deleted rows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/delete_prune.h"
#include "lake/json_out.h"
#include "lake/lake.h"
#include "lake/serial.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/failpoint.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

/* What a delete did to each data file of the base version. */
enum { FILE_KEPT = 0, FILE_PRUNED, FILE_REWRITTEN, FILE_DROPPED };

typedef struct delete_state {
  weir_lake *lake;
  const char *table;       /* "ns.name" */
  const char *where;
  const iceberg_table *t;
  wr_engine *wh;           /* reads and writes the warehouse */
  wr_engine *sealed;       /* runs the predicate: no files */
  char ns[32];             /* a schema of our own in each engine */
  char *qns;
  char *select_cols;       /* "c1", "c2", ... in schema order */
  const char **names;
  int32_t *ids;
  lake_staged s;
  int64_t rows_deleted;
  size_t scanned, pruned, rewritten, dropped;
  int32_t spec_id;         /* the partition spec of the files rewritten; -1: none yet */
} delete_state;

/* A rewritten file holds a subset of the rows of the file it replaces, so it has that
 * file's partition spec and tuple. The staged write carries one spec, that of every file
 * the delete removes (each manifest holding one is rewritten with it, and a manifest holds
 * files of one spec): a delete removing files of two specs is refused. */
static int note_spec(delete_state *d, const iceberg_data_file *from, weir_error *err) {
  if (d->spec_id >= 0 && d->spec_id != from->spec_id)
    return wr_seterr(err, WEIR_EUNSUPPORTED,
                     "delete from %s: the rows to delete are in files of two partition specs (%d and %d), "
                     "which one delete cannot rewrite yet; nothing was written (narrow the condition to "
                     "one spec's files, or replace the table)",
                     d->table, (int)d->spec_id, (int)from->spec_id);
  if (d->spec_id < 0) {
    int rc = iceberg_table_spec(d->t, from->spec_id, &d->s.spec, err);
    if (rc) return rc;
    d->spec_id = from->spec_id;
  }
  return WEIR_OK;
}

static int keep_partition(delete_state *d, const iceberg_data_file *from, iceberg_data_file *to, weir_error *err) {
  int rc = note_spec(d, from, err);
  if (rc) return rc;
  to->spec_id = from->spec_id;
  to->n_partition = from->n_partition;
  to->partition = from->n_partition ? wr_calloc(from->n_partition, sizeof *to->partition) : NULL;
  for (size_t k = 0; k < from->n_partition; k++) {
    to->partition[k].is_null = from->partition[k].is_null;
    to->partition[k].len = from->partition[k].len;
    if (from->partition[k].value) {
      to->partition[k].value = wr_malloc(from->partition[k].len ? from->partition[k].len : 1);
      memcpy(to->partition[k].value, from->partition[k].value, from->partition[k].len);
    }
  }
  return WEIR_OK;
}

static void drop_schema(wr_engine *e, const char *qns) {
  char *sql = wr_asprintf("DROP SCHEMA IF EXISTS %s CASCADE", qns);
  weir_error ignore = {0};
  wr_engine_exec(e, sql, &ignore);
  weir_error_clear(&ignore);
  free(sql);
}

/* Step 1: shape by the parser, then bound against the schema on the sealed engine. */
static int check_predicate(delete_state *d, weir_error *err) {
  weir_error why = {0};
  if (wr_engine_sql_shape(d->sealed, d->where, true, &why) != WEIR_OK) {
    int rc = wr_seterr(err, WEIR_EINPUT, "delete from %s: --where \"%s\" %s", d->table, d->where,
                       why.message ? why.message : "is not one SQL expression");
    weir_error_clear(&why);
    return rc;
  }
  int rc = wr_engine_create_empty(d->sealed, d->ns, "shape", &d->t->schema, err);
  if (rc) return rc;
  char *sql = wr_asprintf("SELECT (%s\n) AS m FROM %s.shape", d->where, d->qns);
  wr_schema out = {0};
  rc = wr_engine_describe(d->sealed, sql, &out, &why);
  free(sql);
  if (rc) {
    rc = wr_seterr(err, WEIR_EINPUT, "delete from %s: --where \"%s\" does not run on its columns: %s", d->table,
                   d->where, why.message ? why.message : "engine error");
    wr_error_add_dialect_hint(err, d->where);
  } else if (out.n_fields != 1 || (out.fields[0].type.id != WEIR_TYPE_BOOL && out.fields[0].type.id != WEIR_TYPE_ANY)) {
    char tn[WEIR_TYPE_NAME_MAX] = "?";
    if (out.n_fields == 1) wr_type_name(out.fields[0].type, tn, sizeof tn);
    rc = wr_seterr(err, WEIR_EINPUT, "delete from %s: --where \"%s\" is not a condition: it is %s, not Bool",
                   d->table, d->where, tn);
  }
  weir_error_clear(&why);
  wr_schema_clear(&out);
  return rc;
}

/* Step 3 for one file: reads it, keeps the rows the predicate does not match and, when
 * some matched, rewrites or drops it. *what: FILE_KEPT, FILE_REWRITTEN or FILE_DROPPED. */
static int delete_in_file(delete_state *d, const iceberg_data_file *f, const char *data_dir, int *what,
                          weir_error *err) {
  *what = FILE_KEPT;
  wr_arrow_table rows, kept;
  wr_arrow_table_init(&rows);
  wr_arrow_table_init(&kept);
  const char *paths[1] = {f->path};
  char *sql = NULL;
  int rc = wr_engine_attach_table(d->wh, d->ns, "file", &d->t->schema, paths, 1, err);
  if (rc == WEIR_OK) {
    sql = wr_asprintf("SELECT %s FROM %s.file", d->select_cols, d->qns);
    rc = wr_engine_query_table(d->wh, sql, &rows, err);
    free(sql);
  }
  char *rows_name = wr_asprintf("%s.rows", d->ns);
  char *kept_name = wr_asprintf("%s.kept", d->ns);
  if (rc == WEIR_OK) rc = wr_engine_register_arrow(d->sealed, rows_name, &rows, err);
  if (rc == WEIR_OK) {
    /* Deleted: the predicate is TRUE. NULL keeps the row (SQL's DELETE ... WHERE). */
    sql = wr_asprintf("SELECT %s FROM %s.rows WHERE NOT COALESCE((%s\n), false)", d->select_cols, d->qns, d->where);
    weir_error why = {0};
    rc = wr_engine_query_table(d->sealed, sql, &kept, &why);
    free(sql);
    if (rc) {
      rc = wr_seterr(err, WEIR_EINPUT, "delete from %s: --where \"%s\" does not run on the rows of %s: %s", d->table,
                     d->where, f->path, why.message ? why.message : "engine error");
      wr_error_add_dialect_hint(err, d->where);
    }
    weir_error_clear(&why);
    weir_error ignore = {0};
    wr_engine_unregister(d->sealed, rows_name, &ignore);
    weir_error_clear(&ignore);
  }
  int64_t matched = rc == WEIR_OK ? rows.n_rows - kept.n_rows : 0;
  if (rc == WEIR_OK && rows.n_rows != f->record_count)
    rc = wr_seterr(err, WEIR_EINPUT, "delete from %s: data file %s holds %lld rows, its manifest says %lld; nothing "
                   "was written", d->table, f->path, (long long)rows.n_rows, (long long)f->record_count);
  if (rc == WEIR_OK && matched > 0 && kept.n_rows == 0) {
    *what = FILE_DROPPED;
  } else if (rc == WEIR_OK && matched > 0) {
    wr_parquet_file *pfiles = NULL;
    size_t n_pfiles = 0;
    if ((rc = wr_engine_register_arrow(d->wh, kept_name, &kept, err)) == WEIR_OK) {
      sql = wr_asprintf("SELECT %s FROM %s.kept", d->select_cols, d->qns);
      rc = wr_engine_write_parquet(d->wh, sql, data_dir, d->names, d->ids, d->t->schema.n_fields, 0, &pfiles,
                                   &n_pfiles, err);
      free(sql);
      weir_error ignore = {0};
      wr_engine_unregister(d->wh, kept_name, &ignore);
      weir_error_clear(&ignore);
    }
    int64_t written = 0;
    for (size_t i = 0; i < n_pfiles; i++) written += pfiles[i].record_count;
    if (rc == WEIR_OK && written != kept.n_rows)
      rc = wr_seterr(err, WEIR_EENGINE, "delete from %s: rewriting %s wrote %lld rows of the %lld kept; nothing was "
                     "committed", d->table, f->path, (long long)written, (long long)kept.n_rows);
    if (rc == WEIR_OK) {
      d->s.files = wr_realloc(d->s.files, (d->s.n_files + n_pfiles) * sizeof *d->s.files);
      size_t i = 0;
      for (; i < n_pfiles && rc == WEIR_OK; i++) {
        lake_data_file_from_parquet(&pfiles[i], &d->s.schema, &d->s.files[d->s.n_files]);
        rc = keep_partition(d, f, &d->s.files[d->s.n_files++], err);
      }
      /* On a refusal the files staged so far go with remove_written; the rest here. */
      weir_error ignore = {0};
      for (; i < n_pfiles; i++) wr_storage_delete(pfiles[i].path, &ignore);
      weir_error_clear(&ignore);
      d->s.rows += written;
      *what = FILE_REWRITTEN;
    } else {
      weir_error ignore = {0};
      for (size_t i = 0; i < n_pfiles; i++) wr_storage_delete(pfiles[i].path, &ignore);
      weir_error_clear(&ignore);
    }
    wr_parquet_files_free(pfiles, n_pfiles);
  }
  if (rc == WEIR_OK && *what == FILE_DROPPED) rc = note_spec(d, f, err);
  if (rc == WEIR_OK && *what != FILE_KEPT) {
    d->s.removed = wr_realloc(d->s.removed, (d->s.n_removed + 1) * sizeof *d->s.removed);
    d->s.removed[d->s.n_removed++] = wr_strdup(f->path);
    d->rows_deleted += matched;
  }
  free(rows_name);
  free(kept_name);
  wr_arrow_table_release(&rows);
  wr_arrow_table_release(&kept);
  return rc;
}

/* Deletes the data files the delete wrote and did not commit. */
static void remove_written(const lake_staged *s) {
  weir_error ignore = {0};
  for (size_t i = 0; i < s->n_files; i++) wr_storage_delete(s->files[i].path, &ignore);
  weir_error_clear(&ignore);
}

/* Step 4: the result (the base's files minus the removed ones, plus the rewrites)
 * validated against the stored contract when it has table-level rules. */
static int check_contract(delete_state *d, const iceberg_data_file *files, size_t n_files, weir_error *err) {
  bool stored = false;
  weir_contract *c = lake_table_type(d->t, d->table, &stored);
  int rc = WEIR_OK;
  if (!stored || !c || c->n_rules == 0) goto done;
  size_t n = 0;
  const char **paths = wr_calloc(n_files + d->s.n_files + 1, sizeof *paths);
  for (size_t i = 0; i < n_files; i++) {
    bool gone = false;
    for (size_t k = 0; k < d->s.n_removed && !gone; k++) gone = strcmp(files[i].path, d->s.removed[k]) == 0;
    if (!gone) paths[n++] = files[i].path;
  }
  for (size_t i = 0; i < d->s.n_files; i++) paths[n++] = d->s.files[i].path;
  wr_arrow_table result;
  wr_arrow_table_init(&result);
  rc = wr_engine_attach_table(d->wh, d->ns, "result", &d->t->schema, paths, n, err);
  if (rc == WEIR_OK) {
    char *sql = wr_asprintf("SELECT %s FROM %s.result", d->select_cols, d->qns);
    rc = wr_engine_query_table(d->wh, sql, &result, err);
    free(sql);
  }
  free(paths);
  if (rc == WEIR_OK) {
    wr_validate_options vo = {0};
    vo.is_output = true;
    char *subject = wr_asprintf("delete from %s where %s (contract %s)", d->table, d->where,
                                c->name ? c->name : "stored");
    vo.subject = subject;
    vo.engine = d->sealed;
    wr_validation v = {0};
    rc = wr_contract_validate(c, &result, &vo, &v, err);
    if (rc == WEIR_ECONTRACT) wr_error_prefix(err, "the delete is refused, nothing was written");
    wr_validation_clear(&v);
    free(subject);
  }
  wr_arrow_table_release(&result);
done:
  wr_contract_free(c);
  return rc;
}

static int do_delete(weir_lake *lake, const char *table, const weir_delete_options *opts, json_t **out,
                     weir_error *err) {
  *out = NULL;
  const char *where = opts ? opts->where : NULL;
  const char *branch = opts && opts->branch ? opts->branch : "main";
  if (!where || !*where)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "delete from %s needs --where PREDICATE (weir_delete_options.where): the rows to delete, as "
                     "a SQL condition; to delete every row, say so: --where true", table);
  wr_table_id id;
  int rc = wr_table_id_parse(table, &id, err);
  if (rc) return rc;
  char base[WEIR_HASH_HEX_SIZE];
  if ((rc = lake_write_base(lake, branch, opts->expect_head, base, err))) return rc;
  if ((rc = lake_table_fold_case(lake, base, &id, err))) return rc;
  char full[2 * WEIR_NAME_MAX + 2];
  wr_table_id_format(&id, full, sizeof full);
  iceberg_table *t = NULL;
  if ((rc = lake_table_at(lake, base, full, true, &t, err))) return rc;
  if (!t) return wr_seterr(err, WEIR_ENOTFOUND, "cannot delete from table %s: it does not exist on branch %s", full,
                           branch);

  delete_state d;
  memset(&d, 0, sizeof d);
  d.spec_id = -1;
  d.lake = lake;
  d.table = full;
  d.where = where;
  d.t = t;
  char u[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(u);
  snprintf(d.ns, sizeof d.ns, "__weir_delete_%.8s", u);
  d.qns = wr_sql_ident(d.ns);
  iceberg_data_file *files = NULL;
  size_t n_files = 0;
  char hash[WEIR_HASH_HEX_SIZE] = "";
  const char *reason = NULL;
  char *location = NULL, *data_dir = NULL;
  bool prot = false;
  size_t nc = t->schema.n_fields;
  d.names = wr_calloc(nc ? nc : 1, sizeof *d.names);
  d.ids = wr_calloc(nc ? nc : 1, sizeof *d.ids);
  {
    wr_buf sel = WEIR_BUF_INIT;
    for (size_t i = 0; i < nc; i++) {
      d.names[i] = t->schema.fields[i].name;
      d.ids[i] = t->schema.fields[i].field_id;
      char *q = wr_sql_ident(d.names[i]);
      wr_buf_printf(&sel, "%s%s", i ? ", " : "", q);
      free(q);
    }
    d.select_cols = wr_buf_detach(&sel);
  }
  if ((rc = catalog_branch_protected(lake->cat, branch, &prot, err))) goto done;
  if (prot) {
    rc = wr_seterr(err, WEIR_EINVALIDARG,
                   "branch %s is protected: it takes only merges (delete on a branch and merge it into %s); "
                   "nothing was written", branch, branch);
    goto done;
  }
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_SEALED, &d.sealed, err))) goto done;
  if ((rc = check_predicate(&d, err))) goto done;
  if ((rc = iceberg_table_data_files(t, &files, &n_files, err))) goto done;
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &d.wh, err))) goto done;

  d.s.table = wr_strdup(full);
  d.s.mode = WEIR_MODE_REPLACE;
  d.s.delete_rows = true;
  wr_schema_copy(&d.s.schema, &t->schema);
  d.s.last_column_id = t->last_column_id;
  d.s.based_on = wr_strdup(t->metadata_location);
  d.s.properties = json_object(); /* the type, contract and comment stay as they are */
  location = lake_table_location(lake, &id);
  data_dir = wr_path_join(location, "data");

  {
    lake_prune *pr = NULL;
    if ((rc = lake_prune_compile(d.sealed, where, &pr, err))) goto done;
    for (size_t i = 0; i < n_files && rc == WEIR_OK; i++) {
      bool maybe = true;
      lake_prune_file(d.sealed, pr, &t->schema, &files[i], &maybe);
      if (!maybe) {
        d.pruned++;
        continue;
      }
      d.scanned++;
      lake_progress(lake, json_pack("{s:s,s:s,s:s,s:I}", "phase", "delete", "table", full, "file", files[i].path,
                                    "rows", (json_int_t)files[i].record_count));
      int what = FILE_KEPT;
      if ((rc = delete_in_file(&d, &files[i], data_dir, &what, err))) break;
      if (what == FILE_REWRITTEN) d.rewritten++;
      if (what == FILE_DROPPED) d.dropped++;
    }
    lake_prune_free(pr);
  }
  if (rc) {
    remove_written(&d.s);
    goto done;
  }
  if (d.rows_deleted == 0) {
    reason = "no row matches the predicate";
    goto report;
  }
  if ((rc = check_contract(&d, files, n_files, err)) || (rc = WEIR_FAILPOINT("delete.data.after", err))) {
    remove_written(&d.s);
    goto done;
  }
  {
    char n_text[32];
    snprintf(n_text, sizeof n_text, "%lld", (long long)d.rows_deleted);
    d.s.summary = json_pack("{s:s,s:s,s:s}", "weir.operation", "delete", "weir.delete.where", where,
                            "weir.rows-deleted", n_text);
    lake_progress(lake, json_pack("{s:s,s:s,s:I}", "phase", "commit", "table", full, "rows",
                                  (json_int_t)d.rows_deleted));
    char *msg = opts->message ? NULL
                              : wr_asprintf("delete from %s where %s: %lld row%s", full, where,
                                            (long long)d.rows_deleted, d.rows_deleted == 1 ? "" : "s");
    json_t *props = json_pack("{s:s,s:s,s:s}", "weir.delete", full, "weir.delete.where", where,
                              "weir.rows-deleted", n_text);
    lake_commit_request cr = {0};
    cr.branch = branch;
    cr.base = base;
    cr.message = msg ? msg : opts->message;
    cr.properties = props;
    rc = lake_commit_staged(lake, &cr, &d.s, 1, hash, err);
    json_decref(props);
    free(msg);
    if (rc) {
      /* Refused (serializable rules): the files belong to no commit. After other errors
       * the outcome is not known for sure: the files stay for gc, as every write's do. */
      if (rc == WEIR_ECONCURRENT) remove_written(&d.s);
      goto done;
    }
  }
report: {
    bool did = reason == NULL;
    json_t *o = json_object();
    json_object_set_new(o, "table", json_string(full));
    json_object_set_new(o, "branch", json_string(branch));
    json_object_set_new(o, "base", json_string(base));
    json_object_set_new(o, "where", json_string(where));
    json_object_set_new(o, "deleted", json_boolean(did));
    json_object_set_new(o, "reason", reason ? json_string(reason) : json_null());
    json_object_set_new(o, "commit", did ? json_string(hash) : json_null());
    json_object_set_new(o, "rows_deleted", json_integer(d.rows_deleted));
    json_object_set_new(o, "rows_before", json_integer(t->record_count));
    json_object_set_new(o, "rows_after", json_integer(t->record_count - d.rows_deleted));
    json_object_set_new(o, "files_before", json_integer((json_int_t)n_files));
    json_object_set_new(o, "files_pruned", json_integer((json_int_t)d.pruned));
    json_object_set_new(o, "files_scanned", json_integer((json_int_t)d.scanned));
    json_object_set_new(o, "files_rewritten", json_integer((json_int_t)d.rewritten));
    json_object_set_new(o, "files_dropped", json_integer((json_int_t)d.dropped));
    json_object_set_new(o, "files_written", json_integer((json_int_t)d.s.n_files));
    *out = o;
  }
done:
  if (d.sealed) {
    drop_schema(d.sealed, d.qns);
    lake_engine_put(lake, d.sealed, LAKE_ENGINE_SEALED);
  }
  if (d.wh) {
    drop_schema(d.wh, d.qns);
    lake_engine_put(lake, d.wh, LAKE_ENGINE_WAREHOUSE);
  }
  lake_staged_clear(&d.s);
  iceberg_data_files_free(files, n_files);
  free(location);
  free(data_dir);
  free(d.select_cols);
  free(d.names);
  free(d.ids);
  free(d.qns);
  iceberg_table_free(t);
  return rc;
}

int lake_table_delete(weir_lake *lake, const char *table, const weir_delete_options *opts, char **out_json,
                      weir_error *err) {
  *out_json = NULL;
  json_t *o = NULL;
  int rc = do_delete(lake, table, opts, &o, err);
  if (rc == WEIR_OK) *out_json = wr_doc_dump(WR_DOC_DELETE, o);
  return rc;
}
