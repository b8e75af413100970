/*
 * yaml.c -- YAML contracts (docs/contracts.md, "YAML contracts") compiled to the IR
 * struct with libyaml's document API, whose nodes carry their source marks: every error
 * names the file, line and column of the node at fault, syntax errors included.
 *
 * Unknown keys are errors (with a suggestion when the key is a near miss of a known one),
 * because a misspelt `nullabel: true` or `uniqe: true` silently ignored is a rule that
 * is silently off.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "contracts/internal.h"
#include "util/duration.h"

typedef struct yctx {
  yaml_document_t *doc;
  const char *origin;
  weir_error *err;
  int end_line, end_col;          /* where the input ends (1-based): marks past it are clamped */
  long values_left;               /* JSON values to_json may still make (see VALUES_MAX) */
  const yaml_node_t *too_many_at; /* where that budget ran out, or NULL */
} yctx;

/* Aliases make a YAML document a graph: ten anchors of ten aliases each ("billion
 * laughs") are 200 bytes that expand to 10^10 values. to_json expands them (an enum's
 * values, an sla), so it has a budget for the whole contract, far above any real one. */
#define VALUES_MAX 100000

static void position_at(const unsigned char *t, size_t len, size_t offset, yaml_encoding_t enc, int *line,
                        int *col);
static int yerr(yctx *x, const yaml_node_t *n, const char *fmt, ...) WEIR_PRINTF(3, 4);
/* Where node n starts (1-based). libyaml ends input that lacks a final line break with
 * one of its own: a node there (the empty value of "key:" on the last line, the empty
 * document of "---") is marked on a line the file does not have, and is placed at the end
 * of the input instead. */
static void node_pos(const yctx *x, const yaml_node_t *n, int *line, int *col) {
  *line = n ? (int)n->start_mark.line + 1 : 1;
  *col = n ? (int)n->start_mark.column + 1 : 1;
  if (*line > x->end_line || (*line == x->end_line && *col > x->end_col)) {
    *line = x->end_line;
    *col = x->end_col;
  }
}

static int yerr(yctx *x, const yaml_node_t *n, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int line, col;
  node_pos(x, n, &line, &col);
  return wr_seterr(x->err, WEIR_EINPUT, "%s:%d:%d: %s", x->origin, line, col, msg);
}

static yaml_node_t *node(yctx *x, int id) { return yaml_document_get_node(x->doc, id); }

static const char *scalar(const yaml_node_t *n) {
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}
static bool is_plain(const yaml_node_t *n) {
  return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* ---- scalars as JSON values (YAML 1.2 core schema for plain scalars) --------------------- */

static bool plain_is_null(const char *s) {
  return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
         strcmp(s, "NULL") == 0;
}

static bool parse_int(const char *s, long long *out) {
  if (!*s) return false;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (*end || errno) return false;
  *out = v;
  return true;
}

static bool parse_real(const char *s, double *out) {
  if (!*s) return false;
  /* Only decimal notation: strtod would also take "inf", "nan" and hex floats. */
  for (const char *p = s; *p; p++)
    if (!strchr("0123456789+-.eE", *p)) return false;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno) return false;
  *out = v;
  return true;
}

static json_t *to_json(yctx *x, const yaml_node_t *n, int depth) {
  if (depth > 64) return json_null();
  if (x->values_left <= 0) {
    if (!x->too_many_at) x->too_many_at = n;
    return json_null();
  }
  x->values_left--;
  if (n->type == YAML_SCALAR_NODE) {
    const char *s = scalar(n);
    if (!is_plain(n)) return json_stringn(s, n->data.scalar.length);
    long long i;
    double d;
    if (plain_is_null(s)) return json_null();
    if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0) return json_true();
    if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
      return json_false();
    if (parse_int(s, &i)) return json_integer(i);
    if (parse_real(s, &d)) return json_real(d);
    return json_stringn(s, n->data.scalar.length);
  }
  if (n->type == YAML_SEQUENCE_NODE) {
    json_t *a = json_array();
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
      json_array_append_new(a, to_json(x, node(x, *it), depth + 1));
    return a;
  }
  json_t *o = json_object();
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    const yaml_node_t *k = node(x, p->key);
    const char *ks = scalar(k);
    json_object_set_new(o, ks ? ks : "?", to_json(x, node(x, p->value), depth + 1));
  }
  return o;
}

/* ---- mappings ------------------------------------------------------------------------------- */

/* Checks that every key of mapping n is a scalar listed in `keys`, and that none repeats.
 * `what` names the mapping in messages ("contract", "column \"amount\""). */
static int check_keys(yctx *x, const yaml_node_t *n, const char *const *keys, const char *what) {
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    const yaml_node_t *k = node(x, p->key);
    const char *ks = scalar(k);
    if (!ks) return yerr(x, k, "keys of %s must be plain words", what);
    bool known = false;
    for (size_t i = 0; keys[i]; i++)
      if (strcmp(ks, keys[i]) == 0) known = true;
    if (!known) {
      const char *s = contract_suggest(ks, keys);
      if (s) return yerr(x, k, "unknown key \"%s\" in %s (did you mean %s?)", ks, what, s);
      /* "{type: Decimal(10, 2)}" splits at the comma in YAML's flow style. */
      size_t kl = strlen(ks);
      if (kl > 0 && ks[kl - 1] == ')')
        return yerr(x, k,
                    "unknown key \"%s\" in %s (a comma ends a value in {...} mappings: quote the type, "
                    "as in type: \"Decimal(10, 2)\")",
                    ks, what);
      return yerr(x, k, "unknown key \"%s\" in %s", ks, what);
    }
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
      const yaml_node_t *k2 = node(x, q->key);
      if (scalar(k2) && strcmp(scalar(k2), ks) == 0)
        return yerr(x, k, "duplicate key \"%s\" in %s (first at line %d)", ks, what,
                    (int)k2->start_mark.line + 1);
    }
  }
  return WEIR_OK;
}

