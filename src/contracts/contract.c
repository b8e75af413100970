/*
 * contract.c -- a contract's life: names of modes and rule kinds, default rule names,
 * copying and freeing, the contract as a schema, lineage, loading a file, and the check
 * that a rule makes sense for its column's type (shared by the YAML and IR loaders, so
 * both refuse the same contracts with the same words).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contracts/internal.h"
#include "iceberg/iceberg.h"
#include "util/fs.h"
#include "util/json.h"

const char *wr_rule_mode_name(wr_rule_mode m) {
  switch (m) {
  case WEIR_MODE_FAIL: return "fail";
  case WEIR_MODE_DROP: return "drop";
  case WEIR_MODE_WARN: return "warn";
  }
  return "fail";
}

bool contract_mode_parse(const char *s, wr_rule_mode *out) {
  if (!s) return false;
  if (strcmp(s, "fail") == 0) *out = WEIR_MODE_FAIL;
  else if (strcmp(s, "drop") == 0) *out = WEIR_MODE_DROP;
  else if (strcmp(s, "warn") == 0) *out = WEIR_MODE_WARN;
  else return false;
  return true;
}

const char *wr_cast_mode_name(wr_cast_mode m) { return m == WEIR_CAST_MODE_EXACT ? "exact" : "widen"; }

bool contract_cast_mode_parse(const char *s, wr_cast_mode *out) {
  if (!s) return false;
  if (strcmp(s, "widen") == 0)
    *out = WEIR_CAST_MODE_WIDEN;
  else if (strcmp(s, "exact") == 0)
    *out = WEIR_CAST_MODE_EXACT;
  else
    return false;
  return true;
}

const char *contract_rule_kind_name(wr_rule_kind k) {
  switch (k) {
  case WEIR_RULE_UNIQUE: return "unique";
  case WEIR_RULE_ENUM: return "enum";
  case WEIR_RULE_PATTERN: return "pattern";
  case WEIR_RULE_RANGE: return "range";
  case WEIR_RULE_CHECK: return "check";
  }
  return "check";
}

bool contract_rule_kind_parse(const char *s, wr_rule_kind *out) {
  static const wr_rule_kind all[] = {WEIR_RULE_UNIQUE, WEIR_RULE_ENUM, WEIR_RULE_PATTERN,
                                       WEIR_RULE_RANGE, WEIR_RULE_CHECK};
  if (!s) return false;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (strcmp(s, contract_rule_kind_name(all[i])) == 0) {
      *out = all[i];
      return true;
    }
  return false;
}

bool contract_op_valid(const char *op) {
  static const char *const ops[] = {"<=", "<", ">=", ">", "==", "!="};
  if (!op) return false;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(op, ops[i]) == 0) return true;
  return false;
}

char *contract_rule_default_name(const char *column, wr_rule_kind k, int check_index) {
  if (k == WEIR_RULE_CHECK) return wr_asprintf("%s.check[%d]", column, check_index);
  return wr_asprintf("%s.%s", column, contract_rule_kind_name(k));
}

/* ---- freeing and copying ------------------------------------------------------------------ */

void contract_rule_clear(wr_column_rule *r) {
  free(r->name);
  json_decref(r->values);
  json_decref(r->value_names);
  free(r->pattern);
  json_decref(r->min);
  json_decref(r->max);
  free(r->sql);
  memset(r, 0, sizeof *r);
}

/* Deep copies of JSON values, so copies never share mutable state. */
static json_t *jcopy(const json_t *v) { return v ? json_deep_copy(v) : NULL; }

void contract_rule_copy(wr_column_rule *dst, const wr_column_rule *src) {
  memset(dst, 0, sizeof *dst);
  dst->kind = src->kind;
  dst->name = wr_strdup(src->name);
  dst->mode = src->mode;
  dst->values = jcopy(src->values);
  dst->value_names = jcopy(src->value_names);
  dst->pattern = wr_strdup(src->pattern);
  dst->min = jcopy(src->min);
  dst->max = jcopy(src->max);
  dst->sql = wr_strdup(src->sql);
  dst->line = src->line;
  dst->column = src->column;
}

