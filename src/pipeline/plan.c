/*
 * plan.c -- stage 2 of docs/contracts.md: before any data is read, check that the whole
 * project composes against the catalog at the ref.
 *
 * Every input must exist (a model of the project, or a table at the ref); the DAG must
 * have no cycle; every projection must name columns its producer declares, with types
 * that compose under widening and without feeding a required column from a nullable
 * one; a SQL model's result types, inferred by the engine from its inputs' schemas over
 * empty tables, must match its output contract. All problems are collected.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iceberg/iceberg.h"
#include "pipeline/pipeline.h"
#include "util/buf.h"
#include "util/json.h"

static long model_index(const wr_project *p, const char *name) {
  for (size_t i = 0; i < p->n_models; i++)
    if (strcmp(p->models[i].name, name) == 0) return (long)i;
  return -1;
}

static const char *type_text(weir_type t, char *buf, size_t n) {
  wr_type_arrow_name(t, buf, n);
  return buf;
}

/* ---- catalog schemas, loaded once per table --------------------------------------- */

typedef struct table_cache {
  char **names;
  iceberg_table **tables; /* NULL entries: not in the catalog */
  size_t n;
} table_cache;

static iceberg_table *cached_table(weir_lake *lake, table_cache *tc, const char *hash, const char *table,
                                   weir_error *err, int *rc) {
  for (size_t i = 0; i < tc->n; i++)
    if (strcmp(tc->names[i], table) == 0) return tc->tables[i];
  iceberg_table *t = NULL;
  *rc = lake_table_at(lake, hash, table, true, &t, err);
  tc->names = wr_realloc(tc->names, (tc->n + 1) * sizeof *tc->names);
  tc->tables = wr_realloc(tc->tables, (tc->n + 1) * sizeof *tc->tables);
  tc->names[tc->n] = wr_strdup(table);
  tc->tables[tc->n++] = t;
  return t;
}

static void cache_free(table_cache *tc) {
  for (size_t i = 0; i < tc->n; i++) {
    free(tc->names[i]);
    iceberg_table_free(tc->tables[i]);
  }
  free(tc->names);
  free(tc->tables);
}

/* ---- resolution ------------------------------------------------------------------- */

/* True when `name` is in list `key` of p->unloaded: declared by a file (or definition)
 * whose problem is reported already. A reference to it is not a problem of its own: the
 * root cause is. Table names compare without case, as SQL reads them. */
static bool unloaded(const wr_project *p, const char *key, const char *name) {
  size_t i;
  json_t *v;
  bool nocase = strcmp(key, "schemas") != 0;
  json_array_foreach(json_object_get(p->unloaded, key), i, v) {
    const char *s = json_string_value(v);
    if (s && (nocase ? strcasecmp(s, name) : strcmp(s, name)) == 0) return true;
  }
  return false;
}

/* " (unless a.py, b.py, which did not load, define it)" when Python files that did not
 * load declare names nobody could read (their source does not parse); "" otherwise. */
/* A name the plan cannot find. When a file did not load at all (a Python file that does
 * not import, a YAML file that does not parse), the name may well be defined there: that
 * file's problem is the root one, reported already, and this is not a problem of its own
 * (it would be one more false error per reader of the name). It becomes a warning that
 * says so, and is checked for real once the file loads. Otherwise it is a problem. */
static void unresolved(wr_project *p, const char *file, int line, const char *model, const char *expected,
                       const char *found, char *msg) {
  json_t *opaque = json_object_get(p->unloaded, "opaque");
  if (json_array_size(opaque) == 0) {
    pipeline_problem(p, file, line, model, NULL, expected, found, "%s", msg);
    free(msg);
    return;
  }
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_puts(&b, msg);
  size_t j;
  json_t *f;
  json_array_foreach(opaque, j, f) wr_buf_printf(&b, "%s%s", j ? ", " : " (not a problem of its own: ", json_string_value(f));
  wr_buf_printf(&b, ", which did not load, may define it; checked once %s)", json_array_size(opaque) == 1 ? "it loads" : "they load");
  json_array_append_new(p->warnings, json_pack("{s:o,s:o,s:o,s:s}", "file", wr_json_text(file), "line",
                                               line > 0 ? json_integer(line) : json_null(), "model",
                                               wr_json_text(model), "message", wr_buf_cstr(&b)));
  wr_buf_free(&b);
  free(msg);
}