/* The value node of `key` in mapping n (and the key node in *key_node), or NULL. */
static yaml_node_t *get(yctx *x, const yaml_node_t *n, const char *key, yaml_node_t **key_node) {
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    yaml_node_t *k = node(x, p->key);
    if (scalar(k) && strcmp(scalar(k), key) == 0) {
      if (key_node) *key_node = k;
      return node(x, p->value);
    }
  }
  return NULL;
}

/* A key that has an alias (columns/schema): at most one of the two may be given. */
static yaml_node_t *get_alias(yctx *x, const yaml_node_t *n, const char *a, const char *b,
                              const char *what, yaml_node_t **key_node, int *rc) {
  yaml_node_t *ka = NULL, *kb = NULL;
  yaml_node_t *va = get(x, n, a, &ka), *vb = get(x, n, b, &kb);
  *rc = WEIR_OK;
  if (va && vb) {
    *rc = yerr(x, kb, "%s has both \"%s\" and \"%s\" (they are the same key)", what, a, b);
    return NULL;
  }
  if (key_node) *key_node = va ? ka : kb;
  return va ? va : vb;
}

static int get_string(yctx *x, const yaml_node_t *v, const char *what, char **out) {
  *out = NULL;
  if (!v) return WEIR_OK;
  if (v->type != YAML_SCALAR_NODE) return yerr(x, v, "%s must be a string", what);
  if (is_plain(v) && plain_is_null(scalar(v))) return WEIR_OK;
  *out = wr_strndup(scalar(v), v->data.scalar.length);
  return WEIR_OK;
}

static int get_bool(yctx *x, const yaml_node_t *v, const char *what, bool *out) {
  const char *s = scalar(v);
  if (s && is_plain(v)) {
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
      *out = true;
      return WEIR_OK;
    }
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
      *out = false;
      return WEIR_OK;
    }
  }
  return yerr(x, v, "%s must be true or false", what);
}

static int get_mode(yctx *x, const yaml_node_t *v, wr_rule_mode *out) {
  const char *s = scalar(v);
  if (!s || !contract_mode_parse(s, out))
    return yerr(x, v, "mode must be fail, drop or warn, not \"%s\"", s ? s : "(a collection)");
  return WEIR_OK;
}

/* ---- column rules ------------------------------------------------------------------------------ */

/* A rule under construction, with the node it came from for messages. */
typedef struct yrule {
  wr_column_rule r;
  yaml_node_t *at;
  bool mode_set;
} yrule;

typedef struct yrules {
  yrule *v;
  size_t n;
} yrules;

static yrule *push_rule(yrules *rs, wr_rule_kind k, yaml_node_t *at) {
  rs->v = wr_realloc(rs->v, (rs->n + 1) * sizeof *rs->v);
  yrule *y = &rs->v[rs->n++];
  memset(y, 0, sizeof *y);
  y->r.kind = k;
  y->at = at;
  return y;
}

/* The long form of a rule, a mapping with `value_key` (or none for unique), `mode` and
 * `name`; fills *value with the value node. */
static int rule_options(yctx *x, yaml_node_t *m, const char *value_key, const char *what, yrule *y,
                        yaml_node_t **value) {
  const char *keys_v[] = {value_key, "mode", "name", NULL};
  const char *keys_u[] = {"mode", "name", NULL};
  int rc = check_keys(x, m, value_key ? keys_v : keys_u, what);
  if (rc) return rc;
  yaml_node_t *mv = get(x, m, "mode", NULL), *nv = get(x, m, "name", NULL);
  if (mv) {
    if ((rc = get_mode(x, mv, &y->r.mode))) return rc;
    y->mode_set = true;
  }
  if (nv && (rc = get_string(x, nv, "a rule name", &y->r.name))) return rc;
  if (value_key) {
    *value = get(x, m, value_key, NULL);
    if (!*value) return yerr(x, m, "%s needs \"%s\"", what, value_key);
  }
  return WEIR_OK;
}

/* enum: a list of values, a mapping of names to values, or the long form
 * {values: <list or mapping>, mode, name}. */
