/*
 * import.c -- loading files and Arrow streams into tables: read, validate (with the
 * given contract, the table's own schema on append, or an inferred one), stage the table
 * and its quarantine, commit both at once.
 */
#include <stdlib.h>
#include <string.h>

#include "lake/lake.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"

static const char *mode_name(weir_write_mode m) {
  switch (m) {
  case WEIR_MODE_APPEND: return "append";
  case WEIR_MODE_REPLACE: return "replace";
  default: return "create";
  }
}

/* ---- the contract an import is checked against -------------------------------------- */

/* The weir type an Arrow column of format `f` is stored as, when no contract says:
 * exact when one exists, otherwise the type it widens to without loss. */
static bool storable_type(const struct ArrowSchema *field, weir_type *out, char *why, size_t why_size) {
  const char *f = field->dictionary ? field->dictionary->format : field->format;
  memset(out, 0, sizeof *out);
  if (weir_type_from_arrow_format(f, out)) {
    if (out->id == WEIR_TYPE_DATE64) {
      snprintf(why, why_size, "date64 has no Iceberg type; declare it Date32 after converting");
      return false;
    }
    return true;
  }
  static const struct {
    const char *fmt;
    weir_type_id id;
  } widen[] = {{"c", WEIR_TYPE_INT32}, {"s", WEIR_TYPE_INT32}, {"C", WEIR_TYPE_INT32},
               {"S", WEIR_TYPE_INT32}, {"I", WEIR_TYPE_INT64}, {"e", WEIR_TYPE_FLOAT32},
               {"u", WEIR_TYPE_STRING}, {"vu", WEIR_TYPE_STRING}, {"z", WEIR_TYPE_BINARY},
               {"vz", WEIR_TYPE_BINARY}, {"tss:", WEIR_TYPE_TS_US}, {"tsm:", WEIR_TYPE_TS_US},
               {"tss:UTC", WEIR_TYPE_TS_US_UTC}, {"tsm:UTC", WEIR_TYPE_TS_US_UTC}};
  for (size_t i = 0; i < sizeof widen / sizeof widen[0]; i++)
    if (strcmp(f, widen[i].fmt) == 0) {
      out->id = widen[i].id;
      return true;
    }
  if (f[0] == 'w' && f[1] == ':') {
    out->id = WEIR_TYPE_BINARY;
    return true;
  }
  char tn[96];
  weir_arrow_type_name(field, tn, sizeof tn);
  if (f[0] == 't' && f[1] == 's')
    snprintf(why, why_size, "type %s: weir stores time-zoned timestamps in UTC only", tn);
  else
    snprintf(why, why_size, "type %s has no weir type (see docs/types.md)", tn);
  return false;
}

int lake_infer_contract(const weir_arrow_table *data, const char *name, weir_contract **out,
                        weir_error *err) {
  *out = NULL;
  weir_schema s = {0};
  int64_t nc = weir_arrow_table_ncols(data);
  for (int64_t c = 0; c < nc; c++) {
    const struct ArrowSchema *field = data->schema.children[c];
    weir_field f = {0};
    char why[160];
    if (!storable_type(field, &f.type, why, sizeof why)) {
      weir_schema_clear(&s);
      return weir_seterr(err, WEIR_EUNSUPPORTED, "column \"%s\" cannot be stored: %s", field->name, why);
    }
    int64_t nulls = 0;
    for (size_t b = 0; b < data->n_batches; b++)
      nulls += weir_arrow_null_count(weir_arrow_batch_array(data->batches[b])->children[c]);
    /* A column without nulls is recorded required: the table's schema then states what
     * the data showed, and later appends are held to it. An empty table proves nothing. */
    f.required = data->n_rows > 0 && nulls == 0 && strcmp(field->format, "n") != 0;
    f.name = (char *)field->name;
    weir_schema_add(&s, &f);
  }
  *out = weir_contract_from_schema(&s, name);
  weir_schema_clear(&s);
  return WEIR_OK;
}

/* ---- shared import path ------------------------------------------------------------- */

typedef struct import_ctx {
  weir_lake *lake;
  const weir_import_options *opts;
  weir_table_id id;
  char table[2 * WEIR_NAME_MAX + 2];
  const char *branch;
  const char *source;        /* file name or "<arrow>" for messages */
  char head[WEIR_HASH_HEX_SIZE];
  weir_contract *contract;   /* user contract, or NULL */
} import_ctx;

/* Per-rule results as snapshot summary entries ("weir.rule.<name>": JSON text). */
static void add_rule_summary(json_t *summary, const json_t *report) {
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(report, "rules"), i, r) {
    const char *name = weir_json_str(r, "rule", NULL);
    if (!name) continue;
    char *key = weir_asprintf("weir.rule.%s", name);
    char *val = weir_json_canonical(r);
    json_object_set_new(summary, key, json_string(val));
    free(key);
    free(val);
  }
}

