/*
 * lake.h -- the lake: a catalog plus a warehouse folder, and the operations of the public
 * API (include/weir.h) that combine the catalog, Iceberg metadata, the engine and
 * contracts.
 *
 *   LAKE/catalog.db                                   the catalog (SQLite, WAL)
 *   LAKE/warehouse/<namespace>/<table>/data/          Parquet data files
 *   LAKE/warehouse/<namespace>/<table>/metadata/      Iceberg metadata, manifests
 *
 * Writing a table version is two steps, so that a pipeline worker process can do the
 * heavy part and the runner the commit: staging (validate, then write data files) and
 * committing (write Iceberg metadata on top of the branch head, then move the branch in
 * one catalog transaction, retrying if another writer moved it first).
 */
#ifndef WEIR_LAKE_LAKE_H
#define WEIR_LAKE_LAKE_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "catalog/catalog.h"
#include "contracts/contract.h"
#include "engine/engine.h"
#include "iceberg/iceberg.h"
#include "util/names.h"
#include "weir.h"

typedef struct lake_engine_pool lake_engine_pool;

struct weir_lake {
  char *path;              /* absolute lake folder */
  char *warehouse;         /* path/warehouse */
  char *catalog_uri;
  wr_catalog *cat;
  char *author;
  /* The handle's settings (weir_lake_options, defaults applied by lake_settings). */
  int threads;                 /* 0: DuckDB's default */
  char *memory_limit;          /* NULL: DuckDB's default */
  char *python;                /* NULL: pipeline_python's default lookup */
  char *duckdb_library;        /* NULL: the loader's default lookup */
  char *worker_library;        /* NULL: this library */
  weir_progress_fn progress;
  void *progress_ctx;
  /* Set by weir_lake_interrupt, from signal handlers or other threads: a lock-free atomic
   * (checked at compile time in lake.c), so the store is async-signal-safe and the
   * runner's loads see it without a data race. */
  atomic_int interrupted;
  /* State of the pipeline module kept per handle (the prepared Python environments of
   * spawn.c), freed by the module's own destructor: no cache outlives its handle or is
   * shared between handles. */
  void *pipeline_state;
  void (*pipeline_state_free)(void *);
  lake_engine_pool *engines;   /* idle SQL engines kept for reuse (engines.c) */
  /* Parsed Iceberg metadata by location: the files are immutable, so entries never go
   * stale; a write reads its table's metadata several times (and the file grows with
   * the table's history), so this keeps one parse per version. Least recently used go. */
  iceberg_table *meta_cache[16];
  uint64_t meta_used[16];
  uint64_t meta_clock;
  /* The writer lock (writers.c): writes in flight through this handle, and the lock
   * file's descriptor while any is (-1 otherwise). */
  unsigned writer_depth;
  int writer_fd;
};

/* The implementations behind the public functions of include/weir.h (src/api/ checks
 * their arguments and options versions, then calls these). opts of lake_init/lake_open is
 * never NULL: every field has been validated and defaulted (catalog and warehouse NULL). */
int lake_init(const char *path, const weir_lake_options *opts, weir_lake **out, weir_error *err);
int lake_open(const char *path, const weir_lake_options *opts, weir_lake **out, weir_error *err);
void lake_free(weir_lake *lake);
int lake_ref_resolve(weir_lake *lake, const char *ref, char out_hash[WEIR_HASH_HEX_SIZE], weir_error *err);
int lake_commit_log(weir_lake *lake, const char *ref, int64_t max_count, char **out_json, weir_error *err);
int lake_table_log(weir_lake *lake, const char *ref, const char *table, int64_t max_count, char **out_json,
                   weir_error *err);
int lake_commit_show(weir_lake *lake, const char *ref, char **out_json, weir_error *err);
int lake_commit_diff(weir_lake *lake, const char *ref_a, const char *ref_b, char **out_json, weir_error *err);
int lake_branch_create(weir_lake *lake, const char *name, const char *from_ref, char out_head[WEIR_HASH_HEX_SIZE],
                       weir_error *err);
