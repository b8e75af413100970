/*
 * token.c -- weir_token_*: bearer tokens for weir serve (docs/serve.md).
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_token_options_init(weir_token_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_TOKEN_OPTIONS_VERSION);
}

int weir_token_create(weir_lake *lake, const weir_token_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_token_create");
  API_CHECK_OPTS(opts, "weir_token_options", WEIR_TOKEN_OPTIONS_VERSION);
  return lake_token_create(lake, opts, out_json, err);
}

int weir_token_list(weir_lake *lake, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_token_list");
  return lake_token_list(lake, out_json, err);
}

int weir_token_revoke(weir_lake *lake, const char *name, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_token_revoke");
  return lake_token_revoke(lake, name, err);
}