static int import_table(import_ctx *ic, weir_engine *engine, weir_arrow_table *data,
                        char **out_json, weir_error *err) {
  weir_lake *lake = ic->lake;
  const weir_import_options *opts = ic->opts;
  int rc;
  iceberg_table *prev = NULL;
  weir_contract *effective = NULL;
  weir_contract *table_contract = NULL;
  weir_validation v = {0}, v2 = {0};
  lake_staged staged[2];
  memset(staged, 0, sizeof staged);
  size_t n_staged = 0;
  json_t *summary = json_object();
  char *subject = NULL;

  if ((rc = lake_table_at(lake, ic->head, ic->table, true, &prev, err))) goto done;
  if (prev && opts->mode == WEIR_MODE_CREATE) {
    rc = weir_seterr(err, WEIR_EEXISTS,
                     "table %s already exists on branch %s (use --mode replace or --mode append)",
                     ic->table, ic->branch);
    goto done;
  }
  bool appending = opts->mode == WEIR_MODE_APPEND && prev;
  if (appending) table_contract = weir_contract_from_schema(&prev->schema, ic->table);

  if (ic->contract) {
    effective = weir_contract_copy(ic->contract);
    subject = weir_asprintf("import of %s into %s (contract %s)", ic->source, ic->table,
                            ic->contract->name ? ic->contract->name : "unnamed");
  } else if (appending) {
    effective = weir_contract_copy(table_contract);
    subject = weir_asprintf("import of %s into %s (the table's schema on branch %s)", ic->source,
                            ic->table, ic->branch);
  } else {
    if ((rc = lake_infer_contract(data, ic->id.name, &effective, err))) {
      weir_error_prefix(err, "cannot import %s into %s", ic->source, ic->table);
      goto done;
    }
    subject = weir_asprintf("import of %s into %s", ic->source, ic->table);
  }

  weir_validate_options vo = {0};
  vo.is_output = true;
  vo.subject = subject;
  vo.engine = engine;
  lake_progress(lake, json_pack("{s:s,s:s,s:I}", "phase", "validate", "table", ic->table, "rows",
                                (json_int_t)data->n_rows));
  rc = weir_contract_validate(effective, data, &vo, &v, err);
  if (rc) goto done;
  weir_arrow_table *final_data = &v.valid;
  if (appending && ic->contract) {
    /* Data that meets the user's contract must still fit the table it is appended to. */
    char *subject2 = weir_asprintf("import of %s into %s (the table's schema on branch %s)",
                                   ic->source, ic->table, ic->branch);
    vo.subject = subject2;
    rc = weir_contract_validate(table_contract, &v.valid, &vo, &v2, err);
    free(subject2);
    if (rc) goto done;
    final_data = &v2.valid;
  }

  json_object_set_new(summary, "weir.operation", json_string("import"));
  json_object_set_new(summary, "weir.source", json_string(weir_path_basename(ic->source)));
  add_rule_summary(summary, v.report);

  lake_stage_request sr = {0};
  sr.table = ic->table;
  sr.mode = opts->mode;
  sr.contract = appending ? table_contract : effective;
  sr.declared = ic->contract != NULL && !appending;
  sr.summary = summary;
  sr.base_commit = ic->head;
  lake_progress(lake, json_pack("{s:s,s:s,s:I}", "phase", "write", "table", ic->table, "rows",
                                (json_int_t)final_data->n_rows));
  if ((rc = lake_stage_table(lake, engine, final_data, &sr, &staged[n_staged], err))) goto done;
  n_staged++;

  int64_t quarantined = v.quarantine.n_rows;
  char qname[2 * WEIR_NAME_MAX + 16] = "";
  if (quarantined > 0) {
    snprintf(qname, sizeof qname, "%s__quarantine", ic->table);
    weir_contract *qc = NULL;
    if ((rc = lake_infer_contract(&v.quarantine, "quarantine", &qc, err))) goto done;
    lake_stage_request qr = {0};
    qr.table = qname;
    qr.mode = opts->mode == WEIR_MODE_APPEND ? WEIR_MODE_APPEND : WEIR_MODE_REPLACE;
    qr.contract = qc;
    qr.declared = false;
    char *qcomment = weir_asprintf("Rows of %s rejected by drop-mode contract rules (column _weir_rule names the rule).",
                                   ic->table);
    qr.comment = qcomment;
    qr.summary = summary;
    qr.base_commit = ic->head;
    rc = lake_stage_table(lake, engine, &v.quarantine, &qr, &staged[n_staged], err);
    free(qcomment);
    weir_contract_free(qc);
    if (rc) goto done;
    n_staged++;
  }

  char *msg = opts->message ? NULL
                            : weir_asprintf("import %s into %s", weir_path_basename(ic->source), ic->table);
  lake_commit_request cr = {0};
  cr.branch = ic->branch;
  cr.message = opts->message ? opts->message : msg;
  char hash[WEIR_HASH_HEX_SIZE];
  rc = lake_commit_staged(lake, &cr, staged, n_staged, hash, err);
  free(msg);
  if (rc) goto done;

  json_t *o = json_object();
  json_object_set_new(o, "commit", json_string(hash));
  json_object_set_new(o, "branch", json_string(ic->branch));
  json_object_set_new(o, "table", json_string(ic->table));
  json_object_set_new(o, "mode", json_string(mode_name(opts->mode)));
  json_object_set_new(o, "rows_written", json_integer(staged[0].rows));
  json_object_set_new(o, "rows_quarantined", json_integer(quarantined));
  json_object_set_new(o, "quarantine_table", quarantined ? json_string(qname) : json_null());
  json_object_set_new(o, "report", json_incref(v.report));
  *out_json = lake_dump(o);

done:
  for (size_t i = 0; i < n_staged; i++) lake_staged_clear(&staged[i]);
  weir_validation_clear(&v);
  weir_validation_clear(&v2);
  weir_contract_free(effective);
  weir_contract_free(table_contract);
  iceberg_table_free(prev);
  json_decref(summary);
  free(subject);
  return rc;
}

