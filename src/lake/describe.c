/*
 * describe.c -- what the lake holds at a ref: the table list and one table's schema,
 * docs, lineage, contract and Iceberg pointers.
 */
#include <stdlib.h>
#include <string.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "util/json.h"

int lake_table_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err) {
  *out_json = NULL;
  char hash[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref, hash, err);
  if (rc) return rc;
  wr_table_entry *v = NULL;
  size_t n = 0;
  if ((rc = catalog_tables(lake->cat, hash, &v, &n, err))) return rc;
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) json_array_append_new(arr, wr_json_table_entry(&v[i]));
  wr_table_entries_free(v, n);
  *out_json = wr_doc_dump(WR_DOC_TABLE_LIST, arr);
  return *out_json ? WEIR_OK : wr_oom(err);
}

/* The value of a table property that holds JSON text, parsed; NULL when absent or bad. */
static json_t *json_property(const json_t *props, const char *key) {
  const char *text = wr_json_str(props, key, NULL);
  if (!text) return NULL;
  return json_loads(text, 0, NULL);
}

int lake_table_describe(weir_lake *lake, const char *table, const char *ref, char **out_json,
                  weir_error *err) {
  *out_json = NULL;
  char full[WR_TABLE_FULL_MAX];
  int rc = wr_table_full_name(table, full, err);
  if (rc) return rc;
  const char *refname = ref ? ref : "main"; /* "" is refused by lake_resolve */
  char hash[WEIR_HASH_HEX_SIZE];
  if ((rc = lake_resolve(lake, refname, hash, err))) return rc;
  iceberg_table *t = NULL;
  if ((rc = lake_table_at(lake, hash, full, true, &t, err))) return rc;
  if (!t)
    return wr_seterr(err, WEIR_ENOTFOUND, "table %s does not exist at %s (commit %.12s)", full, refname,
                       hash);

  json_t *lineage = json_property(t->properties, "weir.lineage");
  json_t *o = json_object();
  json_object_set_new(o, "table", json_string(full));
  json_object_set_new(o, "ref", json_string(refname));
  json_object_set_new(o, "commit", json_string(hash));
  json_object_set_new(o, "snapshot_id", t->current_snapshot_id >= 0 ? json_integer(t->current_snapshot_id) : json_null());
  json_object_set_new(o, "metadata_location", json_string(t->metadata_location));
  json_object_set_new(o, "comment", wr_json_str_or_null(wr_json_str(t->properties, "comment", NULL)));
  json_object_set_new(o, "record_count", json_integer(t->record_count));
  json_t *cols = json_array();
  for (size_t i = 0; i < t->schema.n_fields; i++) {
    const wr_field *f = &t->schema.fields[i];
    char arrow[WEIR_TYPE_NAME_MAX], weirname[WEIR_TYPE_NAME_MAX];
    wr_type_arrow_name(f->type, arrow, sizeof arrow);
    wr_type_name(f->type, weirname, sizeof weirname);
    json_t *c = json_object();
    json_object_set_new(c, "name", json_string(f->name));
    json_object_set_new(c, "type", json_string(arrow));
    json_object_set_new(c, "weir_type", json_string(weirname));
    json_object_set_new(c, "required", json_boolean(f->required));
    json_object_set_new(c, "doc", wr_json_str_or_null(f->doc));
    json_object_set_new(c, "field_id", json_integer(f->field_id));
    json_t *lin = json_object_get(lineage, f->name);
    json_object_set_new(c, "lineage", json_is_array(lin) ? json_incref(lin) : json_array());
    json_array_append_new(cols, c);
  }
  json_object_set_new(o, "columns", cols);
  json_object_set_new(o, "properties", json_incref(t->properties ? t->properties : json_object()));
  json_t *contract = json_property(t->properties, "weir.contract");
  json_object_set_new(o, "contract", contract ? contract : json_null());
  json_object_set_new(o, "snapshot_summary", t->summary ? json_incref(t->summary) : json_null());
  json_decref(lineage);
  iceberg_table_free(t);
  *out_json = wr_doc_dump(WR_DOC_TABLE, o);
  return *out_json ? WEIR_OK : wr_oom(err);
}

/* ---- public contract functions (over the contracts module) --------------------------- */

int lake_contract_diff(const weir_contract *old_contract, const weir_contract *new_contract, char **out_json,
                       weir_error *err) {
  *out_json = NULL;
  if (!old_contract || !new_contract) return wr_seterr(err, WEIR_EINVALIDARG, "weir_contract_diff needs two contracts");
  *out_json = wr_doc_dump(WR_DOC_CONTRACT_DIFF, wr_contract_diff(old_contract, new_contract));
  return *out_json ? WEIR_OK : wr_oom(err);
}

int lake_contract_load(const char *path, weir_contract **out, weir_error *err) {
  return wr_contract_load_file(path, out, err);
}

int lake_contract_parse(const char *text, size_t len, const char *format, const char *origin,
                        weir_contract **out, weir_error *err) {
  *out = NULL;
  if (!format || strcmp(format, "yaml") == 0)
    return wr_contract_from_yaml(text, len, origin ? origin : "<string>", out, err);
  if (strcmp(format, "json") == 0) {
    char *copy = wr_strndup(text, len);
    json_t *ir = NULL;
    int rc = wr_json_parse(copy, origin ? origin : "<string>", &ir, err);
    free(copy);
    if (rc) return rc;
    rc = wr_contract_from_ir(ir, origin ? origin : "<string>", out, err);
    json_decref(ir);
    return rc;
  }
  return wr_seterr(err, WEIR_EINVALIDARG, "unknown contract format \"%s\" (expected yaml or json)", format);
}

char *lake_contract_to_json(const weir_contract *contract) {
  json_t *ir = wr_contract_to_ir(contract);
  char *s = wr_json_pretty(ir);
  json_decref(ir);
  return s;
}

int lake_contract_validate(const weir_contract *contract, struct ArrowArrayStream *in,
                  struct ArrowArrayStream *out_valid, char **out_report_json, weir_error *err) {
  if (out_report_json) *out_report_json = NULL;
  if (out_valid) memset(out_valid, 0, sizeof *out_valid);
  wr_arrow_table data;
  wr_arrow_table_init(&data);
  int rc = wr_arrow_table_from_stream(in, &data, err);
  if (rc) return rc;
  wr_validate_options vo = {0};
  vo.is_output = true;
  vo.subject = contract->name ? contract->name : "data";
  wr_validation v = {0};
  rc = wr_contract_validate(contract, &data, &vo, &v, err);
  if (out_report_json && v.report && !(*out_report_json = wr_doc_dump(WR_DOC_REPORT, json_incref(v.report))))
    rc = wr_oom(err); /* a violation without its report would say less than it found */
  if (rc == WEIR_OK && out_valid) wr_arrow_table_to_stream(&v.valid, true, out_valid);
  wr_validation_clear(&v);
  wr_arrow_table_release(&data);
  return rc;
}
