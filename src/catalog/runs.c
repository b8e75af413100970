/*
 * runs.c -- records of pipeline runs and of each model in them (docs/versioning.md,
 * "Transactional run"). A run row holds the run's identity, target, base and result
 * commits and status; each model's outcome is stored as the JSON object the runner gives.
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/json.h"
#include "util/proc.h"

static int check_commit(wr_catalog *cat, const char *what, const char *run_id,
                        const char *hash, weir_error *err) {
  if (!hash) return WEIR_OK;
  commit_head h;
  int rc = catalog_head_get(cat, hash, &h, err);
  if (rc == WEIR_ENOTFOUND)
    return wr_seterr(err, rc, "run %s: %s commit '%s' not found", run_id, what, hash);
  return rc;
}

int catalog_run_create(wr_catalog *cat, const char *run_id, const char *project,
                       const char *project_digest, const char *branch,
                       const char *base_commit, const char *run_branch, weir_error *err) {
  if (!run_id || !*run_id) return wr_seterr(err, WEIR_EINVALIDARG, "a run needs an id");
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  rc = check_commit(cat, "base", run_id, base_commit, err);
  char *owner = wr_process_identity();
  if (!rc) {
    catalog_run_row r = {
        .run_id = (char *)run_id,
        .status = WEIR_RUN_RUNNING,
        .project = (char *)project,
        .project_digest = (char *)project_digest,
        .branch = (char *)branch,
        .run_branch = (char *)run_branch,
        .base_commit = (char *)base_commit,
        .started_us = wr_now_us(),
        .owner = owner,
    };
    rc = cat->be->ops->run_create(cat->be, &r, err);
  }
  free(owner);
  return catalog_tx_end(cat, rc, err);
}

int catalog_run_model(wr_catalog *cat, const char *run_id, json_t *model, weir_error *err) {
  const char *name = wr_json_str(model, "model", NULL);
  if (!run_id || !json_is_object(model) || !name || !*name)
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "run %s: a model record must be a JSON object with a \"model\" name",
                       run_id ? run_id : "(null)");
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  catalog_run_row r;
  rc = cat->be->ops->run_get(cat->be, run_id, &r, err);
  if (!rc) {
    catalog_run_row_clear(&r);
    char *body = wr_json_compact(model);
    rc = body ? cat->be->ops->run_model_put(cat->be, run_id, name, body, err) : wr_oom(err);
    free(body);
  }
  return catalog_tx_end(cat, rc, err);
}

int catalog_run_finish(wr_catalog *cat, const char *run_id, wr_run_status status,
                       const char *result_commit, json_t *error, weir_error *err) {
  if (!run_id || !*run_id) return wr_seterr(err, WEIR_EINVALIDARG, "a run needs an id");
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  rc = check_commit(cat, "result", run_id, result_commit, err);
  if (!rc) {
    char *ej = error && !json_is_null(error) ? wr_json_compact(error) : NULL;
    if (error && !json_is_null(error) && !ej) rc = wr_oom(err);
    else rc = cat->be->ops->run_finish(cat->be, run_id, status, result_commit, ej, wr_now_us(), err);
    free(ej);
  }
  return catalog_tx_end(cat, rc, err);
}

/* NULL only on OOM. */
static json_t *run_json(const catalog_run_row *r, char **models, size_t n) {
  json_t *ms = json_array();
  int bad = !ms;
  for (size_t i = 0; i < n; i++) {
    bool oom = false;
    json_t *m = wr_json_loads(models[i], 0, NULL, &oom);
    bad |= oom || json_array_append_new(ms, m ? m : json_string(models[i]));
  }
  if (bad) {
    json_decref(ms);
    return NULL;
  }
  bool eoom = false;
  json_t *error = r->error_json ? wr_json_loads(r->error_json, JSON_DECODE_ANY, NULL, &eoom) : NULL;
  if (eoom) {
    json_decref(ms);
    return NULL;
  }
  if (r->error_json && !error) error = json_string(r->error_json);
  /* A run still marked running whose process has ended (killed, or the machine went
   * down) will never finish: it is shown as interrupted. Its commits stay on its run
   * branch, and merging them needs --allow-partial like a failed run's. */
  const char *status = wr_run_status_name(r->status);
  if (r->status == WEIR_RUN_RUNNING && wr_process_gone(r->owner)) {
    status = "interrupted";
    if (!error)
      error = json_pack("{s:n,s:s,s:s,s:[]}", "model", "code", "Interrupted", "message",
                        "the process running it ended before the run finished (killed, or the "
                        "machine stopped); nothing was merged", "details");
  }
  return json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:o,s:o,s:o}", "run_id", r->run_id,
                   "status", status, "project",
                   wr_json_str_or_null(r->project), "project_digest",
                   wr_json_str_or_null(r->project_digest), "branch",
                   wr_json_str_or_null(r->branch), "run_branch",
                   wr_json_str_or_null(r->run_branch), "base_commit",
                   wr_json_str_or_null(r->base_commit), "result_commit",
                   wr_json_str_or_null(r->result_commit), "started", (json_int_t)r->started_us,
                   "ended", r->ended_us ? json_integer((json_int_t)r->ended_us) : json_null(),
                   "error", error ? error : json_null(), "models", ms);
}