static int resolve_inputs(weir_lake *lake, wr_project *p, const char *hash, table_cache *tc,
                          weir_error *err) {
  int rc = WEIR_OK;
  for (size_t i = 0; i < p->n_models && rc == WEIR_OK; i++) {
    pipeline_model *m = &p->models[i];
    if (m->output_schema_name) {
      m->output = pipeline_schema(p, m->output_schema_name);
      int line = m->output_line ? m->output_line : m->line;
      if (!m->output && !unloaded(p, "schemas", m->output_schema_name)) {
        unresolved(p, m->file, line, m->name, m->output_schema_name, NULL,
                   wr_asprintf("%s:%d: model %s: output schema \"%s\" is not defined (no YAML contract or "
                               "TableSchema of that name)",
                               m->file, line, m->name, m->output_schema_name));
      } else if (m->output) {
        for (size_t c = 0; c < m->output->n_columns; c++) {
          if (m->output->columns[c].field.type.id == WEIR_TYPE_DATE64)
            pipeline_problem(p, m->file, m->line, m->name, m->output->columns[c].field.name, "a storable type",
                             "Date64",
                             "%s:%d: model %s: column \"%s\" of output schema %s is Date64, which Iceberg "
                             "cannot store (use Date32)",
                             m->file, m->line, m->name, m->output->columns[c].field.name, m->output->name);
          else if (m->output->columns[c].field.type.id == WEIR_TYPE_ANY)
            pipeline_problem(p, m->file, m->line, m->name, m->output->columns[c].field.name, "a storable type",
                             "Any",
                             "%s:%d: model %s: column \"%s\" of output schema %s is Any, which a stored table "
                             "cannot hold (declare its type)",
                             m->file, m->line, m->name, m->output->columns[c].field.name, m->output->name);
        }
      }
    }
    for (size_t k = 0; k < m->n_inputs && rc == WEIR_OK; k++) {
      model_input *in = &m->inputs[k];
      in->producer = -1;
      /* The name a model of the project would have: the bare name, or the name in the
       * project's own namespace (NULL for another namespace). */
      const char *dot = strchr(in->name, '.');
      const char *local = in->name;
      if (dot)
        local = strncmp(in->name, p->ns, (size_t)(dot - in->name)) == 0 &&
                        strlen(p->ns) == (size_t)(dot - in->name)
                    ? dot + 1
                    : NULL;
      long prod = local ? model_index(p, local) : -1;
      if (in->schema_name) {
        in->schema = pipeline_schema(p, in->schema_name);
        if (!in->schema && !unloaded(p, "schemas", in->schema_name)) {
          unresolved(p, m->file, in->line, m->name, in->schema_name, NULL,
                     wr_asprintf("%s:%d: model %s: input %s: schema \"%s\" is not defined", m->file, in->line,
                                 m->name, in->param ? in->param : in->name, in->schema_name));
        }
      }
      if (prod >= 0 && !in->ref) {
        in->producer = (int)prod;
        in->table = wr_strdup(p->models[prod].table);
        continue;
      }
      wr_table_id id;
      weir_error e2 = {0};
      if (wr_table_id_parse(in->name, &id, &e2) != WEIR_OK) {
        pipeline_problem(p, m->file, in->line, m->name, NULL, NULL, in->name, "%s:%d: model %s: %s", m->file,
                         in->line, m->name, e2.message);
        weir_error_clear(&e2);
        continue;
      }
      /* SQL reads names without case: `Titanic` reads table titanic. */
      if (!in->ref && (rc = lake_table_fold_case(lake, hash, &id, err))) break;
      char full[2 * WEIR_NAME_MAX + 2];
      wr_table_id_format(&id, full, sizeof full);
      in->table = wr_strdup(full);
      const char *at = hash;
      char other[WEIR_HASH_HEX_SIZE];
      if (in->ref) {
        if (lake_resolve(lake, in->ref, other, &e2) != WEIR_OK) {
          pipeline_problem(p, m->file, in->line, m->name, NULL, NULL, in->ref, "%s:%d: model %s: input %s: %s",
                           m->file, in->line, m->name, in->name, e2.message);
          weir_error_clear(&e2);
          continue;
        }
        at = other;
        /* Inputs at another ref are not cached with the plan's ref. */
        iceberg_table *t = NULL;
        rc = lake_table_at(lake, at, full, true, &t, err);
        if (rc) break;
        if (!t)
          pipeline_problem(p, m->file, in->line, m->name, NULL, NULL, in->name,
                           "%s:%d: model %s reads %s at %s, where that table does not exist", m->file, in->line,
                           m->name, full, in->ref);
        iceberg_table_free(t);
        continue;
      }
      iceberg_table *t = cached_table(lake, tc, at, full, err, &rc);
      if (rc) break;
      if (!t && !(local && (unloaded(p, "sql", local) || unloaded(p, "models", local)))) {
        /* A Python file whose source does not parse may be where the model was defined. */
        unresolved(p, m->file, in->line, m->name, NULL, in->name,
                   wr_asprintf("%s:%d: model %s reads %s, which is neither a model of the project nor a table at "
                               "commit %.12s",
                               m->file, in->line, m->name, in->name, hash));
      }
    }
  }
  return rc;
}

/* ---- ordering ----------------------------------------------------------------------- */

static void order_models(wr_project *p) {
  size_t n = p->n_models;
  size_t *indeg = wr_calloc(n ? n : 1, sizeof *indeg);
  bool *done = wr_calloc(n ? n : 1, sizeof *done);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < p->models[i].n_inputs; k++)
      if (p->models[i].inputs[k].producer >= 0) indeg[i]++;
  p->order = wr_calloc(n ? n : 1, sizeof *p->order);
  p->n_order = 0;
  /* Kahn's algorithm, always taking the ready model with the smallest name so the
   * order is the same on every machine. */
  for (;;) {
    long pick = -1;
    for (size_t i = 0; i < n; i++)
      if (!done[i] && indeg[i] == 0 && (pick < 0 || strcmp(p->models[i].name, p->models[pick].name) < 0))
        pick = (long)i;
    if (pick < 0) break;
    done[pick] = true;
    p->order[p->n_order++] = (size_t)pick;
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < p->models[i].n_inputs; k++)
        if (p->models[i].inputs[k].producer == pick) indeg[i]--;
  }
  if (p->n_order < n) {
    /* Every model left over is on a cycle or downstream of one. Walk producers from each
     * model not yet walked until a model repeats: a repeat within this walk is a new
     * cycle; reaching a model an earlier walk covered is not (that cycle is reported). */
    long *seen_at = wr_calloc(n, sizeof *seen_at);
    bool *walked = wr_calloc(n, sizeof *walked);
    size_t *path = wr_calloc(n + 1, sizeof *path);
    for (size_t start = 0; start < n; start++) {
      if (done[start] || walked[start]) continue;
      for (size_t i = 0; i < n; i++) seen_at[i] = -1;
      size_t len = 0;
      size_t cur = start;
      bool cycle = false;
      for (;;) {
        if (walked[cur]) break;
        if (seen_at[cur] >= 0) {
          cycle = true;
          break;
        }
        seen_at[cur] = (long)len;
        path[len++] = cur;
        long next = -1;
        for (size_t k = 0; k < p->models[cur].n_inputs; k++) {
          int pr = p->models[cur].inputs[k].producer;
          if (pr >= 0 && !done[pr]) {
            next = pr;
            break;
          }
        }
        if (next < 0) break;
        cur = (size_t)next;
      }
      for (size_t i = 0; i < len; i++) walked[path[i]] = true;
      if (!cycle) continue;
      /* path[seen_at[cur]..len) is the cycle, in "reads from" order; print it as data
       * flows, and report it at its first model in file order. */
      wr_buf b = WEIR_BUF_INIT;
      for (long i = (long)len - 1; i >= seen_at[cur]; i--) wr_buf_printf(&b, "%s -> ", p->models[path[i]].name);
      wr_buf_puts(&b, p->models[path[len - 1]].name);
      const pipeline_model *m = &p->models[path[seen_at[cur]]];
      pipeline_problem(p, m->file, m->line, m->name, NULL, NULL, NULL, "the models form a cycle: %s",
                       wr_buf_cstr(&b));
      wr_buf_free(&b);
    }
    free(path);
    free(walked);
    free(seen_at);
  }
  free(indeg);
  free(done);
}

/* wr_engine_describe of `sql`, which holds the user's `user_sql`: an error says so when
 * that SQL is another engine's dialect (DATEDIFF(hour, ...)). */
static int describe_user_sql(wr_engine *e, const char *sql, const char *user_sql, wr_schema *out,
                             weir_error *err) {
  int rc = wr_engine_describe(e, sql, out, err);
  if (rc) wr_error_add_dialect_hint(err, user_sql);
  return rc;
}

/* ---- exact casts ------------------------------------------------------------------- */

/* Records that column `column` of `m` (its output, or input `input`) is cast exactly to
 * `to`, from `from` (NULL: the type is known at run time only). */