int lake_branch_delete(weir_lake *lake, const char *name, unsigned flags, weir_error *err);
int lake_branch_list(weir_lake *lake, char **out_json, weir_error *err);
int lake_tag_create(weir_lake *lake, const char *name, const char *ref, char out_target[WEIR_HASH_HEX_SIZE],
                    weir_error *err);
int lake_tag_delete(weir_lake *lake, const char *name, weir_error *err);
int lake_tag_list(weir_lake *lake, char **out_json, weir_error *err);
int lake_branch_merge(weir_lake *lake, const char *source, const char *into, const weir_merge_options *opts,
                      char **out_json, weir_error *err);
/* The merge gate's hook (pipeline/gate.c): called inside the merge's write transaction,
 * after the merge is applied but before it commits, with the merge document (`merged`:
 * result, commit, into_commit, tables). A non-zero return rolls the merge back. */
typedef int (*lake_merge_gate_fn)(weir_lake *lake, const json_t *merged, void *ctx, weir_error *err);
/* lake_branch_merge with a gate (NULL: none, the plain merge). */
int lake_branch_merge_gated(weir_lake *lake, const char *source, const char *into, const weir_merge_options *opts,
                            lake_merge_gate_fn gate, void *gate_ctx, char **out_json, weir_error *err);
int lake_branch_merge_contracts(weir_lake *lake, const char *source, const char *into, char **out_json,
                                weir_error *err);
int lake_table_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err);
int lake_table_describe(weir_lake *lake, const char *table, const char *ref, char **out_json, weir_error *err);
int lake_table_revert(weir_lake *lake, const char *table, const char *to_ref, const char *branch,
                      const weir_revert_options *opts, char **out_json, weir_error *err);
int lake_run_revert(weir_lake *lake, const char *run_id, const char *branch, const weir_revert_options *opts,
                    char **out_json, weir_error *err);
int lake_table_compact(weir_lake *lake, const char *table, const weir_compact_options *opts, char **out_json,
                       weir_error *err);
/* Row-level delete, copy-on-write (delete.c; weir_table_delete). */
int lake_table_delete(weir_lake *lake, const char *table, const weir_delete_options *opts, char **out_json,
                      weir_error *err);
/* Whether writing under contract `to` may evolve the table whose type is `from` (its
 * stored contract, or its schema): every column of `from` is in `to` by exact name, of
 * the same type or an Iceberg promotion of it, with the same nullability; a column of `to`
 * that `from` lacks is optional and differs from every other column's name without regard
 * to case. WEIR_ECONTRACT naming the column and why otherwise (alter.c). */
int lake_check_evolution(const char *table, const weir_contract *from, const weir_contract *to, weir_error *err);
/* weir_table_alter (alter.c). */
int lake_table_alter(weir_lake *lake, const char *table, const weir_alter_options *opts, char **out_json,
                     weir_error *err);
/* After an import appended to `table` on `branch`: when the table's version at the head
 * sets weir.compact.min-files = N and has more than N small files, compacts it (a commit
 * of its own). Returns the compaction's document body when one was committed,
 * {"error": {code, message, details}} when it failed (the append stays committed), or
 * NULL when there was nothing to do. Never fails the caller. Caller decrefs. */
json_t *lake_compact_after_append(weir_lake *lake, const char *table, const char *branch);
/* Whether table version t sets weir.compact.min-files: an append to a version without it
 * skips lake_compact_after_append's reload of the table (a metadata parse per commit). */
bool lake_compact_threshold_set(const iceberg_table *t);
int lake_table_import(weir_lake *lake, const char *file, const weir_import_options *opts, char **out_json,
                      weir_error *err);
int lake_table_import_arrow(weir_lake *lake, struct ArrowArrayStream *stream, const weir_import_options *opts,
                            char **out_json, weir_error *err);
int lake_query_run(weir_lake *lake, const char *sql, const char *ref, struct ArrowArrayStream *out, weir_error *err);
int lake_query_run_text(weir_lake *lake, const char *sql, const char *ref, struct ArrowArrayStream *out,
                        weir_error *err);
