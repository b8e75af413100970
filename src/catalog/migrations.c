/*
 * migrations.c -- the catalog schema, step by step (see migrations.h).
 *
 * Table map nodes, commits and table versions are content-addressed and immutable once
 * written; refs and runs are the only rows that change.
 */
#include "catalog/migrations.h"

#include <string.h>

/* Step 1: the versioned table map. */
static const char *const STEP1[] = {
    /* Merkle trie nodes of table maps: hash = SHA-256 hex of body (canonical JSON). */
    "CREATE TABLE tree_nodes ("
    " hash TEXT PRIMARY KEY,"
    " body TEXT NOT NULL)",
    /* Commits: hash = SHA-256 hex of the canonical JSON of author, message, parents,
     * properties, tables (the trie root) and time. generation = 1 + max(parents'). */
    "CREATE TABLE commits ("
    " hash TEXT PRIMARY KEY,"
    " tables_root TEXT NOT NULL REFERENCES tree_nodes(hash),"
    " author TEXT NOT NULL,"
    " message TEXT NOT NULL,"
    " time_us BIGINT NOT NULL,"
    " properties TEXT NOT NULL,"
    " generation BIGINT NOT NULL,"
    " run_id TEXT)",
    /* Partial: most commits are not a run's, and indexing their NULLs would put one entry per
     * commit at a random place (ordered by hash), costing a page write per commit. */
    "CREATE INDEX commits_by_run ON commits(run_id) WHERE run_id IS NOT NULL",
    "CREATE TABLE commit_parents ("
    " commit_hash TEXT NOT NULL REFERENCES commits(hash),"
    " position INTEGER NOT NULL,"
    " parent_hash TEXT NOT NULL REFERENCES commits(hash),"
    " PRIMARY KEY (commit_hash, position))",
    /* Branches (kind 0) and tags (kind 1). */
    "CREATE TABLE refs ("
    " kind INTEGER NOT NULL,"
    " name TEXT NOT NULL,"
    " target TEXT NOT NULL REFERENCES commits(hash),"
    " updated_us BIGINT NOT NULL,"
    " PRIMARY KEY (kind, name))",
    /* What each commit changed relative to its first parent (for log). */
    "CREATE TABLE commit_changes ("
    " commit_hash TEXT NOT NULL REFERENCES commits(hash),"
    " table_name TEXT NOT NULL,"
    " change TEXT NOT NULL,"
    " PRIMARY KEY (commit_hash, table_name))",
    /* Provenance: the commit and run that first wrote each table version. */
    "CREATE TABLE table_versions ("
    " metadata_location TEXT PRIMARY KEY,"
    " table_name TEXT NOT NULL,"
    " commit_hash TEXT NOT NULL REFERENCES commits(hash),"
    " run_id TEXT)",
    "CREATE INDEX table_versions_by_run ON table_versions(run_id) WHERE run_id IS NOT NULL",
    NULL};

/* Step 2: pipeline runs. */
static const char *const STEP2[] = {
    "CREATE TABLE runs ("
    " run_id TEXT PRIMARY KEY,"
    " status TEXT NOT NULL,"
    " project TEXT,"
    " project_digest TEXT,"
    " branch TEXT,"
    " run_branch TEXT,"
    " base_commit TEXT REFERENCES commits(hash),"
    " result_commit TEXT REFERENCES commits(hash),"
    " started_us BIGINT NOT NULL,"
    " ended_us BIGINT,"
    " error TEXT)",
    "CREATE INDEX runs_by_start ON runs(started_us)",
    "CREATE TABLE run_models ("
    " run_id TEXT NOT NULL REFERENCES runs(run_id),"
    " model TEXT NOT NULL,"
    " position INTEGER NOT NULL,"
    " body TEXT NOT NULL,"
    " PRIMARY KEY (run_id, model))",
    NULL};

/* tree_nodes keeps a separate key index: its bodies (up to a few KB) would overflow a
 * key B-tree's cells, while appending them to a rowid table is sequential. */
static const char *const STEP1_CLUSTERED[] = {"commits", "commit_parents", "refs",
                                              "commit_changes", "table_versions", NULL};

/* Who runs a run (util/proc.h), so that readers can tell a run whose process died from
 * one still going. Rows from before have none and stay as they are. */
static const char *const STEP3[] = {"ALTER TABLE runs ADD COLUMN owner TEXT", NULL};

/* Access and namespaces (docs/serve.md). Tokens are stored as the SHA-256 of the secret,
 * never the secret itself; a revoked token keeps its row (revoked_us set) so that `token
 * list` can say what happened to it. Protected branches take only merges. Namespaces are
 * the explicitly created ones (a table's namespace exists while the table does); their
 * properties are a JSON object of strings. */