static void note_exact(pipeline_model *m, const char *column, const weir_type *from, weir_type to,
                       const char *input) {
  char t1[64], t2[64];
  if (!m->exact_casts) m->exact_casts = json_array();
  wr_type_arrow_name(to, t1, sizeof t1);
  if (from) wr_type_arrow_name(*from, t2, sizeof t2);
  json_array_append_new(m->exact_casts, json_pack("{s:s,s:s?,s:s,s:s?}", "column", column, "from",
                                                  from ? t2 : NULL, "to", t1, "input", input));
}

/* Every column of `c` declared cast "exact", as cast from a type only the run knows. */
static void note_exact_columns(pipeline_model *m, const weir_contract *c, const char *input) {
  for (size_t i = 0; c && i < c->n_columns; i++)
    if (c->columns[i].cast == WEIR_CAST_MODE_EXACT)
      note_exact(m, c->columns[i].field.name, NULL, c->columns[i].field.type, input);
}

/* Can `have` feed a column `col` declared `want`: 1 as is or widened, 2 by an exact cast
 * (the column is declared cast "exact"), 0 not. */
static int composes(weir_type have, const wr_contract_column *col) {
  if (wr_type_compose(have, col->field.type) != WEIR_CAST_REFUSE) return 1;
  if (col->cast == WEIR_CAST_MODE_EXACT && wr_type_compose_exact(have, col->field.type)) return 2;
  return 0;
}

/* What a refused narrowing says when an exact cast could apply it. */
static const char *exact_hint(weir_type have, weir_type want, const char *in_model) {
  if (!wr_type_compose_exact(have, want)) return "";
  return in_model;
}

/* ---- edge checks -------------------------------------------------------------------- */

/* Checks a projection schema against what its producer declares. */
/* The values a fail- or drop-mode enum rule of `c` on `column` admits (a producer's
 * output holds only these), or NULL. */
static const json_t *enum_values(const weir_contract *c, const char *column, bool guaranteed_only) {
  if (!c) return NULL;
  for (size_t i = 0; i < c->n_columns; i++) {
    if (strcmp(c->columns[i].field.name, column) != 0) continue;
    for (size_t j = 0; j < c->columns[i].n_rules; j++) {
      const wr_column_rule *r = &c->columns[i].rules[j];
      if (r->kind != WEIR_RULE_ENUM || !r->values) continue;
      if (guaranteed_only ? r->mode == WEIR_MODE_WARN : r->mode != WEIR_MODE_FAIL) continue;
      return r->values;
    }
  }
  return NULL;
}

static bool same_value(const json_t *a, const json_t *b) {
  if (json_is_number(a) && json_is_number(b)) return json_number_value(a) == json_number_value(b);
  return json_equal((json_t *)a, (json_t *)b);
}

/* Enums compose like types: every value the producer's enum admits must be admitted by a
 * fail-mode enum of the consumer, or the run would fail on data the producer promised. */
static void check_enum_edge(wr_project *p, const pipeline_model *m, const model_input *in, const char *column,
                            const weir_contract *producer, const char *producer_desc) {
  const json_t *want = enum_values(in->schema, column, false);
  const json_t *have = enum_values(producer, column, true);
  if (!want || !have) return;
  json_t *extra = json_array();
  size_t i, j;
  json_t *v, *w;
  json_array_foreach(have, i, v) {
    bool ok = false;
    json_array_foreach(want, j, w) if (same_value(v, w)) ok = true;
    if (!ok) json_array_append(extra, v);
  }
  if (json_array_size(extra)) {
    char *ex = json_dumps(extra, JSON_COMPACT | JSON_ENCODE_ANY);
    char *allowed = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
    pipeline_problem(p, m->file, in->line, m->name, column, allowed, ex,
                     "%s:%d: model %s: input %s (schema %s): column \"%s\" allows %s, but %s may produce %s "
                     "(its enum admits them)",
                     m->file, in->line, m->name, in->param ? in->param : in->name, in->schema->name, column, allowed,
                     producer_desc, ex);
    free(ex);
    free(allowed);
  }
  json_decref(extra);
}

static void check_projection(wr_project *p, pipeline_model *m, const model_input *in,
                             const wr_schema *producer, bool nullability_known,
                             const weir_contract *producer_contract, const char *producer_desc) {
  const weir_contract *s = in->schema;
  char t1[64], t2[64];
  for (size_t c = 0; c < s->n_columns; c++) {
    const wr_field *want = &s->columns[c].field;
    const char *input = in->param ? in->param : in->name;
    long idx = wr_schema_find(producer, want->name);
    if (idx < 0) {
      pipeline_problem(p, m->file, in->line, m->name, want->name, type_text(want->type, t1, sizeof t1), NULL,
                       "%s:%d: model %s: input %s (schema %s) reads column \"%s\", which %s does not declare",
                       m->file, in->line, m->name, in->param ? in->param : in->name, s->name, want->name,
                       producer_desc);
      continue;
    }
    const wr_field *have = &producer->fields[idx];
    int how = composes(have->type, &s->columns[c]);
    if (how == 2) note_exact(m, want->name, &have->type, want->type, input);
    if (!how) {
      pipeline_problem(
          p, m->file, in->line, m->name, want->name, type_text(want->type, t1, sizeof t1),
          type_text(have->type, t2, sizeof t2),
          "%s:%d: model %s: input %s (schema %s): column \"%s\" is %s in %s, expected %s (only "
          "widening casts compose%s)",
          m->file, in->line, m->name, input, s->name, want->name, t2, producer_desc, t1,
          exact_hint(have->type, want->type,
                     ", unless the schema declares the column's cast exact: cast: exact in YAML, "
                     "TableField(cast=\"exact\") in Python"));
    }
    if (nullability_known && want->required && !have->required) {
      pipeline_problem(p, m->file, in->line, m->name, want->name, "required", "nullable",
                       "%s:%d: model %s: input %s (schema %s): column \"%s\" is required, but %s declares it "
                       "nullable",
                       m->file, in->line, m->name, in->param ? in->param : in->name, s->name, want->name,
                       producer_desc);
    }
    check_enum_edge(p, m, in, want->name, producer_contract, producer_desc);
  }
}

/* Infers a SQL model's result columns from empty tables shaped like its inputs, and
 * checks them against the output contract. */
/* NOT NULL inference (wr_engine_sql_nullability) over the model's inputs as planned:
 * m->nullability, aligned with `inferred` (the query's columns), or left NULL when the
 * query is not one the analysis follows. Never an error: it only adds knowledge. */
