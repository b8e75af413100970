/*
 * ref.c -- weir_ref_*: resolving refs to commits.
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_ref_resolve(weir_lake *lake, const char *ref, char out_hash[WEIR_HASH_HEX_SIZE], weir_error *err) {
  API_CHECK_LAKE(lake, "weir_ref_resolve");
  return lake_ref_resolve(lake, ref, out_hash, err);
}
