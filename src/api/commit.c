/*
 * commit.c -- weir_commit_*: the history of commits (log, show, diff).
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_commit_log(weir_lake *lake, const char *ref, int64_t max_count, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_commit_log");
  return lake_commit_log(lake, ref, max_count, out_json, err);
}

int weir_commit_show(weir_lake *lake, const char *ref, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_commit_show");
  return lake_commit_show(lake, ref, out_json, err);
}

int weir_commit_diff(weir_lake *lake, const char *ref_a, const char *ref_b, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_commit_diff");
  return lake_commit_diff(lake, ref_a, ref_b, out_json, err);
}
