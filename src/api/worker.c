/*
 * worker.c -- weir_worker_*: the protocol of weir's own Python model worker (include/weir_worker.h,
 * private: not part of the stable API).
 */
#include "api/api.h"
#include "lake/lake.h"
#include "weir_worker.h"

int weir_worker_scan(weir_lake *lake, const char *table, const char *ref, const char *spec_json, struct ArrowArrayStream *out, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_worker_scan");
  return lake_worker_scan(lake, table, ref, spec_json, out, err);
}

int weir_worker_stage_output(weir_lake *lake, struct ArrowArrayStream *stream, const char *request_json, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_worker_stage_output");
  API_WRITE(lake, lake_worker_stage_output(lake, stream, request_json, out_json, err));
}