static int parse_enum(yctx *x, yaml_node_t *v, const char *col, yrule *y) {
  char what[300];
  snprintf(what, sizeof what, "enum of column \"%s\"", col);
  int rc;
  if (v->type == YAML_MAPPING_NODE && get(x, v, "values", NULL)) {
    yaml_node_t *vals = NULL;
    if ((rc = rule_options(x, v, "values", what, y, &vals))) return rc;
    v = vals;
  }
  if (v->type == YAML_SEQUENCE_NODE) {
    y->r.values = to_json(x, v, 0);
  } else if (v->type == YAML_MAPPING_NODE) {
    /* Named values: {1st: 1, 2nd: 2} (the names document the codes, as Python's Enum). */
    y->r.values = json_array();
    y->r.value_names = json_array();
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
      const char *name = scalar(node(x, p->key));
      if (!name) return yerr(x, node(x, p->key), "enum value names must be plain words");
      json_array_append_new(y->r.value_names, json_string(name));
      json_array_append_new(y->r.values, to_json(x, node(x, p->value), 0));
    }
  } else {
    return yerr(x, v, "enum must be a list of values or a mapping of names to values");
  }
  return WEIR_OK;
}

/* A rule whose short form is a scalar (pattern, min, max): a scalar or {value, mode, name}. */
static int scalar_rule(yctx *x, yaml_node_t *v, const char *key, const char *col, yrule *y,
                       yaml_node_t **value) {
  char what[300];
  snprintf(what, sizeof what, "%s of column \"%s\"", key, col);
  *value = v;
  if (v->type == YAML_MAPPING_NODE) return rule_options(x, v, "value", what, y, value);
  if (v->type != YAML_SCALAR_NODE) return yerr(x, v, "%s must be a value or {value, mode, name}", what);
  return WEIR_OK;
}

static int one_check(yctx *x, yaml_node_t *c, const char *what, yrules *rs) {
  yrule *y = push_rule(rs, WEIR_RULE_CHECK, c);
  int rc;
  if (c->type == YAML_MAPPING_NODE) {
    yaml_node_t *sql = NULL;
    if ((rc = rule_options(x, c, "sql", what, y, &sql))) return rc;
    c = sql;
  }
  if (c->type != YAML_SCALAR_NODE || !scalar(c)[0])
    return yerr(x, c, "%s must be a SQL expression or {sql, mode, name}", what);
  y->r.sql = wr_strndup(scalar(c), c->data.scalar.length);
  return WEIR_OK;
}

/* checks: a list of SQL expressions (or {sql, mode, name}); a single one may stand alone. */
static int parse_checks(yctx *x, yaml_node_t *v, const char *col, yrules *rs) {
  char what[300];
  snprintf(what, sizeof what, "a check of column \"%s\"", col);
  if (v->type != YAML_SEQUENCE_NODE) return one_check(x, v, what, rs);
  for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
    int rc = one_check(x, node(x, *it), what, rs);
    if (rc) return rc;
  }
  return WEIR_OK;
}

static int parse_lineage(yctx *x, yaml_node_t *v, wr_field *f) {
  if (v->type == YAML_SCALAR_NODE) {
    f->lineage = wr_calloc(1, sizeof *f->lineage);
    f->lineage[0] = wr_strdup(scalar(v));
    f->n_lineage = 1;
    return WEIR_OK;
  }
  if (v->type != YAML_SEQUENCE_NODE)
    return yerr(x, v, "lineage must be a column reference or a list of them");
  size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
  f->lineage = n ? wr_calloc(n, sizeof *f->lineage) : NULL;
  for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
    yaml_node_t *r = node(x, *it);
    if (r->type != YAML_SCALAR_NODE) return yerr(x, r, "a lineage reference must be a string");
    f->lineage[f->n_lineage++] = wr_strdup(scalar(r));
  }
  return WEIR_OK;
}

/* The message for a type that does not parse: "unknown type "Int65" for column "amount"
 * (weir types: ...)" -- the column name goes right after the type the reader sees. */
static int type_error(yctx *x, yaml_node_t *v, const char *col, const char *why) {
  const char *q = strstr(why, "\" (");
  if (strncmp(why, "unknown type \"", 14) == 0 && q)
    return yerr(x, v, "%.*s for column \"%s\"%s", (int)(q + 1 - why), why, col, q + 1);
  return yerr(x, v, "bad type \"%s\" for column \"%s\": %s", scalar(v) ? scalar(v) : "", col, why);
}

