/*
 * write.c -- staging table versions (data files) and committing them (Iceberg metadata +
 * one catalog commit), with optimistic retries when another writer moves the branch.
 *
 * Why two steps: data files are the expensive, immutable part and never depend on who
 * else is writing; metadata depends on the table's previous version, which can change
 * under us. So data is written once, and only the small metadata files are rewritten if
 * the compare-and-swap on the branch head loses a race (as Iceberg writers retry).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lake/lake.h"
#include "lake/serial.h"
#include "util/buf.h"
#include "util/failpoint.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/uuid.h"

#define COMMIT_ATTEMPTS 64

void lake_staged_clear(lake_staged *s) {
  if (!s) return;
  free(s->table);
  wr_schema_clear(&s->schema);
  iceberg_data_files_free(s->files, s->n_files);
  json_decref(s->properties);
  json_decref(s->summary);
  free(s->based_on);
  for (size_t i = 0; i < s->n_removed; i++) free(s->removed[i]);
  free(s->removed);
  iceberg_partition_spec_clear(&s->spec);
  memset(s, 0, sizeof *s);
}

/* ---- staging ---------------------------------------------------------------------- */

/* A statistic from the engine's JSON (text or number) as text, in `buf`. */
static const char *stat_text(const json_t *cs, const char *key, char *buf, size_t n) {
  json_t *v = json_object_get(cs, key);
  if (json_is_string(v)) return json_string_value(v);
  if (json_is_integer(v)) {
    snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    return buf;
  }
  if (json_is_boolean(v)) return json_is_true(v) ? "true" : "false";
  return NULL;
}

/* Iceberg stats for one Parquet file, from the statistics DuckDB reports while writing. */
void lake_data_file_from_parquet(const wr_parquet_file *pf, const wr_schema *schema, iceberg_data_file *df) {
  df->path = wr_strdup(pf->path);
  df->record_count = pf->record_count;
  df->file_size = pf->file_size;
  df->stats = wr_calloc(schema->n_fields ? schema->n_fields : 1, sizeof *df->stats);
  df->n_stats = schema->n_fields;
  for (size_t i = 0; i < schema->n_fields; i++) {
    json_t *cs = json_object_get(pf->column_stats, schema->fields[i].name);
    char b[6][32];
    iceberg_stats_text t = {0};
    t.min = stat_text(cs, "min", b[0], sizeof b[0]);
    t.max = stat_text(cs, "max", b[1], sizeof b[1]);
    t.null_count = stat_text(cs, "null_count", b[2], sizeof b[2]);
    t.num_values = stat_text(cs, "num_values", b[3], sizeof b[3]);
    t.column_size = stat_text(cs, "column_size_bytes", b[4], sizeof b[4]);
    t.has_nan = stat_text(cs, "has_nan", b[5], sizeof b[5]);
    iceberg_column_stats_from_text(&schema->fields[i], &t, &df->stats[i]);
  }
}

