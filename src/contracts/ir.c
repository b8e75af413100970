/*
 * ir.c -- the contract IR (docs/contract-ir.md): JSON to struct and back.
 *
 * The IR is what the Python SDK emits and what travels with the data in the Iceberg table
 * property `weir.contract`, so the reader is strict: unknown keys, keys that do not
 * belong to a rule's kind, wrong JSON types and rules that make no sense for their
 * column are errors naming the origin and the field, never silently ignored (a typo in
 * a rule would otherwise turn the rule off without anyone noticing). The writer emits
 * every key, resolved (each rule carries its effective mode), so that
 * from_ir(to_ir(c)) == c and to_ir(from_ir(to_ir(c))) == to_ir(c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contracts/internal.h"
#include "util/buf.h"
#include "util/duration.h"

/* ---- writing ---------------------------------------------------------------------------------- */

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }
static json_t *json_or_null(const json_t *v) { return v ? json_deep_copy(v) : json_null(); }

/* Integral thresholds are written as integers, so that the IR reads as it was written. */
static json_t *number_json(double d) {
  if (d == (double)(json_int_t)d && d > -9e15 && d < 9e15) return json_integer((json_int_t)d);
  return json_real(d);
}

static json_t *rule_to_ir(const wr_column_rule *r) {
  json_t *o = json_object();
  json_object_set_new(o, "kind", json_string(contract_rule_kind_name(r->kind)));
  json_object_set_new(o, "name", str_or_null(r->name));
  json_object_set_new(o, "mode", json_string(wr_rule_mode_name(r->mode)));
  switch (r->kind) {
  case WEIR_RULE_UNIQUE: break;
  case WEIR_RULE_ENUM:
    json_object_set_new(o, "values", json_or_null(r->values));
    json_object_set_new(o, "value_names", json_or_null(r->value_names));
    break;
  case WEIR_RULE_PATTERN: json_object_set_new(o, "pattern", str_or_null(r->pattern)); break;
  case WEIR_RULE_RANGE:
    json_object_set_new(o, "min", json_or_null(r->min));
    json_object_set_new(o, "max", json_or_null(r->max));
    break;
  case WEIR_RULE_CHECK: json_object_set_new(o, "sql", str_or_null(r->sql)); break;
  }
  /* Where the rule was declared, so that a rule failing to run names it; absent when the
   * contract came from no text (a Python schema, say). */
  if (r->line > 0) {
    json_object_set_new(o, "line", json_integer(r->line));
    json_object_set_new(o, "column", json_integer(r->column));
  }
  return o;
}