static const char *const STEP4[] = {
    "CREATE TABLE access_tokens ("
    " name TEXT PRIMARY KEY,"
    " secret_sha256 TEXT NOT NULL UNIQUE,"
    " read_only INTEGER NOT NULL,"
    " branches TEXT,"
    " created_us BIGINT NOT NULL,"
    " revoked_us BIGINT)",
    "CREATE TABLE protected_branches ("
    " name TEXT PRIMARY KEY,"
    " created_us BIGINT NOT NULL)",
    "CREATE TABLE namespaces ("
    " name TEXT PRIMARY KEY,"
    " properties TEXT NOT NULL,"
    " created_us BIGINT NOT NULL)",
    NULL};

/* Merge gates (docs/versioning.md, "Merge gate"): the projects whose plan must pass on the
 * merged state before a merge into a protected branch commits. A project is stored as
 * given (a path; a relative one is resolved against the lake folder when a merge runs),
 * one row per (branch, project). Unprotecting a branch deletes its rows. */
static const char *const STEP5[] = {
    "CREATE TABLE branch_checks ("
    " branch TEXT NOT NULL,"
    " project TEXT NOT NULL,"
    " position INTEGER NOT NULL,"
    " created_us BIGINT NOT NULL,"
    " PRIMARY KEY (branch, project))",
    NULL};
/* Garbage collection (docs/gc.md): commits whose files gc may delete. A commit is marked
 * when gc finds no ref reaching it (reason "unreachable": a deleted branch's) or when
 * `--expire-before` expires it (reason "expired": older than the cut-off and named by no
 * tag or branch head). The commit row stays (log and merge bases walk through it); reading
 * its tables is refused, naming the date. Marks are never removed: once gc ran, the files
 * may be gone. */
static const char *const STEP6[] = {
    "CREATE TABLE expired_commits ("
    " hash TEXT PRIMARY KEY REFERENCES commits(hash),"
    " expired_us BIGINT NOT NULL,"
    " reason TEXT NOT NULL)",
    NULL};
static const char *const STEP6_CLUSTERED[] = {"expired_commits", NULL};

/* PostgreSQL compares TEXT by the database's collation (often a language's, such as
 * en_US.UTF-8), while the catalog relies on bytewise order of hashes: a prefix lookup is
 * the range [prefix, prefix || 'g') of the primary key. The commit hash is therefore
 * declared COLLATE "C" there, so that range is an index range scan in byte order, as in
 * SQLite. (Queries that sort names say COLLATE "C" themselves.) */
static const catalog_dialect_sql STEP1_DIALECT[] = {
    {"postgresql", 1,
     "CREATE TABLE commits ("
     " hash TEXT COLLATE \"C\" PRIMARY KEY,"
     " tables_root TEXT NOT NULL REFERENCES tree_nodes(hash),"
     " author TEXT NOT NULL,"
     " message TEXT NOT NULL,"
     " time_us BIGINT NOT NULL,"
     " properties TEXT NOT NULL,"
     " generation BIGINT NOT NULL,"
     " run_id TEXT)"},
    {NULL, 0, NULL}};

static const catalog_migration MIGRATIONS[] = {
    {1, "table map trie, commits, refs, commit changes, table versions", STEP1, STEP1_CLUSTERED,
     STEP1_DIALECT},
    {2, "pipeline runs and per-model records", STEP2, NULL, NULL},
    {3, "the process that runs a run", STEP3, NULL, NULL},
    {4, "access tokens, protected branches, namespaces", STEP4, NULL, NULL},
    {5, "merge gates: projects checked before a merge into a protected branch", STEP5, NULL, NULL},
    {6, "commits expired or collected by gc", STEP6, STEP6_CLUSTERED, NULL},
};

const catalog_migration *catalog_migrations(size_t *n) {
  *n = sizeof MIGRATIONS / sizeof MIGRATIONS[0];
  return MIGRATIONS;
}

int catalog_schema_latest(void) {
  return MIGRATIONS[sizeof MIGRATIONS / sizeof MIGRATIONS[0] - 1].version;
}

const char *catalog_migration_sql(const catalog_migration *m, int i, const char *dialect) {
  if (m->dialect_sql && dialect)
    for (const catalog_dialect_sql *d = m->dialect_sql; d->dialect; d++)
      if (d->index == i && strcmp(d->dialect, dialect) == 0) return d->sql;
  return m->statements[i];
}