int lake_stage_table(weir_lake *lake, wr_engine *engine, wr_arrow_table *data,
                     const lake_stage_request *req, lake_staged *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  wr_table_id id;
  int rc = wr_table_id_parse(req->table, &id, err);
  if (rc) return rc;
  char full[2 * WEIR_NAME_MAX + 2];
  wr_table_id_format(&id, full, sizeof full);

  iceberg_table *prev = NULL;
  char *location = lake_table_location(lake, &id);
  char *data_dir = wr_path_join(location, "data");
  char *view = NULL;
  wr_parquet_file *pfiles = NULL;
  size_t n_pfiles = 0;
  const char **names = NULL;
  int32_t *ids = NULL;

  if (req->base_commit && (rc = lake_table_at(lake, req->base_commit, full, true, &prev, err))) goto done;

  out->table = wr_strdup(full);
  out->mode = req->mode;
  if (req->contract) wr_contract_schema(req->contract, &out->schema);
  iceberg_assign_field_ids(prev, &out->schema, &out->last_column_id);
  out->based_on = prev ? wr_strdup(prev->metadata_location) : NULL;
  {
    /* Declared outside the contract (a model's), else the contract's. */
    /* Only a declared contract's, and for an append only when given with the write
     * (stage.c passes it as partition_by): the stored contract an append is checked with
     * may predate a partition evolution, and appending keeps the table's default spec. */
    bool use_contract = req->contract && req->declared && !(req->mode == WEIR_MODE_APPEND && prev);
    size_t np = req->partition_by ? json_array_size(req->partition_by)
                                  : (use_contract ? req->contract->n_partition_by : 0);
    const char **texts = wr_calloc(np ? np : 1, sizeof *texts);
    for (size_t i = 0; i < np; i++)
      texts[i] = req->partition_by ? json_string_value(json_array_get(req->partition_by, i))
                                   : req->contract->partition_by[i];
    char *who = req->contract && req->contract->name && !req->partition_by
                    ? wr_asprintf("contract %s", req->contract->name)
                    : wr_asprintf("table %s", full);
    rc = lake_partition_spec_for(texts, np, who, prev, req->mode, &out->schema, &out->spec, err);
    free(who);
    free(texts);
  }
  if (rc) {
    wr_error_prefix(err, "cannot write %s", full);
    goto done;
  }

  /* Parquet: the columns in declared order, each carrying its Iceberg field id. */
  size_t nc = out->schema.n_fields;
  names = wr_calloc(nc ? nc : 1, sizeof *names);
  ids = wr_calloc(nc ? nc : 1, sizeof *ids);
  wr_buf sel = WEIR_BUF_INIT;
  wr_buf_puts(&sel, "SELECT ");
  for (size_t i = 0; i < nc; i++) {
    names[i] = out->schema.fields[i].name;
    ids[i] = out->schema.fields[i].field_id;
    char *q = wr_sql_ident(names[i]);
    wr_buf_printf(&sel, "%s%s", i ? ", " : "", q);
    free(q);
  }
  char u[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(u);
  view = wr_asprintf("__weir_stage_%.8s", u);
  wr_buf_printf(&sel, " FROM %s", view);
  if (nc > 0 && data->n_rows > 0) {
    if ((rc = wr_engine_register_arrow(engine, view, data, err))) {
      wr_buf_free(&sel);
      goto done;
    }
    rc = WEIR_FAILPOINT("stage.data.before", err);
    if (rc == WEIR_OK && out->spec.n_fields > 0)
      rc = lake_write_partitioned(engine, view, &out->schema, &out->spec, data_dir, &out->files, &out->n_files,
                                  &out->rows, err);
    else if (rc == WEIR_OK)
      rc = wr_engine_write_parquet(engine, wr_buf_cstr(&sel), data_dir, names, ids, nc, 0, &pfiles,
                                     &n_pfiles, err);
    if (rc == WEIR_OK) rc = WEIR_FAILPOINT("stage.data.after", err);
    weir_error ignore = {0};
    wr_engine_unregister(engine, view, &ignore);
    weir_error_clear(&ignore);
    if (rc) {
      wr_buf_free(&sel);
      wr_error_prefix(err, "cannot write the data of %s", full);
      goto done;
    }
  }
  wr_buf_free(&sel);

  if (!out->files) {
    out->files = wr_calloc(n_pfiles ? n_pfiles : 1, sizeof *out->files);
    for (size_t i = 0; i < n_pfiles; i++) {
      lake_data_file_from_parquet(&pfiles[i], &out->schema, &out->files[i]);
      out->rows += pfiles[i].record_count;
    }
    out->n_files = n_pfiles;
  }

  /* Table properties: the contract travels with the data. A replace without a contract
   * removes the previous version's contract, docs and lineage, which no longer apply. */
  out->properties = json_object();
  const char *comment = req->comment ? req->comment
                                     : (req->contract && req->declared ? req->contract->description : NULL);
  if (req->contract && req->declared) {
    json_t *ir = wr_contract_to_ir(req->contract);
    char *text = wr_json_canonical(ir);
    json_object_set_new(out->properties, "weir.contract", json_string(text));
    free(text);
    json_decref(ir);
  }
  if (comment) json_object_set_new(out->properties, "comment", json_string(comment));
  if (req->contract && req->declared) {
    json_t *lin = wr_contract_lineage_json(req->contract);
    if (json_object_size(lin) > 0) {
      char *s = wr_json_canonical(lin);
      json_object_set_new(out->properties, "weir.lineage", json_string(s));
      free(s);
    } else if (req->mode != WEIR_MODE_APPEND) {
      json_object_set_new(out->properties, "weir.lineage", json_null());
    }
    json_decref(lin);
  }
  if (req->mode != WEIR_MODE_APPEND) {
    if (!json_object_get(out->properties, "weir.contract")) json_object_set_new(out->properties, "weir.contract", json_null());
    if (!comment) json_object_set_new(out->properties, "comment", json_null());
  }
  out->summary = req->summary ? json_deep_copy(req->summary) : json_object();

done:
  free(names);
  free(ids);
  free(view);
  wr_parquet_files_free(pfiles, n_pfiles);
  iceberg_table_free(prev);
  free(data_dir);
  free(location);
  if (rc) lake_staged_clear(out);
  return rc;
}

/* ---- committing --------------------------------------------------------------------- */

/* A new table whose name differs from an existing one only in case. SQL folds the case of
 * names (DuckDB's catalog is case-insensitive), so a query reading both `a` and `A` would
 * read one of them twice: such a pair is refused where it would be made. Listing the
 * branch's tables costs one walk of its tree, paid only when a table is created. */
static int check_case_twin(weir_lake *lake, const char *head, const char *table, const char *branch,
                           weir_error *err) {
  wr_table_entry *all = NULL;
  size_t n = 0;
  int rc = catalog_tables(lake->cat, head, &all, &n, err);
  for (size_t i = 0; i < n && rc == WEIR_OK; i++)
    if (strcasecmp(all[i].table, table) == 0 && strcmp(all[i].table, table) != 0)
      rc = wr_seterr(err, WEIR_EEXISTS,
                       "table %s would differ from table %s on branch %s only in case; SQL names "
                       "are case-insensitive, so queries could not tell them apart (choose another name)",
                       table, all[i].table, branch);
  wr_table_entries_free(all, n);
  return rc;
}

/* Sleep a little, more after each lost race, with jitter so retrying writers spread. */
static void backoff(int attempt) {
  uint32_t r;
  wr_random_bytes(&r, sizeof r);
  long us = (long)(200 * (1 << (attempt < 8 ? attempt : 8))) + (long)(r % 1000);
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

int lake_commit_staged(weir_lake *lake, const lake_commit_request *req, lake_staged *staged,
                       size_t n, char out_hash[WEIR_HASH_HEX_SIZE], weir_error *err) {
  const char *branch = req->branch && *req->branch ? req->branch : "main";
  wr_table_change *changes = wr_calloc(n ? n : 1, sizeof *changes);
  iceberg_write_result *results = wr_calloc(n ? n : 1, sizeof *results);
  char base[WEIR_HASH_HEX_SIZE] = "";
  if (req->base) snprintf(base, sizeof base, "%s", req->base);
  if (req->revalidate) *req->revalidate = false;
  int rc = WEIR_OK;
  for (int attempt = 0; attempt < COMMIT_ATTEMPTS; attempt++) {
    char head[WEIR_HASH_HEX_SIZE];
    for (size_t i = 0; i < n; i++) {
      free(results[i].metadata_location);
      memset(&results[i], 0, sizeof results[i]);
    }
    if ((rc = lake_branch_head(lake, branch, head, err))) break;
    if (req->expected_head && strcmp(head, req->expected_head) != 0) {
      rc = wr_seterr(err, WEIR_ECONCURRENT,
                       "branch \"%s\" moved from %.12s to %.12s while writing; nothing was committed",
                       branch, req->expected_head, head);
      break;
    }
    if (!base[0]) memcpy(base, head, sizeof base);
    /* The rules are checked against exactly the head the compare-and-swap below requires:
     * if another writer gets in between, the CAS fails and the next attempt checks again. */
    if ((rc = lake_check_serial(lake, branch, base, head, staged, n, req->reads, req->n_reads, req->revalidate,
                                err)))
      break;
    for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
      lake_staged *s = &staged[i];
      iceberg_table *prev = NULL;
      if ((rc = lake_table_at(lake, head, s->table, true, &prev, err))) break;
      if (prev && s->mode == WEIR_MODE_CREATE) {
        rc = wr_seterr(err, WEIR_EEXISTS,
                         "table %s already exists on branch %s (use --mode replace or --mode append)",
                         s->table, branch);
        iceberg_table_free(prev);
        break;
      }
      if (!prev && (rc = check_case_twin(lake, head, s->table, branch, err))) break;
      char *location = NULL;
      {
        wr_table_id id;
        wr_table_id_parse(s->table, &id, NULL);
        location = lake_table_location(lake, &id);
      }
      iceberg_write_request w = {0};
      w.table_location = location;
      w.prev = prev;
      w.op = (s->mode == WEIR_MODE_APPEND && prev) ? ICEBERG_OP_APPEND : ICEBERG_OP_OVERWRITE;
      if (s->n_removed > 0) w.op = s->delete_rows ? ICEBERG_OP_DELETE : ICEBERG_OP_REPLACE;
      w.removed = (const char *const *)s->removed;
      w.n_removed = s->n_removed;
      w.schema = &s->schema;
      w.spec = &s->spec;
      w.files = s->files;
      w.n_files = s->n_files;
      w.properties = s->properties;
      /* Which weir commit this snapshot belongs to, for an engine reading the table's
       * history: the branch it was committed on and the commit it follows. */
      json_t *summary = s->summary ? json_deep_copy(s->summary) : json_object();
      json_object_set_new(summary, "weir.branch", json_string(branch));
      json_object_set_new(summary, "weir.parent-commit", json_string(head));
      w.summary = summary;
      if (s->schema_only)
        rc = prev ? iceberg_write_schema_change(location, prev, &s->schema, s->last_column_id, s->properties,
                                                &results[i], err)
                  : wr_seterr(err, WEIR_ECONCURRENT, "table %s no longer exists on branch %s; nothing was committed",
                              s->table, branch);
      else
        rc = iceberg_write_version(&w, &results[i], err);
      json_decref(summary);
      free(location);
      iceberg_table_free(prev);
      if (rc) break;
      changes[i].table = s->table;
      changes[i].metadata_location = results[i].metadata_location;
      changes[i].snapshot_id = results[i].snapshot_id;
      changes[i].record_count = results[i].record_count;
    }
    if (rc) break;
    wr_commit_request c = {0};
    c.branch = branch;
    c.expected_head = head;
    c.changes = changes;
    c.n_changes = n;
    c.author = lake->author;
    c.message = req->message;
    c.properties = req->properties;
    c.run_id = req->run_id;
    weir_error inner = {0};
    rc = catalog_commit(lake->cat, &c, out_hash, &inner);
    if (rc == WEIR_ECONCURRENT && !req->expected_head && attempt + 1 < COMMIT_ATTEMPTS) {
      weir_error_clear(&inner);
      backoff(attempt);
      continue;
    }
    wr_error_move(err, &inner);
    break;
  }
  for (size_t i = 0; i < n; i++) free(results[i].metadata_location);
  free(results);
  free(changes);
  return rc;
}

/* ---- JSON form of a staged version (worker protocol) ---------------------------------- */

static json_t *hex_json(const uint8_t *b, size_t n) {
  if (!b) return json_null();
  char *hex = wr_malloc(2 * n + 1);
  wr_hex_encode(b, n, hex);
  json_t *s = json_string(hex);
  free(hex);
  return s;
}

static uint8_t *hex_decode(const char *hex, size_t *n) {
  size_t len = strlen(hex) / 2;
  uint8_t *b = wr_malloc(len ? len : 1);
  for (size_t i = 0; i < len; i++) {
    unsigned v = 0;
    sscanf(hex + 2 * i, "%2x", &v);
    b[i] = (uint8_t)v;
  }
  *n = len;
  return b;
}

json_t *lake_staged_to_json(const lake_staged *s) {
  json_t *o = json_object();
  json_object_set_new(o, "table", json_string(s->table));
  json_object_set_new(o, "mode", json_integer(s->mode));
  json_object_set_new(o, "schema", wr_schema_to_json(&s->schema));
  json_object_set_new(o, "last_column_id", json_integer(s->last_column_id));
  json_object_set_new(o, "rows", json_integer(s->rows));
  json_object_set_new(o, "properties", json_incref(s->properties));
  json_object_set_new(o, "summary", json_incref(s->summary));
  json_object_set_new(o, "based_on", wr_json_str_or_null(s->based_on));
  json_object_set_new(o, "read_rows", json_boolean(s->read_rows));
  if (s->delete_rows) json_object_set_new(o, "delete_rows", json_true());
  if (s->n_removed > 0) {
    json_t *rm = json_array();
    for (size_t i = 0; i < s->n_removed; i++) json_array_append_new(rm, json_string(s->removed[i]));
    json_object_set_new(o, "removed", rm);
  }
  json_t *files = json_array();
  for (size_t i = 0; i < s->n_files; i++) {
    const iceberg_data_file *f = &s->files[i];
    json_t *fo = json_object();
    json_object_set_new(fo, "path", json_string(f->path));
    json_object_set_new(fo, "record_count", json_integer(f->record_count));
    json_object_set_new(fo, "file_size", json_integer(f->file_size));
    json_t *stats = json_array();
    for (size_t j = 0; j < f->n_stats; j++) {
      const iceberg_column_stats *st = &f->stats[j];
      json_t *so = json_object();
      json_object_set_new(so, "field_id", json_integer(st->field_id));
      json_object_set_new(so, "value_count", json_integer(st->value_count));
      json_object_set_new(so, "null_count", json_integer(st->null_count));
      json_object_set_new(so, "nan_count", json_integer(st->nan_count));
      json_object_set_new(so, "column_size", json_integer(st->column_size));
      json_object_set_new(so, "lower", hex_json(st->lower, st->lower_len));
      json_object_set_new(so, "upper", hex_json(st->upper, st->upper_len));
      json_array_append_new(stats, so);
    }
    json_object_set_new(fo, "stats", stats);
    if (f->n_partition) {
      json_t *pv = json_array();
      for (size_t k = 0; k < f->n_partition; k++)
        json_array_append_new(pv, f->partition[k].is_null ? json_null()
                                                          : hex_json(f->partition[k].value, f->partition[k].len));
      json_object_set_new(fo, "partition", pv);
    }
    json_array_append_new(files, fo);
  }
  json_object_set_new(o, "files", files);
  if (s->spec.n_fields) json_object_set_new(o, "partition_spec", iceberg_partition_spec_to_json(&s->spec));
  return o;
}

int lake_staged_from_json(const json_t *j, lake_staged *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  const char *table = wr_json_str(j, "table", NULL);
  if (!table) return wr_seterr(err, WEIR_EINPUT, "staged output: missing \"table\"");
  out->table = wr_strdup(table);
  out->mode = (weir_write_mode)wr_json_int(j, "mode", WEIR_MODE_REPLACE);
  int rc = wr_schema_from_json(json_object_get(j, "schema"), &out->schema, err);
  if (rc) {
    lake_staged_clear(out);
    return rc;
  }
  out->last_column_id = (int32_t)wr_json_int(j, "last_column_id", 0);
  out->rows = wr_json_int(j, "rows", 0);
  json_t *p = json_object_get(j, "properties");
  out->properties = json_is_object(p) ? json_deep_copy(p) : json_object();
  json_t *sm = json_object_get(j, "summary");
  out->summary = json_is_object(sm) ? json_deep_copy(sm) : json_object();
  out->based_on = wr_strdup(wr_json_str(j, "based_on", NULL));
  out->read_rows = json_is_true(json_object_get(j, "read_rows"));
  out->delete_rows = json_is_true(json_object_get(j, "delete_rows"));
  json_t *rm = json_object_get(j, "removed");
  out->n_removed = json_array_size(rm);
  out->removed = out->n_removed ? wr_calloc(out->n_removed, sizeof *out->removed) : NULL;
  for (size_t i = 0; i < out->n_removed; i++) out->removed[i] = wr_strdup(json_string_value(json_array_get(rm, i)));
  json_t *files = json_object_get(j, "files");
  size_t nf = json_array_size(files);
  out->files = wr_calloc(nf ? nf : 1, sizeof *out->files);
  for (size_t i = 0; i < nf; i++) {
    json_t *fo = json_array_get(files, i);
    iceberg_data_file *f = &out->files[i];
    f->path = wr_strdup(wr_json_str(fo, "path", ""));
    f->record_count = wr_json_int(fo, "record_count", 0);
    f->file_size = wr_json_int(fo, "file_size", 0);
    json_t *stats = json_object_get(fo, "stats");
    f->n_stats = json_array_size(stats);
    f->stats = wr_calloc(f->n_stats ? f->n_stats : 1, sizeof *f->stats);
    for (size_t k = 0; k < f->n_stats; k++) {
      json_t *so = json_array_get(stats, k);
      iceberg_column_stats *st = &f->stats[k];
      st->field_id = (int32_t)wr_json_int(so, "field_id", 0);
      st->value_count = wr_json_int(so, "value_count", -1);
      st->null_count = wr_json_int(so, "null_count", -1);
      st->nan_count = wr_json_int(so, "nan_count", -1);
      st->column_size = wr_json_int(so, "column_size", -1);
      const char *lo = wr_json_str(so, "lower", NULL);
      const char *hi = wr_json_str(so, "upper", NULL);
      if (lo) st->lower = hex_decode(lo, &st->lower_len);
      if (hi) st->upper = hex_decode(hi, &st->upper_len);
    }
    json_t *pv = json_object_get(fo, "partition");
    f->n_partition = json_array_size(pv);
    if (f->n_partition) f->partition = wr_calloc(f->n_partition, sizeof *f->partition);
    for (size_t k = 0; k < f->n_partition; k++) {
      const char *hex = json_string_value(json_array_get(pv, k));
      if (!hex) f->partition[k].is_null = true;
      else f->partition[k].value = hex_decode(hex, &f->partition[k].len);
    }
  }
  out->n_files = nf;
  json_t *spec = json_object_get(j, "partition_spec");
  if (spec && (rc = iceberg_partition_spec_from_json(spec, &out->schema, &out->spec, err))) {
    lake_staged_clear(out);
    return rc;
  }
  return WEIR_OK;
}