/* Checks everything that can be checked before reading any data. */
static int import_prepare(import_ctx *ic, weir_lake *lake, const weir_import_options *opts,
                          const char *source, weir_error *err) {
  memset(ic, 0, sizeof *ic);
  ic->lake = lake;
  ic->opts = opts;
  ic->source = source;
  if (!opts || !opts->table)
    return weir_seterr(err, WEIR_EINVALIDARG, "no table given (--table NAME)");
  int rc = weir_table_id_parse(opts->table, &ic->id, err);
  if (rc) return rc;
  weir_table_id_format(&ic->id, ic->table, sizeof ic->table);
  size_t name_len = strlen(ic->id.name);
  if (name_len >= 12 && strcmp(ic->id.name + name_len - 12, "__quarantine") == 0)
    return weir_seterr(err, WEIR_EINVALIDNAME,
                       "invalid table name \"%s\": names ending in __quarantine are kept for rows "
                       "rejected by contracts",
                       opts->table);
  if (opts->mode != WEIR_MODE_CREATE && opts->mode != WEIR_MODE_APPEND && opts->mode != WEIR_MODE_REPLACE)
    return weir_seterr(err, WEIR_EINVALIDARG, "unknown import mode %d", (int)opts->mode);
  ic->branch = opts->branch && *opts->branch ? opts->branch : "main";
  if ((rc = lake_branch_head(lake, ic->branch, ic->head, err))) return rc;
  if (opts->contract_path && (rc = weir_contract_load_file(opts->contract_path, &ic->contract, err)))
    return rc;
  return WEIR_OK;
}

int weir_import(weir_lake *lake, const char *file, const weir_import_options *opts,
                char **out_json, weir_error *err) {
  *out_json = NULL;
  import_ctx ic;
  int rc = import_prepare(&ic, lake, opts, file, err);
  if (rc) return rc;
  weir_file_format fmt = WEIR_FORMAT_AUTO;
  if (opts->format && !weir_file_format_parse(opts->format, &fmt)) {
    weir_contract_free(ic.contract);
    return weir_seterr(err, WEIR_EINVALIDARG, "unknown format \"%s\" (expected csv, parquet or jsonl)",
                       opts->format);
  }
  if (!file || !weir_fs_exists(file)) {
    weir_contract_free(ic.contract);
    return weir_seterr(err, WEIR_ENOTFOUND, "cannot import %s: no such file", file ? file : "(none)");
  }
  weir_engine *engine = NULL;
  weir_arrow_table data;
  weir_arrow_table_init(&data);
  if ((rc = lake_engine_open(lake, &engine, err))) goto done;
  lake_progress(lake, json_pack("{s:s,s:s}", "phase", "read", "file", file));
  if ((rc = weir_engine_read_file(engine, file, fmt, &data, err))) goto done;
  rc = import_table(&ic, engine, &data, out_json, err);
done:
  weir_arrow_table_release(&data);
  weir_engine_close(engine);
  weir_contract_free(ic.contract);
  return rc;
}

int weir_import_arrow(weir_lake *lake, struct ArrowArrayStream *stream,
                      const weir_import_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  import_ctx ic;
  int rc = import_prepare(&ic, lake, opts, "Arrow data", err);
  if (rc) {
    if (stream && stream->release) stream->release(stream);
    return rc;
  }
  weir_engine *engine = NULL;
  weir_arrow_table data;
  weir_arrow_table_init(&data);
  if ((rc = weir_arrow_table_from_stream(stream, &data, err))) goto done;
  if ((rc = lake_engine_open(lake, &engine, err))) goto done;
  rc = import_table(&ic, engine, &data, out_json, err);
done:
  weir_arrow_table_release(&data);
  weir_engine_close(engine);
  weir_contract_free(ic.contract);
  return rc;
}
