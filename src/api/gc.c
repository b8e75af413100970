/*
 * gc.c -- weir_lake_gc and weir_branch_prune: removing what no ref needs any more.
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_gc_options_init(weir_gc_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_GC_OPTIONS_VERSION);
}

int weir_prune_options_init(weir_prune_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_PRUNE_OPTIONS_VERSION);
}

int weir_lake_gc(weir_lake *lake, const weir_gc_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_lake_gc");
  API_CHECK_OPTS(opts, "weir_gc_options", WEIR_GC_OPTIONS_VERSION);
  if (!out_json) return wr_seterr(err, WEIR_EINVALIDARG, "weir_lake_gc: out_json is NULL");
  return lake_gc(lake, opts, out_json, err);
}

int weir_branch_prune(weir_lake *lake, const weir_prune_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_branch_prune");
  API_CHECK_OPTS(opts, "weir_prune_options", WEIR_PRUNE_OPTIONS_VERSION);
  if (!out_json) return wr_seterr(err, WEIR_EINVALIDARG, "weir_branch_prune: out_json is NULL");
  return lake_branch_prune(lake, opts, out_json, err);
}
