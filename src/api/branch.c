/*
 * branch.c -- weir_branch_*: branches, and merging into them.
 */
#include "api/api.h"
#include "lake/lake.h"
#include "pipeline/pipeline.h"

int weir_merge_options_init(weir_merge_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_MERGE_OPTIONS_VERSION);
}

int weir_branch_create(weir_lake *lake, const char *name, const char *from_ref, char out_head[WEIR_HASH_HEX_SIZE], weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_create");
  return lake_branch_create(lake, name, from_ref, out_head, err);
}

int weir_branch_delete(weir_lake *lake, const char *name, unsigned flags, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_delete");
  return lake_branch_delete(lake, name, flags, err);
}

int weir_branch_list(weir_lake *lake, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_list");
  return lake_branch_list(lake, out_json, err);
}

int weir_branch_merge(weir_lake *lake, const char *source, const char *into, const weir_merge_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_merge");
  API_CHECK_OPTS(opts, "weir_merge_options", WEIR_MERGE_OPTIONS_VERSION);
  API_WRITE(lake, pipeline_branch_merge(lake, source, into, opts, out_json, err)); /* with its gate */
}

int weir_branch_merge_contracts(weir_lake *lake, const char *source, const char *into, char **out_json,
                                weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_merge_contracts");
  return lake_branch_merge_contracts(lake, source, into, out_json, err);
}

int weir_branch_protect(weir_lake *lake, const char *branch, int on, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_protect");
  return lake_branch_protect(lake, branch, on, err);
}

int weir_branch_require_checks(weir_lake *lake, const char *branch, const char *const *projects, size_t n,
                               weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_require_checks");
  return lake_branch_require_checks(lake, branch, projects, n, err);
}

int weir_branch_protection(weir_lake *lake, const char *branch, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_protection");
  return lake_branch_protection(lake, branch, out_json, err);
}
