/*
 * schema_json.c -- Iceberg schema JSON (spec, "Schemas" in Appendix C) <-> wr_schema,
 * and field id assignment across table versions.
 *
 *   {"type": "struct", "schema-id": 0, "fields": [
 *     {"id": 1, "name": "PassengerId", "required": true, "type": "long", "doc": "..."}]}
 *
 * A column of a type weir has no name for (struct, list, map, uuid, fixed[n], time, ...)
 * loads as Any; when such a table is written again, the column keeps its Iceberg type
 * from the previous schema (iceberg_schema_json_build), so weir never rewrites a type it
 * does not understand.
 */
#include "iceberg/iceberg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "unknown" is Iceberg's (v3) name for a type with no values; written only by
 * iceberg_schema_to_json for a column that has no Iceberg type, for display. */
#define UNKNOWN_TYPE "unknown"

static const json_t *prev_field_type(const json_t *prev_schema, int32_t id) {
  const json_t *fields = json_object_get(prev_schema, "fields");
  size_t i;
  const json_t *f;
  json_array_foreach(fields, i, f) {
    if (json_integer_value(json_object_get(f, "id")) == id) return json_object_get(f, "type");
  }
  return NULL;
}

static json_t *field_json(const wr_field *f, json_t *type) {
  json_t *o = json_object();
  json_object_set_new(o, "id", json_integer(f->field_id));
  json_object_set_new(o, "name", json_string(f->name));
  json_object_set_new(o, "required", json_boolean(f->required));
  json_object_set_new(o, "type", type);
  if (f->doc) json_object_set_new(o, "doc", json_string(f->doc));
  return o;
}

static json_t *schema_object(int32_t schema_id, json_t *fields) {
  json_t *o = json_object();
  json_object_set_new(o, "type", json_string("struct"));
  json_object_set_new(o, "schema-id", json_integer(schema_id));
  json_object_set_new(o, "fields", fields);
  return o;
}

int iceberg_schema_json_build(const wr_schema *s, int32_t schema_id,
                              const json_t *prev_schema, json_t **out, weir_error *err) {
  *out = NULL;
  json_t *fields = json_array();
  for (size_t i = 0; i < s->n_fields; i++) {
    const wr_field *f = &s->fields[i];
    char tn[WEIR_TYPE_NAME_MAX];
    json_t *type;
    if (wr_type_iceberg_name(f->type, tn, sizeof tn)) {
      type = json_string(tn);
    } else {
      const json_t *pt = prev_schema ? prev_field_type(prev_schema, f->field_id) : NULL;
      if (!pt || f->type.id == WEIR_TYPE_DATE64) {
        json_decref(fields);
        wr_type_name(f->type, tn, sizeof tn);
        return wr_seterr(err, WEIR_EINVALIDARG,
                           "column \"%s\" has type %s, which an Iceberg table cannot store%s",
                           f->name, tn,
                           f->type.id == WEIR_TYPE_DATE64 ? " (use Date32)" : "");
      }
      type = json_deep_copy(pt);
    }
    json_array_append_new(fields, field_json(f, type));
  }
  *out = schema_object(schema_id, fields);
  return WEIR_OK;
}

json_t *iceberg_schema_to_json(const wr_schema *s, int32_t schema_id) {
  json_t *fields = json_array();
  for (size_t i = 0; i < s->n_fields; i++) {
    const wr_field *f = &s->fields[i];
    char tn[WEIR_TYPE_NAME_MAX];
    if (!wr_type_iceberg_name(f->type, tn, sizeof tn)) snprintf(tn, sizeof tn, UNKNOWN_TYPE);
    json_array_append_new(fields, field_json(f, json_string(tn)));
  }
  return schema_object(schema_id, fields);
}

