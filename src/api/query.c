/*
 * query.c -- weir_query_*: read-only SQL over the lake at a ref.
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_query_run(weir_lake *lake, const char *sql, const char *ref, struct ArrowArrayStream *out, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_query_run");
  return lake_query_run(lake, sql, ref, out, err);
}

int weir_query_run_text(weir_lake *lake, const char *sql, const char *ref, struct ArrowArrayStream *out, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_query_run_text");
  return lake_query_run_text(lake, sql, ref, out, err);
}

int weir_query_export(weir_lake *lake, const char *sql, const char *ref, const char *format, const char *path, int64_t *rows_out, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_query_export");
  return lake_query_export(lake, sql, ref, format, path, rows_out, err);
}

int weir_query_explain(weir_lake *lake, const char *sql, const char *ref, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_query_explain");
  if (!out_json) return wr_seterr(err, WEIR_EINVALIDARG, "weir_query_explain: out_json is NULL");
  return lake_query_explain(lake, sql, ref, out_json, err);
}
