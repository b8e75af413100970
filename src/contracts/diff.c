/*
 * diff.c -- what a change of contract breaks (docs/contracts.md, "Breaking changes").
 *
 * A contract is a promise to the tables' consumers (the models and people that read the
 * table) and a demand on its producers (whatever writes it). Each difference between an
 * old and a new contract is classified by whom it can break:
 *   consumers  something they read is gone or promises less: a column dropped or renamed,
 *              a type narrowed or changed, nullable where it was required, enum values
 *              removed or added (values they do not handle), a rule changed either way
 *              (tightened rules drop or refuse rows consumers used to see; loosened ones
 *              let through rows consumers relied on not seeing);
 *   producers  data that met the old contract may not meet the new one: a required column
 *              added, a column made required, enum values removed, a type narrowed or
 *              changed, a rule tightened, an exact cast turned off;
 *   nobody     a nullable column added, a type widened (every old value converts
 *              exactly), docs, owner, lineage, SLA, column order.
 * Classification reads the IR (docs/contract-ir.md), so YAML and Python contracts diff the
 * same way, and is pure: no lake, no engine. Which models read the affected columns is
 * src/pipeline/impact.c's question.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/contract.h"
#include "types/types.h"
#include "util/buf.h"
#include "util/json.h"

#define BREAKS_CONSUMERS 1
#define BREAKS_PRODUCERS 2

typedef struct differ {
  json_t *changes;
  json_t *affected; /* old columns a consumer-breaking change touches */
  bool table_wide;  /* a consumer-breaking change of a table rule: every reader */
  int breaks;
} differ;

