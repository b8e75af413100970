/*
 * admit.c -- what an engine's commit must satisfy before weir adopts it: the table's type.
 *
 * The type is the table's stored contract (weir.contract) when it was written through
 * one, else its schema. Checked, in order of cost:
 *   1. a changed current schema must equal the stored contract's columns (names, types,
 *      required): contracts change only through a weir write that names one;
 *   2. the data files the new current snapshot adds (its live files minus the previous
 *      version's) are checked from their manifest statistics where those decide the
 *      rule: a null count above 0 in a required column, a lower bound below a range's
 *      min or an upper bound above its max is a violation; counts of 0 and bounds inside
 *      the range pass;
 *   3. whatever the statistics cannot decide (missing statistics, enum, pattern, unique
 *      within the added rows, SQL checks) is checked by reading the added files with
 *      weir's validator (an engine confined to the warehouse: files elsewhere are
 *      refused, never read).
 * Rules of drop mode count as failures here: weir cannot quarantine rows of files an
 * engine wrote, so such a commit is refused; warn-mode rules pass. Table rules (SQL over
 * the whole table) and `unique` against the rows already in the table are not checked on
 * engine commits (docs/serve.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/json.h"

typedef struct admit_state {
  json_t *violations;
  bool need_read;
} admit_state;

static void violation(admit_state *st, const char *kind, const char *column, const char *file, int64_t count,
                      char *message) {
  json_array_append_new(st->violations,
                        json_pack("{s:s,s:s,s:s,s:I,s:s,s:s}", "kind", kind, "column", column, "file", file, "count",
                                  (json_int_t)count, "source", "manifest statistics", "message", message));
  free(message);
}

static const iceberg_column_stats *stats_of(const iceberg_data_file *f, int32_t id) {
  for (size_t i = 0; i < f->n_stats; i++)
    if (f->stats[i].field_id == id) return &f->stats[i];
  return NULL;
}

static bool numeric(weir_type t) {
  return t.id == WEIR_TYPE_INT32 || t.id == WEIR_TYPE_INT64 || t.id == WEIR_TYPE_FLOAT32 || t.id == WEIR_TYPE_FLOAT64;
}

static bool bound_value(weir_type t, const uint8_t *b, size_t len, double *out) {
  if (!b) return false;
  char *s = iceberg_bound_to_text(t, b, len);
  if (!s) return false;
  char *end = NULL;
  *out = strtod(s, &end);
  bool ok = end && *end == 0 && !isnan(*out);
  free(s);
  return ok;
}

static void check_file_stats(admit_state *st, const weir_contract *ct, const wr_schema *schema,
                             const iceberg_data_file *f) {
  const char *file = wr_path_basename(f->path);
  for (size_t i = 0; i < ct->n_columns; i++) {
    const wr_contract_column *col = &ct->columns[i];
    long at = wr_schema_find(schema, col->field.name);
    if (at < 0) {
      st->need_read = true; /* the validator names the missing column */
      continue;
    }
    const wr_field *fld = &schema->fields[at];
    const iceberg_column_stats *s = stats_of(f, fld->field_id);
    if (col->field.required) {
      if (!s || s->null_count < 0) st->need_read = true;
      else if (s->null_count > 0)
        violation(st, "nulls", col->field.name, file, s->null_count,
                  wr_asprintf("column \"%s\" has %lld null values but is required (data file %s)", col->field.name,
                              (long long)s->null_count, file));
    }
    for (size_t r = 0; r < col->n_rules; r++) {
      const wr_column_rule *rule = &col->rules[r];
      if (rule->mode == WEIR_MODE_WARN) continue;
      if (rule->kind != WEIR_RULE_RANGE || !numeric(fld->type) || !s) {
        st->need_read = true;
        continue;
      }
      double lo, hi;
      bool has_lo = bound_value(fld->type, s->lower, s->lower_len, &lo);
      bool has_hi = bound_value(fld->type, s->upper, s->upper_len, &hi);
      bool all_null = s->value_count >= 0 && s->null_count >= 0 && s->value_count == s->null_count;
      if (all_null) continue;
      if (rule->min && json_is_number(rule->min)) {
        double m = json_number_value(rule->min);
        if (!has_lo) st->need_read = true;
        else if (lo < m)
          violation(st, "range", col->field.name, file, -1,
                    wr_asprintf("column \"%s\": values below the minimum %g (the smallest is %g, data file %s)",
                                col->field.name, m, lo, file));
      } else if (rule->min) {
        st->need_read = true;
      }
      if (rule->max && json_is_number(rule->max)) {
        double m = json_number_value(rule->max);
        if (!has_hi) st->need_read = true;
        else if (hi > m)
          violation(st, "range", col->field.name, file, -1,
                    wr_asprintf("column \"%s\": values above the maximum %g (the largest is %g, data file %s)",
                                col->field.name, m, hi, file));
      } else if (rule->max) {
        st->need_read = true;
      }
    }
  }
}