json_t *wr_contract_to_ir(const weir_contract *c) {
  json_t *o = json_object();
  json_object_set_new(o, "ir_version", json_integer(WEIR_CONTRACT_IR_VERSION));
  json_object_set_new(o, "name", str_or_null(c->name));
  json_object_set_new(o, "version", str_or_null(c->version));
  json_object_set_new(o, "owner", str_or_null(c->owner));
  json_object_set_new(o, "description", str_or_null(c->description));
  json_object_set_new(o, "mode", json_string(wr_rule_mode_name(c->mode)));
  json_object_set_new(o, "sla", json_or_null(c->sla));
  json_object_set_new(o, "origin", str_or_null(c->origin));
  json_object_set_new(o, "line", json_integer(c->line));
  json_t *cols = json_array();
  for (size_t i = 0; i < c->n_columns; i++) {
    const wr_contract_column *col = &c->columns[i];
    json_t *co = json_object();
    char tn[WEIR_TYPE_NAME_MAX];
    wr_type_name(col->field.type, tn, sizeof tn);
    json_object_set_new(co, "name", str_or_null(col->field.name));
    json_object_set_new(co, "type", json_string(tn));
    json_object_set_new(co, "nullable", json_boolean(!col->field.required));
    json_object_set_new(co, "doc", str_or_null(col->field.doc));
    /* Written only when it is not the default, so that a contract without exact casts
     * stays readable by a weir that predates the key (readers refuse unknown keys). */
    if (col->cast != WEIR_CAST_MODE_WIDEN)
      json_object_set_new(co, "cast", json_string(wr_cast_mode_name(col->cast)));
    json_t *lin = json_array();
    for (size_t j = 0; j < col->field.n_lineage; j++)
      json_array_append_new(lin, json_string(col->field.lineage[j]));
    json_object_set_new(co, "lineage", lin);
    json_object_set_new(co, "line", json_integer(col->line));
    json_object_set_new(co, "column", json_integer(col->column));
    json_t *rules = json_array();
    for (size_t j = 0; j < col->n_rules; j++) json_array_append_new(rules, rule_to_ir(&col->rules[j]));
    json_object_set_new(co, "rules", rules);
    json_array_append_new(cols, co);
  }
  json_object_set_new(o, "columns", cols);
  json_t *trs = json_array();
  for (size_t i = 0; i < c->n_rules; i++) {
    const wr_table_rule *r = &c->rules[i];
    json_t *ro = json_object();
    json_object_set_new(ro, "name", str_or_null(r->name));
    json_object_set_new(ro, "sql", str_or_null(r->sql));
    json_object_set_new(ro, "threshold", number_json(r->threshold));
    json_object_set_new(ro, "op", json_string(r->op));
    json_object_set_new(ro, "mode", json_string(wr_rule_mode_name(r->mode)));
    if (r->line > 0) {
      json_object_set_new(ro, "line", json_integer(r->line));
      json_object_set_new(ro, "column", json_integer(r->column));
    }
    json_array_append_new(trs, ro);
  }
  json_object_set_new(o, "table_rules", trs);
  /* Only when declared: a contract without partitioning stays readable by a weir that
   * predates the key. */
  if (c->n_partition_by) {
    json_t *pb = json_array();
    for (size_t i = 0; i < c->n_partition_by; i++) json_array_append_new(pb, json_string(c->partition_by[i]));
    json_object_set_new(o, "partition_by", pb);
  }
  return o;
}

/* ---- reading --------------------------------------------------------------------------------- */

typedef struct ir_ctx {
  const char *origin;
  weir_error *err;
} ir_ctx;

static int bad(ir_ctx *x, const char *where, const char *fmt, ...) WEIR_PRINTF(3, 4);
static int bad(ir_ctx *x, const char *where, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return wr_seterr(x->err, WEIR_EINPUT, "%s: %s%s%s", x->origin, where ? where : "", where ? ": " : "", msg);
}

/* Every key of o must be in `allowed` (NULL-terminated). */
static int only_keys(ir_ctx *x, const json_t *o, const char *where, const char *const *allowed) {
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)o, k, v) {
    bool ok = false;
    for (size_t i = 0; allowed[i]; i++)
      if (strcmp(k, allowed[i]) == 0) ok = true;
    if (ok) continue;
    const char *s = contract_suggest(k, allowed);
    if (s) return bad(x, where, "unknown key \"%s\" (did you mean %s?)", k, s);
    return bad(x, where, "unknown key \"%s\"", k);
  }
  return WEIR_OK;
}

/* An optional string: absent or null gives NULL. */
static int get_str(ir_ctx *x, const json_t *o, const char *key, const char *where, bool required,
                   char **out) {
  json_t *v = json_object_get(o, key);
  *out = NULL;
  if (!v || json_is_null(v)) {
    if (required) return bad(x, where, "\"%s\" is required", key);
    return WEIR_OK;
  }
  if (!json_is_string(v)) return bad(x, where, "\"%s\" must be a string", key);
  *out = wr_strdup(json_string_value(v));
  return WEIR_OK;
}

static int get_int(ir_ctx *x, const json_t *o, const char *key, const char *where, int *out) {
  json_t *v = json_object_get(o, key);
  *out = 0;
  if (!v || json_is_null(v)) return WEIR_OK;
  if (!json_is_integer(v)) return bad(x, where, "\"%s\" must be an integer", key);
  *out = (int)json_integer_value(v);
  return WEIR_OK;
}

