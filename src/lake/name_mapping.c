/*
 * name_mapping.c -- the table property schema.name-mapping.default, Iceberg's rule for
 * reading data files that carry no field ids (pyiceberg's add_files, Hive migrations,
 * files weir adopts with `import --register`).
 *
 * The mapping is a JSON list of {"field-id": N, "names": [...]} (nested "fields" for
 * structs; weir's columns are flat). Readers (pyiceberg, Spark, Trino) give a column of a
 * file without ids the field id whose names list holds its physical name; weir's own
 * views do the same by name (engine/attach.c). Invariants:
 *   - Merging never drops a name: a name an older file was matched by must keep mapping
 *     to its field, or that file's column would read as NULL.
 *   - Each current column's name is listed under its field id, so a file written with the
 *     table's column names reads correctly in every engine.
 */
#include <stdlib.h>
#include <string.h>

#include "lake/lake.h"
#include "util/json.h"

bool lake_table_has_name_mapping(const iceberg_table *t) {
  return t && json_is_string(json_object_get(t->properties, LAKE_PROP_NAME_MAPPING));
}

static bool has_name(const json_t *names, const char *name) {
  size_t i;
  const json_t *v;
  json_array_foreach(names, i, v) {
    if (json_is_string(v) && strcmp(json_string_value(v), name) == 0) return true;
  }
  return false;
}

char *lake_name_mapping_merge(const char *existing, const wr_schema *schema) {
  json_t *list = existing ? json_loads(existing, 0, NULL) : NULL;
  if (!json_is_array(list)) {
    /* An unreadable mapping is replaced (a mapping readers cannot parse maps nothing). */
    json_decref(list);
    list = json_array();
  }
  for (size_t i = 0; i < schema->n_fields; i++) {
    const wr_field *f = &schema->fields[i];
    json_t *entry = NULL;
    size_t k;
    json_t *e;
    json_array_foreach(list, k, e) {
      if (json_integer_value(json_object_get(e, "field-id")) == f->field_id) entry = e;
    }
    if (!entry) {
      entry = json_pack("{s:I,s:[]}", "field-id", (json_int_t)f->field_id, "names");
      json_array_append_new(list, entry);
    }
    json_t *names = json_object_get(entry, "names");
    if (!json_is_array(names)) {
      names = json_array();
      json_object_set_new(entry, "names", names);
    }
    if (!has_name(names, f->name)) json_array_append_new(names, json_string(f->name));
  }
  char *text = json_dumps(list, JSON_COMPACT);
  json_decref(list);
  return text;
}

char *lake_name_mapping_union(const char *a, const char *b) {
  json_t *x = a ? json_loads(a, 0, NULL) : NULL;
  json_t *y = b ? json_loads(b, 0, NULL) : NULL;
  if (!json_is_array(x)) {
    json_decref(x);
    x = json_array();
  }
  size_t i;
  json_t *e;
  json_array_foreach(y, i, e) {
    json_t *id = json_object_get(e, "field-id");
    if (!json_is_integer(id)) continue;
    json_t *into = NULL;
    size_t k;
    json_t *f;
    json_array_foreach(x, k, f) {
      if (json_integer_value(json_object_get(f, "field-id")) == json_integer_value(id)) into = f;
    }
    if (!into) {
      json_array_append(x, e);
      continue;
    }
    json_t *names = json_object_get(into, "names");
    if (!json_is_array(names)) {
      names = json_array();
      json_object_set_new(into, "names", names);
    }
    size_t j;
    json_t *v;
    json_array_foreach(json_object_get(e, "names"), j, v) {
      if (json_is_string(v) && !has_name(names, json_string_value(v))) json_array_append(names, v);
    }
  }
  char *text = json_dumps(x, JSON_COMPACT);
  json_decref(x);
  json_decref(y);
  return text;
}
