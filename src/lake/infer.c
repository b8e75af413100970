/*
 * infer.c -- the contract of data written without one: each column's weir type is the one
 * its Arrow type widens to, and every column is optional.
 */
#include <stdio.h>
#include <string.h>

#include "lake/lake.h"
#include "util/json.h"

/* The weir type an Arrow column of format `f` is stored as, when no contract says:
 * exact when one exists, otherwise the type it widens to without loss. */
static bool storable_type(const struct ArrowSchema *field, weir_type *out, char *why, size_t why_size) {
  const char *f = field->dictionary ? field->dictionary->format : field->format;
  memset(out, 0, sizeof *out);
  if (wr_type_from_arrow_format(f, out)) {
    /* date64 has no Iceberg type: its days go into Date32, each value checked to be a
     * midnight (contracts/check_columns.c). */
    if (out->id == WEIR_TYPE_DATE64) out->id = WEIR_TYPE_DATE32;
    return true;
  }
  static const struct {
    const char *fmt;
    wr_type_id id;
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
  /* Any zone: the values are UTC instants (the zone says only how to show them). */
  if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':' && f[4]) {
    out->id = f[2] == 'n' ? WEIR_TYPE_TS_NS_UTC : WEIR_TYPE_TS_US_UTC;
    return true;
  }
  if (f[0] == 'w' && f[1] == ':') {
    out->id = WEIR_TYPE_BINARY;
    return true;
  }
  char tn[96];
  wr_arrow_type_name(field, tn, sizeof tn);
  if (f[0] == 't' && f[1] == 's')
    snprintf(why, why_size, "type %s: weir stores time-zoned timestamps in UTC only", tn);
  else
    snprintf(why, why_size, "type %s has no weir type (see docs/types.md)", tn);
  return false;
}

int lake_infer_contract(const wr_arrow_table *data, const char *name, weir_contract **out,
                        weir_error *err) {
  *out = NULL;
  wr_schema s = {0};
  int64_t nc = wr_arrow_table_ncols(data);
  for (int64_t c = 0; c < nc; c++) {
    const struct ArrowSchema *field = data->schema.children[c];
    wr_field f = {0};
    char why[160];
    if (!storable_type(field, &f.type, why, sizeof why)) {
      wr_schema_clear(&s);
      return wr_seterr(err, WEIR_EUNSUPPORTED, "column \"%s\" cannot be stored: %s", field->name, why);
    }
    /* Optional, as every Iceberg writer records a column nobody declared: that the first
     * file had no nulls in it says nothing of the next one (a later append with a blank
     * would be refused). A column is required only when a contract says so. */
    f.required = false;
    f.name = (char *)field->name;
    wr_schema_add(&s, &f);
  }
  *out = wr_contract_from_schema(&s, name);
  wr_schema_clear(&s);
  return WEIR_OK;
}


weir_contract *lake_table_type(const iceberg_table *t, const char *table, bool *has_contract) {
  /* The stored contract when the table was written through one: every rule travels with
   * the data and holds for later writes; else the schema (types, required flags, docs). */
  const char *stored = wr_json_str(t->properties, "weir.contract", NULL);
  json_t *ir = stored ? json_loads(stored, 0, NULL) : NULL;
  weir_contract *c = NULL;
  weir_error ignore = {0};
  *has_contract = ir && wr_contract_from_ir(ir, "the table's stored contract", &c, &ignore) == WEIR_OK;
  weir_error_clear(&ignore);
  json_decref(ir);
  if (!*has_contract) c = wr_contract_from_schema(&t->schema, table);
  return c;
}

int lake_append_target(weir_lake *lake, const char *table, const char *base_commit, weir_contract **out,
                       char **subject_suffix, weir_error *err) {
  *out = NULL;
  *subject_suffix = NULL;
  iceberg_table *prev = NULL;
  int rc = lake_table_at(lake, base_commit, table, true, &prev, err);
  if (rc || !prev) return rc;
  bool has_contract = false;
  *out = lake_table_type(prev, table, &has_contract);
  if (has_contract)
    *subject_suffix = wr_asprintf("appending to %s, whose contract is %s", table,
                                    (*out)->name ? (*out)->name : "unnamed");
  else
    *subject_suffix = wr_asprintf("appending to %s, held to its schema", table);
  iceberg_table_free(prev);
  return WEIR_OK;
}