int iceberg_schema_from_json(const json_t *j, wr_schema *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  const json_t *fields = json_object_get(j, "fields");
  if (!json_is_object(j) || !json_is_array(fields))
    return wr_seterr(err, WEIR_EINPUT, "Iceberg schema: expected an object with \"fields\"");
  size_t i;
  const json_t *o;
  json_array_foreach(fields, i, o) {
    const char *name = json_string_value(json_object_get(o, "name"));
    const json_t *id = json_object_get(o, "id");
    const json_t *type = json_object_get(o, "type");
    const json_t *req = json_object_get(o, "required");
    if (!name || !json_is_integer(id) || !type || !json_is_boolean(req)) {
      wr_schema_clear(out);
      return wr_seterr(err, WEIR_EINPUT,
                         "Iceberg schema: field %zu needs \"id\" (integer), \"name\", \"type\" "
                         "and \"required\" (boolean)",
                         i + 1);
    }
    json_int_t idv = json_integer_value(id);
    if (idv <= 0 || idv > INT32_MAX) {
      wr_schema_clear(out);
      return wr_seterr(err, WEIR_EINPUT, "Iceberg schema: field \"%s\" has id %lld", name,
                         (long long)idv);
    }
    wr_field f = {0};
    f.name = (char *)name;
    f.field_id = (int32_t)idv;
    f.required = json_is_true(req);
    f.doc = (char *)json_string_value(json_object_get(o, "doc"));
    if (!json_is_string(type) || !wr_type_from_iceberg(json_string_value(type), &f.type))
      f.type = (weir_type){WEIR_TYPE_ANY, 0, 0};
    if (wr_schema_find(out, name) >= 0) {
      wr_schema_clear(out);
      return wr_seterr(err, WEIR_EINPUT, "Iceberg schema: two fields are named \"%s\"", name);
    }
    /* Readers resolve columns by id: two columns with one id would read the same data. */
    for (size_t k = 0; k < out->n_fields; k++)
      if (out->fields[k].field_id == f.field_id) {
        int rc = wr_seterr(err, WEIR_EINPUT, "Iceberg schema: fields \"%s\" and \"%s\" have the same id %d",
                             out->fields[k].name, name, (int)f.field_id);
        wr_schema_clear(out);
        return rc;
      }
    wr_schema_add(out, &f); /* copies */
  }
  return WEIR_OK;
}

/* Can a column of type `from` take the id of a column of type `to` (Iceberg's type
 * promotions: int -> long, float -> double, decimal(P, S) -> decimal(P', S) with P' >= P)?
 * Anything else would make old data files unreadable under the new type. */
static bool promotable(weir_type from, weir_type to) {
  if (wr_type_equal(from, to)) return true;
  if (from.id == WEIR_TYPE_INT32 && to.id == WEIR_TYPE_INT64) return true;
  if (from.id == WEIR_TYPE_FLOAT32 && to.id == WEIR_TYPE_FLOAT64) return true;
  if (from.id == WEIR_TYPE_DECIMAL && to.id == WEIR_TYPE_DECIMAL)
    return from.scale == to.scale && to.precision >= from.precision;
  if (to.id == WEIR_TYPE_ANY) return true; /* a type weir keeps verbatim */
  return false;
}

bool iceberg_type_promotion(weir_type from, weir_type to) {
  if (wr_type_equal(from, to)) return false;
  if (from.id == WEIR_TYPE_INT32 && to.id == WEIR_TYPE_INT64) return true;
  if (from.id == WEIR_TYPE_FLOAT32 && to.id == WEIR_TYPE_FLOAT64) return true;
  if (from.id == WEIR_TYPE_DECIMAL && to.id == WEIR_TYPE_DECIMAL)
    return from.scale == to.scale && to.precision > from.precision;
  return false;
}

static bool id_used(const wr_schema *s, int32_t id) {
  for (size_t i = 0; i < s->n_fields; i++)
    if (s->fields[i].field_id == id) return true;
  return false;
}

void iceberg_assign_field_ids(const iceberg_table *prev, wr_schema *schema,
                              int32_t *last_column_id) {
  int32_t last = prev ? prev->last_column_id : 0;
  for (size_t i = 0; i < schema->n_fields; i++)
    if (schema->fields[i].field_id > last) last = schema->fields[i].field_id;
  /* First the columns prev knows by name (same or promotable type), so their ids are
   * taken before new columns draw fresh ones. */
  for (size_t i = 0; prev && i < schema->n_fields; i++) {
    wr_field *f = &schema->fields[i];
    if (f->field_id > 0) continue;
    long j = wr_schema_find(&prev->schema, f->name);
    if (j < 0) continue;
    const wr_field *pf = &prev->schema.fields[j];
    if (pf->field_id <= 0 || id_used(schema, pf->field_id)) continue;
    if (!promotable(pf->type, f->type)) continue;
    f->field_id = pf->field_id;
  }
  /* Ids are int32: past INT32_MAX a column keeps id 0, and iceberg_write_version refuses
   * it (the overflow would be undefined, and a wrapped id would clash). */
  for (size_t i = 0; i < schema->n_fields; i++) {
    wr_field *f = &schema->fields[i];
    if (f->field_id <= 0 && last < INT32_MAX) f->field_id = ++last;
  }
  *last_column_id = last;
}

const json_t *iceberg_metadata_schema(const json_t *metadata, int64_t schema_id) {
  const json_t *schemas = json_object_get(metadata, "schemas");
  size_t i;
  const json_t *s;
  json_array_foreach(schemas, i, s) {
    if (json_integer_value(json_object_get(s, "schema-id")) == schema_id) return s;
  }
  return NULL;
}
