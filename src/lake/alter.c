/*
 * alter.c -- schema evolution by Iceberg field id (weir_table_alter, `weir alter`;
 * docs/evolution.md).
 *
 * A change of a table's schema is a new table version that changes no data: a new Iceberg
 * schema (a new schema-id; current-schema-id moved; the older schemas kept in `schemas`)
 * and no new snapshot, as Iceberg's UpdateSchema commits it. What makes it safe for every
 * engine is the field id: data files name their columns by id, so
 *   - a rename keeps the id: older files are read under the new name, and reading at an
 *     older commit (whose metadata file has the older schema) gives the old name;
 *   - an added column takes the next id above last-column-id (never a dropped column's):
 *     older files have no such id and read it as null, which is why it must be optional
 *     (Iceberg allows a required one only with a default, in format v3);
 *   - a dropped column's id is simply no longer read;
 *   - a widened column keeps its id, and only Iceberg's promotions are allowed (int ->
 *     long, float -> double, decimal precision), the conversions every reader applies to
 *     older files.
 * The stored contract (weir.contract) follows the schema, so the next write is held to
 * the evolved columns. Every change is checked, in order, against the schema the changes
 * before it made, before anything is written: a refused alter writes nothing.
 *
 * Serialisation: a schema change reads the whole table's shape, so it is staged as a
 * replace is (lake_staged.schema_only, mode REPLACE): any change of the table between the
 * base and the head refuses it (serial.c), except compactions, which change no row and
 * no schema.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "lake/serial.h"
#include "util/buf.h"
#include "util/json.h"

/* The state the changes are applied to: the schema (with field ids) and, when the table
 * stores one, its contract, kept column for column in step (same names, same order). */
typedef struct alter_state {
  const char *table;
  wr_schema schema;
  weir_contract *contract; /* NULL when the table has no stored contract */
  int32_t last_column_id;
  json_t *changes;         /* the document's list of what was done */
  wr_buf summary;          /* the default commit message's list */
  const iceberg_table *t;  /* the table at the base: its partition specs and properties */
} alter_state;

/* The partition field of any of the table's specs whose source is field `id` (its name
 * and spec id), or false: a spec's source column cannot be dropped, since files written
 * under that spec are read and pruned by it (Iceberg refuses the same). */
static bool partition_source(const iceberg_table *t, int32_t id, const char **field, int64_t *spec_id) {
  size_t i, k;
  json_t *spec, *pf;
  json_array_foreach(json_object_get(t->json, "partition-specs"), i, spec) {
    json_array_foreach(json_object_get(spec, "fields"), k, pf) {
      if (json_integer_value(json_object_get(pf, "source-id")) != id) continue;
      *field = json_string_value(json_object_get(pf, "name"));
      *spec_id = json_integer_value(json_object_get(spec, "spec-id"));
      return true;
    }
  }
  return false;
}

static const char *kind_name(weir_alter_kind k) {
  switch (k) {
    case WEIR_ALTER_ADD: return "add";
    case WEIR_ALTER_RENAME: return "rename";
    case WEIR_ALTER_DROP: return "drop";
    case WEIR_ALTER_WIDEN: return "widen";
    case WEIR_ALTER_DOC: return "doc";
    case WEIR_ALTER_MOVE: return "move";
  }
  return "?";
}

/* The column named `name`: exactly, else the one whose name differs only in case (SQL
 * names columns without case; two such columns cannot exist, see rename). -1: none. */
static long find_column(const wr_schema *s, const char *name) {
  long i = wr_schema_find(s, name);
  if (i >= 0) return i;
  for (size_t j = 0; j < s->n_fields; j++)
    if (strcasecmp(s->fields[j].name, name) == 0) return (long)j;
  return -1;
}

static long contract_find(const weir_contract *c, const char *name) {
  for (size_t i = 0; c && i < c->n_columns; i++)
    if (strcmp(c->columns[i].field.name, name) == 0) return (long)i;
  return -1;
}

