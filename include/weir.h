/*
 * weir.h -- the public C API of libweir.
 *
 * weir is an embeddable lakehouse: Apache Iceberg tables, a Git-like catalog over all of
 * them (commits, branches, tags, merges, time travel, revert), data contracts checked on
 * Arrow data, and transactional pipeline runs. This header is the only interface the
 * `weir` CLI and the Python SDK use.
 *
 * Conventions (the same everywhere, as in libgit2):
 *
 *   - Names are weir_<noun>_<verb>. Objects are opaque handles created by a function that
 *     fills an out-parameter and freed by the matching weir_<noun>_free().
 *   - Every fallible function returns an int status: WEIR_OK (0) on success, otherwise a
 *     weir_error_code, and, when `err` is not NULL, fills *err with the code, a message a
 *     person can act on, and optional structured details (JSON).
 *   - Ownership: a `char **out_json` or other `char **` out-parameter receives a string the
 *     caller owns and releases with weir_free(). `const char *` results are owned by the
 *     handle they come from and live as long as it. Input strings are copied when kept.
 *   - JSON documents returned by the library are the same documents the CLI prints with
 *     `--json`: each an object whose first key is "schema_version"
 *     (WEIR_JSON_SCHEMA_VERSION), specified by docs/schema/<name>.schema.json and described
 *     in docs/json.md. A list comes as an object holding the array under one key.
 *   - Refs: a branch name, a tag name, a full 64-digit commit hash or a unique prefix of at
 *     least 7 hex digits, optionally followed by ~N (N-th first-parent ancestor). Where a
 *     ref or branch may be NULL it means "main"; an empty string is not NULL (most likely
 *     an unset variable) and is refused with WEIR_EINVALIDARG.
 *   - Tables: "namespace.name", or "name" meaning "default.name".
 *   - Times are UTC; durations and timestamps in microseconds unless a name says otherwise.
 *   - Options structs are versioned, as libgit2's are: the first field is `unsigned int
 *     version`, set by the struct's WEIR_<NAME>_OPTIONS_INIT macro or its
 *     weir_<name>_options_init() function; fields are only ever added at the end, and the
 *     version goes up when they are. A function taking options accepts NULL (every
 *     default) or a struct of a version this library knows; any other version (including
 *     0, a struct zeroed by hand) is WEIR_EINVALIDARG naming the struct and both versions.
 *   - The library reads no environment variables: the CLI and the Python SDK map theirs
 *     ($WEIR_LAKE, $WEIR_AUTHOR, $WEIR_THREADS, ...) onto weir_lake_options.
 *   - This header is the stable API. include/weir_worker.h, for weir's own Python model
 *     worker, is not part of it.
 *
 * Thread-safety: a weir_lake handle must not be used by two threads at once; open one
 * handle per thread (handles on the same lake are safe to use concurrently, from threads
 * or processes: the catalog serialises writers). Contracts are immutable once loaded and
 * may be shared between threads. weir_error values belong to their caller.
 */
#ifndef WEIR_H
#define WEIR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================================
 * Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html).
 * These definitions are the ABI fixed by the Arrow project; the guards let this header
 * coexist with any other library that declares them.
 * ==================================================================================== */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};
#endif
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};
#endif

/* The body of the WEIR_<NAME>_OPTIONS_INIT macros: the version set, every other field
 * zero. Designated in C, so that -Wextra (missing-field-initializers) stays quiet. */
#ifdef __cplusplus
#define WEIR_OPTIONS_INIT_(v) {v}
#else
#define WEIR_OPTIONS_INIT_(v) {.version = (v)}
#endif

/* Symbols of the public API are exported from libweir.so; everything else is hidden. */
#if defined(__GNUC__) && !defined(WEIR_STATIC)
#define WEIR_API __attribute__((visibility("default")))
#else
#define WEIR_API
#endif

/* ====================================================================================
 * Version
 * ==================================================================================== */
/* WEIR_VERSION_STRING, WEIR_VERSION_MAJOR/MINOR/PATCH: generated by CMake from the
 * repository's VERSION file, the one version number of the C library, the CLI and the
 * Python package. */
#include "weir_version.h"
/** The library's version, e.g. "0.1.0" (WEIR_VERSION_STRING of the headers it was built
 *  with; a program may compare it with its own). Static storage; never free. Thread-safe. */
WEIR_API const char *weir_version(void);
/** The version of the shapes of the JSON documents the library returns: each document is
 *  an object whose "schema_version" is this number, specified by
 *  docs/schema/<name>.schema.json (docs/json.md). It grows when a shape changes
 *  incompatibly (a key removed, renamed or retyped); keys may be added without it. */
#define WEIR_JSON_SCHEMA_VERSION 1

/* ====================================================================================
 * Errors
 * ==================================================================================== */

/** Error codes. Each maps to one CLI exit code (weir_error_exit_code) and one Python
 *  exception class (weir.errors). Values are stable. */
typedef enum weir_error_code {
  WEIR_OK = 0,
  WEIR_EGENERIC = 1,        /* an error with no better code                    exit 1 */
  WEIR_ENOTFOUND = 2,       /* lake, ref, table, run, file or column not found  exit 1 */
  WEIR_EEXISTS = 3,         /* the thing to create already exists               exit 1 */
  WEIR_EIO = 4,             /* a file could not be read or written              exit 1 */
  WEIR_ECATALOG = 5,        /* the catalog database failed or is corrupt        exit 1 */
  WEIR_EENGINE = 6,         /* the SQL engine reported an error                 exit 1 */
  WEIR_EINVALIDNAME = 7,    /* a table, namespace, branch or tag name is bad    exit 2 */
  WEIR_EINVALIDARG = 8,     /* a bad argument or option value                   exit 2 */
  WEIR_EINPUT = 9,          /* bad input data or file (ragged CSV, bad YAML)    exit 1 */
  WEIR_ECONTRACT = 10,      /* data breaks a contract; nothing was published   exit 3 */
  WEIR_EPLAN = 11,          /* a project does not plan; nothing was written     exit 3 */
  WEIR_ECONFLICT = 12,      /* merge conflict; nothing was written              exit 4 */
  WEIR_ECONCURRENT = 13,    /* a concurrent update could not be reconciled      exit 4 */
  WEIR_EPARTIAL = 14,       /* would publish or revert part of a run            exit 1 */
  WEIR_EMODEL = 15,         /* a model raised an error or its worker crashed    exit 1 */
  WEIR_EUNSUPPORTED = 16,   /* a valid request weir does not support            exit 1 */
  WEIR_EINTERRUPTED = 17,   /* stopped by weir_lake_interrupt (Ctrl-C), or its
                               process ended mid-run; nothing was published  exit 130 */
  WEIR_ESTALEREAD = 18,     /* a table the write read changed on its branch since
                               its base (docs/versioning.md); nothing written  exit 4 */
  WEIR_ENOMEM = 19          /* an allocation failed ("out of memory"); nothing was
                               written and the handle stays usable (docs/memory.md) exit 1 */
} weir_error_code;

/**
 * An error value, owned by the caller (usually on the stack: `weir_error err = {0};` or
 * `= WEIR_ERROR_INIT`). A function that fails sets `code`, replaces `message` with one
 * line naming what went wrong and where (no "error: " prefix), and sets `details` to a
 * JSON array of structured items (contract violations, merge conflicts, plan problems) or
 * NULL. Release the strings with weir_error_clear(), which also resets the value for
 * reuse.
 *
 * Room to grow: `reserved` keeps the size of the struct fixed while fields are added. The
 * contract that makes this safe: callers zero-initialise the value before its first use
 * and never read or write `reserved`; the library leaves it zero today, and a later
 * version that carves a field out of it gives that field a meaning in which zero is
 * "absent", and frees what it stores there in weir_error_clear(). So a caller compiled
 * against this header keeps working with any later 0.x library, and vice versa.
 */
typedef struct weir_error {
  int code;
  char *message;
  char *details;
  void *reserved[4];
} weir_error;
#define WEIR_ERROR_INIT {0, NULL, NULL, {NULL, NULL, NULL, NULL}}

/** Frees err->message and err->details and sets the value back to {0}. NULL-safe. */
WEIR_API void weir_error_clear(weir_error *err);
/** Stable name of a code, e.g. "NotFound", "ContractViolation". Static storage. */
WEIR_API const char *weir_error_name(int code);
/** The CLI exit code for an error code (0, 1, 2, 3, 4 or 130; see docs/cli.md). */
WEIR_API int weir_error_exit_code(int code);
/** Frees memory returned by weir through a `char **` out-parameter. NULL-safe. */
WEIR_API void weir_free(void *ptr);

/* ====================================================================================
 * Lake
 * ==================================================================================== */

/** An open lake: its catalog and warehouse folder. See the thread-safety note above. */
typedef struct weir_lake weir_lake;

