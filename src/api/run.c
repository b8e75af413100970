/*
 * run.c -- weir_run_*: the records of pipeline runs, and reverting a run.
 */
#include "api/api.h"
#include "pipeline/pipeline.h"

int weir_run_revert(weir_lake *lake, const char *run_id, const char *branch, const weir_revert_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_run_revert");
  API_CHECK_OPTS(opts, "weir_revert_options", WEIR_REVERT_OPTIONS_VERSION);
  API_WRITE(lake, lake_run_revert(lake, run_id, branch, opts, out_json, err));
}

int weir_run_list(weir_lake *lake, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_run_list");
  return pipeline_run_list(lake, out_json, err);
}

int weir_run_show(weir_lake *lake, const char *run_id, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_run_show");
  return pipeline_run_show(lake, run_id, out_json, err);
}