static char *column_list(const wr_schema *s) {
  wr_buf b = WEIR_BUF_INIT;
  for (size_t i = 0; i < s->n_fields; i++) wr_buf_printf(&b, "%s%s", i ? ", " : "", s->fields[i].name);
  return wr_buf_detach(&b);
}

/* Does SQL text name identifier `name` (as a whole word, without case, or quoted)? A
 * rule whose SQL names a column would silently mean something else after a rename or
 * drop, so such changes are refused and left to a write with a new contract. */
static bool sql_names(const char *sql, const char *name) {
  size_t n = strlen(name);
  if (!sql || n == 0) return false;
  for (const char *p = sql; *p; p++) {
    if (strncasecmp(p, name, n) != 0) continue;
    bool before = p == sql || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool after = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (before && after) return true;
  }
  return false;
}

/* The contract rule whose SQL names column `name`, or NULL. */
static const char *rule_naming(const weir_contract *c, const char *name) {
  for (size_t i = 0; c && i < c->n_columns; i++)
    for (size_t j = 0; j < c->columns[i].n_rules; j++) {
      const wr_column_rule *r = &c->columns[i].rules[j];
      if (r->kind == WEIR_RULE_CHECK && sql_names(r->sql, name)) return r->name ? r->name : "a check";
    }
  for (size_t i = 0; c && i < c->n_rules; i++)
    if (sql_names(c->rules[i].sql, name)) return c->rules[i].name ? c->rules[i].name : "a table rule";
  return NULL;
}

/* Prefix of every message: "cannot alter default.t: --rename a b: ". */
static int refuse(alter_state *st, size_t index, const weir_alter_change *ch, weir_error *err, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));
static int refuse(alter_state *st, size_t index, const weir_alter_change *ch, weir_error *err, const char *fmt,
                  ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return wr_seterr(err, WEIR_EINVALIDARG, "cannot alter %s: change %zu (%s %s%s%s): %s; nothing was written",
                   st->table, index + 1, kind_name(ch->kind), ch->column ? ch->column : "",
                   ch->value && *ch->value ? " " : "", ch->value ? ch->value : "", what);
}

static bool valid_name(const char *name) {
  if (!name || !*name) return false;
  if (isspace((unsigned char)name[0]) || isspace((unsigned char)name[strlen(name) - 1])) return false;
  for (const char *p = name; *p; p++)
    if ((unsigned char)*p < 0x20) return false;
  return true;
}

