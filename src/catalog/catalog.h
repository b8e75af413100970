/*
 * catalog.h -- the versioned catalog: commits over all tables, branches, tags, merges,
 * reverts, and the run records that make pipeline runs transactional.
 *
 * Model (docs/versioning.md, docs/catalog.md):
 *
 *   - A commit maps every table identifier ("ns.name") to one table version: the Iceberg
 *     metadata file, the snapshot it marks current, and its record count; and every
 *     namespace created there to its properties (CATALOG_NAMESPACE_PREFIX, below). The map is
 *     stored as a content-addressed Merkle trie of tree nodes (as Git stores trees), so a
 *     commit that changes one table writes O(log n) small nodes, and a branch is one row:
 *     neither grows with the number of tables or commits.
 *   - A commit's hash is SHA-256 over canonical JSON (sorted keys, no whitespace) of
 *     {author, message, parents, properties, tables, time}, where `tables` is the root
 *     hash of the table trie (the empty map has a fixed root). Equal content gives equal
 *     hashes on every machine.
 *   - Branch heads move only by compare-and-swap inside a catalog transaction.
 *   - Everything lives in a relational database behind catalog_backend (backend.h):
 *     SQLite (WAL) by default, PostgreSQL next; this file's functions are the same for
 *     both.
 *
 * All functions return WEIR_OK or an error code and fill `err`. Strings in records are
 * owned by the record and released by its _clear function. A wr_catalog handle is
 * used by one thread at a time.
 */
#ifndef WEIR_CATALOG_CATALOG_H
#define WEIR_CATALOG_CATALOG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/error.h"

#define WEIR_HASH_LEN 64 /* hex digits */

typedef struct wr_catalog wr_catalog;

/* ---- opening ------------------------------------------------------------------------ */

/* Opens the catalog at `uri`: a file path or "sqlite:PATH" (SQLite, WAL mode, busy
 * timeout so concurrent writers queue), or "postgresql://..." / "postgres://..." (a libpq
 * URI, plus weir's own parameter `schema=NAME`, default public: one lake per schema;
 * backend_postgres.c). With `create`, makes a new catalog (schema migrations applied, the first
 * commit with no tables and message "initial commit" on branch main) and fails with
 * WEIR_EEXISTS if one is there. Without it, fails with WEIR_ENOTFOUND if none is there,
 * and migrates an older schema forward (WEIR_ECATALOG if the schema is newer than this
 * library knows). */
int catalog_open(const char *uri, bool create, const char *author, wr_catalog **out,
                 weir_error *err);

/* How the catalog's database is opened (weir_lake_options: catalog_sync, busy_timeout_ms).
 * Zeroes are the backend's defaults. */
typedef struct wr_catalog_settings {
  int sync;            /* a weir_catalog_sync */
  int busy_timeout_ms; /* 0: 30000 */
} wr_catalog_settings;

/* catalog_open with settings (NULL: every default). `author` NULL or empty: "weir". */
int catalog_open_with(const char *uri, bool create, const char *author, const wr_catalog_settings *settings,
                      wr_catalog **out, weir_error *err);
void catalog_close(wr_catalog *cat);

/* True if `uri` names a PostgreSQL catalog (postgresql:// or postgres://). */
bool catalog_is_postgres_uri(const char *uri);
/* Checks a PostgreSQL catalog location without connecting and returns in *stored (owned)
 * its canonical form with any password left out: what a lake may write down. *had_password
 * tells whether the given URI held one (as user:password@ or password=). Errors:
 * WEIR_EINVALIDARG (not a URI libpq can read, or a bad schema name). */
int catalog_postgres_location(const char *uri, char **stored, bool *had_password, weir_error *err);

/* The schema version the catalog is at (migrations applied). */
int catalog_schema_version(wr_catalog *cat);

/* ---- transactions ------------------------------------------------------------------- */

/* Explicit transactions group several calls atomically (used by runs: merge + status).
 * Nested begins are savepoints: only the outermost commit makes anything durable, and a
 * nested rollback undoes only the work since its begin (so a failed call inside an
 * explicit transaction leaves the caller's earlier work intact). A write transaction
 * takes the database write lock at begin (SQLite BEGIN IMMEDIATE), so reads inside it see
 * a state no other writer can change before commit. A write inside a read transaction is
 * refused (WEIR_ECATALOG). Functions called outside an explicit transaction run in their
 * own. */
