/*
 * impact.c -- who reads what a contract change breaks (docs/contracts.md, "Breaking
 * changes"): the models of a project that read the affected columns of a table, directly
 * or through the outputs of models that do.
 *
 * What a model reads of an input:
 *   - a SQL model: every column its query names (DuckDB's parser, wr_engine_sql_columns);
 *     a `*` reads them all. Names are not resolved to the table that holds them, so a
 *     column of the same name in another input counts too: an over-approximation, never
 *     a miss;
 *   - a Python model: Model(columns=[...]) when given, else the columns of its projection
 *     schema, else every column; plus the columns of its filter.
 * Downstream: an affected model's output columns are affected when their declared
 * lineage names an affected column (by its last name part), or, when the model declares
 * no lineage at all (SQL models, schemas without lineage), every output column is: again
 * more rather than fewer. Each model is reported once, the first way it is reached.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contracts/contract.h"
#include "pipeline/pipeline.h"
#include "util/json.h"

static bool has_name(const json_t *names, const char *name) {
  size_t i;
  const json_t *v;
  json_array_foreach(names, i, v) if (json_is_string(v) && strcasecmp(json_string_value(v), name) == 0) return true;
  return false;
}

/* The columns `m` reads of input `in`; NULL (and *all) when it reads every column. */
static json_t *columns_read(wr_project *p, const pipeline_model *m, const model_input *in, bool *all) {
  *all = false;
  json_t *names = NULL;
  weir_error ignore = {0};
  if (m->lang == MODEL_SQL) {
    if (!m->sql || wr_engine_sql_columns(p->engine, m->sql, false, &names, all, &ignore) != WEIR_OK) *all = true;
  } else if (in->columns) {
    names = json_deep_copy(in->columns);
  } else if (in->schema) {
    names = json_array();
    for (size_t i = 0; i < in->schema->n_columns; i++) json_array_append_new(names, json_string(in->schema->columns[i].field.name));
  } else {
    *all = true;
  }
  if (!*all && in->filter) {
    json_t *more = NULL;
    bool star = false;
    if (wr_engine_sql_columns(p->engine, in->filter, true, &more, &star, &ignore) == WEIR_OK) {
      size_t i;
      json_t *v;
      json_array_foreach(more, i, v) if (!has_name(names, json_string_value(v))) json_array_append(names, v);
    }
    json_decref(more);
  }
  weir_error_clear(&ignore);
  if (*all) {
    json_decref(names);
    return NULL;
  }
  return names;
}

/* The output columns of `m` derived from `affected` (NULL: all of them). */
static json_t *derived(const pipeline_model *m, const json_t *affected, bool affected_all, bool *all) {
  *all = true;
  if (!m->output || affected_all) return NULL;
  bool any_lineage = false;
  for (size_t i = 0; i < m->output->n_columns; i++) any_lineage = any_lineage || m->output->columns[i].field.n_lineage > 0;
  if (!any_lineage) return NULL;
  *all = false;
  json_t *out = json_array();
  for (size_t i = 0; i < m->output->n_columns; i++) {
    const wr_field *c = &m->output->columns[i].field;
    for (size_t k = 0; k < c->n_lineage; k++) {
      const char *dot = strrchr(c->lineage[k], '.');
      if (has_name(affected, dot ? dot + 1 : c->lineage[k])) {
        json_array_append_new(out, json_string(c->name));
        break;
      }
    }
  }
  return out;
}

/* Adds the readers of `table` (columns `affected`, or all) to `out`, then theirs. */
static void readers_of(wr_project *p, const char *table, const json_t *affected, bool affected_all, const char *via,
                       bool *seen, json_t *out, int depth) {
  if (depth > (int)p->n_models) return;
  for (size_t i = 0; i < p->n_models; i++) {
    const pipeline_model *m = &p->models[i];
    if (seen[i]) continue;
    for (size_t k = 0; k < m->n_inputs; k++) {
      const model_input *in = &m->inputs[k];
      if (!in->table || strcasecmp(in->table, table) != 0) continue;
      bool all = false;
      json_t *reads = columns_read(p, m, in, &all);
      json_t *hit = json_array();
      if (affected_all) {
        if (reads) json_array_extend(hit, reads);
        else json_array_append_new(hit, json_string("*"));
      } else {
        size_t j;
        json_t *v;
        json_array_foreach(affected, j, v) if (all || has_name(reads, json_string_value(v))) json_array_append(hit, v);
      }
      json_decref(reads);
      if (json_array_size(hit) == 0) {
        json_decref(hit);
        continue;
      }
      seen[i] = true;
      json_array_append_new(out, json_pack("{s:s,s:s,s:i,s:s,s:o,s:o}", "model", m->name, "file", m->file, "line",
                                           in->line ? in->line : m->line, "table", table, "columns", hit, "via",
                                           via ? json_string(via) : json_null()));
      if (m->table) {
        bool d_all = true;
        json_t *d = derived(m, hit, affected_all || json_array_size(hit) == 0, &d_all);
        if (d_all || json_array_size(d) > 0) readers_of(p, m->table, d, d_all, m->name, seen, out, depth + 1);
        json_decref(d);
      }
      break;
    }
  }
}

json_t *pipeline_readers(wr_project *p, const char *table, const json_t *affected, bool all, const char *except) {
  json_t *out = json_array();
  bool *seen = wr_calloc(p->n_models ? p->n_models : 1, sizeof *seen);
  for (size_t i = 0; i < p->n_models; i++) seen[i] = except && strcmp(p->models[i].name, except) == 0;
  readers_of(p, table, affected, all, NULL, seen, out, 0);
  free(seen);
  return out;
}

int pipeline_breaking_changes(weir_lake *lake, wr_project *p, const char *hash, json_t **out, weir_error *err) {
  *out = json_array();
  for (size_t i = 0; i < p->n_models; i++) {
    const pipeline_model *m = &p->models[i];
    if (!m->output || !m->table) continue;
    iceberg_table *t = NULL;
    int rc = lake_table_at(lake, hash, m->table, true, &t, err);
    if (rc) return rc;
    if (!t) continue;
    bool stored = false;
    weir_contract *old = lake_table_type(t, m->table, &stored);
    iceberg_table_free(t);
    if (!stored) {
      wr_contract_free(old);
      continue;
    }
    json_t *diff = wr_contract_diff(old, m->output);
    wr_contract_free(old);
    if (!json_is_true(json_object_get(diff, "breaking"))) {
      json_decref(diff);
      continue;
    }
    json_t *readers = pipeline_readers(p, m->table, json_object_get(diff, "affected_columns"),
                                       json_is_true(json_object_get(diff, "table_wide")), m->name);
    json_object_set_new(diff, "table", json_string(m->table));
    json_object_set_new(diff, "model", json_string(m->name));
    json_object_set_new(diff, "file", json_string(m->file));
    json_object_set_new(diff, "line", json_integer(m->output_line ? m->output_line : m->line));
    json_object_set_new(diff, "readers", readers);
    json_array_append_new(*out, diff);
  }
  return WEIR_OK;
}
