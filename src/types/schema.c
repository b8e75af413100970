/*
 * schema.c -- column lists.
 */
#include "types/schema.h"

#include <stdlib.h>
#include <string.h>

void wr_field_clear(wr_field *f) {
  if (!f) return;
  free(f->name);
  free(f->doc);
  for (size_t i = 0; i < f->n_lineage; i++) free(f->lineage[i]);
  free(f->lineage);
  memset(f, 0, sizeof *f);
}

int wr_field_copy(wr_field *dst, const wr_field *src) {
  memset(dst, 0, sizeof *dst);
  dst->name = wr_strdup(src->name);
  dst->type = src->type;
  dst->required = src->required;
  dst->doc = wr_strdup(src->doc);
  dst->field_id = src->field_id;
  int bad = (src->name && !dst->name) || (src->doc && !dst->doc);
  if (src->n_lineage && !bad) {
    dst->lineage = wr_calloc(src->n_lineage, sizeof *dst->lineage);
    bad = !dst->lineage;
    if (dst->lineage) dst->n_lineage = src->n_lineage;
    for (size_t i = 0; i < dst->n_lineage; i++) {
      dst->lineage[i] = wr_strdup(src->lineage[i]);
      if (src->lineage[i] && !dst->lineage[i]) bad = 1;
    }
  }
  if (bad) {
    wr_field_clear(dst);
    return WEIR_ENOMEM;
  }
  return WEIR_OK;
}

void wr_schema_clear(wr_schema *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n_fields; i++) wr_field_clear(&s->fields[i]);
  free(s->fields);
  s->fields = NULL;
  s->n_fields = 0;
}

int wr_schema_copy(wr_schema *dst, const wr_schema *src) {
  memset(dst, 0, sizeof *dst);
  for (size_t i = 0; i < src->n_fields; i++)
    if (wr_schema_add(dst, &src->fields[i]) != WEIR_OK) {
      wr_schema_clear(dst);
      return WEIR_ENOMEM;
    }
  return WEIR_OK;
}

int wr_schema_add(wr_schema *s, const wr_field *f) {
  wr_field *fields = wr_realloc(s->fields, (s->n_fields + 1) * sizeof *s->fields);
  if (!fields) return WEIR_ENOMEM;
  s->fields = fields;
  if (wr_field_copy(&s->fields[s->n_fields], f) != WEIR_OK) return WEIR_ENOMEM;
  s->n_fields++;
  return WEIR_OK;
}

long wr_schema_find(const wr_schema *s, const char *name) {
  for (size_t i = 0; i < s->n_fields; i++)
    if (strcmp(s->fields[i].name, name) == 0) return (long)i;
  return -1;
}

json_t *wr_schema_to_json(const wr_schema *s) {
  json_t *arr = json_array();
  int bad = !arr; /* json_*_set_new/append_new return -1 for a NULL value: OOM below */
  for (size_t i = 0; i < s->n_fields; i++) {
    const wr_field *f = &s->fields[i];
    char tn[WEIR_TYPE_NAME_MAX];
    wr_type_name(f->type, tn, sizeof tn);
    json_t *lin = json_array();
    for (size_t j = 0; j < f->n_lineage; j++) bad |= json_array_append_new(lin, json_string(f->lineage[j]));
    json_t *o = json_object();
    bad |= json_object_set_new(o, "name", json_string(f->name));
    bad |= json_object_set_new(o, "type", json_string(tn));
    bad |= json_object_set_new(o, "required", json_boolean(f->required));
    bad |= json_object_set_new(o, "doc", f->doc ? json_string(f->doc) : json_null());
    bad |= json_object_set_new(o, "field_id", json_integer(f->field_id));
    bad |= json_object_set_new(o, "lineage", lin);
    bad |= json_array_append_new(arr, o);
  }
  if (bad) {
    json_decref(arr);
    return NULL;
  }
  return arr;
}

int wr_schema_from_json(const json_t *arr, wr_schema *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  if (!json_is_array(arr)) return wr_seterr(err, WEIR_EINPUT, "schema: expected a JSON array of columns");
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o) {
    wr_field f = {0};
    const char *name = json_string_value(json_object_get(o, "name"));
    const char *type = json_string_value(json_object_get(o, "type"));
    char why[256];
    if (!name) {
      wr_schema_clear(out);
      return wr_seterr(err, WEIR_EINPUT, "schema: column %zu has no name", i + 1);
    }
    if (!wr_type_parse(type, &f.type, why, sizeof why)) {
      wr_schema_clear(out);
      return wr_seterr(err, WEIR_EINPUT, "schema: column \"%s\": %s", name, why);
    }
    f.name = (char *)name;
    f.required = json_is_true(json_object_get(o, "required"));
    f.doc = (char *)json_string_value(json_object_get(o, "doc"));
    f.field_id = (int32_t)json_integer_value(json_object_get(o, "field_id"));
    json_t *lin = json_object_get(o, "lineage");
    size_t nl = json_is_array(lin) ? json_array_size(lin) : 0;
    char **refs = nl ? wr_calloc(nl, sizeof *refs) : NULL;
    if (nl && !refs) {
      wr_schema_clear(out);
      return wr_oom(err);
    }
    for (size_t j = 0; j < nl; j++) refs[j] = (char *)json_string_value(json_array_get(lin, j));
    f.lineage = refs;
    f.n_lineage = nl;
    int rc = wr_schema_add(out, &f); /* copies */
    free(refs);
    if (rc != WEIR_OK) {
      wr_schema_clear(out);
      return wr_oom(err);
    }
  }
  return WEIR_OK;
}