int catalog_tx_begin(wr_catalog *cat, bool write, weir_error *err);
int catalog_tx_commit(wr_catalog *cat, weir_error *err);
void catalog_tx_rollback(wr_catalog *cat);

/* ---- records ------------------------------------------------------------------------ */

typedef struct wr_table_entry {
  char *table;              /* "ns.name" */
  char *metadata_location;  /* absolute path of the Iceberg metadata JSON */
  int64_t snapshot_id;      /* current snapshot of that file; -1 when it has none */
  int64_t record_count;     /* rows in that snapshot */
} wr_table_entry;

void wr_table_entry_clear(wr_table_entry *e);
void wr_table_entries_free(wr_table_entry *v, size_t n);

typedef struct wr_commit_rec {
  char hash[WEIR_HASH_LEN + 1];
  char parents[2][WEIR_HASH_LEN + 1];
  int n_parents;            /* 0 (the first commit), 1, or 2 (a merge) */
  char *author;
  char *message;
  int64_t time_us;          /* UTC microseconds */
  json_t *properties;       /* object of strings, never NULL (may be empty) */
  char tables_root[WEIR_HASH_LEN + 1]; /* root of the table trie */
  int64_t generation;       /* 1 + max(parents' generation); 1 for the first commit */
  char *run_id;             /* the run that wrote this commit, or NULL */
} wr_commit_rec;

void wr_commit_rec_clear(wr_commit_rec *c);
void wr_commit_recs_free(wr_commit_rec *v, size_t n);
/* The canonical JSON a commit's hash is computed over (caller frees); NULL only on OOM. */
char *catalog_commit_canonical(const wr_commit_rec *c);

typedef enum wr_ref_kind { WEIR_REF_BRANCH = 0, WEIR_REF_TAG = 1 } wr_ref_kind;

typedef struct wr_ref_rec {
  char *name;
  char target[WEIR_HASH_LEN + 1];
  int64_t updated_us;
} wr_ref_rec;

void wr_ref_recs_free(wr_ref_rec *v, size_t n);

/* One table's change in a commit relative to its first parent. */
typedef enum wr_change_kind {
  WEIR_CHANGE_ADDED = 0,
  WEIR_CHANGE_CHANGED = 1,
  WEIR_CHANGE_DROPPED = 2
} wr_change_kind;

/* ---- refs --------------------------------------------------------------------------- */

/* Resolves a ref (see include/weir.h: branch, tag, full hash, unique prefix of >= 7 hex
 * digits, each optionally followed by ~N) to a full hash. Branches win over tags, tags
 * over hash prefixes. Errors: WEIR_EINVALIDARG (malformed, or an ambiguous prefix: the
 * message lists candidates), WEIR_ENOTFOUND (the message names the ref). */
int catalog_resolve(wr_catalog *cat, const char *ref, char out[WEIR_HASH_LEN + 1],
                    weir_error *err);

int catalog_ref_get(wr_catalog *cat, wr_ref_kind kind, const char *name,
                    char out[WEIR_HASH_LEN + 1], weir_error *err);
int catalog_ref_list(wr_catalog *cat, wr_ref_kind kind, wr_ref_rec **out, size_t *n,
                     weir_error *err);
/* Creates a ref at `target` (a full hash of an existing commit). Does not validate the
 * name (callers do, with util/names.h). Errors: WEIR_EEXISTS, WEIR_ENOTFOUND. */
int catalog_ref_create(wr_catalog *cat, wr_ref_kind kind, const char *name,
                       const char *target, weir_error *err);
int catalog_ref_delete(wr_catalog *cat, wr_ref_kind kind, const char *name,
                       weir_error *err);
/* Moves branch `name` from `expected` to `target` if and only if it is still at
 * `expected`. Errors: WEIR_ECONCURRENT (moved meanwhile), WEIR_ENOTFOUND. */
int catalog_branch_cas(wr_catalog *cat, const char *name, const char *expected,
                       const char *target, weir_error *err);

/* ---- commits ------------------------------------------------------------------------ */

int catalog_commit_get(wr_catalog *cat, const char *hash, wr_commit_rec *out,
                       weir_error *err);