static int get_mode(ir_ctx *x, const json_t *o, const char *where, wr_rule_mode dflt,
                    wr_rule_mode *out) {
  json_t *v = json_object_get(o, "mode");
  *out = dflt;
  if (!v || json_is_null(v)) return WEIR_OK;
  if (!json_is_string(v) || !contract_mode_parse(json_string_value(v), out))
    return bad(x, where, "\"mode\" must be \"fail\", \"drop\" or \"warn\"");
  return WEIR_OK;
}

static int rule_from_ir(ir_ctx *x, const json_t *o, const wr_contract_column *col, int check_index,
                        wr_rule_mode dflt, const char *where, wr_column_rule *r) {
  static const char *const common[] = {"kind", "name", "mode", "line", "column", NULL};
  static const char *const k_unique[] = {"kind", "name", "mode", "line", "column", NULL};
  static const char *const k_enum[] = {"kind", "name", "mode", "values", "value_names", "line", "column", NULL};
  static const char *const k_pattern[] = {"kind", "name", "mode", "pattern", "line", "column", NULL};
  static const char *const k_range[] = {"kind", "name", "mode", "min", "max", "line", "column", NULL};
  static const char *const k_check[] = {"kind", "name", "mode", "sql", "line", "column", NULL};
  memset(r, 0, sizeof *r);
  if (!json_is_object(o)) return bad(x, where, "a rule must be an object");
  const char *kind = json_string_value(json_object_get(o, "kind"));
  if (!kind) return bad(x, where, "a rule needs a \"kind\"");
  if (!contract_rule_kind_parse(kind, &r->kind))
    return bad(x, where, "unknown rule kind \"%s\" (kinds: unique, enum, pattern, range, check)", kind);
  const char *const *keys = r->kind == WEIR_RULE_UNIQUE    ? k_unique
                            : r->kind == WEIR_RULE_ENUM    ? k_enum
                            : r->kind == WEIR_RULE_PATTERN ? k_pattern
                            : r->kind == WEIR_RULE_RANGE   ? k_range
                            : r->kind == WEIR_RULE_CHECK   ? k_check
                                                           : common;
  int rc = only_keys(x, o, where, keys);
  if (!rc) rc = get_str(x, o, "name", where, false, &r->name);
  if (!rc) rc = get_mode(x, o, where, dflt, &r->mode);
  if (!rc) rc = get_int(x, o, "line", where, &r->line);
  if (!rc) rc = get_int(x, o, "column", where, &r->column);
  if (rc) return rc;
  if (!r->name) r->name = contract_rule_default_name(col->field.name, r->kind, check_index);
  json_t *v;
  switch (r->kind) {
  case WEIR_RULE_UNIQUE: break;
  case WEIR_RULE_ENUM:
    v = json_object_get(o, "values");
    if (v && !json_is_null(v)) r->values = json_deep_copy(v);
    v = json_object_get(o, "value_names");
    if (v && !json_is_null(v)) r->value_names = json_deep_copy(v);
    break;
  case WEIR_RULE_PATTERN: rc = get_str(x, o, "pattern", where, true, &r->pattern); break;
  case WEIR_RULE_RANGE:
    v = json_object_get(o, "min");
    if (v && !json_is_null(v)) r->min = json_deep_copy(v);
    v = json_object_get(o, "max");
    if (v && !json_is_null(v)) r->max = json_deep_copy(v);
    break;
  case WEIR_RULE_CHECK: rc = get_str(x, o, "sql", where, true, &r->sql); break;
  }
  if (rc) return rc;
  char why[512];
  if (!contract_rule_check(col, r, why, sizeof why))
    return bad(x, where, "rule \"%s\": %s", r->name, why);
  return WEIR_OK;
}