/** How weir_lake_options_init() and weir_lake_init()/open() treat catalog_sync. */
typedef enum weir_catalog_sync {
  WEIR_SYNC_DEFAULT = 0, /* the catalog backend's default (SQLite: NORMAL) */
  WEIR_SYNC_NORMAL = 1,  /* SQLite synchronous=NORMAL: durable at checkpoints; a power cut
                            may lose the last commits, never corrupt the catalog */
  WEIR_SYNC_FULL = 2     /* SQLite synchronous=FULL: every commit is on disk when it returns */
} weir_catalog_sync;

/**
 * Settings of one lake handle. Everything that changes how the library behaves is here,
 * never in environment variables (the CLI and the SDK map theirs onto these fields).
 * Strings are copied by weir_lake_init()/weir_lake_open(); the struct may be freed after.
 */
typedef struct weir_lake_options {
  unsigned int version;       /* WEIR_LAKE_OPTIONS_VERSION */
  const char *catalog;        /* init only: NULL = a SQLite catalog file in the lake
                                 (LAKE/catalog.db). A PostgreSQL URI,
                                 "postgresql://[user@]host[:port]/dbname[?schema=NAME]":
                                 the catalog lives in that database, in schema NAME
                                 (default public; one lake per schema). Connection details
                                 follow libpq (PG* variables, ~/.pgpass, $PGPASSWORD); a
                                 URI holding a password is refused (WEIR_EINVALIDARG), as
                                 lake.json records the URI. docs/catalog.md */
  const char *warehouse;      /* init only: NULL = the lake's own warehouse folder. An
                                 object-store prefix "s3://bucket/prefix" (credentials from
                                 the AWS variables and profile files; docs/storage.md) */
  const char *author;         /* recorded in commits made through the handle; NULL =
                                 "user@hostname" from the process's passwd entry and host
                                 name */
  int threads;                /* SQL engine threads; 0 = DuckDB's default (all cores) */
  const char *memory_limit;   /* SQL engine memory limit, e.g. "4GB"; NULL = DuckDB's
                                 default */
  const char *python;         /* interpreter for Python models and discovery (it must have
                                 the weir SDK); NULL = the .venv of the source tree libweir
                                 was built in, else python3 on PATH */
  const char *duckdb_library; /* path of libduckdb.so; NULL = the default lookup (the
                                 dynamic loader's, then the one weir was built against).
                                 One DuckDB is loaded per process: a different path than
                                 the one already loaded is WEIR_EINVALIDARG */
  int catalog_sync;           /* a weir_catalog_sync */
  int busy_timeout_ms;        /* how long a writer waits for another's catalog lock before
                                 WEIR_ECATALOG "busy", in milliseconds; 0 = 30000 */
  const char *worker_library; /* the libweir Python model workers load; NULL = this
                                 library (tests run an instrumented CLI with plain workers) */
} weir_lake_options;

#define WEIR_LAKE_OPTIONS_VERSION 1
#define WEIR_LAKE_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_LAKE_OPTIONS_VERSION)

/** Fills *opts with the defaults of `version` (WEIR_LAKE_OPTIONS_VERSION). Returns WEIR_OK,
 *  or WEIR_EINVALIDARG for a version this library does not know (opts untouched). */
WEIR_API int weir_lake_options_init(weir_lake_options *opts, unsigned int version);

/**
 * Creates a lake at `path` (a folder that must not already hold a lake; created if
 * missing, with its parents), or at `./.weir` when `path` is NULL: the catalog, the
 * warehouse, and the first (empty) commit on `main`.
 *
 * The warehouse (where table data and Iceberg metadata go) is `path/warehouse` unless
 * `opts->warehouse` names an object-store prefix, "s3://bucket/prefix" (docs/storage.md:
 * endpoint and credentials come from the usual AWS variables and profile files, never
 * from the lake). Its URI is recorded in `path/lake.json`; init checks that the bucket
 * is reachable with the resolved credentials and whether the server honours conditional
 * puts. The catalog is `path/catalog.db` unless `opts->catalog` names a PostgreSQL
 * database. `opts` may be NULL (every default).
 * On success *out is an open handle to free with weir_lake_free().
 * Errors: WEIR_EINVALIDARG for an empty path (""; most likely an unset variable), a
 * warehouse that is not an s3:// URI, a path or prefix with characters Iceberg readers
 * would misread ('?', '#', '%', control characters), an unknown options version, a
 * catalog URI that is not valid or holds a password, negative threads or
 * busy_timeout_ms, an unknown catalog_sync; WEIR_EEXISTS if a lake is already there, or
 * the PostgreSQL schema already holds a weir catalog; WEIR_ENOTFOUND for a missing bucket
 * or PostgreSQL database; WEIR_EIO (storage denied or unreachable, catalog server
 * unreachable), WEIR_ECATALOG (also: login refused).
 */
WEIR_API int weir_lake_init(const char *path, const weir_lake_options *opts, weir_lake **out,
                            weir_error *err);

/**
 * Opens the lake at `path`. With path NULL: the nearest `.weir` folder found walking up
 * from the current directory (as git finds .git); the library reads no $WEIR_LAKE (the
 * CLI and the SDK do). The warehouse is the one recorded at init; S3 credentials are
 * resolved again for this handle. A lake whose catalog is on PostgreSQL connects with the
 * URI recorded in its lake.json plus libpq's environment (PG* variables, ~/.pgpass).
 * `opts` may be NULL; its catalog and warehouse must be NULL (a lake records its own).
 * Errors: WEIR_ENOTFOUND (no lake; the message says where weir looked), WEIR_ECATALOG
 * (unreadable catalog, or a catalog newer than this library), WEIR_EINVALIDARG (as for
 * weir_lake_init), WEIR_EIO (catalog server unreachable).
 */
WEIR_API int weir_lake_open(const char *path, const weir_lake_options *opts, weir_lake **out,
                            weir_error *err);

/** The lake's warehouse location: an absolute folder, or "s3://bucket/prefix". Owned by
 *  the handle. */
WEIR_API const char *weir_lake_warehouse(const weir_lake *lake);

/** Closes the lake and frees the handle. NULL-safe. */
WEIR_API void weir_lake_free(weir_lake *lake);

/** The lake's absolute path. Owned by the handle. */
WEIR_API const char *weir_lake_path(const weir_lake *lake);

/** Sets the author recorded in commits made through this handle (copied). The default is
 *  weir_lake_options.author. Errors: WEIR_EINVALIDARG (NULL or empty). */
WEIR_API int weir_lake_set_author(weir_lake *lake, const char *author, weir_error *err);

/**
 * Progress callback for long operations (imports, runs): `event` is a short JSON object
 * such as {"phase":"model","model":"f","rows":1200,"elapsed_us":30000}. Called on the
 * calling thread. Pass fn NULL to remove.
 */
typedef void (*weir_progress_fn)(const char *event_json, void *ctx);
WEIR_API void weir_lake_set_progress(weir_lake *lake, weir_progress_fn fn, void *ctx);

/**
 * Asks a long operation running on `lake` (weir_project_run) to stop: the model being run
 * is stopped (a Python worker is terminated; a SQL model's statement is interrupted in the
 * engine), the run
 * is recorded as failed ("interrupted"), its branch is kept, and the target branch is not
 * touched; weir_project_run returns WEIR_EINTERRUPTED. Async-signal-safe: meant to be
 * called from a SIGINT/SIGTERM handler or another thread. The request lasts until the
 * next weir_project_run starts.
 */
WEIR_API void weir_lake_interrupt(weir_lake *lake);

/* ====================================================================================
 * Refs and commits
 * ==================================================================================== */

/** Size of a full commit hash in hex plus the terminating NUL. */
#define WEIR_HASH_HEX_SIZE 65

/** Resolves `ref` to a full commit hash written to out_hash (NUL-terminated).
 *  Errors: WEIR_EINVALIDARG (malformed ref), WEIR_ENOTFOUND (no such ref, or a prefix
 *  that matches nothing), WEIR_EINVALIDARG (an ambiguous prefix; the message lists the
 *  candidates). */
WEIR_API int weir_ref_resolve(weir_lake *lake, const char *ref, char out_hash[WEIR_HASH_HEX_SIZE],
                     weir_error *err);

/**
 * Commits reachable from `ref`, newest first (by time, ties by hash), at most
 * `max_count` (0 = all). *out_json: {schema_version, commits: [{hash, parents, time,
 * author, message, properties, tables_changed: [{table, change}]}]} (commit_log.schema.json).
 */
WEIR_API int weir_commit_log(weir_lake *lake, const char *ref, int64_t max_count, char **out_json,
             weir_error *err);

/** One commit with, per table, the metadata file and snapshot it points to.
 *  *out_json: {hash, parents, time, author, message, properties, tables: [{table,
 *  metadata_location, snapshot_id, record_count}]}. */
WEIR_API int weir_commit_show(weir_lake *lake, const char *ref, char **out_json, weir_error *err);

/** Tables added, removed and changed from ref_a to ref_b, with row-count change.
 *  *out_json: {from, to, added:[...], removed:[...], changed:[...]} (docs/json.md). */
WEIR_API int weir_commit_diff(weir_lake *lake, const char *ref_a, const char *ref_b, char **out_json,
              weir_error *err);