static int apply(alter_state *st, size_t index, const weir_alter_change *ch, weir_error *err) {
  wr_schema *s = &st->schema;
  if (!ch->column || !*ch->column) return refuse(st, index, ch, err, "no column named");
  json_t *rec = json_pack("{s:s}", "change", kind_name(ch->kind));
  long i = ch->kind == WEIR_ALTER_ADD ? -1 : find_column(s, ch->column);
  if (ch->kind != WEIR_ALTER_ADD && i < 0) {
    json_decref(rec);
    char *cols = column_list(s);
    int rc = refuse(st, index, ch, err, "%s has no column \"%s\" (its columns: %s)", st->table, ch->column, cols);
    free(cols);
    return rc;
  }
  wr_field *f = i >= 0 ? &s->fields[i] : NULL;
  long ci = f ? contract_find(st->contract, f->name) : -1;
  int rc = WEIR_OK;
  char tn[WEIR_TYPE_NAME_MAX], why[160] = "";
  switch (ch->kind) {
    case WEIR_ALTER_ADD: {
      if (!valid_name(ch->column)) {
        rc = refuse(st, index, ch, err, "\"%s\" is not a column name", ch->column);
        break;
      }
      long other = find_column(s, ch->column);
      if (other >= 0) {
        rc = refuse(st, index, ch, err, "%s already has a column \"%s\"%s", st->table, s->fields[other].name,
                    strcmp(s->fields[other].name, ch->column) ? " (names are compared without case, as SQL does)" : "");
        break;
      }
      weir_type t;
      if (!ch->value || !wr_type_parse(ch->value, &t, why, sizeof why)) {
        rc = refuse(st, index, ch, err, "%s", ch->value ? why : "no type given (e.g. \"name Int64\")");
        break;
      }
      if (t.id == WEIR_TYPE_ANY) {
        rc = refuse(st, index, ch, err, "Any is not a type a column can be added with");
        break;
      }
      if (ch->required) {
        rc = refuse(st, index, ch, err,
                    "a required column can only be added with a default, which Iceberg allows in format "
                    "version 3 tables; %s is format version 2 (add it optional, then make it required with a "
                    "replace under a contract that requires it)",
                    st->table);
        break;
      }
      if (st->last_column_id == INT32_MAX) {
        rc = refuse(st, index, ch, err, "the table has used every field id");
        break;
      }
      wr_field nf = {0};
      nf.name = (char *)ch->column;
      nf.type = t;
      nf.field_id = ++st->last_column_id;
      wr_schema_add(s, &nf);
      if (st->contract) {
        weir_contract *c = st->contract;
        c->columns = wr_realloc(c->columns, (c->n_columns + 1) * sizeof *c->columns);
        wr_contract_column *cc = &c->columns[c->n_columns++];
        memset(cc, 0, sizeof *cc);
        wr_field_copy(&cc->field, &nf);
        cc->field.field_id = 0;
      }
      wr_type_name(t, tn, sizeof tn);
      json_object_set_new(rec, "column", json_string(ch->column));
      json_object_set_new(rec, "type", json_string(tn));
      json_object_set_new(rec, "field_id", json_integer(nf.field_id));
      wr_buf_printf(&st->summary, "add %s %s", ch->column, tn);
      break;
    }
    case WEIR_ALTER_RENAME: {
      if (!valid_name(ch->value)) {
        rc = refuse(st, index, ch, err, "\"%s\" is not a column name", ch->value ? ch->value : "");
        break;
      }
      long other = find_column(s, ch->value);
      if (other >= 0 && other != i) {
        rc = refuse(st, index, ch, err, "%s already has a column \"%s\"%s", st->table, s->fields[other].name,
                    strcmp(s->fields[other].name, ch->value) ? " (names are compared without case, as SQL does)" : "");
        break;
      }
      if (strcmp(f->name, ch->value) == 0) {
        rc = refuse(st, index, ch, err, "the column is already named \"%s\"", ch->value);
        break;
      }
      /* Files registered without field ids are read by name (name_mapping.c): renamed,
       * their column would read as NULL. Refused while the table carries a name mapping
       * (it keeps it after a compaction rewrote such files: names are never removed). */
      if (st->t && lake_table_has_name_mapping(st->t)) {
        rc = refuse(st, index, ch, err,
                    "%s has (or had) data files without field ids, read by column name "
                    "(schema.name-mapping.default): renaming \"%s\" would make it read as NULL in them, "
                    "so columns of such a table cannot be renamed yet (replace the table to rename)",
                    st->table, f->name);
        break;
      }
      const char *rule = rule_naming(st->contract, f->name);
      if (rule) {
        rc = refuse(st, index, ch, err,
                    "rule %s of the table's contract names \"%s\" in its SQL; write the table with a contract "
                    "whose rule names the new column instead",
                    rule, f->name);
        break;
      }
      json_object_set_new(rec, "column", json_string(f->name));
      json_object_set_new(rec, "new_name", json_string(ch->value));
      json_object_set_new(rec, "field_id", json_integer(f->field_id));
      wr_buf_printf(&st->summary, "rename %s to %s", f->name, ch->value);
      if (ci >= 0) {
        free(st->contract->columns[ci].field.name);
        st->contract->columns[ci].field.name = wr_strdup(ch->value);
      }
      free(f->name);
      f->name = wr_strdup(ch->value);
      break;
    }
    case WEIR_ALTER_DROP: {
      if (s->n_fields == 1) {
        rc = refuse(st, index, ch, err, "\"%s\" is the table's only column (drop the table instead)", f->name);
        break;
      }
      const char *pfield = NULL;
      int64_t spec_id = 0;
      if (st->t && partition_source(st->t, f->field_id, &pfield, &spec_id)) {
        rc = refuse(st, index, ch, err,
                    "\"%s\" is the source of partition field %s (spec %lld): files written under that spec are "
                    "read and pruned by it",
                    f->name, pfield ? pfield : "?", (long long)spec_id);
        break;
      }
      const char *rule = rule_naming(st->contract, f->name);
      if (rule) {
        rc = refuse(st, index, ch, err, "rule %s of the table's contract names \"%s\" in its SQL", rule, f->name);
        break;
      }
      json_object_set_new(rec, "column", json_string(f->name));
      json_object_set_new(rec, "field_id", json_integer(f->field_id));
      wr_buf_printf(&st->summary, "drop %s", f->name);
      if (ci >= 0) wr_contract_remove_column(st->contract, (size_t)ci);
      wr_field_clear(f);
      memmove(f, f + 1, (s->n_fields - (size_t)i - 1) * sizeof *f);
      s->n_fields--;
      break;
    }
    case WEIR_ALTER_WIDEN: {
      weir_type t;
      if (!ch->value || !wr_type_parse(ch->value, &t, why, sizeof why)) {
        rc = refuse(st, index, ch, err, "%s", ch->value ? why : "no type given");
        break;
      }
      char from[WEIR_TYPE_NAME_MAX];
      wr_type_name(f->type, from, sizeof from);
      wr_type_name(t, tn, sizeof tn);
      if (wr_type_equal(f->type, t)) {
        rc = refuse(st, index, ch, err, "column \"%s\" is already %s", f->name, tn);
        break;
      }
      if (!iceberg_type_promotion(f->type, t)) {
        bool narrowing = iceberg_type_promotion(t, f->type) ||
                         (f->type.id == WEIR_TYPE_DECIMAL && t.id == WEIR_TYPE_DECIMAL && t.precision < f->type.precision);
        rc = refuse(st, index, ch, err,
                    "%s to %s is %s, not an Iceberg type promotion (Int32 to Int64, Float32 to Float64, "
                    "Decimal(P, S) to Decimal(P', S) with P' > P): files written as %s could not be read as %s by "
                    "every engine",
                    from, tn, narrowing ? "a narrowing" : "a change of type", from, tn);
        break;
      }
      json_object_set_new(rec, "column", json_string(f->name));
      json_object_set_new(rec, "from", json_string(from));
      json_object_set_new(rec, "type", json_string(tn));
      json_object_set_new(rec, "field_id", json_integer(f->field_id));
      wr_buf_printf(&st->summary, "widen %s to %s", f->name, tn);
      f->type = t;
      if (ci >= 0) st->contract->columns[ci].field.type = t;
      break;
    }
    case WEIR_ALTER_DOC: {
      const char *doc = ch->value && *ch->value ? ch->value : NULL;
      json_object_set_new(rec, "column", json_string(f->name));
      json_object_set_new(rec, "doc", doc ? json_string(doc) : json_null());
      wr_buf_printf(&st->summary, "doc %s", f->name);
      free(f->doc);
      f->doc = wr_strdup(doc);
      if (ci >= 0) {
        free(st->contract->columns[ci].field.doc);
        st->contract->columns[ci].field.doc = wr_strdup(doc);
      }
      break;
    }
    case WEIR_ALTER_MOVE: {
      long after = -1;
      if (ch->value && *ch->value) {
        after = find_column(s, ch->value);
        if (after < 0) {
          char *cols = column_list(s);
          rc = refuse(st, index, ch, err, "%s has no column \"%s\" to move after (its columns: %s)", st->table,
                      ch->value, cols);
          free(cols);
          break;
        }
        if (after == i) {
          rc = refuse(st, index, ch, err, "a column cannot move after itself");
          break;
        }
      }
      json_object_set_new(rec, "column", json_string(f->name));
      json_object_set_new(rec, "after", after >= 0 ? json_string(s->fields[after].name) : json_null());
      wr_buf_printf(&st->summary, "move %s %s%s", f->name, after >= 0 ? "after " : "first",
                    after >= 0 ? s->fields[after].name : "");
      /* Take the column out, then put it in at its new place: schema and contract alike. */
      wr_field tmp = *f;
      memmove(f, f + 1, (s->n_fields - (size_t)i - 1) * sizeof *f);
      if (after > i) after--;
      size_t at = (size_t)(after + 1);
      memmove(&s->fields[at + 1], &s->fields[at], (s->n_fields - 1 - at) * sizeof *f);
      s->fields[at] = tmp;
      if (st->contract && ci >= 0) {
        weir_contract *c = st->contract;
        wr_contract_column cc = c->columns[ci];
        memmove(&c->columns[ci], &c->columns[ci + 1], (c->n_columns - (size_t)ci - 1) * sizeof cc);
        long cafter = after >= 0 ? contract_find(c, s->fields[after].name) : -1;
        size_t cat = (size_t)(cafter + 1);
        memmove(&c->columns[cat + 1], &c->columns[cat], (c->n_columns - 1 - cat) * sizeof cc);
        c->columns[cat] = cc;
      }
      break;
    }
    default:
      rc = refuse(st, index, ch, err, "unknown kind of change %d", (int)ch->kind);
  }
  if (rc) {
    json_decref(rec);
    return rc;
  }
  json_array_append_new(st->changes, rec);
  return WEIR_OK;
}

