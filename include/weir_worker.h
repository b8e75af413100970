/*
 * weir_worker.h -- the protocol between libweir and weir's own Python model worker
 * (python/weir/worker.py, docs/worker.md).
 *
 * PRIVATE: this is not part of weir's stable API or ABI. The functions are exported from
 * libweir only because the worker, a separate Python process, calls them through ctypes;
 * they change with the worker, in lockstep, with no notice or deprecation, and a program
 * other than weir's worker must not call them. Conventions (errors, ownership, refs) are
 * those of weir.h.
 */
#ifndef WEIR_WORKER_H
#define WEIR_WORKER_H

#include "weir.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Reads a table as it is at `ref` (a full commit hash or any ref) as an Arrow stream.
 * `spec_json` (may be NULL) is {"columns": [...], "filter": "SQL predicate",
 * "contract": IR}: the scan is projected to the columns, filtered, and, with a contract,
 * checked against it (WEIR_ECONTRACT with details on violation). The caller releases *out.
 */
WEIR_API int weir_worker_scan(weir_lake *lake, const char *table, const char *ref, const char *spec_json,
                              struct ArrowArrayStream *out, weir_error *err);

/**
 * Validates a model's output stream against `request_json` ({"table", "contract",
 * "model", "run_id", ...}, see docs/worker.md) and writes its data files, without
 * committing. *out_json describes the staged files and the report; the runner commits
 * them. The stream is consumed and released.
 */
WEIR_API int weir_worker_stage_output(weir_lake *lake, struct ArrowArrayStream *stream,
                                      const char *request_json, char **out_json, weir_error *err);

#ifdef __cplusplus
}
#endif
#endif /* WEIR_WORKER_H */