/* One table change to apply to the first parent's table map. */
typedef struct wr_table_change {
  const char *table;              /* "ns.name" */
  const char *metadata_location;  /* NULL to drop the table */
  int64_t snapshot_id;
  int64_t record_count;
} wr_table_change;

typedef struct wr_commit_request {
  const char *branch;          /* the branch to advance */
  const char *expected_head;   /* its head the changes were computed against (CAS) */
  const char *second_parent;   /* merge commits: the merged head; else NULL */
  const wr_table_change *changes;
  size_t n_changes;
  const char *author;          /* NULL = the catalog's default author */
  const char *message;
  json_t *properties;          /* borrowed object of strings, or NULL */
  const char *run_id;          /* set when a pipeline run writes this commit */
  int64_t time_us;             /* 0 = now */
  const char *copies_from;     /* a full hash or NULL: the commit whose table versions the
                                  changes copy (a revert's target); refused inside the
                                  commit's transaction if gc marked it, as its files may be
                                  gone (gc.c) */
} wr_commit_request;

/* Writes one commit whose first parent is `expected_head` and whose table map is that
 * commit's map with `changes` applied, and moves `branch` to it, atomically. A run_id is
 * also recorded in the hashed properties as "run_id" (unless the caller set one). Records,
 * per changed table, the change kind (for log) and, for each table version first seen,
 * the commit and run that wrote it (for the aborted-work and partial-revert rules).
 * Errors: WEIR_ECONCURRENT when the branch is no longer at expected_head (nothing
 * written; the caller re-reads and retries), WEIR_ENOTFOUND. */
int catalog_commit(wr_catalog *cat, const wr_commit_request *req,
                   char out_hash[WEIR_HASH_LEN + 1], weir_error *err);

/* The commit that first wrote the table version at `metadata_location` (provenance, kept
 * for every version a commit introduced). out is "" when the version is unknown. */
int catalog_version_origin(wr_catalog *cat, const char *metadata_location, char out[WEIR_HASH_LEN + 1],
                           weir_error *err);

/* ---- table maps --------------------------------------------------------------------- */

/* The version of `table` at commit `hash`. WEIR_ENOTFOUND when the table is not there. */
int catalog_table_get(wr_catalog *cat, const char *hash, const char *table,
                      wr_table_entry *out, weir_error *err);
/* Namespaces are versioned content (docs/versioning.md, "Namespaces"): a namespace
 * created on a branch is an entry of the commit's trie beside the tables, under the
 * namespace's own name as key. A table's key is always "ns.name", so a key without a dot
 * is never a table. The entry's metadata_location is CATALOG_NAMESPACE_PREFIX followed by
 * the canonical JSON object of the namespace's properties (its content: equal properties
 * give equal entries, so diff and three-way merge work per key unchanged), snapshot_id is
 * -1 and record_count 0. catalog_tables, catalog_diff and gc never hand these entries to
 * table consumers; catalog_namespace_entries lists them. */
#define CATALOG_NAMESPACE_PREFIX "weir-namespace:"
/* Is trie key `key` a namespace entry (no dot) rather than a table? */
bool catalog_key_is_namespace(const char *key);
/* The namespace entries at commit `hash`, sorted by name (entry.table is the namespace). */
int catalog_namespace_entries(wr_catalog *cat, const char *hash, wr_table_entry **out, size_t *n,
                              weir_error *err);

/* Every table at commit `hash`, sorted by name (namespace entries left out). */
int catalog_tables(wr_catalog *cat, const char *hash, wr_table_entry **out, size_t *n,
                   weir_error *err);

/* Called once per table that differs between two commits (namespace entries left out), in name order; `a` or `b` is
 * NULL when the table is absent on that side. Return non-zero to stop. Identical
 * subtrees are skipped by hash, so cost grows with the number of differing tables. */
typedef int (*catalog_diff_fn)(const char *table, const wr_table_entry *a,
                               const wr_table_entry *b, void *ctx);
int catalog_diff(wr_catalog *cat, const char *hash_a, const char *hash_b, catalog_diff_fn fn,
                 void *ctx, weir_error *err);

/* Tables a commit changed relative to its first parent: JSON array of {table, change}
 * with change "added" | "changed" | "dropped". Caller decrefs. */
int catalog_commit_changes(wr_catalog *cat, const char *hash, json_t **out,
                           weir_error *err);

