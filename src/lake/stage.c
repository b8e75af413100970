/*
 * stage.c -- one table write, from Arrow data to staged table versions: validate against
 * the contract (or an inferred one), then write the table's data files and, when
 * drop-mode rules removed rows, the quarantine table's. Imports, SQL models (in the
 * runner's process) and Python models (in the worker process, via lake_worker_stage_output) all
 * come through here, so every write meets the same validator whatever produced it.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lake/json_out.h"
#include "lake/stage.h"
#include "util/buf.h"
#include "util/json.h"

void stage_result_clear(stage_result *r) {
  for (size_t i = 0; i < r->n_staged; i++) lake_staged_clear(&r->staged[i]);
  json_decref(r->report);
  memset(r, 0, sizeof *r);
}

/* Per-rule results as snapshot summary entries ("weir.rule.<name>": JSON text), so any
 * Iceberg reader sees how the version fared against its contract. */
static void add_rule_summary(json_t *summary, const json_t *report) {
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(report, "rules"), i, r) {
    const char *name = wr_json_str(r, "rule", NULL);
    if (!name) continue;
    char *key = wr_asprintf("weir.rule.%s", name);
    char *val = wr_json_canonical(r);
    json_object_set_new(summary, key, json_string(val));
    free(key);
    free(val);
  }
}

static void unique_columns(const weir_contract *c, json_t *names) {
  for (size_t i = 0; c && i < c->n_columns; i++)
    for (size_t j = 0; j < c->columns[i].n_rules; j++)
      if (c->columns[i].rules[j].kind == WEIR_RULE_UNIQUE)
        json_object_set_new(names, c->columns[i].field.name, json_true());
}

/* On an append, `unique` holds for the whole table, not just the incoming rows: the
 * values the table already has in unique columns are read (those columns only) so the
 * validator can count repeats of them. */
static int unique_seed(weir_lake *lake, wr_engine *engine, const stage_request *req,
                       const weir_contract *contract, wr_arrow_table *seed, weir_error *err) {
  if (req->mode != WEIR_MODE_APPEND || !req->base_commit) return WEIR_OK;
  json_t *names = json_object();
  unique_columns(contract, names);
  unique_columns(req->table_contract, names);
  int rc = WEIR_OK;
  iceberg_table *prev = NULL;
  wr_table_id id;
  if (json_object_size(names) == 0) goto done;
  if ((rc = wr_table_id_parse(req->table, &id, err))) goto done;
  if ((rc = lake_table_at(lake, req->base_commit, req->table, true, &prev, err)) || !prev) goto done;
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT ");
  const char *name;
  json_t *v;
  int n = 0;
  json_object_foreach(names, name, v) {
    if (wr_schema_find(&prev->schema, name) < 0) continue; /* reported as missing/unknown */
    char *q = wr_sql_ident(name);
    wr_buf_printf(&sql, "%s%s", n++ ? ", " : "", q);
    free(q);
  }
  char *qn = wr_sql_ident(id.ns), *qt = wr_sql_ident(id.name);
  wr_buf_printf(&sql, " FROM %s.%s", qn, qt);
  free(qn);
  free(qt);
  if (n > 0 && (rc = lake_attach_table(lake, engine, req->base_commit, &id, err)) == WEIR_OK)
    rc = wr_engine_query_table(engine, wr_buf_cstr(&sql), seed, err);
  wr_buf_free(&sql);
done:
  iceberg_table_free(prev);
  json_decref(names);
  return rc;
}

