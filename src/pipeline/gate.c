/*
 * gate.c -- the merge gate (docs/versioning.md, "Merge gate"): a merge into a branch that
 * requires checks (weir branch protect B --require-check PROJECT), or one given checks on
 * demand (weir merge --check PROJECT), commits only if, at the merged state, every such
 * project plans (stage 2 of docs/contracts.md) and every table the merge changes holds
 * data its stored contract accepts.
 *
 * Invariants:
 *   - The gate judges exactly the state that is committed: the merge is applied inside a
 *     catalog write transaction (lake_branch_merge_gated), the projects are planned at
 *     the merge's result commit and the changed tables read there, all under the lock
 *     that then commits it; a failure rolls the whole merge back. No writer can move the
 *     branch between the check and the commit, and the merge keeps its expect-head rule.
 *   - The projects are loaded (discovered) before the transaction: discovery runs
 *     project code in a sandbox and must not hold the catalog's write lock. The checks
 *     the branch requires are read again under the lock; if they changed since, the
 *     merge is refused (WEIR_ECONCURRENT) rather than judged by a stale gate. A merge
 *     into a protected branch without checks takes the same path (so a gate set while it
 *     runs is not skipped); a gate needs protection, so other merges keep theirs.
 *   - A required project is stored as given; a relative path is resolved against the
 *     lake folder (lake_check_path), so every client (any working folder, `weir serve`)
 *     checks the same folder. A project given on demand is a path as the caller wrote it.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "contracts/contract.h"
#include "engine/engine.h"
#include "pipeline/pipeline.h"
#include "util/buf.h"
#include "util/json.h"

typedef struct gate_project {
  char *given;   /* as stored (required) or as passed (on demand) */
  bool required; /* read from the branch's protection */
  char *dir;     /* the folder it names, resolved (realpath when it exists) */
  bool same;     /* names the folder of an earlier project: planned once, reported once */
  wr_project *p;
} gate_project;

typedef struct gate_ctx {
  const char *source, *into;
  gate_project *projects;
  size_t n;
} gate_ctx;

static void gate_free(gate_ctx *g) {
  for (size_t i = 0; i < g->n; i++) {
    free(g->projects[i].given);
    pipeline_project_free(g->projects[i].p);
    free(g->projects[i].dir);
  }
  free(g->projects);
  g->projects = NULL;
  g->n = 0;
}

static void gate_add(gate_ctx *g, const char *given, bool required) {
  for (size_t i = 0; i < g->n; i++)
    if (strcmp(g->projects[i].given, given) == 0 && g->projects[i].required == required) return;
  g->projects = wr_realloc(g->projects, (g->n + 1) * sizeof *g->projects);
  g->projects[g->n++] = (gate_project){.given = wr_strdup(given), .required = required};
}

/* Loads every project of the gate; a folder that does not exist is named with where it
 * was looked for. */
static int gate_load(weir_lake *lake, gate_ctx *g, weir_error *err) {
  for (size_t i = 0; i < g->n; i++) {
    gate_project *gp = &g->projects[i];
    char *dir = gp->required ? lake_check_path(lake, gp->given) : wr_strdup(gp->given);
    struct stat st;
    int rc = WEIR_OK;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      if (gp->required)
        rc = wr_seterr(err, WEIR_ENOTFOUND,
                       "merge gate of branch %s: required project %s (%s, resolved against the lake folder) is not a "
                       "folder; fix it with weir branch protect %s --require-check PROJECT, or drop the gate with "
                       "weir branch unprotect %s",
                       g->into, gp->given, dir, g->into, g->into);
      else
        rc = wr_seterr(err, WEIR_ENOTFOUND, "merge --check: project %s is not a folder", dir);
    }
    if (rc == WEIR_OK) {
      /* `--check P` naming a project the branch already requires is one gate, not two
       * (each problem was reported twice). */
      char *real = realpath(dir, NULL);
      gp->dir = real ? real : wr_strdup(dir);
      for (size_t j = 0; j < i && !gp->same; j++)
        if (g->projects[j].dir && strcmp(g->projects[j].dir, gp->dir) == 0) gp->same = true;
      if (!gp->same) rc = pipeline_load(lake, dir, false, &gp->p, err);
    }
    free(dir);
    if (rc) return rc;
  }
  return WEIR_OK;
}

/* Validates the data of `table` at `commit` against its stored contract, if it has one;
 * appends {kind: "contract_violation", table, ...violation} items to `failures`. */