/* ---- history ------------------------------------------------------------------------ */

/* Commits reachable from `head`, newest first (time, then hash), at most max (0 = all). */
int catalog_log(wr_catalog *cat, const char *head, int64_t max, wr_commit_rec **out,
                size_t *n, weir_error *err);
/* Is `ancestor` reachable from `descendant` (a commit is its own ancestor)? Uses
 * generation numbers to stop early. */
int catalog_is_ancestor(wr_catalog *cat, const char *ancestor, const char *descendant,
                        bool *out, weir_error *err);
/* The merge base of a and b: the nearest common ancestor; with several, the one with the
 * latest time, ties broken by the smaller hash. *found is false if they share none. */
int catalog_merge_base(wr_catalog *cat, const char *a, const char *b,
                       char out[WEIR_HASH_LEN + 1], bool *found, weir_error *err);
/* The first-parent ancestor n steps back (REF~N). */
int catalog_first_parent_ancestor(wr_catalog *cat, const char *hash, int64_t n,
                                  char out[WEIR_HASH_LEN + 1], weir_error *err);

/* ---- merge and revert ---------------------------------------------------------------- */

typedef enum wr_merge_strategy {
  WEIR_MERGE_FAIL_ON_CONFLICT = 0,
  WEIR_MERGE_SOURCE_WINS,
  WEIR_MERGE_TARGET_WINS
} wr_merge_strategy;

/* Combines a table both sides of a merge changed, differently, since the merge base: called
 * inside the merge's read snapshot with the three versions (none NULL). Sets *combined and
 * fills `out` (its strings owned by the caller of catalog_merge, freed with the plan: heap
 * copies) with a new version holding both sides' changes, or leaves *combined false to
 * let the change stay a conflict; then *why (may be left NULL) is a heap sentence saying
 * why the two cannot combine when there is more to say than "changed on both sides"
 * (the conflict's `reason`; the caller frees it). An error refuses the merge. The lake's
 * implementation is the append-aware merge (src/lake/merge_appends.c). */
typedef int (*catalog_merge_combine_fn)(const char *table, const wr_table_entry *base, const wr_table_entry *ours,
                                        const wr_table_entry *theirs, void *ctx, wr_table_change *out,
                                        bool *combined, char **why, weir_error *err);

typedef struct wr_merge_request {
  const char *source;      /* any ref */
  const char *into;        /* a branch */
  const char *message;     /* NULL = "Merge <source> into <into>" */
  const char *author;      /* NULL = default */
  bool no_ff;
  bool allow_partial;
  wr_merge_strategy strategy; /* how conflicting tables are resolved (default: not) */
  const char *run_id;      /* a run publishing its own branch: its commits are exempt
                              from the aborted-work rule, and the merge commit carries it */
  const char *base;        /* a full hash, or NULL: merge three-way against this commit
                              instead of the merge base (even when the source is already
                              reachable from `into`). A run publishes against its own base:
                              each output then conflicts if its table changed on `into`
                              since, whatever part of the run branch was merged before
                              (model/README.md, finding 1) */
  const char *expected_head; /* a full hash, or NULL: the head of `into` the caller
                              reviewed. When `into` has moved past it, the merge is refused
                              (WEIR_ECONCURRENT, nothing written) if any table it would
                              change on `into` changed since, or if it is not in into's
                              history */
  catalog_merge_combine_fn combine; /* may be NULL: every table changed on both sides
                              differently is a conflict (or a strategy's to resolve) */
  void *combine_ctx;
} wr_merge_request;

/* Merges as docs/versioning.md says (fast-forward, up to date, or three-way at table
 * level against the merge base). *out (caller decrefs): {result, commit, base, source,
 * source_commit, into, into_commit, tables: [{table, action}]} where result is
 * "fast-forward", "merge" or "up-to-date", commit is into's new head, into_commit its head
 * before, base the merge base (null if none), and tables what changed on `into` (action
 * "added", "changed" or "dropped", or "merged: appends" for a table req->combine
 * combined; the merge commit then carries the property merged_appends, the comma-separated
 * tables). Errors: WEIR_ECONFLICT with err->details = every
 * conflicting table as {table, base, ours, theirs, base_metadata, ours_metadata,
 * theirs_metadata}: base is the merge-base commit, ours (into) and theirs (source) are
 * what each side did ("added", "changed", "dropped"), the *_metadata the versions' metadata
 * locations or null (nothing written); WEIR_EPARTIAL naming the runs that did not succeed
 * whose work the source would publish, details [{run_id, status, tables}];
 * WEIR_ECONCURRENT if `into` kept moving after bounded retries (one attempt inside an
 * explicit transaction). */