static int column_from_ir(ir_ctx *x, const json_t *o, size_t index, wr_rule_mode dflt,
                          wr_contract_column *col) {
  static const char *const keys[] = {"name",    "type", "nullable", "cast",  "doc",
                                     "lineage", "line", "column",   "rules", NULL};
  char where[300];
  snprintf(where, sizeof where, "columns[%zu]", index);
  if (!json_is_object(o)) return bad(x, where, "a column must be an object");
  int rc = only_keys(x, o, where, keys);
  if (!rc) rc = get_str(x, o, "name", where, true, &col->field.name);
  if (rc) return rc;
  snprintf(where, sizeof where, "column \"%s\"", col->field.name);
  const char *type = json_string_value(json_object_get(o, "type"));
  if (!type) return bad(x, where, "\"type\" is required (a weir type name)");
  char why[512];
  if (!wr_type_parse(type, &col->field.type, why, sizeof why)) return bad(x, where, "%s", why);
  json_t *nv = json_object_get(o, "nullable");
  if (nv && !json_is_null(nv) && !json_is_boolean(nv))
    return bad(x, where, "\"nullable\" must be true or false");
  col->field.required = !json_is_true(nv);
  json_t *cv = json_object_get(o, "cast");
  if (cv && !json_is_null(cv) && !contract_cast_mode_parse(json_string_value(cv), &col->cast))
    return bad(x, where, "\"cast\" must be \"widen\" or \"exact\"");
  if (!contract_cast_check(col, why, sizeof why)) return bad(x, where, "%s", why);
  if ((rc = get_str(x, o, "doc", where, false, &col->field.doc))) return rc;
  if ((rc = get_int(x, o, "line", where, &col->line))) return rc;
  if ((rc = get_int(x, o, "column", where, &col->column))) return rc;
  json_t *lin = json_object_get(o, "lineage");
  if (lin && !json_is_null(lin)) {
    if (!json_is_array(lin)) return bad(x, where, "\"lineage\" must be a list of strings");
    size_t n = json_array_size(lin);
    col->field.lineage = n ? wr_calloc(n, sizeof *col->field.lineage) : NULL;
    for (size_t i = 0; i < n; i++) {
      const char *s = json_string_value(json_array_get(lin, i));
      if (!s) return bad(x, where, "\"lineage\" must be a list of strings");
      col->field.lineage[i] = wr_strdup(s);
      col->field.n_lineage++;
    }
  }
  json_t *rules = json_object_get(o, "rules");
  if (rules && !json_is_null(rules)) {
    if (!json_is_array(rules)) return bad(x, where, "\"rules\" must be a list");
    size_t n = json_array_size(rules);
    col->rules = n ? wr_calloc(n, sizeof *col->rules) : NULL;
    int checks = 0;
    for (size_t i = 0; i < n; i++) {
      char rwhere[400];
      snprintf(rwhere, sizeof rwhere, "column \"%s\" rules[%zu]", col->field.name, i);
      rc = rule_from_ir(x, json_array_get(rules, i), col, checks, dflt, rwhere, &col->rules[i]);
      col->n_rules++;
      if (rc) return rc;
      if (col->rules[i].kind == WEIR_RULE_CHECK) checks++;
    }
  }
  return WEIR_OK;
}

static int table_rule_from_ir(ir_ctx *x, const json_t *o, size_t index, wr_rule_mode dflt,
                              wr_table_rule *r) {
  static const char *const keys[] = {"name", "sql", "threshold", "op", "mode", "line", "column", NULL};
  char where[300];
  snprintf(where, sizeof where, "table_rules[%zu]", index);
  if (!json_is_object(o)) return bad(x, where, "a table rule must be an object");
  int rc = only_keys(x, o, where, keys);
  if (!rc) rc = get_str(x, o, "name", where, true, &r->name);
  if (rc) return rc;
  snprintf(where, sizeof where, "table rule \"%s\"", r->name);
  if ((rc = get_str(x, o, "sql", where, true, &r->sql))) return rc;
  if ((rc = get_int(x, o, "line", where, &r->line))) return rc;
  if ((rc = get_int(x, o, "column", where, &r->column))) return rc;
  json_t *t = json_object_get(o, "threshold");
  if (t && !json_is_null(t) && !json_is_number(t))
    return bad(x, where, "\"threshold\" must be a number");
  r->threshold = t ? json_number_value(t) : 0;
  const char *op = json_string_value(json_object_get(o, "op"));
  if (json_object_get(o, "op") && !json_is_null(json_object_get(o, "op")) && !contract_op_valid(op))
    return bad(x, where, "\"op\" must be one of <=, <, >=, >, ==, !=");
  snprintf(r->op, sizeof r->op, "%s", op ? op : "<=");
  /* A table rule judges the whole table: it has no rows to drop. Under a contract whose
   * default mode is drop it fails (the safe reading); asking for drop is an error. */
  json_t *m = json_object_get(o, "mode");
  if (json_is_string(m) && strcmp(json_string_value(m), "drop") == 0)
    return bad(x, where, "a table rule cannot drop rows: its mode is fail or warn");
  if ((rc = get_mode(x, o, where, dflt == WEIR_MODE_DROP ? WEIR_MODE_FAIL : dflt, &r->mode))) return rc;
  if (!strstr(r->sql, "{table}"))
    return bad(x, where, "the SQL does not mention {table}");
  return WEIR_OK;
}