/* ====================================================================================
 * Branches and tags
 * ==================================================================================== */

/** Creates branch `name` at `from_ref` (NULL = "main"), copying no data; writes the new
 *  head to out_head when it is not NULL. Cost does not depend on the size of the lake.
 *  Errors: WEIR_EINVALIDNAME, WEIR_EEXISTS, WEIR_ENOTFOUND (from_ref). */
WEIR_API int weir_branch_create(weir_lake *lake, const char *name, const char *from_ref,
                       char out_head[WEIR_HASH_HEX_SIZE], weir_error *err);

/** Flags for weir_branch_delete. */
#define WEIR_BRANCH_FORCE 1u

/** Deletes branch `name`. Refuses `main`, and a branch whose head is not reachable from
 *  another branch or tag unless flags has WEIR_BRANCH_FORCE (commits stay readable by
 *  hash either way). Errors: WEIR_ENOTFOUND, WEIR_EINVALIDARG (main, unmerged). */
WEIR_API int weir_branch_delete(weir_lake *lake, const char *name, unsigned flags, weir_error *err);

/** All branches: *out_json is {schema_version, branches: [{name, head, time}]}, sorted by
 *  name (branch_list.schema.json). */
WEIR_API int weir_branch_list(weir_lake *lake, char **out_json, weir_error *err);

/** Creates tag `name` at `ref` (NULL = "main"). Tags never move.
 *  Errors: WEIR_EINVALIDNAME, WEIR_EEXISTS, WEIR_ENOTFOUND. */
WEIR_API int weir_tag_create(weir_lake *lake, const char *name, const char *ref,
                    char out_target[WEIR_HASH_HEX_SIZE], weir_error *err);
/** Deletes tag `name`. Errors: WEIR_ENOTFOUND. */
WEIR_API int weir_tag_delete(weir_lake *lake, const char *name, weir_error *err);
/** All tags: {schema_version, tags: [{name, target, time}]}, sorted by name. */
WEIR_API int weir_tag_list(weir_lake *lake, char **out_json, weir_error *err);

/* ====================================================================================
 * Merge
 * ==================================================================================== */

typedef struct weir_merge_options {
  unsigned int version; /* WEIR_MERGE_OPTIONS_VERSION */
  const char *message;  /* merge commit message; NULL = "Merge SOURCE into TARGET" */
  int no_ff;            /* create a merge commit even when a fast-forward is possible */
  int allow_partial;    /* merge even if the source history holds failed-run commits */
  const char *strategy; /* how a conflicting table is resolved: NULL or "" = it is not (the
                           merge fails, nothing written); "source-wins": take the source's
                           version; "target-wins": keep the target's. Resolved tables are
                           listed with change "conflict: source wins" / "... target wins" */
  const char *expect_head; /* the head of `into` the caller reviewed (hash, prefix or ref), or
                           NULL. If `into` moved past it, the merge is refused
                           (WEIR_ECONCURRENT, nothing written) when a table it would change
                           on `into` changed since, or when it is not in into's history */
  const char *const *checks; /* projects (folders; n_checks of them) whose plan must pass at
                           the merged state, on top of those `into` requires (merge gate,
                           docs/versioning.md); NULL = none beyond the required ones */
  size_t n_checks;
} weir_merge_options;

#define WEIR_MERGE_OPTIONS_VERSION 2
#define WEIR_MERGE_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_MERGE_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_MERGE_OPTIONS_VERSION): every field zero or NULL.
 *  Returns WEIR_OK, or WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_merge_options_init(weir_merge_options *opts, unsigned int version);

/**
 * Merges `source` (any ref) into branch `into` as docs/versioning.md describes:
 * fast-forward, already up to date, or a three-way merge at table level against the
 * merge base. *out_json: {result: "fast-forward"|"merge"|"up-to-date", commit, base,
 * tables: [...]}. A table both sides only appended to since the merge base is combined
 * into one new version holding both sides' rows (action "merged: appends"), not a conflict.
 * Errors: WEIR_ECONFLICT with details listing every conflicting table and what each
 * side did (nothing is written), unless opts->strategy resolves them; WEIR_EINVALIDARG
 * for an unknown strategy; WEIR_EPARTIAL when the source history holds commits of
 * a run that did not succeed (details name the runs) and allow_partial is 0;
 * WEIR_ECONCURRENT if `into` kept moving; WEIR_ENOTFOUND.
 * Merge gate (docs/versioning.md, "Merge gate"): when `into` requires checks
 * (weir_branch_require_checks) or opts->checks names projects, the merge is computed and
 * committed in one catalog write transaction, and before it commits every such project is
 * planned (stage 2) at the merged commit and every table the merge changes is validated
 * against its stored contract there; any failure rolls the merge back (nothing written)
 * with WEIR_EPLAN (details: the plan problems, each with its project) or WEIR_ECONTRACT
 * (details: the violations, each with its table), the message naming the model or table.
 * A project folder that does not exist is WEIR_ENOTFOUND. The write lock is held while
 * the gate plans, so the result it checked is exactly the state committed.
 */
WEIR_API int weir_branch_merge(weir_lake *lake, const char *source, const char *into,
               const weir_merge_options *opts, char **out_json, weir_error *err);

/**
 * The breaking contract changes merging `source` (any ref) into branch `into` (NULL =
 * "main") would make: for every table the merge would take from the source (changed
 * there since the merge base, different on `into`), whose stored contract on `into` the
 * source's version breaks, a weir_contract_diff document plus {table}. *out_json
 * (merge_contracts.schema.json): {schema_version, breaking_changes: [...]} (empty when
 * none). Writes nothing; `weir merge` refuses such a merge unless
 * --allow-breaking (pair with weir_project_readers for the models affected).
 * Errors: WEIR_ENOTFOUND (ref or branch).
 */
WEIR_API int weir_branch_merge_contracts(weir_lake *lake, const char *source, const char *into, char **out_json,
                                         weir_error *err);

/* ====================================================================================
 * Tables
 * ==================================================================================== */

/** Tables at `ref` (NULL = "main"): {schema_version, tables: [{table, record_count,
 *  snapshot_id, metadata_location}]}, sorted by name. */
WEIR_API int weir_table_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err);

/** One table at `ref`: {table, ref, commit, snapshot_id, metadata_location, comment,
 *  record_count, columns: [{name, type, weir_type, required, doc, field_id, lineage}],
 *  properties, contract}. Errors: WEIR_ENOTFOUND (naming the table and the ref). */
WEIR_API int weir_table_describe(weir_lake *lake, const char *table, const char *ref, char **out_json,
                  weir_error *err);

typedef struct weir_revert_options {
  unsigned int version; /* WEIR_REVERT_OPTIONS_VERSION */
  const char *message;  /* NULL = a message naming what was reverted */
  int allow_partial;    /* revert one table of a run on its own; for a run's revert, take
                           back only the tables still at the run's versions */
  const char *expect_head; /* the branch head the revert was decided at (hash, prefix or
                           ref), or NULL for the current head. If the branch moved past it,
                           the revert is refused (WEIR_ECONCURRENT, nothing written) when a
                           table it reverts changed since */
  int allow_contract_change; /* let the revert change a table's stored contract (to the
                           one of the version it restores); without it that is refused
                           with WEIR_ECONTRACT: contracts change only through a write
                           that names one */
} weir_revert_options;

#define WEIR_REVERT_OPTIONS_VERSION 1
#define WEIR_REVERT_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_REVERT_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_REVERT_OPTIONS_VERSION): every field zero or NULL.
 *  Returns WEIR_OK, or WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_revert_options_init(weir_revert_options *opts, unsigned int version);

/** Commits on `branch` (NULL = "main") the pointer `table` had at `to_ref`, or drops the
 *  table if it did not exist there. Refused with WEIR_EPARTIAL (naming the run and its
 *  other tables), unless allow_partial, when the table's current version was published
 *  by a run together with other tables, or the version it restores was written by a run
 *  whose other tables are no longer at that run's versions; with WEIR_ECONTRACT when it
 *  would change the table's stored contract, unless allow_contract_change.
 *  *out_json: {commit, table, change, to, branch}. */
WEIR_API int weir_table_revert(weir_lake *lake, const char *table, const char *to_ref,
                      const char *branch, const weir_revert_options *opts, char **out_json,
                      weir_error *err);

/** Puts every table run `run_id` wrote back as it was before the run, in one commit on
 *  `branch` (NULL = the run's target branch). Only what the run put there is taken back:
 *  a table that another write changed since (or that the run never published) is a
 *  WEIR_ECONCURRENT refusal naming it and the commit that changed it, unless
 *  opts->allow_partial, which reverts the rest and leaves those. Refused with
 *  WEIR_ECONTRACT when the revert would change a table's stored contract, unless
 *  opts->allow_contract_change. *out_json: {commit, run_id, tables}. */
WEIR_API int weir_run_revert(weir_lake *lake, const char *run_id, const char *branch,
                    const weir_revert_options *opts, char **out_json, weir_error *err);

