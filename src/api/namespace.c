/*
 * namespace.c -- weir_namespace_*: namespaces of tables.
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_namespace_create(weir_lake *lake, const char *ns, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_namespace_create");
  return lake_namespace_create(lake, ns, out_json, err);
}

int weir_namespace_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_namespace_list");
  return lake_namespace_list(lake, ref, out_json, err);
}

int weir_namespace_drop(weir_lake *lake, const char *ns, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_namespace_drop");
  return lake_namespace_drop(lake, ns, out_json, err);
}
