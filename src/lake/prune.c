/*
 * prune.c -- weir_branch_prune: deleting the run/<id> branches of runs that are over
 * (a successful run deletes its own; a failed or interrupted run's stays for inspection
 * until pruned). The branch of a run whose process is still running is never deleted.
 */
#include <stdlib.h>
#include <string.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "util/clock.h"

static int prune(weir_lake *lake, const weir_prune_options *o, int64_t now, json_t *out, weir_error *err) {
  wr_ref_rec *refs = NULL;
  size_t n = 0;
  int rc = catalog_ref_list(lake->cat, WEIR_REF_BRANCH, &refs, &n, err);
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    const char *name = refs[i].name;
    if (strncmp(name, "run/", 4) != 0) continue;
    if (o->older_than_us > 0 && refs[i].updated_us > now - o->older_than_us) continue;
    /* The run's record says how it ended; "interrupted" is a running run whose process is gone. */
    json_t *run = NULL;
    weir_error e = {0};
    int grc = catalog_run_get(lake->cat, name + 4, &run, &e);
    if (grc && grc != WEIR_ENOTFOUND) {
      rc = grc;
      weir_error_clear(err);
      *err = e;
      break;
    }
    weir_error_clear(&e);
    const char *status = run ? json_string_value(json_object_get(run, "status")) : NULL;
    bool skip = status && strcmp(status, "running") == 0; /* alive: never */
    if (o->failed_only && !(status && (strcmp(status, "failed") == 0 || strcmp(status, "interrupted") == 0)))
      skip = true;
    if (!skip) {
      if (!o->dry_run) rc = catalog_ref_delete(lake->cat, WEIR_REF_BRANCH, name, err);
      if (rc == WEIR_OK)
        json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:o,s:o}", "name", name, "head", refs[i].target, "run_id",
                                             name + 4, "status", status ? json_string(status) : json_null(),
                                             "updated", wr_json_time(refs[i].updated_us)));
    }
    json_decref(run);
  }
  wr_ref_recs_free(refs, n);
  return rc;
}

int lake_branch_prune(weir_lake *lake, const weir_prune_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  weir_prune_options o = {0};
  if (opts) o = *opts;
  if (!o.runs)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "branch prune needs --runs (weir_prune_options.runs): run branches are the only ones it prunes");
  if (o.older_than_us < 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "weir_prune_options.older_than_us is %lld: give a duration in microseconds",
                     (long long)o.older_than_us);
  /* One write transaction: a run cannot start or end, nor its branch move, between the
   * status read and the delete. A dry run reads one snapshot. */
  int rc = catalog_tx_begin(lake->cat, !o.dry_run, err);
  if (rc) return rc;
  json_t *arr = json_array();
  rc = prune(lake, &o, wr_now_us(), arr, err);
  if (rc == WEIR_OK) rc = catalog_tx_commit(lake->cat, err);
  else catalog_tx_rollback(lake->cat);
  if (rc) {
    json_decref(arr);
    return rc;
  }
  *out_json = wr_doc_dump(WR_DOC_BRANCH_PRUNE,
                          json_pack("{s:b,s:o}", "dry_run", o.dry_run != 0, "branches", arr));
  return *out_json ? WEIR_OK : wr_oom(err);
}