void contract_column_clear(wr_contract_column *c) {
  wr_field_clear(&c->field);
  for (size_t i = 0; i < c->n_rules; i++) contract_rule_clear(&c->rules[i]);
  free(c->rules);
  memset(c, 0, sizeof *c);
}

void contract_table_rule_clear(wr_table_rule *r) {
  free(r->name);
  free(r->sql);
  memset(r, 0, sizeof *r);
}

void wr_contract_free(weir_contract *c) {
  if (!c) return;
  free(c->name);
  free(c->version);
  free(c->owner);
  free(c->description);
  json_decref(c->sla);
  free(c->origin);
  for (size_t i = 0; i < c->n_columns; i++) contract_column_clear(&c->columns[i]);
  free(c->columns);
  for (size_t i = 0; i < c->n_rules; i++) contract_table_rule_clear(&c->rules[i]);
  free(c->rules);
  for (size_t i = 0; i < c->n_partition_by; i++) free(c->partition_by[i]);
  free(c->partition_by);
  free(c);
}

weir_contract *wr_contract_copy(const weir_contract *c) {
  if (!c) return NULL;
  weir_contract *d = wr_calloc(1, sizeof *d);
  d->name = wr_strdup(c->name);
  d->version = wr_strdup(c->version);
  d->owner = wr_strdup(c->owner);
  d->description = wr_strdup(c->description);
  d->mode = c->mode;
  d->sla = jcopy(c->sla);
  d->origin = wr_strdup(c->origin);
  d->line = c->line;
  if (c->n_columns) {
    d->columns = wr_calloc(c->n_columns, sizeof *d->columns);
    d->n_columns = c->n_columns;
    for (size_t i = 0; i < c->n_columns; i++) {
      const wr_contract_column *s = &c->columns[i];
      wr_contract_column *t = &d->columns[i];
      wr_field_copy(&t->field, &s->field);
      t->cast = s->cast;
      t->line = s->line;
      t->column = s->column;
      if (s->n_rules) {
        t->rules = wr_calloc(s->n_rules, sizeof *t->rules);
        t->n_rules = s->n_rules;
        for (size_t j = 0; j < s->n_rules; j++) contract_rule_copy(&t->rules[j], &s->rules[j]);
      }
    }
  }
  if (c->n_rules) {
    d->rules = wr_calloc(c->n_rules, sizeof *d->rules);
    d->n_rules = c->n_rules;
    for (size_t i = 0; i < c->n_rules; i++) {
      d->rules[i] = c->rules[i];
      d->rules[i].name = wr_strdup(c->rules[i].name);
      d->rules[i].sql = wr_strdup(c->rules[i].sql);
    }
  }
  if (c->n_partition_by) {
    d->partition_by = wr_calloc(c->n_partition_by, sizeof *d->partition_by);
    d->n_partition_by = c->n_partition_by;
    for (size_t i = 0; i < c->n_partition_by; i++) d->partition_by[i] = wr_strdup(c->partition_by[i]);
  }
  d->partition_line = c->partition_line;
  return d;
}

long contract_check_partition(const weir_contract *c, char *why, size_t why_n) {
  for (size_t i = 0; i < c->n_partition_by; i++) {
    iceberg_partition_field f;
    if (!iceberg_partition_field_parse(c->partition_by[i], &f, why, why_n)) return (long)i;
    const wr_contract_column *col = NULL;
    for (size_t k = 0; k < c->n_columns && !col; k++)
      if (!strcmp(c->columns[k].field.name, f.source)) col = &c->columns[k];
    if (!col) {
      const char *near = NULL;
      for (size_t k = 0; k < c->n_columns && !near; k++)
        if (!strcasecmp(c->columns[k].field.name, f.source)) near = c->columns[k].field.name;
      if (near)
        snprintf(why, why_n, "partition field %s names column \"%s\", which is not declared (did you mean %s?)",
                 c->partition_by[i], f.source, near);
      else
        snprintf(why, why_n, "partition field %s names column \"%s\", which is not declared", c->partition_by[i],
                 f.source);
      iceberg_partition_field_clear(&f);
      return (long)i;
    }
    bool ok = iceberg_partition_field_bind(&f, col->field.type, why, why_n);
    for (size_t j = 0; ok && j < i; j++) {
      iceberg_partition_field g;
      char ignore[8];
      if (iceberg_partition_field_parse(c->partition_by[j], &g, ignore, sizeof ignore)) {
        if (!strcmp(g.source, f.source) && g.kind == f.kind) {
          snprintf(why, why_n, "partition fields %s and %s repeat one transform of \"%s\"", c->partition_by[j],
                   c->partition_by[i], f.source);
          ok = false;
        }
        iceberg_partition_field_clear(&g);
      }
    }
    iceberg_partition_field_clear(&f);
    if (!ok) return (long)i;
  }
  return -1;
}