int catalog_merge(wr_catalog *cat, const wr_merge_request *req, json_t **out,
                  weir_error *err);

/* A veto over one table's change by a revert, called inside the revert's read snapshot
 * (so the commit's compare-and-swap covers what it saw): `cur` is the table's version on
 * the branch, `to` the version the revert would commit (NULL when absent). Return WEIR_OK
 * to let it through, or an error (filled into err) to refuse the whole revert. */
typedef int (*catalog_revert_check_fn)(const char *table, const wr_table_entry *cur, const wr_table_entry *to,
                                       void *ctx, weir_error *err);

typedef struct catalog_revert_opts {
  const char *message;           /* NULL: one naming what was reverted */
  bool allow_partial;            /* allow reverting part of a run (both directions) */
  const char *expected_head;     /* a full hash, or NULL: the branch head the caller
                                    decided at; if the branch moved past it and a table the
                                    revert changes changed since, WEIR_ECONCURRENT */
  catalog_revert_check_fn check; /* may be NULL */
  void *check_ctx;
} catalog_revert_opts;

/* Commits on `branch` the version `table` had at `to_ref` (or drops it if absent there).
 * Refused with WEIR_EPARTIAL (unless allow_partial) when it would split a run's tables:
 * the table's current version on the branch was written by a run that also wrote other
 * tables still at that run's versions (message names the run and those tables; details
 * [{run_id, table, tables}]), or the version it restores was written by a run whose
 * other tables are no longer at its versions (the revert would put one table of the run
 * back alone), or by a run that did not succeed. *out: {commit, table, action, to,
 * branch}: action is "added", "changed", "dropped", or "unchanged" when the table is
 * already as at to_ref (then nothing is written and commit is the branch's head). `o` may
 * be NULL (defaults). */
int catalog_revert_table(wr_catalog *cat, const char *table, const char *to_ref, const char *branch,
                         const catalog_revert_opts *o, json_t **out, weir_error *err);
/* Puts every table run `run_id` wrote back to its version at the run's base commit, in one
 * commit on `branch` (NULL = the run's target branch), when the table is at a version the
 * run wrote; a table already as before the run is left alone; any other (changed by
 * another write since, or never published by the run) refuses the revert with
 * WEIR_ECONCURRENT (catalog_serial_error details), unless o->allow_partial, which leaves
 * it. o->expected_head and o->check as for catalog_revert_table, for every table. *out: {commit, run_id, branch,
 * base_commit, tables: [{table, action}]}; tables is empty (and nothing is written) when
 * every table is already as before the run. */
int catalog_revert_run(wr_catalog *cat, const char *run_id, const char *branch, const catalog_revert_opts *o,
                       json_t **out, weir_error *err);

/* ---- serializable writes (serial.c) -------------------------------------------------- */

/* Collects the tables that changed on `branch` between a write's base and the head it
 * would land on, and that the write depends on (docs/versioning.md, "Concurrency"). */
typedef struct catalog_serial_report {
  const char *branch;
  const char *base;
  const char *head;
  json_t *items;        /* [{table, kind ("write"|"read"), change, reason, base, head,
                            changed_by, changed_by_message}] */
  size_t conflicts;     /* items of kind "write" */
  size_t stale_reads;   /* items of kind "read" */
  int oom;              /* sticky: an item could not be added; catalog_serial_error reports it */
} catalog_serial_report;

void catalog_serial_init(catalog_serial_report *r, const char *branch, const char *base, const char *head);
void catalog_serial_clear(catalog_serial_report *r);
/* Adds `table`, which changed between base and head; `read` says whether the write read
 * it (else writes it). The message will say "table T <what> (by commit C, "msg"), and
 * <why>"; C is the commit that first wrote the head's version, or for a dropped table the
 * newest first-parent commit since the base that changed it. */
void catalog_serial_add(wr_catalog *cat, catalog_serial_report *r, const char *table, bool read,
                        const char *what, const char *why);