int lake_query_export(weir_lake *lake, const char *sql, const char *ref, const char *format, const char *path,
                      int64_t *rows_out, weir_error *err);
int lake_contract_load(const char *path, weir_contract **out, weir_error *err);
int lake_contract_diff(const weir_contract *old_contract, const weir_contract *new_contract, char **out_json,
                       weir_error *err);
int lake_contract_parse(const char *text, size_t len, const char *format, const char *origin, weir_contract **out,
                        weir_error *err);
char *lake_contract_to_json(const weir_contract *contract);
int lake_contract_validate(const weir_contract *contract, struct ArrowArrayStream *in,
                           struct ArrowArrayStream *out_valid, char **out_report_json, weir_error *err);
int lake_worker_scan(weir_lake *lake, const char *table, const char *ref, const char *spec_json,
                     struct ArrowArrayStream *out, weir_error *err);
int lake_worker_stage_output(weir_lake *lake, struct ArrowArrayStream *stream, const char *request_json,
                             char **out_json, weir_error *err);

int lake_gc(weir_lake *lake, const weir_gc_options *opts, char **out_json, weir_error *err);
int lake_branch_prune(weir_lake *lake, const weir_prune_options *opts, char **out_json, weir_error *err);

/* Reports a progress event (a JSON object, stolen) if a callback is set. */
void lake_progress(weir_lake *lake, json_t *event);

/* Absolute folder of a table: warehouse/<ns>/<name>. Caller frees. */
char *lake_table_location(const weir_lake *lake, const wr_table_id *id); /* NULL only on OOM */
#ifdef WR_ALLOC_ABORTS /* legacy callers (util/error.h): abort on OOM as before */
#define lake_table_location(l, id) ((char *)WR_X_PTR(lake_table_location((l), (id))))
#endif

/* Resolves `ref` to a commit hash; `what` names it in messages ("--ref", "source"). */
int lake_resolve(weir_lake *lake, const char *ref, char out[WEIR_HASH_HEX_SIZE], weir_error *err);
/* The head of branch `branch`, which must be a branch (not a tag or hash).
 * Errors: WEIR_EINVALIDNAME, WEIR_ENOTFOUND naming the branch. */
int lake_branch_head(weir_lake *lake, const char *branch, char out[WEIR_HASH_HEX_SIZE],
                     weir_error *err);

/* Reads name tables as SQL does, without case: when no table at `hash` is named exactly
 * `id`, the one whose name differs only in case (at most one: writes refuse case twins)
 * takes its place in *id. *id is left alone when there is none (the caller's lookup then
 * reports it missing). Errors only from the catalog. */
int lake_table_fold_case(weir_lake *lake, const char *hash, wr_table_id *id, weir_error *err);

/* Loads the Iceberg version of `table` at commit `hash`. *out NULL (and WEIR_OK) when the
 * table does not exist there and `missing_ok`; otherwise WEIR_ENOTFOUND naming the table
 * and ref. */
int lake_table_at(weir_lake *lake, const char *hash, const char *table, bool missing_ok,
                  iceberg_table **out, weir_error *err);

/* The parsed metadata file at `metadata_location`, from the handle's cache or read now.
 * Release with iceberg_table_free; read-only. */
int lake_metadata(weir_lake *lake, const char *metadata_location, iceberg_table **out, weir_error *err);

/* ---- staging and committing table versions --------------------------------------------- */