static int run_get_locked(wr_catalog *cat, const char *run_id, json_t **out, weir_error *err) {
  catalog_run_row r;
  int rc = cat->be->ops->run_get(cat->be, run_id, &r, err);
  if (rc) return rc;
  char **models = NULL;
  size_t n = 0;
  rc = cat->be->ops->run_models(cat->be, run_id, &models, &n, err);
  if (!rc && !(*out = run_json(&r, models, n))) rc = wr_oom(err);
  catalog_strv_free(models, n);
  catalog_run_row_clear(&r);
  return rc;
}

/* A run id not found whole may be a unique prefix of one (as commit hashes are): the
 * id it names, in `full` (new string). WEIR_ENOTFOUND when none, WEIR_EINVALIDARG naming
 * the candidates when several. Reads every run id: for people typing ids, not loops. */
static int run_by_prefix(wr_catalog *cat, const char *prefix, char **full, weir_error *err) {
  *full = NULL;
  char **ids = NULL;
  size_t n = 0, hits = 0, len = strlen(prefix);
  int rc = cat->be->ops->run_list(cat->be, -1, &ids, &n, err);
  wr_buf cands = WEIR_BUF_INIT;
  for (size_t i = 0; i < n && !rc; i++) {
    if (strncmp(ids[i], prefix, len) != 0) continue;
    if (hits++ < 5) wr_buf_printf(&cands, "%s%s", hits > 1 ? ", " : "", ids[i]);
    if (!*full && !(*full = wr_strdup(ids[i]))) rc = wr_oom(err);
  }
  if (!rc && hits == 0) rc = wr_seterr(err, WEIR_ENOTFOUND, "run %s not found", prefix);
  if (!rc && hits > 1) {
    rc = wr_buf_status(&cands) ? wr_oom(err) : wr_seterr(err, WEIR_EINVALIDARG, "run id prefix %s is ambiguous: %zu runs start with it (%s%s)",
                     prefix, hits, wr_buf_cstr(&cands), hits > 5 ? ", ..." : "");
  }
  if (rc) {
    free(*full);
    *full = NULL;
  }
  wr_buf_free(&cands);
  catalog_strv_free(ids, n);
  return rc;
}

int catalog_run_get(wr_catalog *cat, const char *run_id, json_t **out, weir_error *err) {
  *out = NULL;
  if (!run_id || !*run_id) return wr_seterr(err, WEIR_EINVALIDARG, "a run needs an id");
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  rc = run_get_locked(cat, run_id, out, err);
  if (rc == WEIR_ENOTFOUND) {
    char *full = NULL;
    weir_error e2 = {0};
    int prc = run_by_prefix(cat, run_id, &full, &e2);
    if (prc == WEIR_OK) {
      weir_error_clear(err);
      rc = run_get_locked(cat, full, out, err);
    } else if (prc == WEIR_EINVALIDARG) {
      wr_error_move(err, &e2);
      rc = prc;
    }
    weir_error_clear(&e2);
    free(full);
  }
  rc = catalog_read_end(cat, opened, rc, err);
  if (rc) {
    json_decref(*out);
    *out = NULL;
  }
  return rc;
}

int catalog_runs(wr_catalog *cat, int64_t max, json_t **out, weir_error *err) {
  *out = NULL;
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  char **ids = NULL;
  size_t n = 0;
  json_t *arr = json_array();
  rc = arr ? cat->be->ops->run_list(cat->be, max, &ids, &n, err) : wr_oom(err);
  for (size_t i = 0; i < n && !rc; i++) {
    json_t *r = NULL;
    rc = run_get_locked(cat, ids[i], &r, err);
    if (!rc && json_array_append_new(arr, r)) rc = wr_oom(err);
  }
  catalog_strv_free(ids, n);
  rc = catalog_read_end(cat, opened, rc, err);
  if (rc) {
    json_decref(arr);
    return rc;
  }
  *out = arr;
  return WEIR_OK;
}

int catalog_run_status(wr_catalog *cat, const char *run_id, wr_run_status *out,
                       weir_error *err) {
  if (!run_id || !*run_id) return wr_seterr(err, WEIR_EINVALIDARG, "a run needs an id");
  catalog_run_row r;
  int rc = cat->be->ops->run_get(cat->be, run_id, &r, err);
  if (rc) return rc;
  *out = r.status;
  catalog_run_row_clear(&r);
  return WEIR_OK;
}