static void infer_nullability(weir_lake *lake, wr_project *p, pipeline_model *m, const char *hash, table_cache *tc,
                              const wr_schema *inferred) {
  wr_sql_input *ins = wr_calloc(m->n_inputs ? m->n_inputs : 1, sizeof *ins);
  char **names = wr_calloc(m->n_inputs ? m->n_inputs : 1, sizeof *names);
  wr_schema *copies = wr_calloc(m->n_inputs ? m->n_inputs : 1, sizeof *copies);
  size_t n = 0;
  for (size_t k = 0; k < m->n_inputs; k++) {
    const model_input *in = &m->inputs[k];
    const wr_schema *schema = NULL;
    bool unknown = false;
    if (in->producer >= 0) {
      const pipeline_model *prod = &p->models[in->producer];
      schema = &prod->planned;
      if (!prod->planned_declared) {
        /* An inferred schema promises nothing about nulls: what the producer's own
         * inference proved non-null is required, the rest unknown. */
        wr_schema_copy(&copies[n], schema);
        for (size_t c = 0; c < copies[n].n_fields; c++) {
          const json_t *nn = json_array_get(prod->nullability, c);
          copies[n].fields[c].required = nn && strcmp(wr_json_str(nn, "state", ""), "non-null") == 0;
        }
        schema = &copies[n];
        unknown = true;
      }
    } else {
      weir_error ignore = {0};
      int rc = WEIR_OK;
      iceberg_table *t = cached_table(lake, tc, hash, in->table, &ignore, &rc);
      weir_error_clear(&ignore);
      if (!t) continue;
      schema = &t->schema;
    }
    /* As written ("raw.orders": schema raw, name orders; "titanic": no schema). */
    const char *dot = strrchr(in->name, '.');
    names[n] = dot ? wr_strndup(in->name, (size_t)(dot - in->name)) : NULL;
    ins[n].schema = names[n];
    ins[n].name = dot ? dot + 1 : in->name;
    ins[n].columns = schema;
    ins[n].unknown_nullable = unknown;
    n++;
  }
  json_t *out = NULL;
  weir_error ignore = {0};
  if (wr_engine_sql_nullability(p->engine, m->sql, ins, n, &out, &ignore) == WEIR_OK && out &&
      json_array_size(out) == inferred->n_fields) {
    size_t i;
    json_t *o;
    json_array_foreach(out, i, o) json_object_set_new(o, "column", json_string(inferred->fields[i].name));
    json_decref(m->nullability);
    m->nullability = json_incref(out);
  }
  json_decref(out);
  weir_error_clear(&ignore);
  for (size_t k = 0; k < n; k++) {
    free(names[k]);
    wr_schema_clear(&copies[k]);
  }
  free(copies);
  free(names);
  free(ins);
}

/* A narrowing CAST in the query (wr_engine_sql_casts: the operand's type by DuckDB's
 * binder) converts some values to others silently: a warning at its line, with the checked
 * form that fails the run instead. Never an error: the cast may be meant, and a cast the
 * analysis cannot place is simply not warned about. The model's SQL is the whole file, so
 * the engine's lines are the file's. */
static void warn_narrowing_casts(wr_project *p, const pipeline_model *m, wr_engine *engine) {
  json_t *casts = NULL;
  weir_error ignore = {0};
  if (wr_engine_sql_casts(engine, m->sql, &casts, &ignore) == WEIR_OK) {
    size_t i;
    const json_t *c;
    json_array_foreach(casts, i, c) {
      int line = (int)wr_json_int(c, "line", m->line);
      const char *expr = wr_json_str(c, "expression", "?");
      char *msg = wr_asprintf("%s:%d: model %s: %s narrows %s to %s: %s (weir_checked_cast(%s, '%s') fails "
                              "the run on a value that would change instead)",
                              m->file, line, m->name, expr, wr_json_str(c, "from", "?"),
                              wr_json_str(c, "to", "?"), wr_json_str(c, "why", "?"), wr_json_str(c, "operand", "?"),
                              wr_json_str(c, "to", "?"));
      json_array_append_new(p->warnings, json_pack("{s:s,s:i,s:s,s:s}", "file", m->file, "line", line, "model",
                                                   m->name, "message", msg));
      free(msg);
    }
  }
  json_decref(casts);
  weir_error_clear(&ignore);
}