static int parse_column(yctx *x, yaml_node_t *m, wr_rule_mode contract_mode,
                        wr_contract_column *col, yaml_node_t ***rule_at) {
  static const char *const keys[] = {"name",        "type",   "nullable", "required",       "cast",    "doc",
                                     "description", "unique", "enum",     "allowed_values", "pattern", "min",
                                     "max",         "checks", "mode",     "lineage",        NULL};
  col->line = (int)m->start_mark.line + 1;
  col->column = (int)m->start_mark.column + 1;
  if (m->type != YAML_MAPPING_NODE) return yerr(x, m, "a column must be a mapping with name and type");
  yaml_node_t *nv = get(x, m, "name", NULL);
  if (!nv || !scalar(nv) || !scalar(nv)[0]) return yerr(x, nv ? nv : m, "a column needs a name");
  col->field.name = wr_strdup(scalar(nv));
  char what[300];
  snprintf(what, sizeof what, "column \"%s\"", col->field.name);
  int rc = check_keys(x, m, keys, what);
  if (rc) return rc;

  yaml_node_t *tv = get(x, m, "type", NULL);
  if (!tv) return yerr(x, m, "column \"%s\" has no type", col->field.name);
  if (tv->type != YAML_SCALAR_NODE) return yerr(x, tv, "the type of column \"%s\" must be a name", col->field.name);
  char why[512];
  if (!wr_type_parse(scalar(tv), &col->field.type, why, sizeof why))
    return type_error(x, tv, col->field.name, why);

  /* Columns are required unless declared nullable (docs/contracts.md). */
  col->field.required = true;
  yaml_node_t *kn = NULL, *kr = NULL;
  yaml_node_t *nullable = get(x, m, "nullable", &kn), *required = get(x, m, "required", &kr);
  if (nullable && required) return yerr(x, kr, "column \"%s\" has both nullable and required", col->field.name);
  bool b;
  if (nullable) {
    if ((rc = get_bool(x, nullable, "nullable", &b))) return rc;
    col->field.required = !b;
  }
  if (required) {
    if ((rc = get_bool(x, required, "required", &b))) return rc;
    col->field.required = b;
  }
  /* cast: exact lets narrowing casts apply when every value converts exactly. */
  yaml_node_t *cv = get(x, m, "cast", NULL);
  if (cv) {
    const char *cs = scalar(cv);
    if (!cs || !contract_cast_mode_parse(cs, &col->cast))
      return yerr(x, cv, "cast of column \"%s\" must be widen or exact, not \"%s\"", col->field.name,
                  cs ? cs : "(a collection)");
    if (!contract_cast_check(col, why, sizeof why))
      return yerr(x, cv, "column \"%s\": %s", col->field.name, why);
  }
  yaml_node_t *doc = get_alias(x, m, "doc", "description", what, NULL, &rc);
  if (rc || (rc = get_string(x, doc, "doc", &col->field.doc))) return rc;
  yaml_node_t *lin = get(x, m, "lineage", NULL);
  if (lin && (rc = parse_lineage(x, lin, &col->field))) return rc;

  wr_rule_mode mode = contract_mode;
  yaml_node_t *mv = get(x, m, "mode", NULL);
  if (mv && (rc = get_mode(x, mv, &mode))) return rc;

  /* Rules, in the order the keys appear; min and max together make one range rule. */
  yrules rs = {0};
  yrule *range = NULL;
  int range_idx = -1;
  yaml_node_t *enum_key = NULL;
  get_alias(x, m, "enum", "allowed_values", what, &enum_key, &rc);
  if (rc) goto out;
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top && !rc; p++) {
    yaml_node_t *k = node(x, p->key), *v = node(x, p->value);
    const char *key = scalar(k);
    if (!strcmp(key, "unique")) {
      yrule tmp = {0};
      if (v->type == YAML_MAPPING_NODE) {
        char w[300];
        snprintf(w, sizeof w, "unique of column \"%s\"", col->field.name);
        if ((rc = rule_options(x, v, NULL, w, &tmp, NULL))) {
          free(tmp.r.name);
          break;
        }
      } else {
        bool on;
        if ((rc = get_bool(x, v, "unique", &on))) break;
        if (!on) continue;
      }
      yrule *y = push_rule(&rs, WEIR_RULE_UNIQUE, k);
      y->r.name = tmp.r.name;
      y->r.mode = tmp.r.mode;
      y->mode_set = tmp.mode_set;
    } else if (!strcmp(key, "enum") || !strcmp(key, "allowed_values")) {
      yrule *y = push_rule(&rs, WEIR_RULE_ENUM, k);
      rc = parse_enum(x, v, col->field.name, y);
    } else if (!strcmp(key, "pattern")) {
      yrule *y = push_rule(&rs, WEIR_RULE_PATTERN, k);
      yaml_node_t *val;
      if ((rc = scalar_rule(x, v, "pattern", col->field.name, y, &val))) break;
      if (val->type != YAML_SCALAR_NODE) {
        rc = yerr(x, val, "pattern must be a regular expression");
        break;
      }
      y->r.pattern = wr_strndup(scalar(val), val->data.scalar.length);
    } else if (!strcmp(key, "min") || !strcmp(key, "max")) {
      yrule part = {0};
      yaml_node_t *val;
      if ((rc = scalar_rule(x, v, key, col->field.name, &part, &val))) {
        free(part.r.name);
        break;
      }
      if (!range) {
        range = push_rule(&rs, WEIR_RULE_RANGE, k);
        range_idx = (int)(range - rs.v);
      }
      range = &rs.v[range_idx];
      if (part.mode_set) {
        if (range->mode_set && range->r.mode != part.r.mode) {
          rc = yerr(x, k, "min and max of column \"%s\" are one range rule: give them one mode",
                    col->field.name);
          free(part.r.name);
          break;
        }
        range->r.mode = part.r.mode;
        range->mode_set = true;
      }
      if (part.r.name) {
        if (range->r.name && strcmp(range->r.name, part.r.name)) {
          rc = yerr(x, k, "min and max of column \"%s\" are one range rule: give them one name",
                    col->field.name);
          free(part.r.name);
          break;
        }
        free(range->r.name);
        range->r.name = part.r.name;
      }
      json_t *jv = to_json(x, val, 0);
      if (json_is_null(jv)) {
        json_decref(jv);
        rc = yerr(x, val, "%s of column \"%s\" needs a value", key, col->field.name);
        break;
      }
      if (!strcmp(key, "min")) range->r.min = jv;
      else range->r.max = jv;
    } else if (!strcmp(key, "checks")) {
      rc = parse_checks(x, v, col->field.name, &rs);
    }
  }
  if (rc) goto out;

  /* Names, modes, and whether each rule makes sense for the column's type. */
  int checks = 0;
  for (size_t i = 0; i < rs.n; i++) {
    yrule *y = &rs.v[i];
    if (!y->mode_set) y->r.mode = mode;
    if (!y->r.name) y->r.name = contract_rule_default_name(col->field.name, y->r.kind, checks);
    if (y->r.kind == WEIR_RULE_CHECK) checks++;
    if (!contract_rule_check(col, &y->r, why, sizeof why)) {
      rc = yerr(x, y->at, "column \"%s\": %s", col->field.name, why);
      goto out;
    }
  }
  col->rules = rs.n ? wr_calloc(rs.n, sizeof *col->rules) : NULL;
  *rule_at = rs.n ? wr_calloc(rs.n, sizeof **rule_at) : NULL;
  for (size_t i = 0; i < rs.n; i++) {
    col->rules[i] = rs.v[i].r;
    (*rule_at)[i] = rs.v[i].at;
    if (rs.v[i].at) {
      col->rules[i].line = (int)rs.v[i].at->start_mark.line + 1;
      col->rules[i].column = (int)rs.v[i].at->start_mark.column + 1;
    }
  }
  col->n_rules = rs.n;
  free(rs.v);
  return WEIR_OK;
