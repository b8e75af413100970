/*
 * project.c -- weir_project_*: checking and running pipeline projects.
 */
#include "api/api.h"
#include "pipeline/pipeline.h"

int weir_run_options_init(weir_run_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_RUN_OPTIONS_VERSION);
}

int weir_project_check(weir_lake *lake, const char *project_dir, const char *ref, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_project_check");
  return pipeline_project_check(lake, project_dir, ref, out_json, err);
}

int weir_project_readers(weir_lake *lake, const char *project_dir, const char *ref, const char *table,
                         const char *diff_json, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_project_readers");
  return pipeline_project_readers(lake, project_dir, ref, table, diff_json, out_json, err);
}

int weir_project_run(weir_lake *lake, const char *project_dir, const weir_run_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_project_run");
  API_CHECK_OPTS(opts, "weir_run_options", WEIR_RUN_OPTIONS_VERSION);
  API_WRITE(lake, pipeline_project_run(lake, project_dir, opts, out_json, err));
}