static int plan_sql_model(weir_lake *lake, wr_project *p, pipeline_model *m, const char *hash,
                          table_cache *tc, weir_error *err) {
  if (m->unparsable) return WEIR_OK;
  /* Every input's columns must be known to infer anything; if they are not, the result's
   * types are known at run time only. */
  for (size_t k = 0; k < m->n_inputs; k++) {
    const model_input *in = &m->inputs[k];
    if (!in->table || (in->producer >= 0 && !p->models[in->producer].planned_known)) {
      note_exact_columns(m, m->output, NULL);
      return WEIR_OK;
    }
  }
  /* The project's planning engine reads no files at all: a model that reaches for one
   * fails here. Its empty tables are replaced for each model. */
  wr_engine *engine = p->engine;
  int rc = WEIR_OK;
  for (size_t k = 0; k < m->n_inputs && rc == WEIR_OK; k++) {
    const model_input *in = &m->inputs[k];
    const wr_schema *schema = NULL;
    if (in->producer >= 0) schema = &p->models[in->producer].planned;
    else {
      iceberg_table *t = cached_table(lake, tc, hash, in->table, err, &rc);
      if (rc) break;
      if (!t) goto done; /* already reported */
      schema = &t->schema;
    }
    wr_table_id id;
    wr_table_id_parse(in->table, &id, NULL);
    rc = wr_engine_create_empty(engine, id.ns, id.name, schema, err);
    /* A bare model name in a project with its own namespace resolves as it will in the
     * run (run.c makes the same view). */
    if (rc == WEIR_OK && !strchr(in->name, '.') && strcmp(id.ns, WEIR_DEFAULT_NAMESPACE) != 0) {
      char *qn = wr_sql_ident(id.ns), *qt = wr_sql_ident(id.name), *qb = wr_sql_ident(in->name);
      char *sql = wr_asprintf("CREATE OR REPLACE VIEW main.%s AS SELECT * FROM %s.%s", qb, qn, qt);
      rc = wr_engine_exec(engine, sql, err);
      free(sql);
      free(qn);
      free(qt);
      free(qb);
    }
  }
  if (rc) goto done;
  wr_schema inferred = {0};
  weir_error e2 = {0};
  if (describe_user_sql(engine, m->sql, m->sql, &inferred, &e2) != WEIR_OK) {
    /* The engine gives the statement's line as a structured position; the statement is
     * the whole file, so it is the file's line. */
    int line = wr_error_sql_line(&e2) > 0 ? wr_error_sql_line(&e2) : m->line;
    pipeline_problem(p, m->file, line, m->name, NULL, NULL, NULL, "%s:%d: model %s does not plan: %s", m->file,
                     line, m->name, e2.message);
    weir_error_clear(&e2);
    goto done;
  }
  warn_narrowing_casts(p, m, engine);
  /* Problems with the result are reported at the header naming the output schema (or
   * the model's first line). */
  int L = m->output_line > 0 ? m->output_line : (m->line > 0 ? m->line : 1);
  /* What the query returns must be storable, under unique names, contract or not. */
  for (size_t c = 0; c < inferred.n_fields; c++) {
    const wr_field *f = &inferred.fields[c];
    for (size_t d = 0; d < c; d++)
      if (strcmp(inferred.fields[d].name, f->name) == 0)
        pipeline_problem(p, m->file, L, m->name, f->name, NULL, NULL,
                         "%s:%d: model %s: the query returns two columns named \"%s\"", m->file, L, m->name, f->name);
    bool declared_any = false;
    if (m->output) {
      for (size_t d = 0; d < m->output->n_columns; d++)
        if (strcmp(m->output->columns[d].field.name, f->name) == 0 &&
            m->output->columns[d].field.type.id == WEIR_TYPE_ANY)
          declared_any = true;
    }
    if (f->type.id == WEIR_TYPE_ANY && !m->output && !declared_any)
      pipeline_problem(p, m->file, L, m->name, f->name, "a weir type", f->doc ? f->doc : "?",
                       "%s:%d: model %s: column \"%s\" is %s in the query, which weir cannot store (see "
                       "docs/types.md; cast it, e.g. to VARCHAR)",
                       m->file, L, m->name, f->name, f->doc ? f->doc : "of a type with no weir name");
  }
  infer_nullability(lake, p, m, hash, tc, &inferred);
  if (!m->output) {
    wr_schema_clear(&m->planned);
    m->planned = inferred;
    m->planned_known = true;
    goto done;
  }
  char t1[64], t2[64];
  for (size_t c = 0; c < m->output->n_columns; c++) {
    const wr_field *want = &m->output->columns[c].field;
    long idx = wr_schema_find(&inferred, want->name);
    if (idx < 0) {
      pipeline_problem(p, m->file, L, m->name, want->name, type_text(want->type, t1, sizeof t1), NULL,
                       "%s:%d: model %s: the query returns no column \"%s\" (output schema %s declares it, as %s)",
                       m->file, L, m->name, want->name, m->output->name, t1);
      continue;
    }
    const wr_field *have = &inferred.fields[idx];
    if (have->type.id == WEIR_TYPE_ANY && want->type.id != WEIR_TYPE_ANY) {
      pipeline_problem(p, m->file, L, m->name, want->name, type_text(want->type, t1, sizeof t1),
                       have->doc ? have->doc : "another type",
                       "%s:%d: model %s: column \"%s\" is %s in the query, expected %s (output schema %s)", m->file,
                       L, m->name, want->name, have->doc ? have->doc : "a type weir does not store", t1,
                       m->output->name);
    } else {
      int how = composes(have->type, &m->output->columns[c]);
      if (how == 2) note_exact(m, want->name, &have->type, want->type, NULL);
      if (!how)
        pipeline_problem(
            p, m->file, L, m->name, want->name, type_text(want->type, t1, sizeof t1),
            type_text(have->type, t2, sizeof t2),
            "%s:%d: model %s: column \"%s\" is %s in the query, expected %s (output schema %s; only "
            "widening casts are applied%s)",
            m->file, L, m->name, want->name, t2, t1, m->output->name,
            exact_hint(have->type, want->type,
                       ": CAST it in the query, or declare the column's cast exact, with cast: exact "
                       "in YAML or TableField(cast=\"exact\") in Python, to apply it when every value "
                       "converts without loss"));
    }
  }
  for (size_t c = 0; c < inferred.n_fields; c++) {
    bool declared = false;
    for (size_t d = 0; d < m->output->n_columns; d++)
      if (strcmp(m->output->columns[d].field.name, inferred.fields[c].name) == 0) declared = true;
    if (!declared)
      pipeline_problem(p, m->file, L, m->name, inferred.fields[c].name, NULL,
                       type_text(inferred.fields[c].type, t2, sizeof t2),
                       "%s:%d: model %s: the query returns column \"%s\", which output schema %s does not declare",
                       m->file, L, m->name, inferred.fields[c].name, m->output->name);
  }
  /* A required output column fed by an expression that may be null: the run would refuse
   * its first NULL; the plan says so now, at the expression. */
  for (size_t c = 0; c < m->output->n_columns && m->nullability; c++) {
    const wr_field *want = &m->output->columns[c].field;
    long idx = wr_schema_find(&inferred, want->name);
    const json_t *nn = idx >= 0 ? json_array_get(m->nullability, (size_t)idx) : NULL;
    if (!want->required || strcmp(wr_json_str(nn, "state", ""), "nullable") != 0) continue;
    int line = (int)wr_json_int(nn, "line", 0);
    if (line <= 0) line = L;
    pipeline_problem(p, m->file, line, m->name, want->name, "required", "may be null",
                     "%s:%d: model %s: required column \"%s\" (output schema %s) is fed by %s, which may be null: %s "
                     "(declare the input column required in its table's contract, filter with IS NOT NULL, "
                     "give a default with COALESCE, or make the output column nullable)",
                     m->file, line, m->name, want->name, m->output->name, wr_json_str(nn, "expression", "?"),
                     wr_json_str(nn, "why", "?"));
  }
  wr_schema_clear(&inferred);
done:
  return rc;
}

/* A model's output replacing a table that something else wrote (an import, another
 * project's model) is legal, and a common way to take a table over, but it deserves a
 * second look: the plan says so. */
/* A REPLACE model that declares no output schema, writing a table that stores a contract,
 * is held to that contract, as `weir import --mode replace` without --contract is: the
 * contract travels with the table, and a model cannot drop it (or its columns) without
 * saying so by declaring an output schema of its own. Says so in a warning. */
static int hold_to_stored_contracts(weir_lake *lake, wr_project *p, const char *hash, table_cache *tc,
                                    weir_error *err) {
  int rc = WEIR_OK;
  for (size_t i = 0; i < p->n_models && rc == WEIR_OK; i++) {
    pipeline_model *m = &p->models[i];
    if (m->output || m->append || !m->table) continue;
    iceberg_table *t = cached_table(lake, tc, hash, m->table, err, &rc);
    if (rc || !t) continue;
    bool stored = false;
    weir_contract *c = lake_table_type(t, m->table, &stored);
    if (!stored) {
      wr_contract_free(c);
      continue;
    }
    p->schemas = wr_realloc(p->schemas, (p->n_schemas + 1) * sizeof *p->schemas);
    p->schemas[p->n_schemas++] = c;
    m->output = c;
    char msg[1200];
    snprintf(msg, sizeof msg,
             "%s:%d: model %s declares no output schema; it replaces %s, which stores contract %s: "
             "its output is held to that contract (declare an output schema to give the table "
             "another type)",
             m->file, m->line, m->name, m->table, c->name ? c->name : "unnamed");
    json_array_append_new(p->warnings, json_pack("{s:s,s:i,s:s,s:s}", "file", m->file, "line", m->line, "model",
                                                 m->name, "message", msg));
  }
  return rc;
}