/* ====================================================================================
 * Writing data
 * ==================================================================================== */

typedef enum weir_write_mode {
  WEIR_MODE_CREATE = 0,  /* the table must not exist */
  WEIR_MODE_APPEND = 1,  /* add rows to an existing table (created if missing) */
  WEIR_MODE_REPLACE = 2  /* replace the table's rows and schema (created if missing) */
} weir_write_mode;

typedef struct weir_import_options {
  unsigned int version;       /* WEIR_IMPORT_OPTIONS_VERSION */
  const char *table;          /* required: target table */
  const char *branch;         /* NULL = "main" */
  weir_write_mode mode;
  const char *contract_path;  /* YAML or JSON contract to check the data against, or NULL */
  const char *message;        /* commit message; NULL = "import FILE into TABLE" */
  const char *format;         /* "csv", "parquet", "jsonl"; NULL = from the extension */
  const char *expect_head;    /* the write's base: a commit (hash, unique prefix or ref) that
                                 must be the branch's head or in its history; the import is
                                 validated at it and refused (WEIR_ECONCURRENT, nothing
                                 written) if the table changed on the branch since. NULL =
                                 the head when the import starts */
  /* How a CSV file is read (ignored for Parquet and JSON lines): */
  const char *delimiter;        /* the field separator, one character ("\t" for tab); NULL =
                                   tab for .tsv, else comma. A file read as one column whose
                                   every line holds ';', tab or '|' gets a warning */
  const char *quote;            /* the quote character, escaped by doubling; NULL = '"' */
  const char *date_format;      /* strptime format of date values ("%d/%m/%Y"); NULL = ISO, or
                                   a format DuckDB detects; a date whose day and month read
                                   either way (01/02/2024) is then refused (WEIR_EINPUT) */
  const char *timestamp_format; /* the same for timestamps ("%d/%m/%Y %H:%M:%S") */
  int64_t max_line_size;        /* the longest line, in bytes; 0 = DuckDB's default (2 MiB) */
  int evolve;                   /* non-zero: contract_path may differ from the table's stored
                                   contract (append or replace), as a schema evolution by
                                   field id (docs/evolution.md): columns added (optional),
                                   widened (an Iceberg promotion), documented, reordered; the
                                   table's type becomes contract_path's, in the same commit.
                                   Anything else (a narrowing, required to optional or back,
                                   a column missing, a name another column has without
                                   regard to case) is WEIR_ECONTRACT naming the column, and
                                   nothing is written. 0: an append is held to both contracts
                                   and keeps the stored one */
} weir_import_options;

#define WEIR_IMPORT_OPTIONS_VERSION 2
#define WEIR_IMPORT_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_IMPORT_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_IMPORT_OPTIONS_VERSION): every field zero or NULL (table must still be set).
 *  Returns WEIR_OK, or WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_import_options_init(weir_import_options *opts, unsigned int version);

/**
 * Loads a CSV, Parquet or JSON-lines file into a table as one commit.
 * Column types are those DuckDB's readers infer, mapped to weir types (docs/types.md).
 * With a contract, the data is validated first (docs/contracts.md): violations of mode
 * fail make the call fail with WEIR_ECONTRACT and details listing every violation, and
 * nothing is written; mode drop writes the table and `<table>__quarantine` in the same
 * commit; mode warn writes and reports.
 * *out_json: {commit, table, mode, rows_written, rows_quarantined, report}.
 *
 * Concurrency (docs/versioning.md): the import is validated against the table as it is at
 * its base (the branch head when it starts, or opts->expect_head). If the table changed on
 * the branch before the import commits, a replace or create is refused; an append lands
 * on the newer version when that version has the same schema and stored contract, is
 * validated again against the newer one when they differ (without expect_head), and is
 * refused when it read the table's rows (a `unique` rule).
 *
 * Errors: WEIR_EINVALIDNAME (table, before anything is touched), WEIR_EINPUT (e.g. a
 * ragged CSV row: the message names file and line), WEIR_ENOTFOUND, WEIR_EEXISTS (create
 * mode), WEIR_ECONTRACT, WEIR_ECONCURRENT (the table changed since the base: details name
 * it, the base and the commit that changed it; nothing was written).
 */
WEIR_API int weir_table_import(weir_lake *lake, const char *file, const weir_import_options *opts,
                char **out_json, weir_error *err);

/**
 * Like weir_table_import, but the rows come from an Arrow stream (for example a pyarrow Table
 * exported through the C Data Interface). The stream is consumed and released; its
 * buffers are read in place, never copied before validation.
 */
WEIR_API int weir_table_import_arrow(weir_lake *lake, struct ArrowArrayStream *stream,
                      const weir_import_options *opts, char **out_json, weir_error *err);

/* ====================================================================================
 * Reading data
 * ==================================================================================== */

/**
 * Runs read-only SQL over every table as it is at `ref` (NULL = "main"); a table is named
 * `namespace.name`, or bare `name` for the default namespace. On success *out is an Arrow
 * stream the caller owns: consume it, then call out->release(out). The stream holds the
 * engine's Arrow buffers; nothing is copied on the way to the caller.
 * Errors: WEIR_ENOTFOUND (a table that does not exist at ref), WEIR_EENGINE (SQL error,
 * with the engine's message), WEIR_EINVALIDARG (a statement that writes).
 */
WEIR_API int weir_query_run(weir_lake *lake, const char *sql, const char *ref,
               struct ArrowArrayStream *out, weir_error *err);

/**
 * Like weir_query_run, but every column comes back as its text rendering by the engine
 * (strings; NULL stays null), for display: numbers, dates and nested values are printed
 * the way the engine prints them.
 */
WEIR_API int weir_query_run_text(weir_lake *lake, const char *sql, const char *ref,
                    struct ArrowArrayStream *out, weir_error *err);

/**
 * Runs a query like weir_query_run and writes its result to `path` in `format`: "csv" (with
 * a header row), "json" (one JSON array of row objects) or "parquet". A path of "-"
 * writes to standard output (csv and json only). *rows_out (if not NULL) receives the
 * number of rows written. Errors as weir_query_run, plus WEIR_EIO for the output file.
 */
WEIR_API int weir_query_export(weir_lake *lake, const char *sql, const char *ref, const char *format,
                      const char *path, int64_t *rows_out, weir_error *err);

/**
 * What a query would read, without running it: for each table it reads, how many of the
 * table's data files at `ref` (NULL = "main") are read of how many there are, after
 * pruning by partition values and column statistics (docs/partitioning.md). *out_json is
 * the "query_explain" document (docs/schema/query_explain.schema.json): {"schema_version",
 * "commit", "tables": [{"table", "files_total", "files_read", "pruned_by_partition",
 * "pruned_by_stats", "filters_used", "partition_fields", "filters"}]}; the caller frees it
 * with weir_free. Errors as weir_query_run. Thread-safety: as weir_query_run.
 */
WEIR_API int weir_query_explain(weir_lake *lake, const char *sql, const char *ref, char **out_json, weir_error *err);

/* ====================================================================================
 * Contracts
 * ==================================================================================== */

/** A compiled contract (the IR of docs/contract-ir.md). Immutable; thread-safe to share. */
typedef struct weir_contract weir_contract;

/** Loads a contract from a YAML (.yml, .yaml) or IR JSON (.json) file. Errors name the
 *  file, line and column: WEIR_EINPUT (syntax, unknown type, bad rule), WEIR_ENOTFOUND. */
WEIR_API int weir_contract_load(const char *path, weir_contract **out, weir_error *err);

/** Parses a contract from memory. `format` is "yaml" or "json"; `origin` names the source
 *  in error messages (a file name, "<string>"). */
WEIR_API int weir_contract_parse(const char *text, size_t len, const char *format, const char *origin,
                        weir_contract **out, weir_error *err);

/** The contract's IR as canonical JSON. Caller frees with weir_free(). */
WEIR_API char *weir_contract_to_json(const weir_contract *contract);

/** Frees a contract. NULL-safe. */
WEIR_API void weir_contract_free(weir_contract *contract);

/**
 * Classifies every difference between `old_contract` and `new_contract` by whom it can
 * break (docs/contracts.md, "Breaking changes"). *out_json (weir_free;
 * contract_diff.schema.json): {schema_version, old: {name, version}, new: {...}, breaking, breaks_consumers, breaks_producers, version_ok (false
 * when a breaking change does not raise the major version), version_message, changes:
 * [{change, column, message, breaks: ["consumers", "producers"]}], affected_columns,
 * table_wide}. Reads nothing; thread-safe. Errors: WEIR_EINVALIDARG (a NULL contract).
 */
WEIR_API int weir_contract_diff(const weir_contract *old_contract, const weir_contract *new_contract,
                                char **out_json, weir_error *err);