out:
  for (size_t i = 0; i < rs.n; i++) contract_rule_clear(&rs.v[i].r);
  free(rs.v);
  return rc;
}

/* ---- table rules ------------------------------------------------------------------------------------ */

static int parse_table_rule(yctx *x, yaml_node_t *m, wr_rule_mode contract_mode, wr_table_rule *r) {
  static const char *const keys[] = {"name", "sql", "threshold", "op", "mode", NULL};
  if (m->type != YAML_MAPPING_NODE) return yerr(x, m, "a rule must be a mapping with name and sql");
  yaml_node_t *nv = get(x, m, "name", NULL);
  if (!nv || !scalar(nv) || !scalar(nv)[0]) return yerr(x, nv ? nv : m, "a rule needs a name");
  r->name = wr_strdup(scalar(nv));
  r->line = (int)m->start_mark.line + 1;
  r->column = (int)m->start_mark.column + 1;
  char what[300];
  snprintf(what, sizeof what, "rule \"%s\"", r->name);
  int rc = check_keys(x, m, keys, what);
  if (rc) return rc;
  yaml_node_t *sv = get(x, m, "sql", NULL);
  if (!sv) return yerr(x, m, "rule \"%s\" has no sql", r->name);
  if ((rc = get_string(x, sv, "sql", &r->sql))) return rc;
  if (!r->sql || !strstr(r->sql, "{table}"))
    return yerr(x, sv, "the SQL of rule \"%s\" does not mention {table}", r->name);
  yaml_node_t *tv = get(x, m, "threshold", NULL);
  r->threshold = 0;
  if (tv) {
    double d;
    long long i;
    const char *s = scalar(tv);
    if (s && parse_int(s, &i)) d = (double)i;
    else if (!s || !parse_real(s, &d)) return yerr(x, tv, "the threshold of rule \"%s\" must be a number", r->name);
    r->threshold = d;
  }
  yaml_node_t *ov = get(x, m, "op", NULL);
  snprintf(r->op, sizeof r->op, "<=");
  if (ov) {
    const char *s = scalar(ov);
    if (s && !strcmp(s, "=")) s = "==";
    if (!contract_op_valid(s))
      return yerr(x, ov, "op of rule \"%s\" must be one of <=, <, >=, >, ==, !=", r->name);
    snprintf(r->op, sizeof r->op, "%s", s);
  }
  /* No rows to drop for a table rule: under a drop-by-default contract it fails. */
  r->mode = contract_mode == WEIR_MODE_DROP ? WEIR_MODE_FAIL : contract_mode;
  yaml_node_t *mv = get(x, m, "mode", NULL);
  if (mv) {
    if ((rc = get_mode(x, mv, &r->mode))) return rc;
    if (r->mode == WEIR_MODE_DROP)
      return yerr(x, mv, "rule \"%s\" judges the whole table and cannot drop rows: its mode is fail or warn",
                  r->name);
  }
  return WEIR_OK;
}

/* ---- partition_by ---------------------------------------------------------------------------------- */

/* Appends the partition fields of `text`, split at the commas outside parentheses
 * ("day(ts), bucket(16, id)"); `depth` carries an unclosed "(" over from the previous
 * sequence item, since a YAML flow sequence [day(ts), bucket(16, id)] splits inside the
 * parentheses too. */
static void add_partition_text(weir_contract *c, yaml_node_t ***at, yaml_node_t *n, const char *text, int *depth,
                               wr_buf *pending) {
  for (const char *p = text;; p++) {
    if (*p == '(') (*depth)++;
    if (*p == ')') (*depth)--;
    if ((*p == ',' && *depth <= 0) || !*p) {
      if (!*p && *depth > 0) {
        wr_buf_puts(pending, ", ");
        return;
      }
      char *item = wr_strdup(wr_buf_cstr(pending));
      size_t b = 0, e = strlen(item);
      while (b < e && isspace((unsigned char)item[b])) b++;
      while (e > b && isspace((unsigned char)item[e - 1])) e--;
      if (e > b) {
        c->partition_by = wr_realloc(c->partition_by, (c->n_partition_by + 1) * sizeof *c->partition_by);
        *at = wr_realloc(*at, (c->n_partition_by + 1) * sizeof **at);
        c->partition_by[c->n_partition_by] = wr_strndup(item + b, e - b);
        (*at)[c->n_partition_by++] = n;
      }
      free(item);
      wr_buf_clear(pending);
      *depth = 0;
      if (!*p) return;
      continue;
    }
    wr_buf_putc(pending, *p);
  }
}