/* Adds `table` (as catalog_serial_add, what "changed") if its version differs between
 * base and head. */
int catalog_serial_check_table(wr_catalog *cat, catalog_serial_report *r, const char *table, bool read,
                               const char *why, weir_error *err);
/* WEIR_OK when nothing was added; otherwise fills err ("<what> on branch B: since the base
 * X, table T changed (by commit Y, "msg"), and <why>; ...; nothing was committed:
 * <advice>", details = the items) and returns WEIR_ECONCURRENT if any item is a written
 * table, else WEIR_ESTALEREAD. */
int catalog_serial_error(const catalog_serial_report *r, const char *what, const char *advice, weir_error *err);
/* *same: `table` has the same version (or is absent) at commits a and b. */
int catalog_same_version_at(wr_catalog *cat, const char *table, const char *a, const char *b, bool *same,
                            weir_error *err);
/* A named base must be the branch's head or in its history: WEIR_ECONCURRENT otherwise. */
int catalog_base_check(wr_catalog *cat, const char *branch, const char *base, const char *head,
                       weir_error *err);

/* ---- garbage collection (gc.c, docs/gc.md) ------------------------------------------ */

/* What gc may keep and what it marked, read in one catalog snapshot. */
typedef struct catalog_gc_plan {
  char **metadata;      /* metadata locations of every table version a live commit names:
                           sorted, distinct, owned */
  size_t n_metadata;
  size_t live;          /* commits reachable from a ref and not marked */
  size_t expired;       /* commits marked now as "expired" (older than the cut-off) */
  size_t unreachable;   /* commits marked now as "unreachable" (no ref reaches them) */
  json_t *marked;       /* [{commit, reason}] of the commits marked now (owned) */
} catalog_gc_plan;

/* Reads the live set and marks (with `record`; a dry run marks nothing and reports what it
 * would) every commit no ref reaches and, when expire_before_us > 0, every reachable
 * commit older than it that no branch head or tag names. `record` runs in one write
 * transaction (the lake's writer lock: no ref moves while the set is read and the marks
 * are written), a dry run in one read snapshot. Errors: the catalog's. */
int catalog_gc_plan_make(wr_catalog *cat, int64_t expire_before_us, bool record, catalog_gc_plan *out,
                         weir_error *err);
void catalog_gc_plan_clear(catalog_gc_plan *p);
/* The gc mark of a commit: *found false when it has none. *reason (may be NULL) owned by
 * the caller: "expired" or "unreachable". */
int catalog_commit_expiry(wr_catalog *cat, const char *hash, int64_t *expired_us, char **reason, bool *found,
                          weir_error *err);

/* ---- access: tokens, protected branches, namespaces (access.c) ---------------------- */

/* One access token. Strings owned; branches NULL = every ref. The secret itself is never
 * stored, only its SHA-256 (hex). */
typedef struct catalog_token_row {
  char *name;
  char secret_sha256[WEIR_HASH_LEN + 1];
  bool read_only;
  char *branches;     /* fnmatch(3) pattern over ref names, or NULL */
  int64_t created_us;
  int64_t revoked_us; /* 0 while valid */
} catalog_token_row;

void catalog_token_row_clear(catalog_token_row *r);
void catalog_token_rows_free(catalog_token_row *v, size_t n);

/* Size of a token secret: "weir_" + 64 hex digits + NUL. */
#define CATALOG_TOKEN_SECRET_SIZE 70

/* Makes a token named `name` (NULL: "token-" + 8 hex digits of the secret's hash) and
 * writes its secret to `secret` (shown once; only its hash is stored). `branches` may be
 * NULL. Errors: WEIR_EEXISTS (name taken), WEIR_EINVALIDNAME, WEIR_EINVALIDARG (an empty
 * pattern). */
int catalog_token_create(wr_catalog *cat, const char *name, bool read_only, const char *branches,
                         char secret[CATALOG_TOKEN_SECRET_SIZE], catalog_token_row *out, weir_error *err);
/* The valid (not revoked) token whose secret is `secret`; *found false otherwise
 * (including a revoked one). Compares hashes, so timing does not depend on the secret. */
int catalog_token_verify(wr_catalog *cat, const char *secret, catalog_token_row *out, bool *found,
                         weir_error *err);
