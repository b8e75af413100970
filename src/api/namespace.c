/*
 * namespace.c -- weir_namespace_*: namespaces of tables.
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_namespace_options_init(weir_namespace_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_NAMESPACE_OPTIONS_VERSION);
}

int weir_namespace_create(weir_lake *lake, const char *ns, const weir_namespace_options *opts, char **out_json,
                          weir_error *err) {
  API_CHECK_LAKE(lake, "weir_namespace_create");
  API_CHECK_OPTS(opts, "weir_namespace_options", WEIR_NAMESPACE_OPTIONS_VERSION);
  return lake_namespace_create(lake, ns, opts ? opts->branch : NULL, opts ? opts->expect_head : NULL, NULL, out_json,
                               err);
}

int weir_namespace_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_namespace_list");
  return lake_namespace_list(lake, ref, out_json, err);
}

int weir_namespace_drop(weir_lake *lake, const char *ns, const weir_namespace_options *opts, char **out_json,
                        weir_error *err) {
  API_CHECK_LAKE(lake, "weir_namespace_drop");
  API_CHECK_OPTS(opts, "weir_namespace_options", WEIR_NAMESPACE_OPTIONS_VERSION);
  return lake_namespace_drop(lake, ns, opts ? opts->branch : NULL, opts ? opts->expect_head : NULL, out_json, err);
}