static int parse_partition_by(yctx *x, yaml_node_t *pb, weir_contract *c) {
  yaml_node_t **at = NULL;
  int depth = 0;
  wr_buf pending = WEIR_BUF_INIT;
  c->partition_line = (int)pb->start_mark.line + 1;
  int rc = WEIR_OK;
  if (pb->type == YAML_SCALAR_NODE) {
    add_partition_text(c, &at, pb, scalar(pb), &depth, &pending);
  } else if (pb->type == YAML_SEQUENCE_NODE) {
    size_t k = (size_t)(pb->data.sequence.items.top - pb->data.sequence.items.start);
    for (size_t i = 0; i < k && !rc; i++) {
      yaml_node_t *it = node(x, pb->data.sequence.items.start[i]);
      if (it->type != YAML_SCALAR_NODE)
        rc = yerr(x, it, "partition_by lists transforms such as day(ts) or bucket(16, id)");
      else
        add_partition_text(c, &at, it, scalar(it), &depth, &pending);
    }
  } else {
    rc = yerr(x, pb, "partition_by is a list of transforms, e.g. [day(ts), bucket(16, id)]");
  }
  if (!rc && depth > 0) rc = yerr(x, pb, "partition_by: a transform lacks its closing parenthesis");
  if (!rc) {
    char why[512];
    long bad = contract_check_partition(c, why, sizeof why);
    if (bad >= 0) rc = yerr(x, at[bad], "partition_by: %s", why);
  }
  wr_buf_free(&pending);
  free(at);
  return rc;
}

/* ---- the contract ------------------------------------------------------------------------------------- */