/* Names that must be unique: columns, and rules across the contract. */
static int check_names(ir_ctx *x, const weir_contract *c) {
  for (size_t i = 0; i < c->n_columns; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(c->columns[i].field.name, c->columns[j].field.name) == 0) {
        char a[64], b[64];
        if (c->columns[i].line && c->columns[j].line) {
          snprintf(a, sizeof a, "%d", c->columns[j].line);
          snprintf(b, sizeof b, "%d", c->columns[i].line);
          return wr_seterr(x->err, WEIR_EINPUT, "%s: duplicate column \"%s\" (lines %s and %s)",
                             x->origin, c->columns[i].field.name, a, b);
        }
        return wr_seterr(x->err, WEIR_EINPUT, "%s: duplicate column \"%s\" (columns[%zu] and columns[%zu])",
                           x->origin, c->columns[i].field.name, j, i);
      } else if (strcasecmp(c->columns[i].field.name, c->columns[j].field.name) == 0) {
        /* SQL names are case-insensitive: DuckDB and Spark could not tell the two apart. */
        return wr_seterr(x->err, WEIR_EINPUT,
                         "%s: columns \"%s\" and \"%s\" differ only in case, which SQL engines cannot tell "
                         "apart: rename one",
                         x->origin, c->columns[j].field.name, c->columns[i].field.name);
      }
  /* Rule names identify rules in reports and in `_weir_rule`: two rules with one name
   * would make both ambiguous. */
  size_t n = 0;
  for (size_t i = 0; i < c->n_columns; i++) n += c->columns[i].n_rules;
  n += c->n_rules;
  const char **names = wr_calloc(n ? n : 1, sizeof *names);
  size_t k = 0;
  int rc = WEIR_OK;
  for (size_t i = 0; i < c->n_columns; i++)
    for (size_t j = 0; j < c->columns[i].n_rules; j++) names[k++] = c->columns[i].rules[j].name;
  for (size_t i = 0; i < c->n_rules; i++) names[k++] = c->rules[i].name;
  for (size_t i = 0; i < n && !rc; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0) {
        rc = wr_seterr(x->err, WEIR_EINPUT, "%s: two rules are named \"%s\"", x->origin, names[i]);
        break;
      }
  free(names);
  return rc;
}

int contract_check_names(const weir_contract *c, const char *origin, weir_error *err) {
  ir_ctx x = {origin ? origin : "<contract>", err};
  return check_names(&x, c);
}

