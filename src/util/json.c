/*
 * json.c -- serialisation flavours and getters over jansson.
 */
#include "util/json.h"
#include "util/utf8.h"

#include <stdlib.h>

/* With JSON_ENCODE_ANY json_dumps fails only for a NULL value or out of memory. */
char *wr_json_canonical(const json_t *v) {
  if (!v) return wr_strdup("null");
  return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

char *wr_json_pretty(const json_t *v) {
  if (!v) return wr_strdup("null");
  return json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY);
}

char *wr_json_compact(const json_t *v) {
  if (!v) return wr_strdup("null");
  return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

json_t *wr_json_loads(const char *text, size_t flags, json_error_t *e, bool *oom) {
  unsigned long f = wr_json_alloc_failures();
  json_t *v = json_loads(text, flags, e);
  /* Not only NULL: jansson's lexer drops a character it cannot append (lex_save ignores
   * the failure), so a value parsed while an allocation failed may be wrong. */
  *oom = wr_json_alloc_failures() != f;
  if (*oom) {
    json_decref(v);
    v = NULL;
  }
  return v;
}

int wr_json_parse(const char *text, const char *origin, json_t **out, weir_error *err) {
  json_error_t je;
  bool oom = false;
  *out = wr_json_loads(text, JSON_DECODE_ANY, &je, &oom);
  if (oom) return wr_oom(err);
  if (!*out)
    return wr_seterr(err, WEIR_EINPUT, "%s:%d:%d: invalid JSON: %s", origin ? origin : "<json>",
                       je.line, je.column, je.text);
  return WEIR_OK;
}

int wr_json_parse_len(const char *text, size_t len, const char *origin, json_t **out, weir_error *err) {
  json_error_t je;
  unsigned long f = wr_json_alloc_failures();
  *out = json_loadb(text, len, JSON_DECODE_ANY, &je);
  if (wr_json_alloc_failures() != f) { /* see wr_json_loads */
    json_decref(*out);
    *out = NULL;
    return wr_oom(err);
  }
  if (!*out)
    return wr_seterr(err, WEIR_EINPUT, "%s:%d:%d: invalid JSON: %s", origin ? origin : "<json>", je.line,
                       je.column, je.text);
  return WEIR_OK;
}

const char *wr_json_str(const json_t *obj, const char *key, const char *dflt) {
  json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : dflt;
}

int64_t wr_json_int(const json_t *obj, const char *key, int64_t dflt) {
  json_t *v = json_object_get(obj, key);
  if (json_is_integer(v)) return (int64_t)json_integer_value(v);
  if (json_is_real(v)) {
    /* Out of int64's range (1e300) the cast would be undefined: the default instead. */
    double d = json_real_value(v);
    return d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? (int64_t)d : dflt;
  }
  return dflt;
}

int wr_json_bool(const json_t *obj, const char *key, int dflt) {
  json_t *v = json_object_get(obj, key);
  return json_is_boolean(v) ? json_is_true(v) : dflt;
}

json_t *wr_json_str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

json_t *wr_json_text(const char *s) {
  if (!s) return json_null();
  json_t *j = json_string(s);
  if (j) return j;
  char *r = wr_utf8_repair(s);
  if (!r) return NULL;
  j = json_string(r);
  free(r);
  return j;
}