/* A table version ready to commit: data files written, metadata not yet. */
typedef struct lake_staged {
  char *table;                 /* "ns.name" */
  weir_write_mode mode;        /* APPEND adds files; CREATE/REPLACE replace them */
  wr_schema schema;          /* declared columns, field ids assigned */
  int32_t last_column_id;
  iceberg_data_file *files;
  size_t n_files;
  int64_t rows;
  json_t *properties;          /* table properties to set (comment, weir.contract, ...) */
  json_t *summary;             /* snapshot summary additions */
  char *based_on;              /* the table's version at the write's base (field ids were
                                  assigned against it); NULL when absent there */
  bool read_rows;              /* validation read the table's rows (an append's `unique`
                                  rule): the append is not blind, so a concurrent change of
                                  the table refuses it (serial.h) */
  char **removed;              /* a compaction (mode REPLACE, n_removed > 0): the data files
                                  of based_on that `files` rewrite, row for row. Committed
                                  as an Iceberg "replace" snapshot over the head's version,
                                  which must still hold every one of them (serial.h): the
                                  write's read set is exactly these files */
  size_t n_removed;
  bool delete_rows;            /* a row delete (delete.c): `removed` are the files holding
                                  deleted rows, `files` them rewritten without those rows
                                  (fewer rows). Committed as an Iceberg "overwrite" (or
                                  "delete") snapshot; refused when the table changed since
                                  the base, as a replace is (serial.h) */
  iceberg_partition_spec spec; /* how `files` are partitioned (no fields: unpartitioned);
                                  each file has one partition value per field */
  bool schema_only;            /* weir alter: `schema` (ids assigned against based_on) and
                                  `properties` become a new version of the head's table
                                  with no new files and no snapshot
                                  (iceberg_write_schema_change). Staged with mode REPLACE,
                                  so that any change of the table since the base refuses
                                  it, as a replace is (serial.h) */
  bool evolves;                /* an append whose contract evolves the table's schema
                                  (--evolve): computed against based_on's schema, so any
                                  change of the table since the base refuses it */
} lake_staged;

void lake_staged_clear(lake_staged *s);
/* JSON form (for the worker protocol) and back. */
json_t *lake_staged_to_json(const lake_staged *s);
int lake_staged_from_json(const json_t *j, lake_staged *out, weir_error *err);

/* How a validated Arrow table is staged. */
typedef struct lake_stage_request {
  const char *table;           /* "ns.name" (validated) */
  weir_write_mode mode;
  const weir_contract *contract; /* the columns to write (declared or inferred) */
  bool declared;               /* contract was declared by the user: store it (IR, docs,
                                  lineage) in the table's properties */
  const char *comment;         /* table comment (NULL: the contract's description) */
  json_t *summary;             /* borrowed: extra snapshot summary entries */
  const char *base_commit;     /* commit whose version of the table ids build on */
  const json_t *partition_by;  /* borrowed array of partition fields ("day(ts)") declared
                                  outside the contract (a model's header or decorator);
                                  NULL: the contract's partition_by */
} lake_stage_request;

/* The Iceberg entry (path, counts, per-column stats by field id) of a Parquet file the
 * engine wrote with `schema`'s columns, from the statistics it returned. */
void lake_data_file_from_parquet(const wr_parquet_file *pf, const wr_schema *schema, iceberg_data_file *df);

/* What planning a table's scan found (scan_plan.c). */
typedef struct lake_scan_stats {
  size_t files_total, files_read;
  size_t pruned_by_partition, pruned_by_stats;
  size_t filters_used;   /* conditions whose constants could be compared exactly */
} lake_scan_stats;

/* Marks in keep[i] whether data file i of table `t` may hold a row satisfying `filters`
 * (one table's "filters" of wr_engine_sql_filters); a file is unmarked only when that is
 * proved impossible by its partition tuple or its column statistics (missing statistics
 * prove nothing). The engine computes constants and their transforms. */
int lake_plan_scan(wr_engine *engine, const iceberg_table *t, const json_t *filters, const iceberg_data_file *files,
                   size_t n, bool *keep, lake_scan_stats *st);

/* The partition spec of a write (partitioned.c): the `n` declared fields `texts` bound to
 * `schema` (field ids assigned), else for an append prev's default spec, else none (no
 * fields). `who` names the declaration in errors ("contract events", "model m").
 * Errors: WEIR_EINVALIDARG naming the field and why. */
int lake_partition_spec_for(const char *const *texts, size_t n, const char *who, const iceberg_table *prev,
                            weir_write_mode mode, const wr_schema *schema, iceberg_partition_spec *out,
                            weir_error *err);
/* Writes the rows of the engine relation `view` (the columns of `schema`) into `data_dir`
 * as data files of one partition each, with their partition values; *rows: rows written. */