static int check_table(weir_lake *lake, const char *commit, const char *table, json_t *failures, weir_error *err) {
  iceberg_table *t = NULL;
  int rc = lake_table_at(lake, commit, table, true, &t, err);
  if (rc || !t) return rc;
  bool stored = false;
  weir_contract *c = lake_table_type(t, table, &stored);
  iceberg_table_free(t);
  if (!stored) {
    wr_contract_free(c);
    return WEIR_OK;
  }
  wr_table_id id;
  if ((rc = wr_table_id_parse(table, &id, err))) {
    wr_contract_free(c);
    return rc;
  }
  char *qns = wr_sql_ident(id.ns), *qname = wr_sql_ident(id.name);
  char *sql = wr_asprintf("SELECT * FROM %s.%s", qns, qname);
  free(qns);
  free(qname);
  struct ArrowArrayStream stream = {0};
  rc = lake_query_run(lake, sql, commit, &stream, err);
  free(sql);
  char *report = NULL;
  if (rc == WEIR_OK) {
    weir_error verr = {0};
    int vrc = lake_contract_validate(c, &stream, NULL, &report, &verr);
    if (vrc == WEIR_ECONTRACT) {
      json_t *r = report ? json_loads(report, 0, NULL) : NULL;
      size_t i;
      json_t *v;
      json_array_foreach(json_object_get(r, "violations"), i, v) {
        if (strcmp(wr_json_str(v, "mode", "fail"), "fail") != 0) continue;
        json_t *item = json_deep_copy(v);
        json_object_set_new(item, "kind", json_string("contract_violation"));
        json_object_set_new(item, "table", json_string(table));
        json_array_append_new(failures, item);
      }
      json_decref(r);
      weir_error_clear(&verr);
    } else if (vrc) {
      wr_error_move(err, &verr);
      rc = vrc;
    }
  }
  free(report);
  wr_contract_free(c);
  return rc;
}

/* The gate's failures as one error: the message names each model or table with its
 * violation; the details are the items themselves. */
static int gate_error(const gate_ctx *g, json_t *problems, json_t *violations, weir_error *err) {
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_printf(&b, "merge gate of %s refused merging %s: ", g->into, g->source);
  size_t np = json_array_size(problems), nv = json_array_size(violations);
  if (np) wr_buf_printf(&b, "%zu plan problem%s at the merged state", np, np == 1 ? "" : "s");
  if (np && nv) wr_buf_puts(&b, " and ");
  if (nv) wr_buf_printf(&b, "%zu contract violation%s in the merged data", nv, nv == 1 ? "" : "s");
  wr_buf_puts(&b, " (nothing was merged):");
  size_t i;
  json_t *v;
  json_array_foreach(problems, i, v)
      wr_buf_printf(&b, "\n  - project %s: %s", wr_json_str(v, "project", ""), wr_json_str(v, "message", ""));
  json_array_foreach(violations, i, v)
      wr_buf_printf(&b, "\n  - table %s: %s", wr_json_str(v, "table", ""), wr_json_str(v, "message", ""));
  int code = np ? WEIR_EPLAN : WEIR_ECONTRACT;
  wr_seterr(err, code, "%s", wr_buf_cstr(&b));
  wr_buf_free(&b);
  json_t *details = json_array();
  json_array_extend(details, problems);
  json_array_extend(details, violations);
  wr_error_set_details(err, details);
  return code;
}

