/*
 * backend.h -- the relational storage under the catalog, as a table of functions.
 *
 * Everything that knows SQL lives behind this vtable; everything that knows about
 * versioning (the table trie, hashing, merges, history walks, reverts) lives above it in
 * backend-independent files (catalog.c, tree.c, history.c, merge.c, revert.c, runs.c).
 * SQLite (backend_sqlite.c) is the embedded default; the PostgreSQL backend
 * (backend_postgres.c, libpq) implements the same functions for lakes shared by many
 * machines.
 *
 * Conventions:
 *   - Every function returns WEIR_OK or a weir_error_code and fills `err` with a message
 *     naming the catalog and the operation.
 *   - "Not found" is WEIR_ENOTFOUND with a message naming the thing; callers that want a
 *     better message replace it.
 *   - Writes are only issued inside a write transaction opened with begin(write=true),
 *     which takes the database write lock at once (SQLite BEGIN IMMEDIATE; PostgreSQL
 *     an advisory lock on the lake, see backend_postgres.c), so a writer's reads see a state no
 *     other writer can change before it commits.
 *   - Nested transactions are savepoints (savepoint/release/rollback_to by depth).
 *   - Content-addressed inserts (tree nodes, commits, table versions, commit changes) are
 *     idempotent: inserting a row that is already there is not an error.
 */
#ifndef WEIR_CATALOG_BACKEND_H
#define WEIR_CATALOG_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "catalog/migrations.h"

typedef struct catalog_backend catalog_backend;

/* Provenance of one table version: the commit (and run) that first wrote it. */
typedef struct catalog_table_version {
  char *table;
  char *metadata_location;
  char commit[WEIR_HASH_LEN + 1];
  char *run_id; /* NULL when not written by a run */
} catalog_table_version;

void catalog_table_version_clear(catalog_table_version *v);
void catalog_table_versions_free(catalog_table_version *v, size_t n);

/* One row of the runs table. Strings owned; NULL when absent. */
typedef struct catalog_run_row {
  char *run_id;
  wr_run_status status;
  char *project;
  char *project_digest;
  char *branch;
  char *run_branch;
  char *base_commit;
  char *result_commit;
  int64_t started_us;
  int64_t ended_us; /* 0 while running */
  char *error_json;
  char *owner;      /* util/proc.h identity of the process running it, or NULL */
} catalog_run_row;

void catalog_run_row_clear(catalog_run_row *r);