/**
 * Validates an Arrow stream against a contract, as the output of a model or an import:
 * missing, unknown and uncastable columns, nulls in required columns, and every quality
 * rule with its mode. Widening casts are applied. The input stream is consumed and
 * released. When out_valid is not NULL it receives the validated (cast, and with rows of
 * drop-mode rules removed) data as a stream the caller releases. *out_report_json: {ok,
 * violations: [{kind, column, rule, mode, count, rows, samples, message}], rules:
 * [...results...]}. Returns WEIR_ECONTRACT when a fail-mode violation was found (the
 * report is still filled).
 */
WEIR_API int weir_contract_validate(const weir_contract *contract, struct ArrowArrayStream *in,
                  struct ArrowArrayStream *out_valid, char **out_report_json,
                  weir_error *err);

/* ====================================================================================
 * Pipelines
 * ==================================================================================== */

/**
 * Plans project `project_dir` against the catalog at `ref` (NULL = "main") without
 * reading data or writing anything. *out_json: {ok, models: [...in execution order...],
 * problems: [...]}. Returns WEIR_EPLAN with every problem in err->details (file, line,
 * model, column, expected, found) when the project does not plan. The project's Python
 * files are imported in the model sandbox (docs/sandbox.md); where the kernel offers none,
 * WEIR_EUNSUPPORTED (plan with weir_project_run, dry_run and unsandboxed set).
 * Thread-safety: as every call on one lake handle (see above).
 */
WEIR_API int weir_project_check(weir_lake *lake, const char *project_dir, const char *ref,
                       char **out_json, weir_error *err);

/**
 * The models of project `project_dir` (planned at `ref`, NULL = "main", whether or not it
 * plans cleanly) that read what a contract change of `table` affects: `diff_json` is a
 * weir_contract_diff document (its affected_columns, or every column when table_wide).
 * Directly (the columns a SQL model's query names, a Python model's columns= or
 * projection schema and filter) or downstream through their outputs' lineage.
 * *out_json (readers.schema.json): {schema_version, readers: [{model, file, line, table,
 * columns, via (null, or the model whose output carries the change)}]}. The diff_json may
 * be a weir_contract_diff document or one entry of a weir_branch_merge_contracts list.
 * Errors: as weir_project_check's loading; WEIR_EINPUT (diff_json
 * is not such a document). Thread-safety: as every call on one lake handle.
 */
WEIR_API int weir_project_readers(weir_lake *lake, const char *project_dir, const char *ref, const char *table,
                                  const char *diff_json, char **out_json, weir_error *err);

typedef struct weir_run_options {
  unsigned int version; /* WEIR_RUN_OPTIONS_VERSION */
  const char *branch;   /* target branch; NULL = "main" */
  int dry_run;          /* plan and report, run nothing */
  const char *expect_head; /* the run's base: a commit of the branch (hash, prefix or ref)
                           to plan and run on, or NULL for its head when the run starts */
  int retries;          /* when the target moved while the run ran so that it cannot
                           publish (a table it read changed, or its merge conflicts),
                           plan and run again on the new head up to this many times
                           (0 = fail at once); cannot be combined with expect_head */
  int unsandboxed;      /* run the project's Python code (discovery and models) without the
                           model sandbox (docs/sandbox.md); recorded in the run. Default 0:
                           sandboxed, and WEIR_EUNSUPPORTED where the kernel offers no
                           sandbox */
  double timeout;       /* the run's wall-clock limit in seconds, from when its first model
                           starts (planning and building Python environments excluded);
                           past it the running model is stopped and the run fails with
                           WEIR_EINTERRUPTED ("ran past the run's timeout"), nothing
                           published. <= 0: none (each Python model still has its own
                           @weir.python(timeout=...)) */
} weir_run_options;

#define WEIR_RUN_OPTIONS_VERSION 1
#define WEIR_RUN_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_RUN_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_RUN_OPTIONS_VERSION): every field zero or NULL.
 *  Returns WEIR_OK, or WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_run_options_init(weir_run_options *opts, unsigned int version);

/**
 * Checks, then runs a project transactionally on a branch (docs/versioning.md): models
 * run on a temporary branch run/<id> and are merged into the target only if all passed.
 * *out_json is filled with the run record (as weir_run_show) whether or not the run
 * succeeded; after retries it is the last attempt's, with "retried_runs" listing the
 * earlier attempts' ids.
 *
 * A run reads its inputs at its base H. It publishes only if every catalog table it read
 * is still at its H version on the target (docs/versioning.md); the check, the merge, the
 * run's status and the removal of run/<id> are one catalog transaction.
 *
 * Errors: WEIR_EPLAN (nothing written, no branch created), WEIR_ECONTRACT and
 * WEIR_EMODEL (the run failed; the target is untouched and run/<id> is kept),
 * WEIR_ESTALEREAD (an input changed on the target while the run ran: details name each
 * input and the commit that changed it; nothing published), WEIR_ECONFLICT (the final
 * merge conflicted), WEIR_EINVALIDARG (negative retries, or retries with expect_head).
 */
WEIR_API int weir_project_run(weir_lake *lake, const char *project_dir, const weir_run_options *opts,
                     char **out_json, weir_error *err);

/** Runs, newest first: {schema_version, runs: [{run_id, status, branch, base_commit, result_commit,
 *  started, ended, models}]}. */
WEIR_API int weir_run_list(weir_lake *lake, char **out_json, weir_error *err);

/** One run with per-model timings, row counts, rule results and violations. */
WEIR_API int weir_run_show(weir_lake *lake, const char *run_id, char **out_json, weir_error *err);

/* ====================================================================================
 * Table management and namespaces (docs/serve.md, "Lake lifecycle")
 * ==================================================================================== */

/** Drops `table` from branch `branch` (NULL = "main") as one commit; older commits keep
 *  it (time travel), and its files stay until garbage collection. *out_json
 *  (docs/schema/table_drop.schema.json): {schema_version, commit, table, branch, change:
 *  "dropped"}. Errors: WEIR_ENOTFOUND, WEIR_EINVALIDARG (a protected branch),
 *  WEIR_ECONCURRENT. */
WEIR_API int weir_table_drop(weir_lake *lake, const char *table, const char *branch, char **out_json,
                             weir_error *err);

/** Renames `table` to `new_name` on `branch` (NULL = "main") as one commit. The table
 *  keeps its identity: the same Iceberg table (table-uuid, snapshots, metadata file),
 *  contract and lineage; the commit's properties record weir.rename_from/rename_to.
 *  *out_json (table_rename.schema.json): {schema_version, commit, table, new_name, branch}.
 *  Errors: WEIR_ENOTFOUND, WEIR_EEXISTS (new_name taken), WEIR_EINVALIDNAME,
 *  WEIR_EINVALIDARG (protected branch). */
WEIR_API int weir_table_rename(weir_lake *lake, const char *table, const char *new_name, const char *branch,
                               char **out_json, weir_error *err);

/** The history of `table`: the commits reachable from `ref` (NULL = "main") that wrote,
 *  created, dropped or renamed it, newest first, at most `max_count` (0 = all). The table
 *  is followed across renames by its name at each commit (a rename to the name hands the
 *  old name to older commits), and not past the commit that created it (a table dropped
 *  earlier under the same name is another table). *out_json: the document of
 *  weir_commit_log (commit_log.schema.json). Errors: WEIR_EINVALIDNAME (the table name),
 *  WEIR_ENOTFOUND (the ref, or a table no commit reachable from ref wrote). Reads only;
 *  thread-safety as every call on one lake handle. */
WEIR_API int weir_table_log(weir_lake *lake, const char *ref, const char *table, int64_t max_count,
                            char **out_json, weir_error *err);

/** Where a namespace change is committed. Namespaces are versioned content, as tables
 *  are (docs/versioning.md, "Namespaces"): creating or dropping one is a commit on a
 *  branch, and it exists at the commits that have it. */
typedef struct weir_namespace_options {
  unsigned int version; /* WEIR_NAMESPACE_OPTIONS_VERSION */
  const char *branch;   /* the branch to commit on; NULL: "main" */
  const char *expect_head; /* NULL, or the commit (any ref) the change was decided at:
                              refused with WEIR_ECONCURRENT, nothing written, if the
                              namespace changed on the branch since (or the commit is not
                              in the branch's history), as --expect-head of every write */
} weir_namespace_options;

#define WEIR_NAMESPACE_OPTIONS_VERSION 1
#define WEIR_NAMESPACE_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_NAMESPACE_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_NAMESPACE_OPTIONS_VERSION): every field
 *  zero or NULL. WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_namespace_options_init(weir_namespace_options *opts, unsigned int version);

/** Creates namespace `ns` (an identifier) on opts->branch (opts NULL: "main") as one
 *  commit with message "create namespace NS" and no properties. *out_json (may be NULL: no
 *  document; namespace.schema.json): {schema_version, namespace, change: "added", commit,
 *  branch}. Errors: WEIR_EEXISTS (created at the branch's head already, or lake-wide;
 *  a namespace held only by its tables may be created, so it outlives them),
 *  WEIR_EINVALIDNAME, WEIR_EINVALIDARG (a protected branch: it takes only
 *  merges), WEIR_ENOTFOUND (the branch), WEIR_ECONCURRENT (opts->expect_head). A table's
 *  namespace exists while the table does, created or not. Thread-safety: as every call on
 *  one lake handle. */