/* `v` with its major number raised and the numbers after it zeroed ("1" -> "2", "1.3" ->
 * "2.0", "v3" -> "v4"); "1" when it has no number. Caller frees. */
static char *next_major(const char *v) {
  const char *d = v;
  while (d && *d && !isdigit((unsigned char)*d)) d++;
  if (!d || !*d) return wr_strdup("1");
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_printf(&b, "%.*s%ld", (int)(d - v), v, strtol(d, NULL, 10) + 1);
  const char *p = d;
  while (isdigit((unsigned char)*p)) p++;
  while (*p) {
    if (isdigit((unsigned char)*p)) {
      wr_buf_putc(&b, '0');
      while (isdigit((unsigned char)*p)) p++;
    } else {
      wr_buf_putc(&b, *p++);
    }
  }
  return wr_buf_detach(&b);
}

static int refuse_evolution(const char *table, const weir_contract *to, const char *column, weir_error *err,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int refuse_evolution(const char *table, const weir_contract *to, const char *column, weir_error *err,
                            const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  int rc = wr_seterr(err, WEIR_ECONTRACT, "cannot evolve %s to contract %s: column \"%s\": %s; nothing was written",
                     table, to->name ? to->name : "unnamed", column, what);
  wr_error_set_details(err, json_pack("[{s:s,s:s,s:s,s:s}]", "kind", "evolution", "table", table, "column", column,
                                      "message", what));
  return rc;
}

int lake_check_evolution(const char *table, const weir_contract *from, const weir_contract *to, weir_error *err) {
  char a[WEIR_TYPE_NAME_MAX], b[WEIR_TYPE_NAME_MAX];
  for (size_t i = 0; i < to->n_columns; i++) {
    const wr_field *f = &to->columns[i].field;
    for (size_t j = 0; j < i; j++)
      if (strcasecmp(to->columns[j].field.name, f->name) == 0)
        return refuse_evolution(table, to, f->name, err,
                                "the contract also has column \"%s\" (names are compared without case, as SQL does)",
                                to->columns[j].field.name);
    long k = contract_find(from, f->name);
    if (k < 0) {
      for (size_t j = 0; j < from->n_columns; j++)
        if (strcasecmp(from->columns[j].field.name, f->name) == 0)
          return refuse_evolution(table, to, f->name, err,
                                  "the table has column \"%s\", which differs only in case (names are compared "
                                  "without case, as SQL does; to rename it: weir alter %s --rename %s %s)",
                                  from->columns[j].field.name, table, from->columns[j].field.name, f->name);
      if (f->required)
        return refuse_evolution(table, to, f->name, err,
                                "a new column must be optional: older rows have no value for it (Iceberg allows a "
                                "required one only with a default, in format version 3 tables)");
      if (f->type.id == WEIR_TYPE_ANY) return refuse_evolution(table, to, f->name, err, "a new column needs a type");
      continue;
    }
    const wr_field *g = &from->columns[k].field;
    wr_type_name(g->type, a, sizeof a);
    wr_type_name(f->type, b, sizeof b);
    if (!wr_type_equal(g->type, f->type) && !iceberg_type_promotion(g->type, f->type)) {
      bool narrowing = iceberg_type_promotion(f->type, g->type) ||
                       (g->type.id == WEIR_TYPE_DECIMAL && f->type.id == WEIR_TYPE_DECIMAL &&
                        f->type.precision < g->type.precision);
      return refuse_evolution(table, to, f->name, err,
                              "%s to %s is %s, not an Iceberg type promotion (Int32 to Int64, Float32 to Float64, "
                              "Decimal(P, S) to Decimal(P', S) with P' > P)",
                              a, b, narrowing ? "a narrowing" : "a change of type");
    }
    if (g->required && !f->required)
      return refuse_evolution(table, to, f->name, err,
                              "the table's contract requires it; declaring it optional would let nulls reach every "
                              "reader that relies on it (required to optional is refused)");
    if (!g->required && f->required)
      return refuse_evolution(table, to, f->name, err,
                              "it is optional in the table, whose older rows may hold nulls (optional to required "
                              "is refused; write the whole table with --mode replace under the new contract)");
  }
  for (size_t j = 0; j < from->n_columns; j++)
    if (contract_find(to, from->columns[j].field.name) < 0) {
      bool cased = false;
      for (size_t i = 0; i < to->n_columns; i++) cased |= strcasecmp(to->columns[i].field.name, from->columns[j].field.name) == 0;
      if (cased) continue; /* reported above */
      return refuse_evolution(table, to, from->columns[j].field.name, err,
                              "the table has it and the contract does not: a write never drops a column by "
                              "omission (drop it with weir alter %s --drop %s)",
                              table, from->columns[j].field.name);
    }
  return WEIR_OK;
}

int lake_table_alter(weir_lake *lake, const char *table, const weir_alter_options *opts, char **out_json,
                     weir_error *err) {
  *out_json = NULL;
  const char *branch = opts->branch && *opts->branch ? opts->branch : "main";
  if (opts->n_changes == 0)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "cannot alter %s: no change given (add, rename, drop, widen, doc or move a column)", table);
  wr_table_id id;
  int rc = wr_table_id_parse(table, &id, err);
  if (rc) return rc;
  char base[WEIR_HASH_HEX_SIZE], full[2 * WEIR_NAME_MAX + 2];
  if ((rc = lake_write_base(lake, branch, opts->expect_head, base, err))) return rc;
  if ((rc = lake_table_fold_case(lake, base, &id, err))) return rc;
  wr_table_id_format(&id, full, sizeof full);
  iceberg_table *t = NULL;
  if ((rc = lake_table_at(lake, base, full, true, &t, err))) return rc;
  if (!t) return wr_seterr(err, WEIR_ENOTFOUND, "cannot alter table %s: it does not exist on branch %s", full, branch);

  alter_state st = {0};
  st.table = full;
  st.t = t;
  wr_schema_copy(&st.schema, &t->schema);
  st.last_column_id = t->last_column_id;
  bool stored = false;
  st.contract = lake_table_type(t, full, &stored);
  if (!stored) {
    wr_contract_free(st.contract);
    st.contract = NULL;
  }
  weir_contract *orig = st.contract ? wr_contract_copy(st.contract) : NULL;
  st.changes = json_array();
  wr_buf empty = WEIR_BUF_INIT;
  st.summary = empty;
  lake_staged s;
  memset(&s, 0, sizeof s);
  char hash[WEIR_HASH_HEX_SIZE] = "";
  char *msg = NULL;
  for (size_t i = 0; i < opts->n_changes && rc == WEIR_OK; i++) {
    if (i) wr_buf_puts(&st.summary, ", ");
    rc = apply(&st, i, &opts->changes[i], err);
  }
  if (rc) goto done;
  /* A change that breaks the contract's readers (a rename, a drop, a new type) is a new
   * major version of it, as contract diffs require of every breaking change: the stored
   * contract's version moves with it, so that merging the alter elsewhere is judged as
   * any contract change is. */
  if (st.contract) {
    json_t *d = wr_contract_diff(orig, st.contract);
    if (json_is_true(json_object_get(d, "breaking")) && !json_is_true(json_object_get(d, "version_ok"))) {
      char *v = next_major(st.contract->version);
      free(st.contract->version);
      st.contract->version = v;
    }
    json_decref(d);
  }
  bool prot = false;
  if ((rc = catalog_branch_protected(lake->cat, branch, &prot, err))) goto done;
  if (prot) {
    rc = wr_seterr(err, WEIR_EINVALIDARG,
                   "branch %s is protected: it takes only merges (alter %s on a branch and merge it into %s); "
                   "nothing was written",
                   branch, full, branch);
    goto done;
  }

  s.table = wr_strdup(full);
  s.mode = WEIR_MODE_REPLACE;
  s.schema_only = true;
  wr_schema_copy(&s.schema, &st.schema);
  s.last_column_id = st.last_column_id;
  s.based_on = wr_strdup(t->metadata_location);
  s.properties = json_object();
  s.summary = json_object();
  if (st.contract) {
    json_t *ir = wr_contract_to_ir(st.contract);
    char *text = wr_json_canonical(ir);
    json_object_set_new(s.properties, "weir.contract", json_string(text));
    free(text);
    json_decref(ir);
    json_t *lin = wr_contract_lineage_json(st.contract);
    if (json_object_size(lin) > 0) {
      char *l = wr_json_canonical(lin);
      json_object_set_new(s.properties, "weir.lineage", json_string(l));
      free(l);
    } else {
      json_object_set_new(s.properties, "weir.lineage", json_null());
    }
    json_decref(lin);
  }
  msg = opts->message ? NULL : wr_asprintf("alter %s: %s", full, wr_buf_cstr(&st.summary));
  json_t *props = json_pack("{s:s}", "weir.alter", full);
  lake_commit_request cr = {0};
  cr.branch = branch;
  cr.base = base;
  cr.expected_head = NULL;
  cr.message = msg ? msg : opts->message;
  cr.properties = props;
  rc = lake_commit_staged(lake, &cr, &s, 1, hash, err);
  json_decref(props);
  if (rc) goto done;

  {
    iceberg_table *after = NULL;
    if ((rc = lake_table_at(lake, hash, full, false, &after, err))) goto done;
    json_t *o = json_object();
    json_object_set_new(o, "table", json_string(full));
    json_object_set_new(o, "branch", json_string(branch));
    json_object_set_new(o, "base", json_string(base));
    json_object_set_new(o, "commit", json_string(hash));
    json_object_set_new(o, "schema_id", json_integer(after->current_schema_id));
    json_object_set_new(o, "previous_schema_id", json_integer(t->current_schema_id));
    json_object_set_new(o, "last_column_id", json_integer(after->last_column_id));
    json_object_set_new(o, "changes", json_incref(st.changes));
    json_object_set_new(o, "contract_version",
                        st.contract && st.contract->version ? json_string(st.contract->version) : json_null());
    json_t *cols = json_array();
    for (size_t i = 0; i < after->schema.n_fields; i++) {
      const wr_field *f = &after->schema.fields[i];
      char tn[WEIR_TYPE_NAME_MAX];
      wr_type_name(f->type, tn, sizeof tn);
      json_array_append_new(cols, json_pack("{s:s,s:s,s:b,s:o,s:i}", "name", f->name, "type", tn, "required",
                                            f->required, "doc", f->doc ? json_string(f->doc) : json_null(),
                                            "field_id", (int)f->field_id));
    }
    json_object_set_new(o, "columns", cols);
    iceberg_table_free(after);
    *out_json = wr_doc_dump(WR_DOC_TABLE_ALTER, o);
  }
done:
  free(msg);
  lake_staged_clear(&s);
  wr_schema_clear(&st.schema);
  wr_contract_free(st.contract);
  wr_contract_free(orig);
  json_decref(st.changes);
  wr_buf_free(&st.summary);
  iceberg_table_free(t);
  return rc;
}