static int warn_replaced_tables(weir_lake *lake, wr_project *p, const char *hash, table_cache *tc,
                                weir_error *err) {
  int rc = WEIR_OK;
  for (size_t i = 0; i < p->n_models && rc == WEIR_OK; i++) {
    const pipeline_model *m = &p->models[i];
    iceberg_table *t = cached_table(lake, tc, hash, m->table, err, &rc);
    if (rc || !t) continue;
    const char *writer = wr_json_str(t->summary, "weir.model", NULL);
    if (m->append) continue; /* checked against the table in check_appends */
    if (writer && strcmp(writer, m->name) == 0) continue;
    const char *op = wr_json_str(t->summary, "weir.operation", NULL);
    char what[600];
    if (writer) snprintf(what, sizeof what, "was last written by model %s", writer);
    else if (op) snprintf(what, sizeof what, "was last written by %s", op);
    else snprintf(what, sizeof what, "was not written by this model");
    char msg[1200];
    snprintf(msg, sizeof msg, "%s:%d: model %s will %s table %s, which %s (%lld rows)", m->file, m->line, m->name,
             m->append ? "append to" : "replace", m->table, what, (long long)t->record_count);
    json_array_append_new(p->warnings, json_pack("{s:s,s:i,s:s,s:s}", "file", m->file, "line", m->line, "model",
                                                 m->name, "message", msg));
  }
  return rc;
}

/* An APPEND model adds rows to an existing table: its declared (or inferred) output must
 * have exactly the table's columns, with types that widen to the table's. Caught here, a
 * schema change in the model cannot silently turn earlier rows into NULLs. */
static int check_appends(weir_lake *lake, wr_project *p, const char *hash, table_cache *tc, weir_error *err) {
  int rc = WEIR_OK;
  char t1[64], t2[64];
  for (size_t i = 0; i < p->n_models && rc == WEIR_OK; i++) {
    const pipeline_model *m = &p->models[i];
    if (!m->append || !m->planned_known) continue;
    iceberg_table *t = cached_table(lake, tc, hash, m->table, err, &rc);
    if (rc || !t) continue;
    for (size_t c = 0; c < t->schema.n_fields; c++) {
      const wr_field *want = &t->schema.fields[c];
      long k = wr_schema_find(&m->planned, want->name);
      if (k < 0) {
        pipeline_problem(p, m->file, m->line, m->name, want->name, type_text(want->type, t1, sizeof t1), NULL,
                         "%s:%d: model %s appends to %s, but its output has no column \"%s\" (the table's %s)",
                         m->file, m->line, m->name, m->table, want->name, t1);
        continue;
      }
      const wr_field *have = &m->planned.fields[k];
      if (wr_type_compose(have->type, want->type) == WEIR_CAST_REFUSE)
        pipeline_problem(p, m->file, m->line, m->name, want->name, type_text(want->type, t1, sizeof t1),
                         type_text(have->type, t2, sizeof t2),
                         "%s:%d: model %s appends to %s: column \"%s\" is %s in its output, the table has %s",
                         m->file, m->line, m->name, m->table, want->name, t2, t1);
    }
    for (size_t c = 0; c < m->planned.n_fields; c++)
      if (wr_schema_find(&t->schema, m->planned.fields[c].name) < 0)
        pipeline_problem(p, m->file, m->line, m->name, m->planned.fields[c].name, NULL, NULL,
                         "%s:%d: model %s appends to %s, which has no column \"%s\" (an append cannot add "
                         "columns: replace the table, or drop the column)",
                         m->file, m->line, m->name, m->table, m->planned.fields[c].name);
  }
  return rc;
}

/* `text` with every {table} replaced by `name`. Caller frees. */
static char *with_table(const char *text, const char *name) {
  wr_buf b = WEIR_BUF_INIT;
  const char *p = text;
  for (const char *q; (q = strstr(p, "{table}")); p = q + 7) {
    wr_buf_append(&b, p, (size_t)(q - p));
    wr_buf_puts(&b, name);
  }
  wr_buf_puts(&b, p);
  return wr_buf_detach(&b);
}

/* The SQL inside contracts (row checks, table rules) compiles against the contract's own
 * columns: a typo is a plan problem, not a failure after earlier models have run. */
static int check_contract_sql(wr_project *p, weir_error *err) {
  int rc = WEIR_OK;
  for (size_t i = 0; i < p->n_schemas && rc == WEIR_OK; i++) {
    const weir_contract *c = p->schemas[i];
    bool any = c->n_rules > 0;
    for (size_t k = 0; k < c->n_columns && !any; k++)
      for (size_t j = 0; j < c->columns[k].n_rules; j++) any |= c->columns[k].rules[j].kind == WEIR_RULE_CHECK;
    if (!any) continue;
    wr_engine *engine = p->engine;
    wr_schema schema = {0};
    wr_contract_schema(c, &schema);
    rc = wr_engine_create_empty(engine, "main", "__contract", &schema, err);
    const char *file = c->origin ? c->origin : "";
    for (size_t k = 0; k < c->n_columns && rc == WEIR_OK; k++) {
      const wr_contract_column *col = &c->columns[k];
      for (size_t j = 0; j < col->n_rules; j++) {
        const wr_column_rule *r = &col->rules[j];
        if (r->kind != WEIR_RULE_CHECK || !r->sql) continue;
        weir_error why = {0};
        if (wr_engine_sql_shape(engine, r->sql, true, &why) != WEIR_OK) {
          int line = r->line ? r->line : col->line ? col->line : c->line;
          pipeline_problem(p, file, line, NULL, col->field.name, NULL, NULL, "%s:%d: schema %s: check \"%s\" on column \"%s\" %s",
                           file, line, c->name, r->sql, col->field.name, why.message ? why.message : "is not valid");
          weir_error_clear(&why);
          continue;
        }
        char *sql = wr_asprintf("SELECT (%s\n) AS ok FROM main.__contract", r->sql);
        wr_schema out = {0};
        weir_error e2 = {0};
        if (describe_user_sql(engine, sql, r->sql, &out, &e2) != WEIR_OK)
          pipeline_problem(p, file, col->line ? col->line : c->line, NULL, col->field.name, NULL, NULL,
                           "%s:%d: schema %s: check \"%s\" on column \"%s\" does not compile: %s", file,
                           col->line ? col->line : c->line, c->name, r->sql, col->field.name, e2.message);
        else if (out.n_fields != 1 || out.fields[0].type.id != WEIR_TYPE_BOOL)
          pipeline_problem(p, file, col->line ? col->line : c->line, NULL, col->field.name, "a boolean", NULL,
                           "%s:%d: schema %s: check \"%s\" on column \"%s\" is not a boolean expression", file,
                           col->line ? col->line : c->line, c->name, r->sql, col->field.name);
        weir_error_clear(&e2);
        wr_schema_clear(&out);
        free(sql);
      }
    }
    for (size_t j = 0; j < c->n_rules && rc == WEIR_OK; j++) {
      const wr_table_rule *r = &c->rules[j];
      char *sql = with_table(r->sql ? r->sql : "", "main.__contract");
      wr_schema out = {0};
      weir_error e2 = {0};
      int line = r->line ? r->line : c->line;
      if (wr_engine_sql_shape(engine, sql, false, &e2) != WEIR_OK)
        pipeline_problem(p, file, line, NULL, NULL, NULL, NULL, "%s:%d: schema %s: rule \"%s\" %s", file, line,
                         c->name, r->name ? r->name : "", e2.message ? e2.message : "is not valid");
      else if (describe_user_sql(engine, sql, r->sql, &out, &e2) != WEIR_OK)
        pipeline_problem(p, file, line, NULL, NULL, NULL, NULL,
                         "%s:%d: schema %s: rule \"%s\" does not compile: %s", file, line, c->name,
                         r->name ? r->name : "", e2.message);
      else if (out.n_fields != 1)
        pipeline_problem(p, file, c->line, NULL, NULL, "one number", NULL,
                         "%s:%d: schema %s: rule \"%s\" returns %zu columns, expected one number", file, c->line,
                         c->name, r->name ? r->name : "", out.n_fields);
      weir_error_clear(&e2);
      wr_schema_clear(&out);
      free(sql);
    }
    wr_schema_clear(&schema);
  }
  return rc;
}

