/*
 * tag.c -- weir_tag_*: tags.
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_tag_create(weir_lake *lake, const char *name, const char *ref, char out_target[WEIR_HASH_HEX_SIZE], weir_error *err) {
  API_CHECK_LAKE(lake, "weir_tag_create");
  return lake_tag_create(lake, name, ref, out_target, err);
}

int weir_tag_delete(weir_lake *lake, const char *name, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_tag_delete");
  return lake_tag_delete(lake, name, err);
}

int weir_tag_list(weir_lake *lake, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_tag_list");
  return lake_tag_list(lake, out_json, err);
}