WEIR_API int weir_namespace_create(weir_lake *lake, const char *ns, const weir_namespace_options *opts,
                                   char **out_json, weir_error *err);
/** Namespaces at `ref` (NULL = "main"): "default", every one created at that commit, every
 *  one a table at ref is in, and any created lake-wide by a catalog older than versioned
 *  namespaces (docs/catalog.md). *out_json (namespace_list.schema.json): {schema_version,
 *  namespaces: [{name, created, tables}]}, sorted by name. Reads only. */
WEIR_API int weir_namespace_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err);
/** Drops created namespace `ns` from opts->branch (NULL: "main") as one commit with
 *  message "drop namespace NS"; older commits keep it. *out_json (may be NULL):
 *  {schema_version, namespace, change: "dropped", commit, branch}. Refused
 *  (WEIR_EINVALIDARG, naming one) while a table at the branch's head is in it;
 *  WEIR_ENOTFOUND when it was not created at the branch's head; WEIR_EINVALIDARG on a
 *  protected branch; WEIR_ECONCURRENT (opts->expect_head). A namespace created lake-wide
 *  by an older catalog is dropped lake-wide as before (no commit; refused while a table on
 *  any branch is in it). */
WEIR_API int weir_namespace_drop(weir_lake *lake, const char *ns, const weir_namespace_options *opts,
                                 char **out_json, weir_error *err);

/* ====================================================================================
 * Access: tokens and protected branches (docs/serve.md)
 * ==================================================================================== */

typedef struct weir_token_options {
  unsigned int version; /* WEIR_TOKEN_OPTIONS_VERSION */
  const char *name;     /* NULL: "token-" + 8 hex digits */
  int read_only;        /* the token may read only */
  const char *branches; /* fnmatch(3) pattern over branch and tag names it may reach (e.g.
                           "dev*"), or NULL for every ref; a token with a pattern cannot
                           name commits by hash */
} weir_token_options;

#define WEIR_TOKEN_OPTIONS_VERSION 1
#define WEIR_TOKEN_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_TOKEN_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_TOKEN_OPTIONS_VERSION): every field zero or
 *  NULL. WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_token_options_init(weir_token_options *opts, unsigned int version);

/** Makes a bearer token for `weir serve`. *out_json (token.schema.json): {schema_version,
 *  name, token, read_only, branches, created}: `token` is the secret, shown this once (the
 *  catalog keeps its SHA-256 only). Errors: WEIR_EEXISTS (name taken), WEIR_EINVALIDNAME,
 *  WEIR_EINVALIDARG. */
WEIR_API int weir_token_create(weir_lake *lake, const weir_token_options *opts, char **out_json,
                               weir_error *err);
/** Every token (token_list.schema.json): {schema_version, tokens: [{name, read_only,
 *  branches, created, revoked}]} (no secrets). */
WEIR_API int weir_token_list(weir_lake *lake, char **out_json, weir_error *err);
/** Revokes token `name` for good. Errors: WEIR_ENOTFOUND. */
WEIR_API int weir_token_revoke(weir_lake *lake, const char *name, weir_error *err);

/** Protects (on != 0) or unprotects branch `branch`: a protected branch changes only by
 *  merges (weir_branch_merge, runs publishing), never by a direct commit (an import, a
 *  revert, a REST commit), which is refused with WEIR_EINVALIDARG and details
 *  [{kind: "protected_branch", branch}]. Errors: WEIR_ENOTFOUND. */
WEIR_API int weir_branch_protect(weir_lake *lake, const char *branch, int on, weir_error *err);

/** Protects branch `branch` and makes the `n` (> 0) projects `projects` (folders, stored as
 *  given; a relative path is resolved against the lake folder when a merge runs) the ones
 *  whose plan gates every merge into it (weir_branch_merge), replacing those it required.
 *  weir_branch_protect(lake, branch, 0, err) drops them with the protection.
 *  Errors: WEIR_ENOTFOUND (branch), WEIR_EINVALIDARG (n == 0, an empty path). */
WEIR_API int weir_branch_require_checks(weir_lake *lake, const char *branch, const char *const *projects, size_t n,
                                        weir_error *err);
/** The protection of branch `branch`: *out_json (weir_free) {schema_version, branch,
 *  protected, require_checks: [{project (as stored), path (resolved against the lake
 *  folder)}]}. Reads only; thread-safe per handle as every reader. Errors: WEIR_ENOTFOUND
 *  (no such branch). */
WEIR_API int weir_branch_protection(weir_lake *lake, const char *branch, char **out_json, weir_error *err);

/* ====================================================================================
 * Freshness (docs/contracts.md, "Freshness SLA")
 * ==================================================================================== */

typedef struct weir_status_options {
  unsigned int version; /* WEIR_STATUS_OPTIONS_VERSION */
  const char *ref;      /* the ref whose tables are listed; NULL = "main" */
  int64_t now_us;       /* the time freshness is judged at, microseconds since the Unix
                           epoch (UTC); 0 = the clock's now. Lets tests and "what if"
                           questions fix the time: the library reads no environment */
} weir_status_options;

#define WEIR_STATUS_OPTIONS_VERSION 1
#define WEIR_STATUS_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_STATUS_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (every field zero or NULL). */
WEIR_API int weir_status_options_init(weir_status_options *opts, unsigned int version);

/**
 * Every table at opts->ref with its last change and freshness SLA. *out_json (weir_free):
 * {schema_version, ref, commit, now, ok (no SLA breached), breached (count), tables:
 * [{table, last_change: {commit, time}, sla: {freshness, seconds} or null, age_seconds,
 * status: "fresh" | "breached" | "no_sla" | "unknown"}]}, sorted by table; ages in whole
 * seconds. The last change of a table is the commit that wrote its current version (the
 * catalog's provenance: a merge keeps the time the data was written on its branch, a
 * revert to an older version brings that version's time back); "unknown" when no
 * provenance is recorded. A table is breached when its age exceeds its contract's
 * sla.freshness ("30 minutes", "1 hour", "2 days", ...). Reads only; one catalog lookup
 * per table, no history walk. Thread-safety: as every call on one handle.
 * Errors: WEIR_ENOTFOUND (ref), WEIR_EINVALIDARG (a stored sla.freshness that does not
 * parse, naming the table).
 */
WEIR_API int weir_lake_status(weir_lake *lake, const weir_status_options *opts, char **out_json, weir_error *err);

/* ====================================================================================
 * The Iceberg REST catalog server (docs/serve.md)
 * ==================================================================================== */

typedef struct weir_serve_options {
  unsigned int version;   /* WEIR_SERVE_OPTIONS_VERSION */
  const char *host;       /* address to listen on; NULL = "127.0.0.1" (loopback only) */
  int port;               /* TCP port; 0 = any free port (weir_server_port tells which) */
  int threads;            /* worker threads; 0 = 4 */
  size_t max_body_bytes;  /* largest request body accepted (413 above); 0 = 8 MiB */
  int vend_credentials;   /* non-zero: loadTable's config carries the S3 credentials the
                             server itself resolved (s3.access-key-id, ...), for engines
                             without AWS configuration of their own; 0 (default): never */
} weir_serve_options;

#define WEIR_SERVE_OPTIONS_VERSION 1
#define WEIR_SERVE_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_SERVE_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_SERVE_OPTIONS_VERSION): every field zero or
 *  NULL. WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_serve_options_init(weir_serve_options *opts, unsigned int version);

typedef struct weir_server weir_server;

/** Starts an Iceberg REST catalog server over the lake at `lake_path` (NULL: as
 *  weir_lake_open finds it) in background threads; each worker opens its own lake handle.
 *  Errors: WEIR_ENOTFOUND (no lake), WEIR_EINVALIDARG (bad host), WEIR_EIO (the port
 *  cannot be bound). Thread-safety: the server is used from the thread that started it. */
WEIR_API int weir_server_start(const char *lake_path, const weir_serve_options *opts, weir_server **out,
                               weir_error *err);
/** The TCP port the server listens on. */
WEIR_API int weir_server_port(const weir_server *srv);
/** Stops the server (finishing requests in flight) and frees it. NULL-safe. */
WEIR_API void weir_server_stop(weir_server *srv);

/* ====================================================================================
 * Compaction (docs/versioning.md, "Compaction")
 * ==================================================================================== */

typedef struct weir_compact_options {
  unsigned int version;       /* WEIR_COMPACT_OPTIONS_VERSION */
  const char *branch;         /* NULL = "main" */
  int64_t target_file_size;   /* bytes each rewritten file is about (the engine starts a new
                                 file past it); 0 = 128 MiB. A file smaller than 3/4 of it
                                 is "small" and is rewritten */
  int64_t min_files;          /* compact only when the table has at least this many small
                                 files; 0 = 2 (two small files are the fewest worth joining) */
  int dry_run;                /* non-zero: report what would be rewritten, write nothing */
  const char *message;        /* commit message; NULL = "compact TABLE: N files into M" */
} weir_compact_options;