bool wr_contract_has_sql(const weir_contract *c) {
  if (!c) return false;
  if (c->n_rules) return true;
  for (size_t i = 0; i < c->n_columns; i++)
    for (size_t j = 0; j < c->columns[i].n_rules; j++)
      if (c->columns[i].rules[j].kind == WEIR_RULE_CHECK) return true;
  return false;
}

/* ---- schema and lineage ------------------------------------------------------------------ */

void wr_contract_schema(const weir_contract *c, wr_schema *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < c->n_columns; i++) {
    wr_schema_add(out, &c->columns[i].field);
    out->fields[i].field_id = 0;
  }
}

weir_contract *wr_contract_from_schema(const wr_schema *s, const char *name) {
  weir_contract *c = wr_calloc(1, sizeof *c);
  c->name = wr_strdup(name);
  c->mode = WEIR_MODE_FAIL;
  if (s->n_fields) {
    c->columns = wr_calloc(s->n_fields, sizeof *c->columns);
    c->n_columns = s->n_fields;
    for (size_t i = 0; i < s->n_fields; i++) {
      wr_field_copy(&c->columns[i].field, &s->fields[i]);
      c->columns[i].field.field_id = 0;
    }
  }
  return c;
}

json_t *wr_contract_lineage_json(const weir_contract *c) {
  json_t *o = json_object();
  for (size_t i = 0; i < c->n_columns; i++) {
    const wr_field *f = &c->columns[i].field;
    if (!f->n_lineage) continue;
    json_t *a = json_array();
    for (size_t j = 0; j < f->n_lineage; j++) json_array_append_new(a, json_string(f->lineage[j]));
    json_object_set_new(o, f->name, a);
  }
  return o;
}

/* ---- loading a file -------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (m > n) return false;
  for (size_t i = 0; i < m; i++)
    if (tolower((unsigned char)s[n - m + i]) != suffix[i]) return false;
  return true;
}

int wr_contract_load_file(const char *path, weir_contract **out, weir_error *err) {
  *out = NULL;
  bool yaml = ends_with(path, ".yml") || ends_with(path, ".yaml");
  bool json = ends_with(path, ".json");
  if (!yaml && !json)
    return wr_seterr(err, WEIR_EINPUT,
                       "%s: a contract file must end in .yml, .yaml (YAML) or .json (IR)", path);
  char *text = NULL;
  size_t len = 0;
  int rc = wr_fs_read(path, &text, &len, err);
  if (rc) return rc;
  if (yaml) {
    rc = wr_contract_from_yaml(text, len, path, out, err);
  } else {
    json_t *ir = NULL;
    rc = wr_json_parse(text, path, &ir, err);
    if (!rc) rc = wr_contract_from_ir(ir, path, out, err);
    json_decref(ir);
  }
  free(text);
  return rc;
}

/* ---- rule sanity, per column type ------------------------------------------------------ */

static bool is_int_type(weir_type t) { return t.id == WEIR_TYPE_INT32 || t.id == WEIR_TYPE_INT64; }
static bool is_float_type(weir_type t) {
  return t.id == WEIR_TYPE_FLOAT32 || t.id == WEIR_TYPE_FLOAT64;
}
static bool is_temporal(weir_type t) { return t.id >= WEIR_TYPE_DATE32 && t.id <= WEIR_TYPE_TS_NS_UTC; }

