/*
 * json_out.h -- the JSON layer of the public API: every document libweir hands out through
 * a `char **out_json` (and every progress event) leaves through here.
 *
 * Invariants this module keeps (docs/json.md):
 *   - A document is a JSON object whose first key is "schema_version" (an integer,
 *     WEIR_JSON_SCHEMA_VERSION): a list is never a bare array but an object holding the
 *     array under one named key ("commits", "branches", "tags", "tables", "runs",
 *     "tokens", "namespaces", "breaking_changes", "readers"), so that
 *     the version, and keys added later, have a place.
 *   - Each kind has one JSON Schema, docs/schema/<name>.schema.json, that the tests
 *     (tests/py/test_json_schema.py) validate real outputs against. A change of shape
 *     changes the schema in the same commit; an incompatible one bumps the version.
 *   - The shapes shared by several documents (a commit, a ref, a table entry, a time,
 *     an error) are built here and nowhere else. Shapes owned by one module's state (the
 *     catalog's merge/revert/run records, the planner's plan, the contract report) are
 *     built by that module and pinned by their schema; this layer stamps and serialises.
 */
#ifndef WEIR_LAKE_JSON_OUT_H
#define WEIR_LAKE_JSON_OUT_H

#include <jansson.h>
#include <stdbool.h>

#include "catalog/catalog.h"
#include "weir.h"

typedef enum wr_doc_kind {
  WR_DOC_COMMIT_LOG,     /* weir_commit_log: {"commits": [commit...]} */
  WR_DOC_COMMIT,         /* weir_commit_show */
  WR_DOC_DIFF,           /* weir_commit_diff */
  WR_DOC_BRANCH_LIST,    /* weir_branch_list: {"branches": [...]} */
  WR_DOC_TAG_LIST,       /* weir_tag_list: {"tags": [...]} */
  WR_DOC_MERGE,          /* weir_branch_merge */
  WR_DOC_TABLE_REVERT,   /* weir_table_revert */
  WR_DOC_RUN_REVERT,     /* weir_run_revert */
  WR_DOC_TABLE_LIST,     /* weir_table_list: {"tables": [...]} */
  WR_DOC_TABLE,          /* weir_table_describe */
  WR_DOC_IMPORT,         /* weir_table_import(_arrow) */
  WR_DOC_REPORT,         /* weir_contract_validate's report */
  WR_DOC_PLAN,           /* weir_project_check, weir_project_run with dry_run */
  WR_DOC_RUN,            /* weir_project_run, weir_run_show */
  WR_DOC_RUN_LIST,       /* weir_run_list: {"runs": [...]} */
  WR_DOC_STAGED,         /* weir_worker_stage_output */
  WR_DOC_PROGRESS,       /* a weir_progress_fn event */
  WR_DOC_TOKEN,          /* weir_token_create */
  WR_DOC_TOKEN_LIST,     /* weir_token_list: {"tokens": [...]} */
  WR_DOC_NAMESPACE,      /* weir_namespace_create, weir_namespace_drop */
  WR_DOC_NAMESPACE_LIST, /* weir_namespace_list: {"namespaces": [...]} */
  WR_DOC_TABLE_DROP,     /* weir_table_drop */
  WR_DOC_TABLE_RENAME,   /* weir_table_rename */
  WR_DOC_CONTRACT_DIFF,  /* weir_contract_diff */
  WR_DOC_MERGE_CONTRACTS, /* weir_branch_merge_contracts: {"breaking_changes": [...]} */
  WR_DOC_READERS,        /* weir_project_readers: {"readers": [...]} */
  WR_DOC_PROTECTION,     /* weir_branch_protection */
  WR_DOC_STATUS,         /* weir_lake_status: {"tables": [...], ...} */
  WR_DOC_COMPACT,        /* weir_table_compact */
  WR_DOC_REGISTER,       /* weir_table_register, weir_table_register_files */
  WR_DOC_GC,             /* weir_lake_gc */
  WR_DOC_BRANCH_PRUNE,   /* weir_branch_prune */
  WR_DOC_DELETE,         /* weir_table_delete */
  WR_DOC_QUERY_EXPLAIN,  /* weir_query_explain */
  WR_DOC_TABLE_ALTER,    /* weir_table_alter */
  WR_DOC_KIND_COUNT
} wr_doc_kind;

/* The schema's name of a kind ("commit_log"): docs/schema/<name>.schema.json. */
const char *wr_doc_name(wr_doc_kind kind);

/* The document `body` as it leaves the library: an object body gets "schema_version" as
 * its first key (replacing one it had); an array body is put under the kind's list key.
 * Steals body. Returns NULL when body is NULL (a body that could not be built: OOM) or
 * on OOM. */
json_t *wr_doc_make(wr_doc_kind kind, json_t *body);

/* wr_doc_make, serialised (pretty, keys in insertion order) for an out_json. Caller frees
 * with weir_free(). NULL as for wr_doc_make: the caller returns wr_oom(err). The shapes
 * below (wr_json_*) return NULL only on OOM. */
char *wr_doc_dump(wr_doc_kind kind, json_t *body);

/* ---- shared shapes ---------------------------------------------------------------------- */

/* UTC ISO 8601 with microseconds: "2026-11-30T12:34:56.123456Z". */
json_t *wr_json_time(int64_t us);

/* {hash, parents, time, author, message, properties} of a commit record. */
json_t *wr_json_commit(const wr_commit_rec *c);

/* {table, record_count, snapshot_id, metadata_location} of a table entry: what `tables`
 * and `show` print. */
json_t *wr_json_table_entry(const wr_table_entry *e);

/* {name, head|target, time}: a branch (head) or a tag (target). */
json_t *wr_json_ref(const wr_ref_rec *r, bool branch);

/* {code, message, details}: a weir_error inside a document (a run's error). */
json_t *wr_json_error(const weir_error *err);

#endif