int lake_stage_output(weir_lake *lake, wr_engine *engine, wr_arrow_table *data,
                      const stage_request *req, stage_result *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  weir_contract *inferred = NULL;
  const weir_contract *contract = req->contract;
  int rc;
  if (!contract) {
    wr_table_id id;
    if ((rc = wr_table_id_parse(req->table, &id, err))) return rc;
    if ((rc = lake_infer_contract(data, id.name, &inferred, err))) {
      wr_error_prefix(err, "%s", req->subject ? req->subject : req->table);
      return rc;
    }
    contract = inferred;
  }
  wr_arrow_table seed;
  wr_arrow_table_init(&seed);
  wr_validation v = {0}, v2 = {0};
  wr_engine *sealed = NULL;
  if ((rc = unique_seed(lake, engine, req, contract, &seed, err))) goto done;
  /* The contract's SQL runs on a sealed engine (no files), not on `engine`, which writes
   * into the warehouse: a rule travels with the table and runs on every later write. */
  if (wr_contract_has_sql(contract) || wr_contract_has_sql(req->table_contract))
    if ((rc = lake_engine_get(lake, LAKE_ENGINE_SEALED, &sealed, err))) goto done;
  wr_validate_options vo = {0};
  vo.is_output = true;
  vo.subject = req->subject;
  vo.engine = sealed;
  vo.unique_seed = seed.schema.release ? &seed : NULL;
  rc = wr_contract_validate(contract, data, &vo, &v, err);
  out->report = v.report ? json_incref(v.report) : NULL;
  if (rc) goto done;
  wr_arrow_table *final_data = &v.valid;
  const weir_contract *write_contract = contract;
  if (req->table_contract) {
    /* Data that meets the given contract must still fit the table it is appended to. */
    vo.subject = req->table_subject ? req->table_subject : req->subject;
    if ((rc = wr_contract_validate(req->table_contract, &v.valid, &vo, &v2, err))) goto done;
    final_data = &v2.valid;
    write_contract = req->table_contract;
  }

  json_t *summary = req->summary ? json_deep_copy(req->summary) : json_object();
  add_rule_summary(summary, v.report);
  lake_stage_request sr = {0};
  sr.table = req->table;
  sr.mode = req->mode;
  sr.contract = write_contract;
  sr.declared = req->declared && !req->table_contract;
  sr.comment = req->comment;
  sr.summary = summary;
  sr.base_commit = req->base_commit;
  sr.partition_by = req->partition_by;
  /* An append is written with the table's contract, but the partitioning the caller
   * declares is the layout of its new files: declaring another spec evolves it. */
  json_t *declared_pb = NULL;
  if (!sr.partition_by && req->table_contract && contract && contract->n_partition_by) {
    declared_pb = json_array();
    for (size_t i = 0; i < contract->n_partition_by; i++)
      json_array_append_new(declared_pb, json_string(contract->partition_by[i]));
    sr.partition_by = declared_pb;
  }
  rc = lake_stage_table(lake, engine, final_data, &sr, &out->staged[0], err);
  json_decref(declared_pb);
  if (rc == WEIR_OK) {
    /* Seeded `unique` counts were taken over the table's rows at the base: this append
     * read them, so it is not blind (serial.h). */
    out->staged[0].read_rows = seed.schema.release != NULL;
    out->n_staged = 1;
    out->rows_written = out->staged[0].rows;
  }
  /* A replace with no rejected rows empties the quarantine the table had at the base: it
   * holds the rows rejected by the writes the table's current data came from, now none. */
  bool empty_quarantine = false;
  if (rc == WEIR_OK && v.quarantine.n_rows == 0 && v.quarantine.schema.release && req->mode != WEIR_MODE_APPEND &&
      req->base_commit) {
    char *qname = wr_asprintf("%s__quarantine", req->table);
    iceberg_table *qt = NULL;
    weir_error ignore = {0};
    empty_quarantine = lake_table_at(lake, req->base_commit, qname, true, &qt, &ignore) == WEIR_OK && qt;
    weir_error_clear(&ignore);
    iceberg_table_free(qt);
    free(qname);
  }
  if (rc == WEIR_OK && (v.quarantine.n_rows > 0 || empty_quarantine)) {
    char *qname = wr_asprintf("%s__quarantine", req->table);
    weir_contract *qc = NULL;
    rc = lake_infer_contract(&v.quarantine, "quarantine", &qc, err);
    if (rc == WEIR_OK) {
      lake_stage_request qr = {0};
      qr.table = qname;
      /* The quarantine accumulates with appends and is replaced with the table. */
      qr.mode = req->mode == WEIR_MODE_APPEND ? WEIR_MODE_APPEND : WEIR_MODE_REPLACE;
      qr.contract = qc;
      char *qcomment = wr_asprintf("Rows of %s rejected by drop-mode contract rules (column _weir_rule names the rule).",
                                     req->table);
      qr.comment = qcomment;
      qr.summary = summary;
      qr.base_commit = req->base_commit;
      rc = lake_stage_table(lake, engine, &v.quarantine, &qr, &out->staged[1], err);
      free(qcomment);
      if (rc == WEIR_OK) {
        out->n_staged = 2;
        out->rows_quarantined = out->staged[1].rows;
      }
    }
    wr_contract_free(qc);
    free(qname);
  }
  json_decref(summary);
done:
  if (sealed) lake_engine_put(lake, sealed, LAKE_ENGINE_SEALED);
  wr_validation_clear(&v);
  wr_validation_clear(&v2);
  wr_arrow_table_release(&seed);
  wr_contract_free(inferred);
  return rc;
}

json_t *stage_result_json(const stage_result *r) {
  json_t *o = json_object();
  json_t *staged = json_array();
  for (size_t i = 0; i < r->n_staged; i++) json_array_append_new(staged, lake_staged_to_json(&r->staged[i]));
  json_object_set_new(o, "staged", staged);
  json_object_set_new(o, "report", r->report ? json_incref(r->report) : json_null());
  json_object_set_new(o, "rows_written", json_integer(r->rows_written));
  json_object_set_new(o, "rows_quarantined", json_integer(r->rows_quarantined));
  return o;
}

int stage_result_from_json(const json_t *j, stage_result *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  json_t *staged = json_object_get(j, "staged");
  size_t n = json_array_size(staged);
  if (n > 2) return wr_seterr(err, WEIR_EINPUT, "worker result: more than two staged tables");
  for (size_t i = 0; i < n; i++) {
    int rc = lake_staged_from_json(json_array_get(staged, i), &out->staged[i], err);
    if (rc) {
      stage_result_clear(out);
      return rc;
    }
    out->n_staged++;
  }
  json_t *rep = json_object_get(j, "report");
  out->report = json_is_object(rep) ? json_incref(rep) : NULL;
  out->rows_written = wr_json_int(j, "rows_written", 0);
  out->rows_quarantined = wr_json_int(j, "rows_quarantined", 0);
  return WEIR_OK;
}