static int parse_contract(yctx *x, yaml_node_t *root, weir_contract *c) {
  static const char *const keys[] = {"name", "version", "owner", "description", "doc", "mode", "sla",
                                     "columns", "schema", "rules", "quality_rules", "partition_by", NULL};
  if (!root || root->type != YAML_MAPPING_NODE || !get(x, root, "contract", NULL))
    return yerr(x, root, "a contract file is a mapping with one key, contract:");
  static const char *const top[] = {"contract", NULL};
  int rc = check_keys(x, root, top, "the file");
  if (rc) return rc;
  yaml_node_t *m = get(x, root, "contract", NULL);
  if (m->type != YAML_MAPPING_NODE) return yerr(x, m, "contract: must be a mapping");
  c->line = (int)m->start_mark.line + 1;
  if ((rc = check_keys(x, m, keys, "contract"))) return rc;
  yaml_node_t *nv = get(x, m, "name", NULL);
  if (!nv) return yerr(x, m, "the contract has no name");
  if ((rc = get_string(x, nv, "name", &c->name))) return rc;
  if (!c->name) return yerr(x, nv, "the contract has no name");
  if ((rc = get_string(x, get(x, m, "version", NULL), "version", &c->version))) return rc;
  if ((rc = get_string(x, get(x, m, "owner", NULL), "owner", &c->owner))) return rc;
  yaml_node_t *dv = get_alias(x, m, "description", "doc", "contract", NULL, &rc);
  if (rc || (rc = get_string(x, dv, "description", &c->description))) return rc;
  c->mode = WEIR_MODE_FAIL;
  yaml_node_t *mv = get(x, m, "mode", NULL);
  if (mv && (rc = get_mode(x, mv, &c->mode))) return rc;
  yaml_node_t *sla = get(x, m, "sla", NULL);
  if (sla) {
    if (sla->type != YAML_MAPPING_NODE) return yerr(x, sla, "sla must be a mapping, e.g. {freshness: \"1 hour\"}");
    /* A freshness `weir status` could not read is refused here, at its line, not later
     * for the whole lake. */
    yaml_node_t *fr = get(x, sla, "freshness", NULL);
    if (fr) {
      const char *text = fr->type == YAML_SCALAR_NODE ? (const char *)fr->data.scalar.value : "";
      int64_t secs = 0;
      weir_error why = {0};
      if (wr_duration_parse(text, "sla freshness", &secs, &why) != WEIR_OK) {
        rc = yerr(x, fr, "%s", why.message);
        weir_error_clear(&why);
        return rc;
      }
    }
    c->sla = to_json(x, sla, 0);
  }

  yaml_node_t *cols = get_alias(x, m, "columns", "schema", "contract", NULL, &rc);
  if (rc) return rc;
  if (!cols || cols->type != YAML_SEQUENCE_NODE)
    return yerr(x, cols ? cols : m, "the contract needs columns: a list of columns");
  size_t n = (size_t)(cols->data.sequence.items.top - cols->data.sequence.items.start);
  c->columns = n ? wr_calloc(n, sizeof *c->columns) : NULL;
  yaml_node_t ***rule_at = wr_calloc(n ? n : 1, sizeof *rule_at);
  yaml_node_t **col_at = wr_calloc(n ? n : 1, sizeof *col_at);
  for (size_t i = 0; i < n && !rc; i++) {
    yaml_node_t *cm = node(x, cols->data.sequence.items.start[i]);
    col_at[i] = cm->type == YAML_MAPPING_NODE ? get(x, cm, "name", NULL) : cm;
    rc = parse_column(x, cm, c->mode, &c->columns[i], &rule_at[i]);
    c->n_columns++;
    for (size_t j = 0; j < i && !rc; j++)
      if (!strcmp(c->columns[i].field.name, c->columns[j].field.name))
        rc = yerr(x, col_at[i], "duplicate column \"%s\" (first declared at line %d)",
                  c->columns[i].field.name, c->columns[j].line);
      /* SQL names are case-insensitive: DuckDB and Spark could not tell the two apart. */
      else if (!strcasecmp(c->columns[i].field.name, c->columns[j].field.name))
        rc = yerr(x, col_at[i],
                  "columns \"%s\" and \"%s\" (line %d) differ only in case, which SQL engines cannot tell "
                  "apart: rename one",
                  c->columns[i].field.name, c->columns[j].field.name, c->columns[j].line);
  }

  yaml_node_t *rules = NULL;
  if (!rc) rules = get_alias(x, m, "rules", "quality_rules", "contract", NULL, &rc);
  yaml_node_t **trule_at = NULL;
  if (!rc && rules) {
    if (rules->type != YAML_SEQUENCE_NODE) {
      rc = yerr(x, rules, "rules must be a list of {name, sql, threshold}");
    } else {
      size_t k = (size_t)(rules->data.sequence.items.top - rules->data.sequence.items.start);
      c->rules = k ? wr_calloc(k, sizeof *c->rules) : NULL;
      trule_at = wr_calloc(k ? k : 1, sizeof *trule_at);
      for (size_t i = 0; i < k && !rc; i++) {
        yaml_node_t *rm = node(x, rules->data.sequence.items.start[i]);
        trule_at[i] = rm;
        rc = parse_table_rule(x, rm, c->mode, &c->rules[i]);
        c->n_rules++;
      }
    }
  }

  /* Rule names are how reports and `_weir_rule` name rules: they must not repeat. */
  for (size_t i = 0; i < c->n_columns && !rc; i++)
    for (size_t j = 0; j < c->columns[i].n_rules && !rc; j++) {
      const char *name = c->columns[i].rules[j].name;
      for (size_t i2 = 0; i2 <= i && !rc; i2++)
        for (size_t j2 = 0; j2 < (i2 == i ? j : c->columns[i2].n_rules) && !rc; j2++)
          if (!strcmp(name, c->columns[i2].rules[j2].name))
            rc = yerr(x, rule_at[i][j], "two rules are named \"%s\" (the other at line %d)", name,
                      (int)rule_at[i2][j2]->start_mark.line + 1);
      for (size_t t = 0; t < c->n_rules && !rc; t++)
        if (!strcmp(name, c->rules[t].name))
          rc = yerr(x, trule_at[t], "two rules are named \"%s\" (the other at line %d)", name,
                    (int)rule_at[i][j]->start_mark.line + 1);
    }
  for (size_t t = 0; t < c->n_rules && !rc; t++)
    for (size_t u = 0; u < t && !rc; u++)
      if (!strcmp(c->rules[t].name, c->rules[u].name))
        rc = yerr(x, trule_at[t], "two rules are named \"%s\" (the other at line %d)", c->rules[t].name,
                  (int)trule_at[u]->start_mark.line + 1);

  if (!rc) {
    yaml_node_t *pb = get(x, m, "partition_by", NULL);
    if (pb) rc = parse_partition_by(x, pb, c);
  }

  for (size_t i = 0; i < n; i++) free(rule_at[i]);
  free(rule_at);
  free(col_at);
  free(trule_at);
  return rc;
}

/* ---- syntax errors ---------------------------------------------------------------------- */

/* Line and column (1-based; columns count characters) of byte `offset` of the input, with
 * line breaks counted as libyaml counts them: \r\n, \r, \n, and YAML 1.1's NEL (U+0085),
 * LS (U+2028) and PS (U+2029). UTF-16 input (libyaml accepts it after a byte order mark) is
 * walked in 16-bit units. */