int catalog_token_list(wr_catalog *cat, catalog_token_row **out, size_t *n, weir_error *err);
/* Errors: WEIR_ENOTFOUND when no valid token has the name. */
int catalog_token_revoke(wr_catalog *cat, const char *name, weir_error *err);
/* Does the token let a request touch ref `ref` (a branch or tag name; a commit hash only
 * when the token names no pattern)? */
bool catalog_token_allows_ref(const catalog_token_row *t, const char *ref, bool is_hash);

/* Protects (on) or unprotects a branch: a protected branch moves only by merges (a commit
 * with two parents, or a fast-forward), never by a direct commit (catalog_commit refuses
 * one with WEIR_EINVALIDARG, details [{kind:"protected_branch", branch}]). The branch
 * must exist (WEIR_ENOTFOUND). */
int catalog_branch_protect(wr_catalog *cat, const char *branch, bool on, weir_error *err);
int catalog_branch_protected(wr_catalog *cat, const char *branch, bool *on, weir_error *err);
/* Protects `branch` and makes `projects` (n > 0; paths stored as given, duplicates kept
 * once) the projects whose plan gates every merge into it, replacing any it had, in one
 * transaction. Unprotecting (catalog_branch_protect off) drops them. Errors as
 * catalog_branch_protect, WEIR_EINVALIDARG for an empty path. */
int catalog_branch_require_checks(wr_catalog *cat, const char *branch, const char *const *projects, size_t n,
                                  weir_error *err);
/* The projects gating merges into `branch` (*projects owned, free with catalog_strv_free;
 * n 0 when none). Read in the caller's transaction when one is open, so that a merge
 * reads the gate under the same lock it commits under. */
int catalog_branch_checks(wr_catalog *cat, const char *branch, char ***projects, size_t *n, weir_error *err);

/* Lake-wide namespaces, created by catalogs older than versioned namespaces (weir no longer
 * adds rows: see CATALOG_NAMESPACE_PREFIX); they exist at every ref (docs/catalog.md).
 * Properties are a JSON object of strings. */
/* *props (caller decrefs) NULL when there is no such row. */
int catalog_namespace_get(wr_catalog *cat, const char *name, json_t **props, weir_error *err);
int catalog_namespace_list(wr_catalog *cat, char ***names, size_t *n, weir_error *err);
/* Replaces the properties of a lake-wide namespace (creating its row when missing). */
int catalog_namespace_set_properties(wr_catalog *cat, const char *name, json_t *properties,
                                     weir_error *err);
/* Errors: WEIR_ENOTFOUND when there is no such row. */
int catalog_namespace_delete(wr_catalog *cat, const char *name, weir_error *err);
void catalog_strv_free(char **v, size_t n);

/* ---- runs --------------------------------------------------------------------------- */

typedef enum wr_run_status {
  WEIR_RUN_RUNNING = 0,
  WEIR_RUN_SUCCEEDED = 1,
  WEIR_RUN_FAILED = 2
} wr_run_status;

const char *wr_run_status_name(wr_run_status s); /* "running", "succeeded", "failed" */

/* Records a new run (status running, started now). */
int catalog_run_create(wr_catalog *cat, const char *run_id, const char *project,
                       const char *project_digest, const char *branch,
                       const char *base_commit, const char *run_branch, weir_error *err);
/* Records one model's outcome: `model` is a JSON object {model, status, started, ended,
 * rows, commit, violations, rules, error, ...} stored as given (borrowed). Replaces an
 * earlier record of the same model in the run. */
int catalog_run_model(wr_catalog *cat, const char *run_id, json_t *model, weir_error *err);
/* Ends a run: status, result commit (or NULL), error JSON (or NULL). */
int catalog_run_finish(wr_catalog *cat, const char *run_id, wr_run_status status,
                       const char *result_commit, json_t *error, weir_error *err);
/* One run as JSON {run_id, status, project, project_digest, branch, run_branch,
 * base_commit, result_commit, started, ended, error, models: [...]}. */
int catalog_run_get(wr_catalog *cat, const char *run_id, json_t **out, weir_error *err);
/* Runs newest first (same shape, models included). */
int catalog_runs(wr_catalog *cat, int64_t max, json_t **out, weir_error *err);
int catalog_run_status(wr_catalog *cat, const char *run_id, wr_run_status *out,
                       weir_error *err);

#endif