int lake_write_partitioned(wr_engine *engine, const char *view, const wr_schema *schema,
                           const iceberg_partition_spec *spec, const char *data_dir, iceberg_data_file **out_files,
                           size_t *n_out, int64_t *rows, weir_error *err);

/* Writes `data` (already validated and cast to its schema) as Parquet files of the table
 * and fills `out`. Field ids continue those of the table at base_commit. */
int lake_stage_table(weir_lake *lake, wr_engine *engine, wr_arrow_table *data,
                     const lake_stage_request *req, lake_staged *out, weir_error *err);

typedef struct lake_commit_request {
  const char *branch;
  const char *expected_head;   /* NULL: whatever the head is (retry on races) */
  const char *base;            /* the commit the write was computed against (staged
                                  versions' based_on are its versions); NULL: the head at
                                  the first attempt */
  const char *const *reads;    /* tables the write read at `base` without writing them */
  size_t n_reads;
  bool *revalidate;            /* out, may be NULL: set when the commit was refused only
                                  because an append's table changed its schema, partition
                                  spec or contract since the base (serial.h) */
  const char *message;
  json_t *properties;          /* commit properties (borrowed) */
  const char *run_id;
} lake_commit_request;

/* Writes Iceberg metadata for every staged table on top of the branch head and commits
 * them together (one commit). When the head is past the base, the serializable rules of
 * serial.h decide first whether the write may land there (WEIR_ECONCURRENT or
 * WEIR_ESTALEREAD otherwise, nothing written). On a race with another writer, re-reads
 * the head, checks again and rewrites the metadata (data files are reused), up to a
 * bounded number of attempts; with expected_head set, a moved head is WEIR_ECONCURRENT at
 * once. */
int lake_commit_staged(weir_lake *lake, const lake_commit_request *req, lake_staged *staged,
                       size_t n, char out_hash[WEIR_HASH_HEX_SIZE], weir_error *err);

/* Opens an engine with the lake's settings (threads, memory limit, DuckDB library), which
 * lake_engine_settings fills into *out (strings borrowed from the handle). */
int lake_engine_open(weir_lake *lake, wr_engine **out, weir_error *err);
void lake_engine_settings(const weir_lake *lake, wr_engine_options *out);

/* Engines kept for reuse (engines.c). lake_engine_get lends an idle engine of the kind
 * (restricted: files inside the warehouse only, for SQL from users and models), or opens
 * one; give it back with lake_engine_put (or lake_engine_put_pool, when the lake handle
 * may already be gone), which keeps one idle engine of each kind and closes the rest.
 * Callers unregister what they registered; a failed statement leaves an engine usable. */
lake_engine_pool *lake_engine_pool_new(const char *warehouse);
void lake_engine_pool_free(lake_engine_pool *p);
/* Every column of `t` has a name of its own: an empty or repeated name cannot become a
 * table column (WEIR_EINPUT: "<what>: column \"a\" appears twice (columns 1 and 2)"). */
int lake_check_column_names(const wr_arrow_table *t, const char *what, weir_error *err);

typedef enum lake_engine_kind {
  LAKE_ENGINE_OPEN = 0,      /* any file: reading the user's files for an import */
  LAKE_ENGINE_WAREHOUSE = 1, /* files in the warehouse only: queries, models, writes */
  LAKE_ENGINE_SEALED = 2,    /* no files at all: contract SQL (checks, table rules) */
  LAKE_ENGINE_KINDS = 3
} lake_engine_kind;
int lake_engine_get(weir_lake *lake, lake_engine_kind kind, wr_engine **out, weir_error *err);
void lake_engine_put(weir_lake *lake, wr_engine *engine, lake_engine_kind kind);
void lake_engine_put_pool(lake_engine_pool *p, wr_engine *engine, lake_engine_kind kind);
/* Makes every table `sql` reads queryable in `engine` as it is at commit `hash`, each with
 * only the data files the query's conditions on it may need (scan_plan.c). `explain`,
 * when not NULL, is an array that receives one object per table: {"table", "files_total",
 * "files_read", "pruned_by_partition", "pruned_by_stats", "filters"}. */