static void position_at(const unsigned char *t, size_t len, size_t offset, yaml_encoding_t enc, int *line,
                        int *col) {
  *line = 1;
  *col = 1;
  if (offset > len) offset = len;
  bool utf16 = enc == YAML_UTF16LE_ENCODING || enc == YAML_UTF16BE_ENCODING;
  size_t i = 0;
  if (utf16 && len >= 2 && ((t[0] == 0xFF && t[1] == 0xFE) || (t[0] == 0xFE && t[1] == 0xFF)))
    i = 2;
  else if (!utf16 && len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
    i = 3;
  while (i < offset) {
    unsigned c;
    size_t w;
    if (utf16) {
      if (i + 1 >= len) break;
      c = enc == YAML_UTF16LE_ENCODING ? (unsigned)(t[i] | t[i + 1] << 8) : (unsigned)(t[i] << 8 | t[i + 1]);
      w = 2;
      if (c >= 0xDC00 && c <= 0xDFFF) { /* the second half of a surrogate pair: no new column */
        i += w;
        continue;
      }
    } else {
      w = 1;
      c = t[i];
      if (c == 0xC2 && i + 1 < len && t[i + 1] == 0x85)
        c = 0x85, w = 2;
      else if (c == 0xE2 && i + 2 < len && t[i + 1] == 0x80 && (t[i + 2] == 0xA8 || t[i + 2] == 0xA9))
        c = 0x2028, w = 3;
      else if ((c & 0xC0) == 0x80) { /* a continuation byte: no new column */
        i++;
        continue;
      }
    }
    if (c == '\r' && i + w < offset) {
      /* \r\n is one break */
      bool crlf = utf16 ? (i + 3 < len && (enc == YAML_UTF16LE_ENCODING ? t[i + 2] == '\n' && t[i + 3] == 0
                                                                        : t[i + 2] == 0 && t[i + 3] == '\n'))
                        : t[i + 1] == '\n';
      if (crlf) w *= 2;
    }
    if (c == '\n' || c == '\r' || c == 0x85 || c == 0x2028) {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
    i += w;
  }
}

/* The message of a failed yaml_parser_load, at the right place. A reader error (bytes that
 * are not UTF-8 or UTF-16) has no mark, only the byte offset of the bad bytes; an error at
 * the end of the input is marked by libyaml one line past the end (it adds a line break
 * to input that lacks one), which is reported at the end of the last line instead. */
static int syntax_error(const yaml_parser_t *parser, const char *text, size_t len, const char *origin,
                        weir_error *err) {
  const unsigned char *t = (const unsigned char *)text;
  int line, col;
  if (parser->error == YAML_READER_ERROR) {
    position_at(t, len, parser->problem_offset, parser->encoding, &line, &col);
    const char *what = parser->encoding == YAML_UTF8_ENCODING || parser->encoding == YAML_ANY_ENCODING
                           ? "invalid UTF-8"
                           : "invalid UTF-16";
    if (parser->problem_value >= 0)
      return wr_seterr(err, WEIR_EINPUT, "%s:%d:%d: %s: %s (byte 0x%02X; a contract is UTF-8 text)", origin,
                         line, col, what, parser->problem ? parser->problem : "bad bytes",
                         (unsigned)parser->problem_value & 0xFFu);
    return wr_seterr(err, WEIR_EINPUT, "%s:%d:%d: %s: %s (a contract is UTF-8 text)", origin, line, col,
                       what, parser->problem ? parser->problem : "bad bytes");
  }
  const yaml_mark_t *mk = &parser->problem_mark;
  line = (int)mk->line + 1;
  col = (int)mk->column + 1;
  int end_line, end_col;
  position_at(t, len, len, parser->encoding, &end_line, &end_col);
  if (line > end_line || (line == end_line && col > end_col)) {
    line = end_line;
    col = end_col;
  }
  return wr_seterr(err, WEIR_EINPUT, "%s:%d:%d: invalid YAML: %s%s%s", origin, line, col,
                     parser->problem ? parser->problem : "syntax error", parser->context ? " " : "",
                     parser->context ? parser->context : "");
}

int wr_contract_from_yaml(const char *text, size_t len, const char *origin, weir_contract **out,
                            weir_error *err) {
  *out = NULL;
  yctx x = {NULL, origin ? origin : "<yaml>", err, 1, 1, VALUES_MAX, NULL};
  yaml_parser_t parser;
  yaml_document_t doc;
  if (!yaml_parser_initialize(&parser)) return wr_seterr(err, WEIR_EINPUT, "%s: cannot start the YAML parser", x.origin);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (!yaml_parser_load(&parser, &doc)) {
    int rc = syntax_error(&parser, text, len, x.origin, err);
    yaml_parser_delete(&parser);
    return rc;
  }
  x.doc = &doc;
  position_at((const unsigned char *)text, len, len, parser.encoding, &x.end_line, &x.end_col);
  int rc = WEIR_OK;
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root) {
    rc = wr_seterr(err, WEIR_EINPUT, "%s:1:1: the file is empty: expected a mapping with key contract:", x.origin);
  } else {
    /* A second document in the same file would be ignored silently: refuse it. */
    yaml_document_t next;
    if (yaml_parser_load(&parser, &next)) {
      yaml_node_t *r2 = yaml_document_get_root_node(&next);
      if (r2) {
        int line, col;
        node_pos(&x, r2, &line, &col);
        rc = wr_seterr(err, WEIR_EINPUT, "%s:%d:%d: a contract file holds one YAML document", x.origin,
                         line, col);
      }
      yaml_document_delete(&next);
    } else {
      /* Bad syntax after the first document is an error too, not trailing noise. */
      rc = syntax_error(&parser, text, len, x.origin, err);
    }
  }
  weir_contract *c = NULL;
  if (!rc) {
    c = wr_calloc(1, sizeof *c);
    rc = parse_contract(&x, root, c);
    /* First: values cut short by the budget may have made other errors. */
    if (x.too_many_at)
      rc = yerr(&x, x.too_many_at, "the contract expands to more than %d values (aliases of aliases?)",
                VALUES_MAX);
    if (!rc && origin) c->origin = wr_strdup(origin);
  }
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  if (rc) {
    wr_contract_free(c);
    return rc;
  }
  *out = c;
  return WEIR_OK;
}