/* Can JSON value v stand for a value of type t (an enum value or a range bound)? */
static bool value_fits(weir_type t, const json_t *v, bool bound, char *why, size_t n) {
  char tn[WEIR_TYPE_NAME_MAX];
  wr_type_name(t, tn, sizeof tn);
  if (is_int_type(t)) {
    /* Enum values must be whole numbers; a bound may be fractional (it is rounded
     * inward: x >= 0.5 means x >= 1 for integers). */
    if (json_is_integer(v) || (bound && json_is_real(v))) return true;
    int64_t whole;
    if (json_is_real(v) && wc_real_to_int64(json_real_value(v), &whole)) return true;
  } else if (is_float_type(t)) {
    if (json_is_number(v)) return true;
  } else if (t.id == WEIR_TYPE_DECIMAL) {
    wr_i128 x;
    /* Bounds may fall between two decimals (rounded inward); enum values must be exact. */
    if (wc_value_decimal_from_json(v, t.scale, bound ? -1 : 0, &x)) return true;
  } else if (t.id == WEIR_TYPE_STRING || t.id == WEIR_TYPE_BINARY) {
    if (json_is_string(v)) return true;
  } else if (t.id == WEIR_TYPE_BOOL) {
    if (json_is_boolean(v)) return true;
  } else if (is_temporal(t)) {
    if (json_is_integer(v)) return true;
    if (json_is_string(v)) {
      const char *s = json_string_value(v);
      int64_t x;
      bool zone = false;
      bool ok = (t.id == WEIR_TYPE_DATE32) ? wc_value_date_parse(s, &x)
                : (t.id == WEIR_TYPE_DATE64) ? wc_value_timestamp_parse(s, 'm', &x, &zone)
                                             : wc_value_timestamp_parse(s, wc_value_ts_unit(t), &x, &zone);
      if (ok && zone && !wc_value_ts_utc(t)) {
        snprintf(why, n, "\"%s\" has a time zone but the column is %s (no time zone)", s, tn);
        return false;
      }
      if (ok) return true;
      snprintf(why, n, "\"%s\" is not a value of type %s (expected e.g. %s)", s, tn,
               t.id == WEIR_TYPE_DATE32 ? "\"2024-01-31\"" : "\"2024-01-31 12:00:00\"");
      return false;
    }
  }
  char *txt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  snprintf(why, n, "%s is not a value of type %s", txt ? txt : "?", tn);
  free(txt);
  return false;
}

bool contract_cast_check(const wr_contract_column *col, char *why, size_t n) {
  if (col->cast != WEIR_CAST_MODE_EXACT) return true;
  switch (col->field.type.id) {
  case WEIR_TYPE_INT32:
  case WEIR_TYPE_INT64:
  case WEIR_TYPE_FLOAT32:
  case WEIR_TYPE_FLOAT64:
  case WEIR_TYPE_DECIMAL:
  case WEIR_TYPE_DATE32:
  case WEIR_TYPE_TS_US:
  case WEIR_TYPE_TS_NS:
  case WEIR_TYPE_TS_US_UTC:
  case WEIR_TYPE_TS_NS_UTC: return true;
  default: {
    char tn[WEIR_TYPE_NAME_MAX];
    wr_type_name(col->field.type, tn, sizeof tn);
    snprintf(why, n,
             "cast exact applies to numbers, decimals, dates and timestamps, not %s (no narrowing cast leads "
             "to it)",
             tn);
    return false;
  }
  }
}

