/*
 * check_columns.c -- the column plan: which input column feeds each declared column,
 * which cast it needs (none, a widening cast, an exact narrowing cast for a column
 * declared cast "exact", or refused), which columns are missing or
 * not declared, and the Arrow schema of the validated data.
 *
 * This is decided once per table from the schemas alone, before any buffer is read: a
 * table whose shape is wrong is reported in full without scanning its values for the
 * broken columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"

static long find_input(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (s->children[i]->name && strcmp(s->children[i]->name, name) == 0) return (long)i;
  return -1;
}

static bool declared(const weir_contract *c, const char *name) {
  for (size_t i = 0; i < c->n_columns; i++)
    if (strcmp(c->columns[i].field.name, name) == 0) return true;
  return false;
}

/* The output field of a declared column: the declared type's Arrow format, nullable
 * unless required; an Any column keeps the input's type tree. */
static void out_field(const wr_contract_column *col, const struct ArrowSchema *in, struct ArrowSchema *out) {
  int64_t flags = col->field.required ? 0 : ARROW_FLAG_NULLABLE;
  char fmt[64];
  if (col->field.type.id == WEIR_TYPE_ANY || !wr_type_arrow_format(col->field.type, fmt, sizeof fmt)) {
    wr_arrow_schema_copy(in, out);
    out->flags = (out->flags & ~(int64_t)ARROW_FLAG_NULLABLE) | flags;
    return;
  }
  wr_arrow_schema_init(out, fmt, col->field.name, flags, 0);
}

void wc_plan_columns(const weir_contract *c, const struct ArrowSchema *in, const wr_validate_options *opts, plan *p,
                  findings *f) {
  memset(p, 0, sizeof *p);
  p->n_cols = c->n_columns;
  p->cols = wr_calloc(c->n_columns ? c->n_columns : 1, sizeof *p->cols);
  int64_t n_in = in && in->release ? in->n_children : 0;
  p->out_in = wr_calloc((size_t)(c->n_columns + (size_t)n_in + 1), sizeof *p->out_in);
  p->out_decl = wr_calloc((size_t)(c->n_columns + (size_t)n_in + 1), sizeof *p->out_decl);

  for (size_t i = 0; i < c->n_columns; i++) {
    const wr_contract_column *col = &c->columns[i];
    col_plan *cp = &p->cols[i];
    cp->out_idx = -1;
    cp->in_idx = n_in ? find_input(in, col->field.name) : -1;
    char expected[96];
    wr_type_arrow_name(col->field.type, expected, sizeof expected);
    if (cp->in_idx < 0) {
      json_t *v = wc_violation_new(WEIR_V_MISSING, col->field.name, NULL, WEIR_MODE_FAIL, 0);
      json_object_set_new(v, "expected", json_string(expected));
      wc_findings_add(f, (long)i, 0, v);
      p->broken = true;
      continue;
    }
    const struct ArrowSchema *field = in->children[cp->in_idx];
    cp->cast = wr_cast_check(field, col->field.type, &cp->narrowing);
    bool exact_possible = cp->cast == WEIR_CAST_REFUSE && wr_cast_exact(field, col->field.type);
    /* A date64 is milliseconds that Iceberg stores only as a Date32 day: the cast is
     * checked always, not only when declared (a value off midnight is a violation). */
    bool date64_day = exact_possible && col->field.type.id == WEIR_TYPE_DATE32 &&
                      strcmp(field->dictionary ? field->dictionary->format : field->format, "tdm") == 0;
    if (exact_possible && (col->cast == WEIR_CAST_MODE_EXACT || date64_day)) {
      /* Declared cast "exact": the narrowing cast is applied, and each value that does
       * not convert exactly is reported (cast.c, wc_cast_exact_column). */
      cp->cast = WEIR_CAST_WIDEN;
      cp->exact = true;
    }
    if (cp->cast == WEIR_CAST_REFUSE) {
      char found[160];
      wr_arrow_type_name(field, found, sizeof found);
      json_t *v = wc_violation_new(WEIR_V_TYPE, col->field.name, NULL, WEIR_MODE_FAIL, 0);
      json_object_set_new(v, "expected", json_string(expected));
      json_object_set_new(v, "found", json_string(found));
      json_object_set_new(v, "narrowing", json_boolean(cp->narrowing || exact_possible));
      /* The message then says how to get the column: cast it in the model, or declare
       * the column's cast exact. */
      if (exact_possible) json_object_set_new(v, "exact_cast_possible", json_true());
      wc_findings_add(f, (long)i, 0, v);
      p->broken = true;
      continue;
    }
    cp->out_idx = p->n_out;
    p->out_in[p->n_out] = cp->in_idx;
    p->out_decl[p->n_out] = (long)i;
    p->n_out++;
  }

  /* Columns the contract does not declare: a violation for an output (the schema is the
   * whole truth about a table a model writes); dropped for a projected input; kept at the
   * end, unchecked, for an input read without a projection. */
  for (int64_t k = 0; k < n_in; k++) {
    const struct ArrowSchema *field = in->children[k];
    const char *name = field->name ? field->name : "";
    if (declared(c, name) && find_input(in, name) == (long)k) continue;
    if (opts->is_output) {
      char found[160];
      wr_arrow_type_name(field, found, sizeof found);
      json_t *v = wc_violation_new(WEIR_V_UNKNOWN, name, NULL, WEIR_MODE_FAIL, 0);
      json_object_set_new(v, "found", json_string(found));
      wc_findings_add(f, (long)c->n_columns + (long)k, 0, v);
    } else if (!opts->project) {
      p->out_in[p->n_out] = (long)k;
      p->out_decl[p->n_out] = -1;
      p->n_out++;
    }
  }

  wr_arrow_schema_init(&p->out_schema, "+s", "", 0, p->n_out);
  for (int64_t j = 0; j < p->n_out; j++) {
    struct ArrowSchema child;
    const struct ArrowSchema *field = in->children[p->out_in[j]];
    if (p->out_decl[j] >= 0) out_field(&c->columns[p->out_decl[j]], field, &child);
    else wr_arrow_schema_copy(field, &child);
    wr_arrow_schema_set_child(&p->out_schema, j, &child);
  }
}

void wc_plan_clear(plan *p) {
  free(p->cols);
  free(p->out_in);
  free(p->out_decl);
  if (p->out_schema.release) p->out_schema.release(&p->out_schema);
  memset(p, 0, sizeof *p);
}