int wr_contract_from_ir(const json_t *ir, const char *origin, weir_contract **out, weir_error *err) {
  static const char *const keys[] = {"ir_version", "name", "version", "owner", "description", "mode",
                                     "sla", "origin", "line", "columns", "table_rules", "partition_by", NULL};
  ir_ctx x = {origin ? origin : "<contract IR>", err};
  *out = NULL;
  if (!json_is_object(ir)) return bad(&x, NULL, "a contract IR must be a JSON object");
  int rc = only_keys(&x, ir, NULL, keys);
  if (rc) return rc;
  json_t *ver = json_object_get(ir, "ir_version");
  if (ver && !json_is_null(ver)) {
    if (!json_is_integer(ver) || json_integer_value(ver) < 1)
      return bad(&x, NULL, "\"ir_version\" must be a positive integer");
    if (json_integer_value(ver) > WEIR_CONTRACT_IR_VERSION) {
      char v[32], mine[32];
      snprintf(v, sizeof v, "%lld", (long long)json_integer_value(ver));
      snprintf(mine, sizeof mine, "%d", WEIR_CONTRACT_IR_VERSION);
      return bad(&x, NULL, "IR version %s is newer than this weir reads (%s): upgrade weir", v, mine);
    }
  }
  weir_contract *c = wr_calloc(1, sizeof *c);
  if ((rc = get_str(&x, ir, "name", NULL, true, &c->name))) goto fail;
  if ((rc = get_str(&x, ir, "version", NULL, false, &c->version))) goto fail;
  if ((rc = get_str(&x, ir, "owner", NULL, false, &c->owner))) goto fail;
  if ((rc = get_str(&x, ir, "description", NULL, false, &c->description))) goto fail;
  if ((rc = get_mode(&x, ir, NULL, WEIR_MODE_FAIL, &c->mode))) goto fail;
  if ((rc = get_str(&x, ir, "origin", NULL, false, &c->origin))) goto fail;
  if ((rc = get_int(&x, ir, "line", NULL, &c->line))) goto fail;
  json_t *sla = json_object_get(ir, "sla");
  if (sla && !json_is_null(sla)) {
    if (!json_is_object(sla)) {
      rc = bad(&x, NULL, "\"sla\" must be an object");
      goto fail;
    }
    json_t *fr = json_object_get(sla, "freshness");
    if (fr) {
      int64_t secs = 0;
      weir_error why = {0};
      if (wr_duration_parse(json_is_string(fr) ? json_string_value(fr) : "", "sla freshness", &secs, &why)) {
        rc = bad(&x, "sla", "%s", why.message);
        weir_error_clear(&why);
        goto fail;
      }
    }
    c->sla = json_deep_copy(sla);
  }
  json_t *cols = json_object_get(ir, "columns");
  if (!json_is_array(cols)) {
    rc = bad(&x, NULL, "\"columns\" must be a list of columns");
    goto fail;
  }
  size_t n = json_array_size(cols);
  c->columns = n ? wr_calloc(n, sizeof *c->columns) : NULL;
  for (size_t i = 0; i < n; i++) {
    rc = column_from_ir(&x, json_array_get(cols, i), i, c->mode, &c->columns[i]);
    c->n_columns++;
    if (rc) goto fail;
  }
  json_t *trs = json_object_get(ir, "table_rules");
  if (trs && !json_is_null(trs)) {
    if (!json_is_array(trs)) {
      rc = bad(&x, NULL, "\"table_rules\" must be a list");
      goto fail;
    }
    size_t m = json_array_size(trs);
    c->rules = m ? wr_calloc(m, sizeof *c->rules) : NULL;
    for (size_t i = 0; i < m; i++) {
      rc = table_rule_from_ir(&x, json_array_get(trs, i), i, c->mode, &c->rules[i]);
      c->n_rules++;
      if (rc) goto fail;
    }
  }
  if ((rc = check_names(&x, c))) goto fail;
  json_t *pb = json_object_get(ir, "partition_by");
  if (pb && !json_is_null(pb)) {
    size_t m = json_array_size(pb);
    if (!json_is_array(pb)) {
      rc = bad(&x, NULL, "\"partition_by\" must be a list of transforms such as \"day(ts)\"");
      goto fail;
    }
    c->partition_by = m ? wr_calloc(m, sizeof *c->partition_by) : NULL;
    for (size_t i = 0; i < m; i++) {
      const char *t = json_string_value(json_array_get(pb, i));
      if (!t) {
        rc = bad(&x, "partition_by", "entry %zu is not a string", i + 1);
        goto fail;
      }
      c->partition_by[c->n_partition_by++] = wr_strdup(t);
    }
    char why[512];
    long badi = contract_check_partition(c, why, sizeof why);
    if (badi >= 0) {
      rc = bad(&x, "partition_by", "%s", why);
      goto fail;
    }
  }
  *out = c;
  return WEIR_OK;
fail:
  wr_contract_free(c);
  return rc;
}