typedef struct catalog_backend_ops {
  const char *name; /* "sqlite", "postgresql" */
  void (*close)(catalog_backend *be);

  /* ---- schema ---- */
  /* The applied schema version: 0 for an empty database, -1 for a database that holds
   * other tables but no weir schema. */
  int (*probe)(catalog_backend *be, int *version, weir_error *err);
  /* Applies one migration step and records it. Called inside a write transaction. */
  int (*migrate)(catalog_backend *be, const catalog_migration *m, weir_error *err);

  /* ---- transactions ---- */
  int (*begin)(catalog_backend *be, bool write, weir_error *err);
  int (*commit)(catalog_backend *be, weir_error *err);
  void (*rollback)(catalog_backend *be);
  int (*savepoint)(catalog_backend *be, int level, weir_error *err);
  int (*release)(catalog_backend *be, int level, weir_error *err);
  void (*rollback_to)(catalog_backend *be, int level);

  /* ---- tree nodes (content-addressed) ---- */
  int (*node_get)(catalog_backend *be, const char *hash, char **body, weir_error *err);
  int (*node_put)(catalog_backend *be, const char *hash, const char *body, weir_error *err);

  /* ---- commits ---- */
  int (*commit_get)(catalog_backend *be, const char *hash, wr_commit_rec *out,
                    weir_error *err);
  /* Inserts the commit row and its parent rows (idempotent). */
  int (*commit_put)(catalog_backend *be, const wr_commit_rec *c, weir_error *err);
  /* Up to `max` full hashes starting with `prefix` (lowercase hex), in hash order. */
  int (*commit_prefix)(catalog_backend *be, const char *prefix,
                       char (*out)[WEIR_HASH_LEN + 1], size_t max, size_t *n,
                       weir_error *err);
  int (*changes_put)(catalog_backend *be, const char *commit, const char *table,
                     wr_change_kind kind, weir_error *err);
  /* JSON array of {table, change} in table order. */
  int (*changes_get)(catalog_backend *be, const char *commit, json_t **out, weir_error *err);

  /* ---- refs ---- */
  int (*ref_get)(catalog_backend *be, wr_ref_kind kind, const char *name,
                 char out[WEIR_HASH_LEN + 1], weir_error *err);
  int (*ref_list)(catalog_backend *be, wr_ref_kind kind, wr_ref_rec **out, size_t *n,
                  weir_error *err);
  /* WEIR_EEXISTS if the name is taken. */
  int (*ref_create)(catalog_backend *be, wr_ref_kind kind, const char *name,
                    const char *target, int64_t now_us, weir_error *err);
  int (*ref_delete)(catalog_backend *be, wr_ref_kind kind, const char *name,
                    weir_error *err);
  /* UPDATE ... WHERE head = expected; *swapped tells whether a row changed. */
  int (*ref_cas)(catalog_backend *be, const char *name, const char *expected,
                 const char *target, int64_t now_us, bool *swapped, weir_error *err);

  /* ---- provenance ---- */
  int (*version_put)(catalog_backend *be, const char *metadata_location, const char *table,
                     const char *commit, const char *run_id, weir_error *err);
  int (*version_get)(catalog_backend *be, const char *metadata_location,
                     catalog_table_version *out, bool *found, weir_error *err);
  /* Every table version first written by a run. */
  int (*run_versions)(catalog_backend *be, const char *run_id, catalog_table_version **out,
                      size_t *n, weir_error *err);
  /* Every table a run's commits changed (written or dropped), sorted, distinct. */
  int (*run_tables)(catalog_backend *be, const char *run_id, char ***out, size_t *n,
                    weir_error *err);

  /* ---- runs ---- */
  int (*run_create)(catalog_backend *be, const catalog_run_row *r, weir_error *err);
  int (*run_model_put)(catalog_backend *be, const char *run_id, const char *model,
                       const char *body, weir_error *err);
  int (*run_finish)(catalog_backend *be, const char *run_id, wr_run_status status,
                    const char *result_commit, const char *error_json, int64_t ended_us,
                    weir_error *err);
  int (*run_get)(catalog_backend *be, const char *run_id, catalog_run_row *out,
                 weir_error *err);
  /* Model bodies of a run in the order they were first recorded. */
  int (*run_models)(catalog_backend *be, const char *run_id, char ***bodies, size_t *n,
                    weir_error *err);
  /* Run ids newest first (max 0 = all). */
  int (*run_list)(catalog_backend *be, int64_t max, char ***ids, size_t *n, weir_error *err);

  /* ---- access (access.c) ---- */
  /* WEIR_EEXISTS when the name is taken. */
  int (*token_put)(catalog_backend *be, const catalog_token_row *r, weir_error *err);
  /* The token whose secret hashes to `sha256`; *found false when none. */
  int (*token_find)(catalog_backend *be, const char *sha256, catalog_token_row *out, bool *found,
                    weir_error *err);
  /* Every token, by name. */
  int (*token_list)(catalog_backend *be, catalog_token_row **out, size_t *n, weir_error *err);
  /* Sets revoked_us of a valid token; *found false when no valid token has the name. */
  int (*token_revoke)(catalog_backend *be, const char *name, int64_t now_us, bool *found,
                      weir_error *err);
  /* Protects (on) or unprotects a branch; idempotent. */
  int (*protect_set)(catalog_backend *be, const char *branch, bool on, int64_t now_us,
                     weir_error *err);
  int (*protect_get)(catalog_backend *be, const char *branch, bool *on, weir_error *err);
  /* The projects gating merges into `branch`: set replaces them all (n = 0 clears), get
   * returns them in the order they were given (*projects owned, n may be 0). */
  int (*checks_set)(catalog_backend *be, const char *branch, const char *const *projects, size_t n,
                    int64_t now_us, weir_error *err);
  int (*checks_get)(catalog_backend *be, const char *branch, char ***projects, size_t *n, weir_error *err);
  /* Namespaces: put inserts (WEIR_EEXISTS when there) or, with replace, rewrites the
   * properties (a JSON object of strings, as text) of an existing one. */
  int (*namespace_put)(catalog_backend *be, const char *name, const char *properties, bool replace,
                       int64_t now_us, weir_error *err);
  int (*namespace_get)(catalog_backend *be, const char *name, char **properties, bool *found,
                       weir_error *err);
  int (*namespace_list)(catalog_backend *be, char ***names, size_t *n, weir_error *err);
  int (*namespace_delete)(catalog_backend *be, const char *name, bool *found, weir_error *err);

  /* ---- garbage collection (gc.c) ---- */
  /* Every commit hash, in no particular order. */
  int (*commit_all)(catalog_backend *be, char ***hashes, size_t *n, weir_error *err);
  /* Marks a commit expired (insert-if-absent: the first mark, its time and reason, stays). */
  int (*expiry_put)(catalog_backend *be, const char *hash, int64_t expired_us, const char *reason,
                    weir_error *err);
  /* The mark of a commit: *found false when it has none (then *expired_us and *reason
   * untouched); *reason owned by the caller. */
  int (*expiry_get)(catalog_backend *be, const char *hash, int64_t *expired_us, char **reason, bool *found,
                    weir_error *err);
} catalog_backend_ops;

struct catalog_backend {
  const catalog_backend_ops *ops;
};

/* Opens (create: creates the file if missing) a SQLite catalog at `path`, configured:
 * WAL, busy timeout, foreign keys, synchronous from `settings` (NULL: defaults). Does not touch
 * the schema. Errors: WEIR_ENOTFOUND (no file and !create), WEIR_ECATALOG. */
int catalog_backend_sqlite_open(const char *path, bool create, const wr_catalog_settings *settings,
                                catalog_backend **out,
                                weir_error *err);

/* Connects to the PostgreSQL catalog at `uri` (catalog_open's form), sets search_path to
 * its schema, and with `create` makes the schema if missing. Does not touch weir's tables.
 * *where (owned) describes the server, database and schema for messages, without a
 * password. Errors: WEIR_ENOTFOUND (no such database), WEIR_ECATALOG (login refused),
 * WEIR_EIO (server unreachable), WEIR_EINVALIDARG (bad URI). */
int catalog_backend_postgres_open(const char *uri, bool create, const wr_catalog_settings *settings,
                                  catalog_backend **out, char **where,
                                  weir_error *err);

void catalog_strv_free(char **v, size_t n);

#endif