static void add(differ *d, const char *change, const char *column, int breaks, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void add(differ *d, const char *change, const char *column, int breaks, const char *fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = wr_malloc(len > 0 ? (size_t)len + 1 : 1);
  vsnprintf(msg, len > 0 ? (size_t)len + 1 : 1, fmt, again);
  va_end(again);
  json_t *who = json_array();
  if (breaks & BREAKS_CONSUMERS) json_array_append_new(who, json_string("consumers"));
  if (breaks & BREAKS_PRODUCERS) json_array_append_new(who, json_string("producers"));
  json_array_append_new(d->changes, json_pack("{s:s,s:o,s:s,s:o}", "change", change, "column",
                                              column ? json_string(column) : json_null(), "message",
                                              msg, "breaks", who));
  free(msg);
  d->breaks |= breaks;
  if (breaks & BREAKS_CONSUMERS) {
    if (!column) {
      d->table_wide = true;
    } else {
      bool seen = false;
      size_t i;
      json_t *v;
      json_array_foreach(d->affected, i, v) seen = seen || strcmp(json_string_value(v), column) == 0;
      if (!seen) json_array_append_new(d->affected, json_string(column));
    }
  }
}

static const json_t *find_by(const json_t *arr, const char *key, const char *value, size_t *index) {
  size_t i;
  const json_t *v;
  json_array_foreach(arr, i, v) if (strcmp(wr_json_str(v, key, ""), value) == 0) {
    if (index) *index = i;
    return v;
  }
  return NULL;
}

/* "fail" refuses the write, "drop" removes rows, "warn" lets them through. */
static int strictness(const char *mode) {
  return strcmp(mode, "fail") == 0 ? 2 : strcmp(mode, "drop") == 0 ? 1 : 0;
}

/* A bound as a number, when it is one (numbers, decimal strings); false for dates and
 * strings, compared as text instead (ISO dates and timestamps order as text). */
static bool bound_number(const json_t *v, double *out) {
  if (json_is_number(v)) {
    *out = json_number_value(v);
    return true;
  }
  if (!json_is_string(v)) return false;
  const char *s = json_string_value(v);
  char *end = NULL;
  *out = strtod(s, &end);
  return end != s && *end == 0;
}

/* <0: a is lower; 0 equal; >0 higher; 2 when they cannot be compared. */
static int bound_cmp(const json_t *a, const json_t *b) {
  double x, y;
  if (bound_number(a, &x) && bound_number(b, &y)) return x < y ? -1 : x > y ? 1 : 0;
  if (json_is_string(a) && json_is_string(b)) {
    int c = strcmp(json_string_value(a), json_string_value(b));
    return c < 0 ? -1 : c > 0;
  }
  return 2;
}

static char *values_text(const json_t *arr) {
  wr_buf b = WEIR_BUF_INIT;
  size_t i;
  const json_t *v;
  json_array_foreach(arr, i, v) {
    char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    wr_buf_printf(&b, "%s%s", i ? ", " : "", t ? t : "?");
    free(t);
  }
  char *s = wr_strdup(wr_buf_cstr(&b));
  wr_buf_free(&b);
  return s;
}

/* Values of `a` not in `b`. */
static json_t *minus(const json_t *a, const json_t *b) {
  json_t *out = json_array();
  size_t i, j;
  const json_t *v, *w;
  json_array_foreach(a, i, v) {
    bool in = false;
    json_array_foreach(b, j, w) in = in || json_equal(v, w);
    if (!in) json_array_append(out, (json_t *)v);
  }
  return out;
}

static void diff_range(differ *d, const char *col, const char *name, const json_t *o, const json_t *n) {
  int tight = 0, loose = 0, unknown = 0;
  const char *ends[2] = {"min", "max"};
  for (int e = 0; e < 2; e++) {
    const json_t *a = json_object_get(o, ends[e]), *b = json_object_get(n, ends[e]);
    bool ha = a && !json_is_null(a), hb = b && !json_is_null(b);
    if (!ha && !hb) continue;
    if (!ha) tight++;
    else if (!hb) loose++;
    else {
      int c = bound_cmp(a, b);
      if (c == 2) unknown++;
      else if (c != 0 && (e == 0) == (c < 0)) tight++; /* min raised or max lowered */
      else if (c != 0) loose++;
    }
  }
  if (unknown || (tight && loose))
    add(d, "rule_changed", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "rule %s: range changed", name);
  else if (tight)
    add(d, "rule_tightened", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "rule %s: range tightened", name);
  else if (loose)
    add(d, "rule_loosened", col, BREAKS_CONSUMERS, "rule %s: range loosened", name);
}

static void diff_rule(differ *d, const char *col, const json_t *o, const json_t *n) {
  const char *name = wr_json_str(n, "name", "");
  const char *kind = wr_json_str(n, "kind", "");
  int so = strictness(wr_json_str(o, "mode", "fail")), sn = strictness(wr_json_str(n, "mode", "fail"));
  if (strcmp(kind, wr_json_str(o, "kind", "")) != 0) {
    add(d, "rule_changed", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "rule %s: now a %s rule (was %s)", name, kind,
        wr_json_str(o, "kind", ""));
    return;
  }
  if (strcmp(kind, "enum") == 0) {
    const json_t *vo = json_object_get(o, "values"), *vn = json_object_get(n, "values");
    json_t *removed = minus(vo, vn), *added = minus(vn, vo);
    if (json_array_size(removed)) {
      char *t = values_text(removed);
      add(d, "enum_values_removed", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "column %s: enum values removed: %s",
          col, t);
      free(t);
    }
    if (json_array_size(added)) {
      char *t = values_text(added);
      add(d, "enum_values_added", col, BREAKS_CONSUMERS, "column %s: enum values added: %s", col, t);
      free(t);
    }
    json_decref(removed);
    json_decref(added);
  } else if (strcmp(kind, "range") == 0) {
    diff_range(d, col, name, o, n);
  } else if (strcmp(kind, "pattern") == 0 || strcmp(kind, "check") == 0) {
    const char *key = kind[0] == 'p' ? "pattern" : "sql";
    if (strcmp(wr_json_str(o, key, ""), wr_json_str(n, key, "")) != 0)
      add(d, "rule_changed", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "rule %s: %s changed from \"%s\" to \"%s\"",
          name, key, wr_json_str(o, key, ""), wr_json_str(n, key, ""));
  }
  if (sn > so)
    add(d, "rule_tightened", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "rule %s: mode %s (was %s)", name,
        wr_json_str(n, "mode", ""), wr_json_str(o, "mode", ""));
  else if (sn < so)
    add(d, "rule_loosened", col, BREAKS_CONSUMERS, "rule %s: mode %s (was %s)", name, wr_json_str(n, "mode", ""),
        wr_json_str(o, "mode", ""));
}

static void diff_rules(differ *d, const char *col, const json_t *ro, const json_t *rn) {
  size_t i;
  const json_t *r;
  json_array_foreach(ro, i, r) {
    const json_t *m = find_by(rn, "name", wr_json_str(r, "name", ""), NULL);
    if (m) diff_rule(d, col, r, m);
    else
      add(d, "rule_removed", col, BREAKS_CONSUMERS, "rule %s (%s) removed", wr_json_str(r, "name", ""),
          wr_json_str(r, "kind", ""));
  }
  json_array_foreach(rn, i, r) if (!find_by(ro, "name", wr_json_str(r, "name", ""), NULL))
      add(d, "rule_added", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "rule %s (%s) added", wr_json_str(r, "name", ""),
          wr_json_str(r, "kind", ""));
}

static void diff_type(differ *d, const char *col, const char *to_text, const char *tn_text) {
  if (strcmp(to_text, tn_text) == 0) return;
  weir_type to, tn;
  char why[64];
  if (!wr_type_parse(to_text, &to, why, sizeof why) || !wr_type_parse(tn_text, &tn, why, sizeof why)) {
    add(d, "type_changed", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "column %s: type %s -> %s", col, to_text, tn_text);
    return;
  }
  if (wr_type_equal(to, tn)) return;
  if (wr_type_compose(to, tn) == WEIR_CAST_WIDEN)
    add(d, "type_widened", col, 0, "column %s: type widened %s -> %s", col, to_text, tn_text);
  else if (wr_type_compose(tn, to) == WEIR_CAST_WIDEN)
    add(d, "type_narrowed", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "column %s: type narrowed %s -> %s", col,
        to_text, tn_text);
  else
    add(d, "type_changed", col, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "column %s: type %s -> %s", col, to_text, tn_text);
}

static void diff_column(differ *d, const json_t *o, const json_t *n) {
  const char *col = wr_json_str(o, "name", "");
  diff_type(d, col, wr_json_str(o, "type", ""), wr_json_str(n, "type", ""));
  bool no = json_is_true(json_object_get(o, "nullable")), nn = json_is_true(json_object_get(n, "nullable"));
  if (!no && nn) add(d, "nullable", col, BREAKS_CONSUMERS, "column %s: nullable (was required)", col);
  if (no && !nn) add(d, "required", col, BREAKS_PRODUCERS, "column %s: required (was nullable)", col);
  const char *co = wr_json_str(o, "cast", "widen"), *cn = wr_json_str(n, "cast", "widen");
  if (strcmp(co, cn) != 0)
    add(d, "cast_changed", col, strcmp(cn, "exact") == 0 ? 0 : BREAKS_PRODUCERS, "column %s: cast %s (was %s)", col,
        cn, co);
  if (!json_equal(json_object_get(o, "doc"), json_object_get(n, "doc")))
    add(d, "doc_changed", col, 0, "column %s: doc changed", col);
  if (!json_equal(json_object_get(o, "lineage"), json_object_get(n, "lineage")))
    add(d, "lineage_changed", col, 0, "column %s: lineage changed", col);
  diff_rules(d, col, json_object_get(o, "rules"), json_object_get(n, "rules"));
}

static void diff_table_rules(differ *d, const json_t *ro, const json_t *rn) {
  size_t i;
  const json_t *r;
  json_array_foreach(ro, i, r) {
    const char *name = wr_json_str(r, "name", "");
    const json_t *m = find_by(rn, "name", name, NULL);
    if (!m) {
      add(d, "rule_removed", NULL, BREAKS_CONSUMERS, "table rule %s removed", name);
      continue;
    }
    json_t *a = json_deep_copy(r), *b = json_deep_copy(m);
    const char *drop[] = {"line", "column", "mode"};
    for (size_t k = 0; k < 3; k++) {
      json_object_del(a, drop[k]);
      json_object_del(b, drop[k]);
    }
    if (!json_equal(a, b))
      add(d, "rule_changed", NULL, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "table rule %s changed", name);
    json_decref(a);
    json_decref(b);
    int so = strictness(wr_json_str(r, "mode", "fail")), sn = strictness(wr_json_str(m, "mode", "fail"));
    if (sn > so) add(d, "rule_tightened", NULL, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "table rule %s: mode %s", name,
                     wr_json_str(m, "mode", ""));
    else if (sn < so) add(d, "rule_loosened", NULL, BREAKS_CONSUMERS, "table rule %s: mode %s", name,
                          wr_json_str(m, "mode", ""));
  }
  json_array_foreach(rn, i, r) if (!find_by(ro, "name", wr_json_str(r, "name", ""), NULL))
      add(d, "rule_added", NULL, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "table rule %s added", wr_json_str(r, "name", ""));
}

/* The position of column `i` of `a` among the columns of `a` that `b` also has. */
static size_t rank_among(const json_t *a, const json_t *b, size_t i) {
  size_t r = 0;
  for (size_t k = 0; k < i; k++) r += find_by(b, "name", wr_json_str(json_array_get(a, k), "name", ""), NULL) != NULL;
  return r;
}

/* The major number of a version string ("2.1" -> 2, "v3" -> 3); -1 when it has none. */
static long major_of(const char *v) {
  if (!v) return -1;
  while (*v && !isdigit((unsigned char)*v)) v++;
  if (!*v) return -1;
  return strtol(v, NULL, 10);
}

json_t *wr_contract_diff(const weir_contract *old, const weir_contract *new_) {
  json_t *io = wr_contract_to_ir(old), *in = wr_contract_to_ir(new_);
  differ d = {json_array(), json_array(), false, 0};
  const json_t *co = json_object_get(io, "columns"), *cn = json_object_get(in, "columns");
  /* A column dropped where one of the same type was added at the same place is a rename. */
  size_t i, k;
  const json_t *c;
  json_array_foreach(co, i, c) {
    const char *name = wr_json_str(c, "name", "");
    size_t at = 0;
    const json_t *m = find_by(cn, "name", name, &at);
    if (m) {
      /* Moved relative to the columns both have: a drop or an add before it is no move. */
      size_t ro = rank_among(co, cn, i), rn = rank_among(cn, co, at);
      if (ro != rn) add(&d, "column_moved", name, 0, "column %s moved (position %zu -> %zu)", name, i + 1, at + 1);
      diff_column(&d, c, m);
      continue;
    }
    const json_t *same_place = json_array_get(cn, i);
    if (same_place && !find_by(co, "name", wr_json_str(same_place, "name", ""), NULL) &&
        strcmp(wr_json_str(same_place, "type", ""), wr_json_str(c, "type", "")) == 0)
      add(&d, "column_renamed", name, BREAKS_CONSUMERS | BREAKS_PRODUCERS, "column %s renamed to %s", name,
          wr_json_str(same_place, "name", ""));
    else
      add(&d, "column_dropped", name, BREAKS_CONSUMERS, "column %s dropped", name);
  }
  json_array_foreach(cn, k, c) {
    const char *name = wr_json_str(c, "name", "");
    if (find_by(co, "name", name, NULL)) continue;
    const json_t *same_place = json_array_get(co, k);
    bool renamed = same_place && !find_by(cn, "name", wr_json_str(same_place, "name", ""), NULL) &&
                   strcmp(wr_json_str(same_place, "type", ""), wr_json_str(c, "type", "")) == 0;
    if (renamed) continue; /* reported with the old name */
    if (json_is_true(json_object_get(c, "nullable")))
      add(&d, "column_added", name, 0, "nullable column %s added", name);
    else
      add(&d, "required_column_added", name, BREAKS_PRODUCERS, "required column %s added", name);
  }
  diff_table_rules(&d, json_object_get(io, "table_rules"), json_object_get(in, "table_rules"));
  const char *keys[] = {"description", "owner", "sla", "name", "mode"};
  for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++)
    if (!json_equal(json_object_get(io, keys[j]), json_object_get(in, keys[j])))
      add(&d, strcmp(keys[j], "mode") == 0 ? "default_mode_changed" : "docs_changed", NULL, 0, "%s changed", keys[j]);

  bool breaking = d.breaks != 0;
  long mo = major_of(old->version), mn = major_of(new_->version);
  bool version_ok = !breaking || (mn >= 0 && mn > mo);
  json_t *out = json_pack("{s:{s:s,s:o},s:{s:s,s:o},s:b,s:b,s:b,s:b,s:o,s:o,s:b}", "old", "name", old->name, "version",
                          wr_json_str_or_null(old->version), "new", "name", new_->name, "version",
                          wr_json_str_or_null(new_->version), "breaking", breaking, "breaks_consumers",
                          (d.breaks & BREAKS_CONSUMERS) != 0, "breaks_producers", (d.breaks & BREAKS_PRODUCERS) != 0,
                          "version_ok", version_ok, "changes", d.changes, "affected_columns", d.affected,
                          "table_wide", d.table_wide);
  if (!version_ok) {
    char *msg = wr_asprintf("a breaking change needs a higher major version: %s -> %s",
                            old->version ? old->version : "(none)", new_->version ? new_->version : "(none)");
    json_object_set_new(out, "version_message", json_string(msg));
    free(msg);
  } else {
    json_object_set_new(out, "version_message", json_null());
  }
  json_decref(io);
  json_decref(in);
  return out;
}