int lake_attach_for_sql(weir_lake *lake, wr_engine *engine, const char *hash, const char *sql,
                        json_t *explain, weir_error *err);
/* `weir query --explain`: the WR_DOC_QUERY_EXPLAIN document of what `sql` at `ref` reads
 * (caller frees *out_json). */
int lake_query_explain(weir_lake *lake, const char *sql, const char *ref, char **out_json, weir_error *err);
/* Makes one table queryable as it is at commit `hash`. */
int lake_attach_table(weir_lake *lake, wr_engine *engine, const char *hash,
                      const wr_table_id *id, weir_error *err);

/* Limits the files SQL in `engine` may touch to the lake's warehouse (and `extra_dir`,
 * when not NULL): for engines that run SQL from users or models. */
int lake_restrict_engine(weir_lake *lake, wr_engine *engine, const char *extra_dir, weir_error *err);

/* Builds the contract used when none is given: each column's weir type is the one its
 * Arrow type widens to; required when the data has no nulls (create/replace). Errors:
 * WEIR_EUNSUPPORTED naming a column whose type weir cannot store. */
int lake_infer_contract(const wr_arrow_table *data, const char *name, weir_contract **out,
                        weir_error *err);


/* A table's type: its stored contract (weir.contract) when it was written through one,
 * else a contract of its schema. *has_contract says which. Caller frees. */
weir_contract *lake_table_type(const iceberg_table *t, const char *table, bool *has_contract);

/* For a write that appends to `table` at `base_commit`: the contract the appended rows
 * are held to (lake_table_type), and a phrase for messages ("appending to default.x,
 * whose contract is X"), both owned by the caller; NULLs when the table does not exist. */
int lake_append_target(weir_lake *lake, const char *table, const char *base_commit, weir_contract **out,
                       char **subject_suffix, weir_error *err);

/* Namespaces at commit `hash` (manage.c): JSON array of {name, created, tables}, sorted:
 * "default", the created ones and those of the tables there. *out: caller decrefs. */
int lake_namespaces_at(weir_lake *lake, const char *hash, json_t **out, weir_error *err);
/* Tables in namespace `ns` at the head of any branch: [{branch, table}] (caller decrefs). */
int lake_namespace_tables(weir_lake *lake, const char *ns, json_t **out, weir_error *err);

/* Access and table management (src/lake/access.c, manage.c), behind src/api/token.c,
 * namespace.c, table.c and branch.c. */
int lake_token_create(weir_lake *lake, const weir_token_options *opts, char **out_json, weir_error *err);
int lake_token_list(weir_lake *lake, char **out_json, weir_error *err);
int lake_token_revoke(weir_lake *lake, const char *name, weir_error *err);
int lake_branch_protect(weir_lake *lake, const char *branch, int on, weir_error *err);
int lake_branch_require_checks(weir_lake *lake, const char *branch, const char *const *projects, size_t n,
                               weir_error *err);
int lake_branch_protection(weir_lake *lake, const char *branch, char **out_json, weir_error *err);
/* A project path of a merge gate as a folder: absolute as given, else against the lake
 * folder. Caller frees. */
char *lake_check_path(const weir_lake *lake, const char *project);

/* ---- freshness (status.c) ---- */
/* Parses a freshness SLA ("90 seconds", "30 minutes", "1 hour", "2 days", "1 week"; a
 * number and a unit, singular or plural, also "1h", "30m", "45s", "2d") into seconds.
 * WEIR_EINVALIDARG naming `what` otherwise. */
int lake_parse_duration(const char *text, const char *what, int64_t *seconds, weir_error *err);
/* The freshness of `table` (entry `e`) at `now_us`: {table, last_change: {commit, time},
 * sla, age_seconds, status}. New reference in *out. */
int lake_table_freshness(weir_lake *lake, const wr_table_entry *e, int64_t now_us, json_t **out, weir_error *err);
int lake_status(weir_lake *lake, const weir_status_options *opts, char **out_json, weir_error *err);
int lake_table_drop(weir_lake *lake, const char *table, const char *branch, char **out_json, weir_error *err);
int lake_table_rename(weir_lake *lake, const char *table, const char *new_name, const char *branch,
                      char **out_json, weir_error *err);