/* A Python input's filter= compiles against what its producer declares. */
static int check_filters(weir_lake *lake, wr_project *p, const char *hash, table_cache *tc, weir_error *err) {
  int rc = WEIR_OK;
  for (size_t i = 0; i < p->n_models && rc == WEIR_OK; i++) {
    const pipeline_model *m = &p->models[i];
    for (size_t k = 0; k < m->n_inputs && rc == WEIR_OK; k++) {
      const model_input *in = &m->inputs[k];
      if (!in->filter) continue;
      /* Pasted into WHERE (...): it must be one expression, by the parser, or
       * "a > 1) OR (true" would change the query around it. */
      weir_error why = {0};
      if (wr_engine_sql_shape(p->engine, in->filter, true, &why) != WEIR_OK) {
        pipeline_problem(p, m->file, in->line, m->name, NULL, NULL, in->filter,
                         "%s:%d: model %s: input %s: filter \"%s\" %s", m->file, in->line, m->name,
                         in->param ? in->param : in->name, in->filter, why.message ? why.message : "is not valid");
        weir_error_clear(&why);
        continue;
      }
      if (!in->table || in->ref) continue;
      const wr_schema *schema = NULL;
      if (in->producer >= 0) {
        if (!p->models[in->producer].planned_known) continue;
        schema = &p->models[in->producer].planned;
      } else {
        iceberg_table *t = cached_table(lake, tc, hash, in->table, err, &rc);
        if (rc || !t) continue;
        schema = &t->schema;
      }
      wr_engine *engine = p->engine;
      rc = wr_engine_create_empty(engine, "main", "__input", schema, err);
      if (rc == WEIR_OK) {
        char *sql = wr_asprintf("SELECT * FROM main.__input WHERE (%s\n)", in->filter);
        wr_schema out = {0};
        weir_error e2 = {0};
        if (wr_engine_describe(engine, sql, &out, &e2) != WEIR_OK)
          pipeline_problem(p, m->file, in->line, m->name, NULL, NULL, in->filter,
                           "%s:%d: model %s: input %s: filter \"%s\" does not compile against %s: %s", m->file,
                           in->line, m->name, in->param ? in->param : in->name, in->filter, in->table, e2.message);
        weir_error_clear(&e2);
        wr_schema_clear(&out);
        free(sql);
      }
    }
  }
  return rc;
}

/* A model's partition_by against its output columns, once they are known: each field's
 * source column exists and has a type its transform accepts (a Python model without an
 * output schema is checked when it runs, by the write). */
static void check_partition_by(wr_project *p, pipeline_model *m) {
  if (!m->partition_by || !m->planned_known) return;
  size_t i;
  json_t *v;
  json_array_foreach(m->partition_by, i, v) {
    const char *text = json_string_value(v);
    iceberg_partition_field f;
    char why[512];
    if (!text || !iceberg_partition_field_parse(text, &f, why, sizeof why)) continue; /* reported when read */
    long k = wr_schema_find(&m->planned, f.source);
    if (k < 0)
      pipeline_problem(p, m->file, m->partition_line ? m->partition_line : m->line, m->name, f.source, NULL, NULL,
                       "%s:%d: model %s: partition_by %s names column \"%s\", which the model does not output",
                       m->file, m->partition_line ? m->partition_line : m->line, m->name, text, f.source);
    else if (!iceberg_partition_field_bind(&f, m->planned.fields[k].type, why, sizeof why))
      pipeline_problem(p, m->file, m->partition_line ? m->partition_line : m->line, m->name, f.source, NULL, NULL,
                       "%s:%d: model %s: partition_by: %s", m->file, m->partition_line ? m->partition_line : m->line,
                       m->name, why);
    iceberg_partition_field_clear(&f);
  }
}