#define WEIR_COMPACT_OPTIONS_VERSION 1
#define WEIR_COMPACT_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_COMPACT_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_COMPACT_OPTIONS_VERSION): every field
 *  zero or NULL. Returns WEIR_OK, or WEIR_EINVALIDARG for a version this library does not
 *  know. */
WEIR_API int weir_compact_options_init(weir_compact_options *opts, unsigned int version);

/** Rewrites the small data files of `table` on opts->branch into files of about
 *  opts->target_file_size, as one commit that changes no row: an Iceberg "replace"
 *  snapshot that deletes the rewritten files and adds the new ones (same schema, field
 *  ids, codec and statistics as any weir write; the contract is not validated again, no
 *  row changed). Older commits keep their files, so reads at them are unchanged. Appends
 *  committed on the branch meanwhile are kept: the compaction lands on top of them. It is
 *  refused with WEIR_ECONCURRENT (nothing committed; the files it wrote are removed)
 *  when another writer replaced or deleted a file it rewrote, or
 *  changed the table's schema or contract. Fewer small files than opts->min_files is no
 *  commit (`compacted` false, with a `reason`). opts may be NULL (the defaults).
 *  *out_json: {table, branch, base, dry_run, compacted, reason, commit, target_file_size,
 *  files_before, files_after, files_rewritten, files_written, rows_rewritten,
 *  bytes_rewritten, bytes_written} (sizes in bytes; with dry_run, files_written and
 *  bytes_written are estimates). Emits progress events {phase: "compact"} before writing
 *  and {phase: "commit"} before committing. Errors: WEIR_ENOTFOUND (table or branch),
 *  WEIR_EINVALIDARG (negative sizes, a protected branch), WEIR_ECONCURRENT, WEIR_EENGINE.
 *  Thread-safety: as every call on one lake handle (one thread at a time). */
WEIR_API int weir_table_compact(weir_lake *lake, const char *table, const weir_compact_options *opts,
                                char **out_json, weir_error *err);

/* ====================================================================================
 * External data: tables and files other engines wrote, adopted by reference
 * ==================================================================================== */

typedef struct weir_register_options {
  unsigned int version;       /* WEIR_REGISTER_OPTIONS_VERSION */
  const char *branch;         /* NULL = "main" */
  const char *contract_path;  /* YAML or JSON contract the data must meet (stored with the
                                 table by weir_table_register), or NULL */
  const char *message;        /* commit message; NULL = "register ..." */
} weir_register_options;

#define WEIR_REGISTER_OPTIONS_VERSION 1
#define WEIR_REGISTER_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_REGISTER_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_REGISTER_OPTIONS_VERSION): every field
 *  NULL. WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_register_options_init(weir_register_options *opts, unsigned int version);

/**
 * Adopts the Iceberg table whose metadata file is `metadata` (a path, a file:// or s3://
 * URI, or a table folder holding metadata/version-hint.text, as Hadoop catalogs write)
 * as the new table `table` on opts->branch, as one commit. Its data files are referenced
 * where they are; no file of the external table is written or modified: weir writes its
 * own metadata file (in the table's folder under the warehouse) whose snapshot lists the
 * external data files with the statistics of the external manifests. The folder of the
 * external table is granted to the lake's SQL engines (LAKE/external-locations).
 * Checked before anything is written: format-version 2; every column of a type weir
 * stores (WEIR_EUNSUPPORTED naming the column and its Iceberg type otherwise); no
 * partitioning and no delete files; data files carry field ids for every column or for
 * none (those are read by name under the table's name mapping, which weir's version
 * carries; WEIR_EINPUT naming the file otherwise); required columns hold no nulls (by
 * the manifests' null counts, reading the data where a count is missing); with
 * opts->contract_path, the
 * data read and validated against the contract (WEIR_ECONTRACT), which is then stored
 * with the table.
 * *out_json: {commit, branch, table, mode: "create", source, files, rows, report}.
 * Errors: WEIR_ENOTFOUND (no such file), WEIR_EINPUT (not an Iceberg metadata file, with
 * what is wrong), WEIR_EEXISTS (the table exists on the branch), WEIR_EUNSUPPORTED,
 * WEIR_ECONTRACT. Nothing is committed on error.
 */
WEIR_API int weir_table_register(weir_lake *lake, const char *table, const char *metadata,
                                 const weir_register_options *opts, char **out_json, weir_error *err);

/**
 * Appends the Parquet files `paths[0..n_paths)` (absolute paths or URIs) to the existing
 * table `table` by reference, as one append commit: the files are not copied. Each file's
 * columns are matched to the table's by Iceberg field id (so a physical name such as
 * `id_x3Afoo` carrying the field id of `id:foo` is that column), or, for a file without
 * any field id, by exact name; then the table property schema.name-mapping.default is
 * set (every column under its field id) so that every engine reads the file the same
 * way. A file with ids for some columns only is WEIR_EINPUT. Types must equal the
 * table's (or be an Iceberg promotion: int to long, float to double). A required column
 * must be a REQUIRED Parquet field whose footer reports no nulls. The table's stored
 * contract (and opts->contract_path, when given) is checked by reading the files' data
 * when it has rules beyond types and nullability (a `unique` rule over the table's rows
 * and the files together). Statistics (value and null counts,
 * sizes) come from the Parquet footers; bounds are not recorded.
 * *out_json: {commit, branch, table, mode: "append", source: null, files, rows, report}.
 * Errors: WEIR_ENOTFOUND (a missing file or table), WEIR_EINPUT naming the file and
 * column (a column the table does not have, ids for some columns only, a column of
 * another type, nulls in a required column), WEIR_ECONTRACT.
 * Nothing is committed on error.
 */
WEIR_API int weir_table_register_files(weir_lake *lake, const char *table, const char *const *paths,
                                       size_t n_paths, const weir_register_options *opts, char **out_json,
                                       weir_error *err);

/* ====================================================================================
 * Garbage collection and branch pruning (docs/gc.md)
 * ==================================================================================== */

/** weir_gc_options.grace_us value that collects unreferenced files whatever their age. */
#define WEIR_GC_NO_GRACE ((int64_t)-1)

typedef struct weir_gc_options {
  unsigned int version;     /* WEIR_GC_OPTIONS_VERSION */
  int dry_run;              /* non-zero: report what would be deleted and marked; change nothing */
  int64_t grace_us;         /* files modified less than this long ago are kept, referenced or
                               not (a concurrent writer may be about to commit them);
                               microseconds; 0 = one hour; WEIR_GC_NO_GRACE = none */
  int64_t expire_before_us; /* UTC microseconds, or 0 = expire nothing: commits older than
                               this that no branch head or tag names are expired (no longer
                               readable, shown as expired by weir_commit_log) and their
                               files become collectable */
} weir_gc_options;

#define WEIR_GC_OPTIONS_VERSION 1
#define WEIR_GC_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_GC_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_GC_OPTIONS_VERSION): every field zero.
 *  WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_gc_options_init(weir_gc_options *opts, unsigned int version);

/**
 * Deletes the warehouse files (data files, manifests, manifest lists, metadata files, and
 * temporary files of interrupted writes) that no live commit reaches: a live commit is
 * one a branch or tag reaches that gc has not marked. Reached means named by the commit's
 * table map (a metadata file), or by any snapshot of such a metadata file (its manifest
 * list, the manifests that lists, the data and delete files they list). Files modified
 * within the grace period are kept. Every commit no ref reaches is marked "unreachable",
 * and with expire_before_us every older commit no head or tag names "expired": resolving
 * a marked commit then fails with WEIR_ENOTFOUND saying when gc marked it. Files outside
 * the warehouse and files of other kinds are never deleted. The catalog is read, and the
 * marks written, in one write transaction (writers wait for it, not for the deletions);
 * docs/gc.md gives the argument that a commit racing gc loses no file.
 * *out_json (weir_free): {schema_version, dry_run, grace_us, cutoff, expire_before,
 * deleted: {data|manifest|manifest_list|metadata|temporary: {files, bytes}}, total:
 * {files, bytes}, kept: {reachable, young, other}, commits: {live, expired, unreachable,
 * marked: [{commit, reason}]}, writers: {excluded, waited}, files: [{location, kind, bytes,
 * modified}]} (docs/schema/gc.schema.json); with dry_run, deleted and files say what would
 * be deleted. With a grace under ten minutes (not dry_run), gc first excludes the writes
 * in flight on this machine (LAKE/writers.lock, held shared by every write of this
 * library), waiting at most 60 s (docs/gc.md).
 * Errors: WEIR_EINVALIDARG (options); WEIR_ENOTFOUND/WEIR_EINPUT when a live metadata
 * file, manifest list or manifest cannot be read (then nothing is deleted); WEIR_EIO
 * when a listing or a deletion fails (files deleted before it stay deleted: each was
 * unreferenced); WEIR_ECONCURRENT when, with a grace under ten minutes, writes are still in
 * flight after 60 s, or gc is called from inside a write of the same handle (its progress
 * callback), nothing deleted; the catalog's errors. Thread-safety: as any call on the handle (one thread
 * at a time); other handles and processes may read and write the lake meanwhile.
 */