/* Namespace changes are commits on `branch` (NULL: main); `props` (borrowed, may be NULL:
 * none) an object of strings; `expect_head` (may be NULL) as weir_namespace_options. set_properties replaces the properties (creating the entry
 * when the namespace exists only through its tables); a lake-wide namespace of an older
 * catalog is changed lake-wide. */
int lake_namespace_create(weir_lake *lake, const char *ns, const char *branch, const char *expect_head,
                          json_t *props, char **out_json, weir_error *err);
int lake_namespace_set_properties(weir_lake *lake, const char *ns, const char *branch, json_t *props,
                                  weir_error *err);
int lake_namespace_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err);
int lake_namespace_drop(weir_lake *lake, const char *ns, const char *branch, const char *expect_head,
                        char **out_json, weir_error *err);
/* Does `ns` exist at commit `hash` (created there, lake-wide, held by a table, or
 * "default")? *props (may be NULL) gets its properties (new object; {} when it has none). */
int lake_namespace_get(weir_lake *lake, const char *hash, const char *ns, bool *found, json_t **props,
                       weir_error *err);

/* External data (register.c): adopting an Iceberg table another engine wrote, and adding
 * Parquet files to a table, both by reference (the files stay where they are). */
int lake_table_register(weir_lake *lake, const char *table, const char *metadata,
                        const weir_register_options *opts, char **out_json, weir_error *err);
int lake_table_register_files(weir_lake *lake, const char *table, const char *const *paths, size_t n_paths,
                              const weir_register_options *opts, char **out_json, weir_error *err);
/* The folders outside the warehouse that warehouse engines may read (external.c:
 * LAKE/external-locations, one absolute folder or URI prefix a line; "" when none).
 * Caller frees. */
char *lake_external_grants(const weir_lake *lake);
/* Grants the folder `root` (may be NULL) and the folder of every file of `files` not
 * under it, unless inside the warehouse or granted already. Errors: WEIR_EIO. */
int lake_external_grant(weir_lake *lake, const char *root, const iceberg_data_file *files, size_t n,
                        weir_error *err);
/* At most how many folders `grants` (lake_external_grants' text) lists, and the folders
 * themselves: splits `grants` in place into dirs[0..return), at most `cap`. */
size_t lake_external_count(const char *grants);
size_t lake_external_split(char *grants, const char **dirs, size_t cap);

/* The writer lock (writers.c). Every write through the API is bracketed by enter/leave
 * (nested brackets share one lock); gc with a grace under LAKE_GC_SAFE_GRACE_US excludes
 * writers around its listing: *out_fd holds LOCK_EX until closed; *waited: it found the
 * lock taken at first. Errors: WEIR_ECONCURRENT after timeout_us, WEIR_EIO. */
#define LAKE_GC_SAFE_GRACE_US (600LL * 1000000LL)
#define LAKE_GC_LOCK_TIMEOUT_US (60LL * 1000000LL)
int lake_writer_lock_create(weir_lake *lake, weir_error *err); /* at init; WEIR_EIO */
void lake_writer_enter(weir_lake *lake);
void lake_writer_leave(weir_lake *lake);
int lake_writers_exclude(weir_lake *lake, int64_t timeout_us, int *out_fd, bool *waited, weir_error *err);

/* Name mapping (name_mapping.c): how files without Iceberg field ids read. */
#define LAKE_PROP_NAME_MAPPING "schema.name-mapping.default"
/* True when `t` has the property (then its files are probed for ids when read). */
bool lake_table_has_name_mapping(const iceberg_table *t);
/* `existing` (the property's text, or NULL) with every column of `schema` listed under its
 * field id by its current name; no name is ever removed. Caller frees the JSON text. */
char *lake_name_mapping_merge(const char *existing, const wr_schema *schema);
/* Every name of mapping texts `a` and `b` (either may be NULL) under its field id: what a
 * merge of two versions carries. Caller frees the JSON text. */
char *lake_name_mapping_union(const char *a, const char *b);

#endif