int pipeline_plan(weir_lake *lake, wr_project *p, const char *hash, weir_error *err) {
  table_cache tc = {0};
  int rc = resolve_inputs(lake, p, hash, &tc, err);
  if (rc) goto done;
  if ((rc = warn_replaced_tables(lake, p, hash, &tc, err))) goto done;
  if ((rc = hold_to_stored_contracts(lake, p, hash, &tc, err))) goto done;
  order_models(p);
  for (size_t oi = 0; oi < p->n_order && rc == WEIR_OK; oi++) {
    pipeline_model *m = &p->models[p->order[oi]];
    if (m->output) {
      wr_schema_clear(&m->planned);
      wr_contract_schema(m->output, &m->planned);
      m->planned_known = true;
      m->planned_declared = true;
    }
    /* A Python model's output types are known at run time only. */
    if (m->lang == MODEL_PYTHON) note_exact_columns(m, m->output, NULL);
    /* Model(columns=[...]): the producer has them. */
    for (size_t k = 0; k < m->n_inputs && rc == WEIR_OK; k++) {
      const model_input *in = &m->inputs[k];
      if (!in->columns || !in->table || in->ref) continue;
      const wr_schema *have = NULL;
      char *desc = NULL;
      if (in->producer >= 0) {
        const pipeline_model *prod = &p->models[in->producer];
        if (!prod->planned_known) continue;
        have = &prod->planned;
        desc = wr_asprintf("model %s", prod->name);
      } else {
        iceberg_table *t = cached_table(lake, &tc, hash, in->table, err, &rc);
        if (rc || !t) continue;
        have = &t->schema;
        desc = wr_asprintf("table %s", in->table);
      }
      size_t j;
      json_t *c;
      json_array_foreach(in->columns, j, c) {
        const char *col = json_string_value(c);
        if (col && wr_schema_find(have, col) < 0)
          pipeline_problem(p, m->file, in->line, m->name, col, NULL, NULL,
                           "%s:%d: model %s: input %s reads column \"%s\", which %s does not have", m->file,
                           in->line, m->name, in->param ? in->param : in->name, col, desc);
      }
      free(desc);
    }
    if (rc) break;
    /* Edges with a projection schema. */
    for (size_t k = 0; k < m->n_inputs; k++) {
      const model_input *in = &m->inputs[k];
      if (!in->schema || !in->table) continue;
      if (in->producer >= 0) {
        const pipeline_model *prod = &p->models[in->producer];
        if (!prod->planned_known) {
          /* A Python model without an output schema. */
          note_exact_columns(m, in->schema, in->param ? in->param : in->name);
          continue;
        }
        char *desc = prod->output ? wr_asprintf("model %s (output schema %s)", prod->name, prod->output->name)
                                  : wr_asprintf("model %s", prod->name);
        check_projection(p, m, in, &prod->planned, prod->planned_declared, prod->output, desc);
        free(desc);
      } else if (!in->ref) {
        iceberg_table *t = cached_table(lake, &tc, hash, in->table, err, &rc);
        if (rc) break;
        if (!t) continue;
        bool stored = false;
        weir_contract *tc_contract = lake_table_type(t, in->table, &stored);
        char *desc = wr_asprintf("table %s", in->table);
        check_projection(p, m, in, &t->schema, true, stored ? tc_contract : NULL, desc);
        free(desc);
        wr_contract_free(tc_contract);
      }
    }
    if (rc) break;
    if (m->lang == MODEL_SQL) rc = plan_sql_model(lake, p, m, hash, &tc, err);
    if (rc == WEIR_OK) check_partition_by(p, m);
  }
  if (rc == WEIR_OK) rc = check_appends(lake, p, hash, &tc, err);
  if (rc == WEIR_OK) rc = check_contract_sql(p, err);
  if (rc == WEIR_OK) rc = check_filters(lake, p, hash, &tc, err);
done:
  cache_free(&tc);
  return rc;
}

json_t *pipeline_plan_json(const wr_project *p, const char *ref, const char *hash) {
  json_t *o = json_object();
  json_object_set_new(o, "ok", json_boolean(json_array_size(p->problems) == 0));
  json_object_set_new(o, "project", json_string(p->name));
  json_object_set_new(o, "project_dir", json_string(p->dir));
  json_object_set_new(o, "project_digest", json_string(p->digest));
  json_object_set_new(o, "ref", json_string(ref ? ref : "main"));
  json_object_set_new(o, "commit", wr_json_str_or_null(hash));
  json_t *models = json_array();
  for (size_t oi = 0; oi < (p->n_order ? p->n_order : p->n_models); oi++) {
    const pipeline_model *m = &p->models[p->n_order ? p->order[oi] : oi];
    json_t *mo = json_object();
    json_object_set_new(mo, "name", json_string(m->name));
    json_object_set_new(mo, "language", json_string(m->lang == MODEL_SQL ? "sql" : "python"));
    json_object_set_new(mo, "file", json_string(m->file));
    json_object_set_new(mo, "line", json_integer(m->line));
    json_object_set_new(mo, "table", json_string(m->table ? m->table : m->name));
    json_object_set_new(mo, "materialization", json_string(m->append ? "APPEND" : "REPLACE"));
    json_object_set_new(mo, "output_schema", wr_json_str_or_null(m->output_schema_name));
    json_t *ins = json_array();
    for (size_t k = 0; k < m->n_inputs; k++) {
      const model_input *in = &m->inputs[k];
      json_t *io = json_object();
      json_object_set_new(io, "param", wr_json_str_or_null(in->param));
      json_object_set_new(io, "name", json_string(in->name));
      json_object_set_new(io, "table", wr_json_str_or_null(in->table));
      json_object_set_new(io, "producer", in->producer >= 0 ? json_string(p->models[in->producer].name) : json_null());
      json_object_set_new(io, "schema", wr_json_str_or_null(in->schema_name));
      json_object_set_new(io, "columns", in->columns ? json_incref(in->columns) : json_null());
      json_object_set_new(io, "filter", wr_json_str_or_null(in->filter));
      json_object_set_new(io, "ref", wr_json_str_or_null(in->ref));
      json_array_append_new(ins, io);
    }
    json_object_set_new(mo, "inputs", ins);
    json_object_set_new(mo, "columns", m->planned_known ? wr_schema_to_json(&m->planned) : json_null());
    json_object_set_new(mo, "exact_casts", m->exact_casts ? json_incref(m->exact_casts) : json_array());
    if (m->nullability) json_object_set_new(mo, "nullability", json_incref(m->nullability));
    if (m->python) json_object_set_new(mo, "python", json_incref(m->python));
    if (m->lang == MODEL_PYTHON) /* what its sandbox allows (docs/sandbox.md), defaults filled in */
      json_object_set_new(mo, "sandbox",
                          json_pack("{s:b,s:I,s:f,s:o}", "internet_access", m->internet, "memory",
                                    (json_int_t)m->limits.memory, "timeout", m->limits.timeout_s, "cpu_time",
                                    m->limits.cpu_s ? json_integer(m->limits.cpu_s) : json_null()));
    json_array_append_new(models, mo);
  }
  json_object_set_new(o, "models", models);
  json_object_set_new(o, "problems", json_incref(p->problems));
  json_object_set_new(o, "warnings", json_incref(p->warnings));
  return o;
}

int pipeline_plan_error(const wr_project *p, weir_error *err) {
  size_t n = json_array_size(p->problems);
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_printf(&b, "project %s does not plan (%zu problem%s):", p->dir, n, n == 1 ? "" : "s");
  size_t i;
  json_t *v;
  json_array_foreach(p->problems, i, v) wr_buf_printf(&b, "\n  - %s", wr_json_str(v, "message", ""));
  /* The plan's warnings often explain a problem (where a contract came from): kept. */
  if (json_array_size(p->warnings)) wr_buf_puts(&b, "\nnotes:");
  json_array_foreach(p->warnings, i, v) wr_buf_printf(&b, "\n  - %s", wr_json_str(v, "message", ""));
  wr_seterr(err, WEIR_EPLAN, "%s", wr_buf_cstr(&b));
  wr_buf_free(&b);
  wr_error_set_details(err, json_incref(p->problems));
  return WEIR_EPLAN;
}