WEIR_API int weir_lake_gc(weir_lake *lake, const weir_gc_options *opts, char **out_json, weir_error *err);

typedef struct weir_prune_options {
  unsigned int version;   /* WEIR_PRUNE_OPTIONS_VERSION */
  int runs;               /* must be non-zero: prune run branches (run/<id>), today the only
                             kind that can be pruned */
  int failed_only;        /* non-zero: only branches of runs that failed or were interrupted */
  int64_t older_than_us;  /* microseconds, 0 = any age: only branches whose head moved last
                             longer ago than this */
  int dry_run;            /* non-zero: report, delete nothing */
} weir_prune_options;

#define WEIR_PRUNE_OPTIONS_VERSION 1
#define WEIR_PRUNE_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_PRUNE_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_PRUNE_OPTIONS_VERSION): every field zero.
 *  WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_prune_options_init(weir_prune_options *opts, unsigned int version);

/**
 * Deletes run branches (run/<id>) matching the options, in one catalog write transaction.
 * The branch of a run still running (its process alive) is never deleted. Their commits
 * become unreachable; the next weir_lake_gc marks them and deletes their files. Run
 * records stay (weir_run_show). *out_json (weir_free): {schema_version, dry_run,
 * branches: [{name, head, run_id, status, updated}]} (docs/schema/branch_prune.schema.json):
 * the branches deleted (or, with dry_run, that would be); status is the run's ("failed",
 * "interrupted", "succeeded") or null when the run has no record.
 * Errors: WEIR_EINVALIDARG (runs not set, bad options); the catalog's. Thread-safety: as
 * any call on the handle (one thread at a time; other handles and processes may write
 * meanwhile: the catalog's writer lock orders them).
 */
WEIR_API int weir_branch_prune(weir_lake *lake, const weir_prune_options *opts, char **out_json, weir_error *err);

/* ====================================================================================
 * Row-level deletes (docs/versioning.md, "Deletes")
 * ==================================================================================== */

typedef struct weir_delete_options {
  unsigned int version;       /* WEIR_DELETE_OPTIONS_VERSION */
  const char *where;          /* required: the rows to delete, one SQL condition over a row
                                 (DuckDB's dialect), e.g. "id < 10 AND status = 'void'" */
  const char *branch;         /* NULL = "main" */
  const char *expect_head;    /* NULL, or the commit (any ref) the delete was decided on: it
                                 must be the branch head or in its history, and the table
                                 must not have changed since (else WEIR_ECONCURRENT) */
  const char *message;        /* commit message; NULL = "delete from TABLE where ...: N rows" */
} weir_delete_options;

#define WEIR_DELETE_OPTIONS_VERSION 1
#define WEIR_DELETE_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_DELETE_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_DELETE_OPTIONS_VERSION): every field
 *  NULL. WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_delete_options_init(weir_delete_options *opts, unsigned int version);

/** Deletes the rows of `table` on opts->branch for which opts->where is TRUE (a NULL
 *  result keeps the row), as copy-on-write: the data files holding such rows (found by
 *  reading the files their column statistics do not rule out) are rewritten without them
 *  (or dropped when every row goes); the other files stay as they are. One commit, with
 *  one Iceberg snapshot (operation "overwrite", or "delete" when files were only dropped;
 *  summary weir.operation "delete", weir.rows-deleted) and the commit properties
 *  weir.delete (the table), weir.delete.where and weir.rows-deleted. Reads at older
 *  commits still see the deleted rows. The predicate runs on a sealed engine (no file
 *  access) and must be one expression by DuckDB's parser. When the stored contract has
 *  table-level rules they are checked on the result: a delete that breaks one is refused
 *  (WEIR_ECONTRACT, nothing committed). No matching row is no commit (`deleted` false,
 *  with a `reason`). *out_json (weir_free): {schema_version, table, branch, base, where,
 *  deleted, reason, commit, rows_deleted, rows_before, rows_after, files_before,
 *  files_pruned, files_scanned, files_rewritten, files_dropped, files_written}
 *  (docs/schema/delete.schema.json). Emits progress events {phase: "delete", file} per
 *  file read and {phase: "commit"}. Errors: WEIR_EINVALIDARG (no where, a protected
 *  branch), WEIR_ENOTFOUND (table, branch), WEIR_EINPUT (a predicate that is not one
 *  condition, or does not run on the table's columns; the message names it),
 *  WEIR_ECONTRACT, WEIR_ECONCURRENT (the table changed on the branch since the base:
 *  a delete never removes rows it did not read), WEIR_EENGINE. Thread-safety: as every
 *  call on one lake handle (one thread at a time). */
WEIR_API int weir_table_delete(weir_lake *lake, const char *table, const weir_delete_options *opts, char **out_json,
                               weir_error *err);

/* ====================================================================================
 * Schema evolution: weir_table_alter (docs/evolution.md)
 * ==================================================================================== */

/** What one change of weir_table_alter does. */
typedef enum weir_alter_kind {
  WEIR_ALTER_ADD = 0,    /* add column `column` of type `value` (a weir type name, e.g.
                            "Int64", "Decimal(18, 2)"), optional (nullable), at the end */
  WEIR_ALTER_RENAME = 1, /* rename column `column` to `value`; its field id is kept */
  WEIR_ALTER_DROP = 2,   /* drop column `column` (its id is never reused) */
  WEIR_ALTER_WIDEN = 3,  /* give column `column` the type `value`, an Iceberg promotion of
                            its type: Int32 -> Int64, Float32 -> Float64,
                            Decimal(P, S) -> Decimal(P', S) with P' > P */
  WEIR_ALTER_DOC = 4,    /* set column `column`'s doc to `value` ("" removes it) */
  WEIR_ALTER_MOVE = 5    /* move column `column` after column `value` (NULL or "": first) */
} weir_alter_kind;

/** One change; strings are borrowed for the call. */
typedef struct weir_alter_change {
  weir_alter_kind kind;
  const char *column;    /* the column changed (WEIR_ALTER_ADD: the new column's name) */
  const char *value;     /* see weir_alter_kind */
  int required;          /* WEIR_ALTER_ADD: non-zero asks for a required column, which
                            Iceberg allows only with a default on a format-version 3 table:
                            refused (WEIR_EINVALIDARG) on weir's v2 tables */
} weir_alter_change;

typedef struct weir_alter_options {
  unsigned int version;              /* WEIR_ALTER_OPTIONS_VERSION */
  const char *branch;                /* NULL = "main" */
  const char *expect_head;           /* NULL: the branch head; else the commit the change is
                                        computed against (refused, WEIR_ECONCURRENT, if the
                                        table changed since) */
  const char *message;               /* NULL = "alter TABLE: <changes>" */
  const weir_alter_change *changes;  /* applied in order, as one commit */
  size_t n_changes;                  /* at least 1 */
} weir_alter_options;

#define WEIR_ALTER_OPTIONS_VERSION 1
#define WEIR_ALTER_OPTIONS_INIT WEIR_OPTIONS_INIT_(WEIR_ALTER_OPTIONS_VERSION)
/** Fills *opts with the defaults of `version` (WEIR_ALTER_OPTIONS_VERSION): every field
 *  zero or NULL. WEIR_EINVALIDARG for a version this library does not know. */
WEIR_API int weir_alter_options_init(weir_alter_options *opts, unsigned int version);

/**
 * Evolves the schema of `table` on opts->branch by Iceberg field id, as one commit: a new
 * Iceberg schema (new schema-id, current-schema-id moved, older schemas kept in the
 * metadata's `schemas`) and no new snapshot or data file. Renamed, widened and documented
 * columns keep their field ids; added columns take ids above last-column-id; a dropped
 * column's id is never reused. The stored contract follows (column renamed, dropped,
 * widened, doc changed, added). Reads at older commits use the schema of their commit.
 * Every change is checked before anything is written; the first bad one is the error,
 * naming the change and the column: a missing column, a new name equal to another
 * column's without regard to case, a type change that is not an Iceberg promotion, a
 * required column added, dropping the last column, renaming or dropping a column a SQL
 * rule of the contract names. *out_json (weir_free; docs/schema/table_alter.schema.json):
 * {schema_version, table, branch, base, commit, schema_id, previous_schema_id,
 * last_column_id, changes: [{change, column, ...}], columns: [{name, type, required,
 * doc, field_id}]}. Errors: WEIR_EINVALIDARG (bad changes, a protected branch),
 * WEIR_ENOTFOUND (table, branch), WEIR_ECONCURRENT (the table changed since the base:
 * a schema change is serialised as a replace is). Thread-safety: as any call on the
 * handle.
 */
WEIR_API int weir_table_alter(weir_lake *lake, const char *table, const weir_alter_options *opts, char **out_json,
                              weir_error *err);

#ifdef __cplusplus
}
#endif
#endif /* WEIR_H */