/* Reads the added files and validates their rows. */
static int read_and_validate(weir_lake *lake, const char *table, const weir_contract *ct, iceberg_data_file *added,
                             size_t n, admit_state *st, weir_error *err) {
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT * FROM read_parquet([");
  for (size_t i = 0; i < n; i++) {
    /* A location (manifest.c made it one): a local path or s3://, which the warehouse
     * engine reads through httpfs with the lake's S3 secret. */
    char *q = wr_sql_string(added[i].path);
    wr_buf_printf(&sql, "%s%s", i ? ", " : "", q);
    free(q);
  }
  wr_buf_puts(&sql, "])");
  wr_engine *engine = NULL;
  int rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &engine, err);
  if (rc) {
    wr_buf_free(&sql);
    return rc;
  }
  wr_arrow_table data;
  wr_arrow_table_init(&data);
  rc = wr_engine_query_table(engine, wr_buf_cstr(&sql), &data, err);
  wr_buf_free(&sql);
  if (rc) {
    lake_engine_put(lake, engine, LAKE_ENGINE_WAREHOUSE);
    wr_error_prefix(err, "cannot read the data files the commit adds to %s", table);
    return rc;
  }
  char *subject = wr_asprintf("a REST commit to %s (the table's %s)", table, ct->name ? "contract" : "schema");
  wr_validate_options vo = {0};
  vo.subject = subject;
  wr_validation v = {0};
  weir_error verr = {0};
  int vrc = wr_contract_validate(ct, &data, &vo, &v, &verr);
  lake_engine_put(lake, engine, LAKE_ENGINE_WAREHOUSE);
  free(subject);
  size_t i;
  json_t *viol;
  json_array_foreach(json_object_get(v.report, "violations"), i, viol) {
    if (strcmp(wr_json_str(viol, "mode", "fail"), "warn") == 0) continue;
    json_t *copy = json_deep_copy(viol);
    json_object_set_new(copy, "source", json_string("data"));
    char *m = wr_violation_message(viol);
    json_object_set_new(copy, "message", json_string(m));
    free(m);
    json_array_append_new(st->violations, copy);
  }
  if (vrc && vrc != WEIR_ECONTRACT && json_array_size(st->violations) == 0) {
    wr_error_move(err, &verr);
    wr_validation_clear(&v);
    return vrc;
  }
  weir_error_clear(&verr);
  wr_validation_clear(&v);
  return WEIR_OK;
}

static void check_schema(admit_state *st, const weir_contract *ct, const wr_schema *s) {
  for (size_t i = 0; i < ct->n_columns; i++) {
    const wr_field *want = &ct->columns[i].field;
    long at = wr_schema_find(s, want->name);
    char tw[WEIR_TYPE_NAME_MAX], th[WEIR_TYPE_NAME_MAX];
    wr_type_name(want->type, tw, sizeof tw);
    if (at < 0) {
      json_array_append_new(st->violations,
                            json_pack("{s:s,s:s,s:s}", "kind", "schema", "column", want->name, "message", "dropped"));
      json_t *last = json_array_get(st->violations, json_array_size(st->violations) - 1);
      char *m = wr_asprintf("the new schema drops column \"%s\" (%s), which the contract declares", want->name, tw);
      json_object_set_new(last, "message", json_string(m));
      free(m);
      continue;
    }
    const wr_field *have = &s->fields[at];
    wr_type_name(have->type, th, sizeof th);
    if (want->type.id != WEIR_TYPE_ANY && !wr_type_equal(want->type, have->type)) {
      char *m = wr_asprintf("column \"%s\" would become %s; the contract declares %s", want->name, th, tw);
      json_array_append_new(st->violations, json_pack("{s:s,s:s,s:s}", "kind", "schema", "column", want->name,
                                                      "message", m));
      free(m);
    } else if (want->required != have->required) {
      char *m = wr_asprintf("column \"%s\" would become %s; the contract declares it %s", want->name,
                            have->required ? "required" : "optional", want->required ? "required" : "optional");
      json_array_append_new(st->violations, json_pack("{s:s,s:s,s:s}", "kind", "schema", "column", want->name,
                                                      "message", m));
      free(m);
    }
  }
  for (size_t i = 0; i < s->n_fields; i++) {
    bool declared = false;
    for (size_t k = 0; k < ct->n_columns; k++)
      if (strcmp(ct->columns[k].field.name, s->fields[i].name) == 0) declared = true;
    if (!declared) {
      char *m = wr_asprintf("the new schema adds column \"%s\", which the contract does not declare", s->fields[i].name);
      json_array_append_new(st->violations, json_pack("{s:s,s:s,s:s}", "kind", "schema", "column", s->fields[i].name,
                                                      "message", m));
      free(m);
    }
  }
}

int rest_admit(weir_lake *lake, const char *table, const iceberg_table *prev, const iceberg_table *next,
               weir_error *err) {
  bool has_contract = false;
  weir_contract *ct = prev ? lake_table_type(prev, table, &has_contract) : NULL;
  if (!ct) ct = wr_contract_from_schema(&next->schema, table);
  admit_state st = {json_array(), false};
  int rc = WEIR_OK;
  iceberg_data_file *now = NULL, *before = NULL, *added = NULL;
  size_t n_now = 0, n_before = 0, n_added = 0;
  if (prev && has_contract && next->current_schema_id != prev->current_schema_id)
    check_schema(&st, ct, &next->schema);
  bool data_changed = next->current_snapshot_id >= 0 &&
                      (!prev || next->current_snapshot_id != prev->current_snapshot_id);
  if (json_array_size(st.violations) == 0 && data_changed) {
    if ((rc = iceberg_table_data_files(next, &now, &n_now, err))) {
      if (strstr(err->message ? err->message : "", "delete"))
        rc = wr_seterr(err, WEIR_EUNSUPPORTED,
                       "table %s: the commit adds row-level delete files, which weir does not read yet (use "
                       "copy-on-write: write.delete.mode=copy-on-write)",
                       table);
      goto done;
    }
    if (prev && prev->current_snapshot_id >= 0 && (rc = iceberg_table_data_files(prev, &before, &n_before, err)))
      goto done;
    added = wr_calloc(n_now ? n_now : 1, sizeof *added);
    for (size_t i = 0; i < n_now; i++) {
      bool old = false;
      for (size_t k = 0; k < n_before && !old; k++) old = strcmp(now[i].path, before[k].path) == 0;
      if (!old) added[n_added++] = now[i]; /* shallow: `now` owns the strings */
    }
    for (size_t i = 0; i < n_added; i++) check_file_stats(&st, ct, &next->schema, &added[i]);
    if (json_array_size(st.violations) == 0 && st.need_read && n_added > 0)
      rc = read_and_validate(lake, table, ct, added, n_added, &st, err);
  }
  if (rc == WEIR_OK && json_array_size(st.violations) > 0) {
    wr_buf b = WEIR_BUF_INIT;
    wr_buf_printf(&b, "contract violation in a commit to %s (%s %s); nothing was committed:", table,
                  has_contract ? "the table's contract" : "the table's schema",
                  has_contract && ct->name ? ct->name : "");
    size_t i;
    json_t *v;
    json_array_foreach(st.violations, i, v) wr_buf_printf(&b, "\n  - %s", wr_json_str(v, "message", "?"));
    wr_seterr(err, WEIR_ECONTRACT, "%s", wr_buf_cstr(&b));
    wr_buf_free(&b);
    wr_error_set_details(err, json_incref(st.violations));
    rc = WEIR_ECONTRACT;
  }
done:
  free(added);
  iceberg_data_files_free(now, n_now);
  iceberg_data_files_free(before, n_before);
  json_decref(st.violations);
  wr_contract_free(ct);
  return rc;
}