/* ---- column names ---------------------------------------------------------------------- */

int lake_check_column_names(const wr_arrow_table *t, const char *what, weir_error *err) {
  int64_t n = wr_arrow_table_ncols(t);
  for (int64_t i = 0; i < n; i++) {
    const char *name = t->schema.children[i]->name;
    if (!name || !*name)
      return wr_seterr(err, WEIR_EINPUT, "%s: column %lld has an empty name", what, (long long)i + 1);
    for (int64_t j = 0; j < i; j++) {
      if (strcmp(t->schema.children[j]->name, name) == 0)
        return wr_seterr(err, WEIR_EINPUT, "%s: column \"%s\" appears twice (columns %lld and %lld)", what,
                           name, (long long)j + 1, (long long)i + 1);
      /* SQL names are case-insensitive: the engine that validates and writes could not
       * tell the two apart (nor could the engines that read the table). */
      if (strcasecmp(t->schema.children[j]->name, name) == 0)
        return wr_seterr(err, WEIR_EINPUT,
                         "%s: columns \"%s\" and \"%s\" differ only in case, which SQL engines cannot tell "
                         "apart (columns %lld and %lld): rename one",
                         what, t->schema.children[j]->name, name, (long long)j + 1, (long long)i + 1);
    }
  }
  return WEIR_OK;
}

/* ---- the worker's entry point ---------------------------------------------------------- */

int lake_worker_stage_output(weir_lake *lake, struct ArrowArrayStream *stream, const char *request_json,
                      char **out_json, weir_error *err) {
  *out_json = NULL;
  json_t *req = NULL;
  int rc = wr_json_parse(request_json ? request_json : "", "stage request", &req, err);
  if (rc) {
    if (stream && stream->release) stream->release(stream);
    return rc;
  }
  weir_contract *contract = NULL;
  wr_engine *engine = NULL;
  wr_arrow_table data;
  wr_arrow_table_init(&data);
  stage_result res = {0};
  const char *table = wr_json_str(req, "table", NULL);
  if (!table) {
    rc = wr_seterr(err, WEIR_EINVALIDARG, "stage request: missing \"table\"");
    if (stream && stream->release) stream->release(stream);
    goto done;
  }
  json_t *ir = json_object_get(req, "contract");
  if (json_is_object(ir) && (rc = wr_contract_from_ir(ir, "output contract", &contract, err))) {
    if (stream && stream->release) stream->release(stream);
    goto done;
  }
  if ((rc = wr_arrow_table_from_stream(stream, &data, err))) {
    wr_error_prefix(err, "cannot read the output of %s", wr_json_str(req, "model", table));
    goto done;
  }
  {
    char *what = wr_asprintf("the output of model %s", wr_json_str(req, "model", table));
    rc = lake_check_column_names(&data, what, err);
    free(what);
    if (rc) goto done;
  }
  /* The write reaches only the warehouse; the contract's SQL runs sealed (stage_validated). */
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &engine, err))) goto done;
  stage_request sreq = {0};
  sreq.table = table;
  const char *mode = wr_json_str(req, "mode", "REPLACE");
  sreq.mode = strcasecmp(mode, "APPEND") == 0 ? WEIR_MODE_APPEND : WEIR_MODE_REPLACE;
  sreq.contract = contract;
  sreq.declared = contract != NULL;
  weir_contract *target = NULL;
  char *suffix = NULL, *table_subject = NULL;
  if (sreq.mode == WEIR_MODE_APPEND && wr_json_str(req, "base_commit", NULL)) {
    /* An APPEND model's rows must fit the table they are added to. */
    if ((rc = lake_append_target(lake, table, wr_json_str(req, "base_commit", NULL), &target, &suffix, err)))
      goto done;
    if (suffix) {
      const char *model = wr_json_str(req, "model", table);
      table_subject = wr_asprintf("model %s (output, %s)", model, suffix);
    }
    if (contract) sreq.table_contract = target;
    else sreq.contract = target;
    sreq.table_subject = table_subject;
  }
  sreq.subject = wr_json_str(req, "subject", table);
  sreq.comment = wr_json_str(req, "comment", NULL);
  sreq.summary = json_object_get(req, "summary");
  sreq.base_commit = wr_json_str(req, "base_commit", NULL);
  if (json_is_array(json_object_get(req, "partition_by"))) sreq.partition_by = json_object_get(req, "partition_by");
  rc = lake_stage_output(lake, engine, &data, &sreq, &res, err);
  json_t *o = stage_result_json(&res);
  *out_json = wr_doc_dump(WR_DOC_STAGED, o);
  wr_contract_free(target);
  free(suffix);
  free(table_subject);
done:
  stage_result_clear(&res);
  wr_arrow_table_release(&data);
  if (engine) lake_engine_put(lake, engine, LAKE_ENGINE_WAREHOUSE);
  wr_contract_free(contract);
  json_decref(req);
  return rc;
}