bool contract_rule_check(const wr_contract_column *col, const wr_column_rule *r, char *why,
                         size_t n) {
  weir_type t = col->field.type;
  char tn[WEIR_TYPE_NAME_MAX];
  wr_type_name(t, tn, sizeof tn);
  switch (r->kind) {
  case WEIR_RULE_UNIQUE:
    if (t.id == WEIR_TYPE_ANY) {
      snprintf(why, n, "unique needs a typed column, not Any");
      return false;
    }
    return true;
  case WEIR_RULE_ENUM: {
    if (t.id == WEIR_TYPE_ANY) {
      snprintf(why, n, "enum needs a typed column, not Any");
      return false;
    }
    if (!json_is_array(r->values) || json_array_size(r->values) == 0) {
      snprintf(why, n, "enum needs a non-empty list of values");
      return false;
    }
    size_t i;
    json_t *v;
    json_array_foreach(r->values, i, v) {
      if (!value_fits(t, v, false, why, n)) return false;
    }
    if (r->value_names) {
      if (!json_is_array(r->value_names) || json_array_size(r->value_names) != json_array_size(r->values)) {
        snprintf(why, n, "enum value names must be a list as long as the values");
        return false;
      }
      json_array_foreach(r->value_names, i, v) {
        if (!json_is_string(v)) {
          snprintf(why, n, "enum value names must be strings");
          return false;
        }
      }
    }
    return true;
  }
  case WEIR_RULE_PATTERN: {
    if (t.id != WEIR_TYPE_STRING) {
      snprintf(why, n, "pattern applies to String columns, not %s", tn);
      return false;
    }
    if (!r->pattern) {
      snprintf(why, n, "pattern needs a regular expression");
      return false;
    }
    pattern_rule *p = NULL;
    if (wc_pattern_compile(r->pattern, &p, why, n)) return false;
    wc_pattern_free(p);
    return true;
  }
  case WEIR_RULE_RANGE: {
    if (t.id == WEIR_TYPE_ANY || t.id == WEIR_TYPE_BOOL || t.id == WEIR_TYPE_BINARY) {
      snprintf(why, n, "min/max do not apply to %s columns", tn);
      return false;
    }
    if (!r->min && !r->max) {
      snprintf(why, n, "a range needs min, max or both");
      return false;
    }
    if (r->min && !value_fits(t, r->min, true, why, n)) return false;
    if (r->max && !value_fits(t, r->max, true, why, n)) return false;
    range_bounds *b = NULL;
    if (wc_range_compile(t, r->min, r->max, &b, why, n)) return false;
    wc_range_free(b);
    return true;
  }
  case WEIR_RULE_CHECK:
    if (!r->sql || !r->sql[0]) {
      snprintf(why, n, "a check needs a SQL expression");
      return false;
    }
    return true; /* its shape is the parser's to judge (wr_engine_sql_shape, when it runs) */
  }
  snprintf(why, n, "unknown rule kind");
  return false;
}

/* ---- suggestions for typos ------------------------------------------------------------------- */

/* Optimal string alignment distance: insertions, deletions, substitutions and swaps of
 * two neighbours each cost 1 ("mdoe" is one typo away from "mode"). */
static size_t edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 64 || m > 64) return 99;
  size_t d[65][65];
  for (size_t i = 0; i <= n; i++) d[i][0] = i;
  for (size_t j = 0; j <= m; j++) d[0][j] = j;
  for (size_t i = 1; i <= n; i++) {
    for (size_t j = 1; j <= m; j++) {
      int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
      size_t best = d[i - 1][j - 1] + (ai == bj ? 0 : 1);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == bj &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[n][m];
}

const char *contract_suggest(const char *s, const char *const *words) {
  const char *best = NULL;
  size_t best_d = 99;
  for (size_t i = 0; words[i]; i++) {
    size_t d = edit_distance(s, words[i]);
    if (d < best_d) {
      best_d = d;
      best = words[i];
    }
  }
  /* A third of the word's length, at least 1 and at most 3 edits, counts as a typo. */
  size_t len = strlen(s);
  size_t limit = len / 3;
  if (limit < 1) limit = 1;
  if (limit > 3) limit = 3;
  return best_d <= limit ? best : NULL;
}

void wr_contract_remove_column(weir_contract *c, size_t i) {
  if (!c || i >= c->n_columns) return;
  contract_column_clear(&c->columns[i]);
  memmove(&c->columns[i], &c->columns[i + 1], (c->n_columns - i - 1) * sizeof *c->columns);
  c->n_columns--;
}