/* lake_merge_gate_fn: runs inside the merge's write transaction. */
static int gate_check(weir_lake *lake, const json_t *merged, void *ctx, weir_error *err) {
  gate_ctx *g = ctx;
  /* The checks the branch requires, under the lock: the same ones that were loaded. */
  char **now = NULL;
  size_t n_now = 0;
  int rc = catalog_branch_checks(lake->cat, g->into, &now, &n_now, err);
  if (rc) return rc;
  size_t n_required = 0;
  for (size_t i = 0; i < g->n; i++) n_required += g->projects[i].required;
  bool same = n_now == n_required;
  for (size_t i = 0; i < n_now && same; i++) {
    bool found = false;
    for (size_t j = 0; j < g->n && !found; j++)
      found = g->projects[j].required && strcmp(g->projects[j].given, now[i]) == 0;
    same = found;
  }
  catalog_strv_free(now, n_now);
  if (!same)
    return wr_seterr(err, WEIR_ECONCURRENT,
                     "the checks branch %s requires changed while merging %s into it (nothing was merged): merge "
                     "again",
                     g->into, g->source);
  if (g->n == 0) return WEIR_OK; /* still no gate: the merge is what it was */
  const char *result = wr_json_str(merged, "result", "");
  if (strcmp(result, "up-to-date") == 0) return WEIR_OK; /* nothing changes */
  const char *commit = wr_json_str(merged, "commit", NULL);
  if (!commit) return wr_seterr(err, WEIR_EGENERIC, "merge gate: the merge has no result commit");
  json_t *problems = json_array(), *violations = json_array();
  for (size_t i = 0; i < g->n && rc == WEIR_OK; i++) {
    wr_project *p = g->projects[i].p;
    if (g->projects[i].same || !p) continue;
    if ((rc = pipeline_plan(lake, p, commit, err))) break;
    size_t k;
    json_t *v;
    json_array_foreach(p->problems, k, v) {
      json_t *item = json_deep_copy(v);
      json_object_set_new(item, "kind", json_string("plan_problem"));
      json_object_set_new(item, "project", json_string(g->projects[i].given));
      json_array_append_new(problems, item);
    }
  }
  size_t i;
  json_t *tv;
  json_array_foreach(json_object_get(merged, "tables"), i, tv) {
    if (rc) break;
    const char *change = wr_json_str(tv, "change", "");
    if (strcmp(change, "dropped") == 0 || strcmp(change, "unchanged") == 0 ||
        strcmp(change, "conflict: target wins") == 0)
      continue;
    rc = check_table(lake, commit, wr_json_str(tv, "table", ""), violations, err);
  }
  if (rc == WEIR_OK && (json_array_size(problems) || json_array_size(violations)))
    rc = gate_error(g, problems, violations, err);
  json_decref(problems);
  json_decref(violations);
  return rc;
}

int pipeline_gate_prepare(weir_lake *lake, const char *source, const char *into, pipeline_gate **out,
                          weir_error *err) {
  *out = NULL;
  gate_ctx *g = wr_calloc(1, sizeof *g);
  g->source = source;
  g->into = into;
  char **req = NULL;
  size_t n_req = 0;
  int rc = catalog_branch_checks(lake->cat, into, &req, &n_req, err);
  for (size_t i = 0; rc == WEIR_OK && i < n_req; i++) gate_add(g, req[i], true);
  catalog_strv_free(req, n_req);
  if (rc == WEIR_OK && g->n) rc = gate_load(lake, g, err);
  bool prot = g->n > 0;
  if (rc == WEIR_OK && !prot) rc = catalog_branch_protected(lake->cat, into, &prot, err);
  if (rc || !prot) { /* unprotected: no gate can apply (see the file's comment) */
    gate_free(g);
    free(g);
    return rc;
  }
  *out = (pipeline_gate *)g;
  return WEIR_OK;
}

int pipeline_gate_check(weir_lake *lake, pipeline_gate *gate, const json_t *merged, weir_error *err) {
  return gate_check(lake, merged, gate, err);
}

void pipeline_gate_free(pipeline_gate *gate) {
  if (!gate) return;
  gate_free((gate_ctx *)gate);
  free(gate);
}

int pipeline_branch_merge(weir_lake *lake, const char *source, const char *into, const weir_merge_options *opts,
                          char **out_json, weir_error *err) {
  *out_json = NULL;
  if (!into) into = "main";
  gate_ctx g = {.source = source ? source : "", .into = into};
  char **req = NULL;
  size_t n_req = 0;
  int rc = catalog_branch_checks(lake->cat, into, &req, &n_req, err);
  if (rc) return rc;
  for (size_t i = 0; i < n_req; i++) gate_add(&g, req[i], true);
  catalog_strv_free(req, n_req);
  for (size_t i = 0; opts && opts->checks && i < opts->n_checks; i++) {
    if (!opts->checks[i] || !*opts->checks[i]) {
      gate_free(&g);
      return wr_seterr(err, WEIR_EINVALIDARG, "merge --check: empty project path (check %zu)", i + 1);
    }
    gate_add(&g, opts->checks[i], false);
  }
  if (g.n == 0) {
    /* No gate now. Into a protected branch (the only kind that can have one) the merge
     * still runs in one transaction that reads the checks again under the lock, so a gate
     * set meanwhile is not skipped; other merges keep their short write transaction. */
    bool prot = false;
    if ((rc = catalog_branch_protected(lake->cat, into, &prot, err))) return rc;
    if (!prot) return lake_branch_merge(lake, source, into, opts, out_json, err);
    return lake_branch_merge_gated(lake, source, into, opts, gate_check, &g, out_json, err);
  }
  rc = gate_load(lake, &g, err);
  if (rc == WEIR_OK) rc = lake_branch_merge_gated(lake, source, into, opts, gate_check, &g, out_json, err);
  gate_free(&g);
  return rc;
}
