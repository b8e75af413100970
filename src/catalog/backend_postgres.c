/*
 * backend_postgres.c -- the shared catalog backend: one PostgreSQL schema, through libpq.
 *
 * Where the catalog is. A location is a libpq connection URI
 * (postgresql://[user@]host[:port]/dbname[?param=...]) plus one weir parameter, `schema`
 * (default `public`): one lake's catalog is the set of weir tables in one schema, so
 * several lakes can share a database, one schema each. Everything else about connecting
 * is libpq's: the URI's parameters (sslmode, connect_timeout, ...), the PG* environment
 * variables for what the URI leaves out, and ~/.pgpass ($PGPASSFILE) for passwords.
 * `schema` is removed from the URI before libpq sees it (libpq refuses parameters it does
 * not know). After connecting, search_path is set to that schema alone, so every
 * statement below names its tables unqualified, exactly as in the SQLite backend.
 *
 * Writers: one at a time per lake, by an advisory lock. A write transaction is
 *
 *     BEGIN ISOLATION LEVEL READ COMMITTED;
 *     SET LOCAL lock_timeout = <busy timeout>;
 *     SELECT pg_advisory_xact_lock(<weir>, hashtext(<schema>));
 *
 * so, as SQLite's BEGIN IMMEDIATE, the lake's write lock is taken before the first read of
 * the transaction, and is released by COMMIT or ROLLBACK (also when the client dies: the
 * server ends its session). Every weir write begins that way, so no other writer can
 * commit while the lock is held, and each READ COMMITTED statement of the holder sees the
 * state the transaction is about to change. This keeps the catalog's contract (backend.h:
 * "a writer's reads see a state no other writer can change before it commits") with the
 * logic of a commit (read the head, check the base and read set, write, CAS) above the
 * backend, as it is. The alternative, SERIALIZABLE transactions without a lock, would let
 * two writers of one branch both run their checks and then fail one of them with a
 * serialization failure at some later statement or at COMMIT, after which the whole
 * catalog operation must be replayed from above the backend; with every commit touching
 * the branch's row in `refs`, concurrent writers of a branch would mostly fail and retry,
 * and the retry logic would be needed at every caller. One lock per lake costs one
 * round trip per write transaction and serialises writers exactly as SQLite does; readers
 * are not affected (below). Processes on any number of machines share the lock through
 * the server.
 *
 * Readers: BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY: one snapshot for a multi-
 * statement read (log, diff, merge planning), never blocked by the writer, never failing
 * with a serialization error (read-only REPEATABLE READ transactions cannot).
 *
 * Failures. A lock not obtained within the busy timeout (30 s,
 * $WEIR_CATALOG_BUSY_TIMEOUT_MS) is WEIR_ECONCURRENT, as SQLite's busy timeout. A
 * serialization failure or deadlock (SQLSTATE 40001, 40P01; possible only if something
 * other than weir writes the tables) is retried with bounded exponential backoff when it
 * hits a statement outside a transaction or the opening of a transaction (nothing of the
 * caller's has happened yet); inside a transaction it is WEIR_ECONCURRENT, which the
 * callers already treat as "re-read and retry". A lost connection is WEIR_EIO naming the
 * server and database; the next transaction reconnects (PQreset). Messages name the
 * server, port, database and schema, never a password.
 *
 * Text comparisons: PostgreSQL sorts TEXT by the database's collation; the catalog needs
 * bytewise order (as SQLite's), so queries that sort say COLLATE "C" and the commit hash
 * is declared COLLATE "C" by the PostgreSQL form of migration 1 (migrations.c).
 *
 * Statements are sent with their parameters on first use and prepared (PQprepare) on the
 * second, per connection; again after a reconnect. Parameters and results are text.
 */
#include <ctype.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog/backend.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/json.h"
#include "util/utf8.h"

enum {
  ST_NODE_GET,
  ST_NODE_PUT,
  ST_COMMIT_GET,
  ST_COMMIT_PUT,
  ST_PARENT_PUT,
  ST_COMMIT_PREFIX,
  ST_CHANGE_PUT,
  ST_CHANGES_GET,
  ST_REF_GET,
  ST_REF_LIST,
  ST_REF_CREATE,
  ST_REF_DELETE,
  ST_REF_CAS,
  ST_VERSION_PUT,
  ST_VERSION_GET,
  ST_RUN_VERSIONS,
  ST_RUN_TABLES,
  ST_RUN_CREATE,
  ST_RUN_MODEL_PUT,
  ST_RUN_FINISH,
  ST_RUN_GET,
  ST_RUN_MODELS,
  ST_RUN_LIST,
  ST_PROBE,
  ST_VERSION,
  ST_MIGRATION_PUT,
  ST_TOKEN_PUT,
  ST_TOKEN_FIND,
  ST_TOKEN_LIST,
  ST_TOKEN_REVOKE,
  ST_PROTECT_ON,
  ST_PROTECT_OFF,
  ST_PROTECT_GET,
  ST_CHECKS_CLEAR,
  ST_CHECKS_ADD,
  ST_CHECKS_GET,
  ST_NS_INSERT,
  ST_NS_UPDATE,
  ST_NS_GET,
  ST_NS_LIST,
  ST_COMMIT_ALL,
  ST_EXPIRY_PUT,
  ST_EXPIRY_GET,
  ST_NS_DELETE,
  ST_COUNT
};

static const char *const SQL[ST_COUNT] = {
    [ST_NODE_GET] = "SELECT body FROM tree_nodes WHERE hash = $1",
    [ST_NODE_PUT] = "INSERT INTO tree_nodes (hash, body) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    [ST_COMMIT_GET] =
        "SELECT c.tables_root, c.author, c.message, c.time_us, c.properties, c.generation,"
        " c.run_id,"
        " (SELECT parent_hash FROM commit_parents p WHERE p.commit_hash = c.hash AND p.position = 0),"
        " (SELECT parent_hash FROM commit_parents p WHERE p.commit_hash = c.hash AND p.position = 1)"
        " FROM commits c WHERE c.hash = $1",
    [ST_COMMIT_PUT] =
        "INSERT INTO commits (hash, tables_root, author, message, time_us, properties,"
        " generation, run_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
    [ST_PARENT_PUT] = "INSERT INTO commit_parents (commit_hash, position, parent_hash)"
                      " VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
    /* commits.hash is COLLATE "C" (migration 1's PostgreSQL form): an index range scan. */
    [ST_COMMIT_PREFIX] =
        "SELECT hash FROM commits WHERE hash >= $1 AND hash < $2 ORDER BY hash LIMIT $3",
    [ST_CHANGE_PUT] = "INSERT INTO commit_changes (commit_hash, table_name, change)"
                      " VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
    [ST_CHANGES_GET] = "SELECT table_name, change FROM commit_changes WHERE commit_hash = $1"
                       " ORDER BY table_name COLLATE \"C\"",
    [ST_REF_GET] = "SELECT target FROM refs WHERE kind = $1 AND name = $2",
    [ST_REF_LIST] = "SELECT name, target, updated_us FROM refs WHERE kind = $1"
                    " ORDER BY name COLLATE \"C\"",
    [ST_REF_CREATE] = "INSERT INTO refs (kind, name, target, updated_us) VALUES ($1, $2, $3, $4)"
                      " ON CONFLICT DO NOTHING",
    [ST_REF_DELETE] = "DELETE FROM refs WHERE kind = $1 AND name = $2",
    [ST_REF_CAS] = "UPDATE refs SET target = $1, updated_us = $2"
                   " WHERE kind = 0 AND name = $3 AND target = $4",
    [ST_VERSION_PUT] = "INSERT INTO table_versions (metadata_location, table_name, commit_hash,"
                       " run_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    [ST_VERSION_GET] = "SELECT table_name, commit_hash, run_id FROM table_versions"
                       " WHERE metadata_location = $1",
    [ST_RUN_VERSIONS] = "SELECT metadata_location, table_name, commit_hash FROM table_versions"
                        " WHERE run_id = $1"
                        " ORDER BY table_name COLLATE \"C\", metadata_location COLLATE \"C\"",
    [ST_RUN_TABLES] = "SELECT table_name COLLATE \"C\" FROM table_versions WHERE run_id = $1"
                      " UNION SELECT cc.table_name COLLATE \"C\" FROM commit_changes cc"
                      " JOIN commits c ON c.hash = cc.commit_hash WHERE c.run_id = $1"
                      " ORDER BY 1",
    [ST_RUN_CREATE] = "INSERT INTO runs (run_id, status, project, project_digest, branch,"
                      " run_branch, base_commit, started_us, owner)"
                      " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
    [ST_RUN_MODEL_PUT] =
        "INSERT INTO run_models (run_id, model, position, body) VALUES ($1, $2,"
        " (SELECT COALESCE(MAX(position), 0) + 1 FROM run_models WHERE run_id = $1), $3)"
        " ON CONFLICT (run_id, model) DO UPDATE SET body = excluded.body",
    [ST_RUN_FINISH] = "UPDATE runs SET status = $1, result_commit = $2, error = $3,"
                      " ended_us = $4 WHERE run_id = $5",
    [ST_RUN_GET] = "SELECT status, project, project_digest, branch, run_branch, base_commit,"
                   " result_commit, started_us, ended_us, error, owner FROM runs WHERE run_id = $1",
    [ST_RUN_MODELS] = "SELECT body FROM run_models WHERE run_id = $1 ORDER BY position",
    /* LIMIT NULL is no limit. */
    [ST_RUN_LIST] = "SELECT run_id FROM runs ORDER BY started_us DESC, run_id COLLATE \"C\" DESC"
                    " LIMIT $1",
    /* Objects of any kind in the lake's schema, and whether weir's migrations table is one. */
    [ST_PROBE] = "SELECT (SELECT count(*) FROM pg_catalog.pg_class c"
                 "  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1),"
                 " (SELECT count(*) FROM pg_catalog.pg_class c"
                 "  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1"
                 "  AND c.relname = 'weir_schema_migrations' AND c.relkind IN ('r', 'p'))",
    [ST_VERSION] = "SELECT COALESCE(MAX(version), 0) FROM weir_schema_migrations",
    [ST_MIGRATION_PUT] = "INSERT INTO weir_schema_migrations (version, description, applied_us)"
                         " VALUES ($1, $2, $3)",
    /* Access and namespaces (migration 4), as in backend_sqlite.c. */
    [ST_TOKEN_PUT] = "INSERT INTO access_tokens (name, secret_sha256, read_only, branches, created_us)"
                     " VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
    [ST_TOKEN_FIND] = "SELECT name, read_only, branches, created_us, revoked_us FROM access_tokens"
                      " WHERE secret_sha256 = $1",
    [ST_TOKEN_LIST] = "SELECT name, secret_sha256, read_only, branches, created_us, revoked_us"
                      " FROM access_tokens ORDER BY name COLLATE \"C\"",
    [ST_TOKEN_REVOKE] = "UPDATE access_tokens SET revoked_us = $1 WHERE name = $2 AND revoked_us IS NULL",
    [ST_PROTECT_ON] = "INSERT INTO protected_branches (name, created_us) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    [ST_PROTECT_OFF] = "DELETE FROM protected_branches WHERE name = $1",
    [ST_PROTECT_GET] = "SELECT 1 FROM protected_branches WHERE name = $1",
    [ST_CHECKS_CLEAR] = "DELETE FROM branch_checks WHERE branch = $1",
    [ST_CHECKS_ADD] = "INSERT INTO branch_checks (branch, project, position, created_us) VALUES ($1, $2, $3, $4)"
                      " ON CONFLICT DO NOTHING",
    [ST_CHECKS_GET] = "SELECT project FROM branch_checks WHERE branch = $1 ORDER BY position",
    [ST_NS_INSERT] = "INSERT INTO namespaces (name, properties, created_us) VALUES ($1, $2, $3)"
                     " ON CONFLICT DO NOTHING",
    [ST_NS_UPDATE] = "UPDATE namespaces SET properties = $2 WHERE name = $1",
    [ST_NS_GET] = "SELECT properties FROM namespaces WHERE name = $1",
    [ST_NS_LIST] = "SELECT name FROM namespaces ORDER BY name COLLATE \"C\"",
    [ST_NS_DELETE] = "DELETE FROM namespaces WHERE name = $1",
    [ST_COMMIT_ALL] = "SELECT hash FROM commits",
    [ST_EXPIRY_PUT] = "INSERT INTO expired_commits (hash, expired_us, reason) VALUES ($1, $2, $3)"
                      " ON CONFLICT DO NOTHING",
    [ST_EXPIRY_GET] = "SELECT expired_us, reason FROM expired_commits WHERE hash = $1",
};

/* The first key of the lake's advisory lock: "weir" in ASCII. The second is the schema's
 * hashtext(); two lakes whose schema names collide only share a lock (they wait for each
 * other), which is never incorrect. */
#define WEIR_ADVISORY_CLASS 2003134834

/* Bounded backoff for serialization failures and deadlocks: at most this many attempts,
 * waiting 2, 4, 8, ... ms (with jitter) between them. */
#define PG_RETRY_ATTEMPTS 6

typedef struct pg_backend {
  catalog_backend base;
  PGconn *conn;
  char *schema;
  char *where;      /* "PostgreSQL server H:P, database D, schema S": for messages */
  char *begin_write;
  int busy_ms;
  bool in_tx;
  bool prepared[ST_COUNT];
  unsigned uses[ST_COUNT]; /* executions since the connection was made */
} pg_backend;

static pg_backend *PB(catalog_backend *be) { return (pg_backend *)be; }

/* ---- errors ------------------------------------------------------------------------- */

/* libpq messages end with a newline and may span lines ("FATAL:  ...\nDETAIL: ..."): the
 * first line, without the severity prefix. */
static char *first_line(const char *msg) {
  if (!msg) return wr_strdup("unknown error");
  const char *p = msg;
  for (const char *pre = NULL; (pre = strstr(p, ":  ")) && pre - p < 10;) p = pre + 3;
  size_t n = strcspn(p, "\n");
  while (n && isspace((unsigned char)p[n - 1])) n--;
  return wr_strndup(p, n);
}

static bool state_is(const PGresult *res, const char *code) {
  const char *s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  return s && strcmp(s, code) == 0;
}

static bool retryable(const PGresult *res) {
  return state_is(res, "40001") || state_is(res, "40P01");
}

static int pgerr(pg_backend *b, const PGresult *res, const char *what, weir_error *err) {
  const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  char *msg = first_line(res && PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
                             ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
                             : PQerrorMessage(b->conn));
  int code;
  if (PQstatus(b->conn) == CONNECTION_BAD)
    code = wr_seterr(err, WEIR_EIO,
                     "lost the connection to the catalog (%s) while %s: %s%s", b->where, what, msg,
                     b->in_tx ? " (the transaction was not committed, or, if the connection broke "
                                "while committing, may have been: re-read before retrying)"
                              : "");
  else if (state && strcmp(state, "55P03") == 0)
    code = wr_seterr(err, WEIR_ECONCURRENT,
                     "catalog %s is locked by another writer (gave up after %d ms) while %s", b->where,
                     b->busy_ms, what);
  else if (state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0))
    code = wr_seterr(err, WEIR_ECONCURRENT,
                     "catalog %s: %s while %s (a concurrent transaction conflicted; nothing was "
                     "committed: re-read and retry)",
                     b->where, msg, what);
  else if (state && strcmp(state, "22021") == 0)
    code = wr_seterr(err, WEIR_EINVALIDARG, "catalog %s: %s: a value is not valid UTF-8", b->where, what);
  else if (state && strcmp(state, "53100") == 0)
    code = wr_seterr(err, WEIR_EIO,
                     "catalog %s: %s: the PostgreSQL server's disk is full (nothing was written)", b->where,
                     what);
  else if (state && strncmp(state, "53", 2) == 0)
    code = wr_seterr(err, WEIR_EIO, "catalog %s: %s: the server is out of resources: %s", b->where, what,
                     msg);
  else if (state && strcmp(state, "42501") == 0)
    code = wr_seterr(err, WEIR_ECATALOG,
                     "catalog %s: %s: permission denied (%s): the PostgreSQL role needs the "
                     "privileges of the schema's owner",
                     b->where, what, msg);
  else
    code = wr_seterr(err, WEIR_ECATALOG, "catalog %s: %s: %s%s%s%s", b->where, what, msg,
                     state ? " (SQLSTATE " : "", state ? state : "", state ? ")" : "");
  free(msg);
  return code;
}

/* ---- connection --------------------------------------------------------------------- */

static char *quote_ident(PGconn *conn, const char *s) {
  char *q = PQescapeIdentifier(conn, s, strlen(s));
  char *out = wr_strdup(q ? q : "\"\"");
  PQfreemem(q);
  return out;
}

/* search_path = the lake's schema only, so statements name tables unqualified. */
static int setup_session(pg_backend *b, weir_error *err) {
  const char *vals[1] = {b->schema};
  PGresult *res = PQexecParams(b->conn, "SELECT pg_catalog.set_config('search_path', $1, false)", 1,
                               NULL, vals, NULL, NULL, 0);
  int rc = WEIR_OK;
  if (PQresultStatus(res) != PGRES_TUPLES_OK) rc = pgerr(b, res, "selecting the lake's schema", err);
  PQclear(res);
  memset(b->prepared, 0, sizeof b->prepared);
  memset(b->uses, 0, sizeof b->uses);
  return rc;
}

/* A broken connection is re-established before a transaction or a statement outside one
 * (never in the middle of a transaction: the server has rolled it back). */
static int ensure_connected(pg_backend *b, weir_error *err) {
  if (PQstatus(b->conn) == CONNECTION_OK) return WEIR_OK;
  PQreset(b->conn);
  if (PQstatus(b->conn) != CONNECTION_OK) {
    char *msg = first_line(PQerrorMessage(b->conn));
    int rc = wr_seterr(err, WEIR_EIO, "cannot reconnect to the catalog (%s): %s", b->where, msg);
    free(msg);
    return rc;
  }
  return setup_session(b, err);
}

static void backoff(int attempt) {
  /* 2^attempt ms, plus up to as much again of jitter so that retrying clients spread. */
  long ms = 1L << (attempt + 1);
  ms += rand() % ms;
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Runs prepared statement `id`. Returns the result (PGRES_TUPLES_OK or COMMAND_OK) or NULL
 * with err set. Outside a transaction a serialization failure or deadlock is retried with
 * backoff, and a broken connection is re-established once. */
static PGresult *exec_st(pg_backend *b, int id, int n, const char *const *vals, const char *what,
                         weir_error *err) {
  bool reconnected = false;
  for (int attempt = 0;; attempt++) {
    if (!b->in_tx && ensure_connected(b, err)) return NULL;
    char name[16];
    snprintf(name, sizeof name, "weir%d", id);
    /* The first use of a statement on a connection sends it with its parameters (one round
     * trip); the second prepares it for the rest of the connection's life. A CLI command,
     * which uses most statements once, pays no extra round trip for preparing. */
    if (!b->prepared[id] && b->uses[id]++ == 0) {
      PGresult *res = PQexecParams(b->conn, SQL[id], n, NULL, vals, NULL, NULL, 0);
      ExecStatusType st = PQresultStatus(res);
      if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) return res;
      if (!b->in_tx && retryable(res) && attempt + 1 < PG_RETRY_ATTEMPTS) {
        PQclear(res);
        b->uses[id] = 0;
        backoff(attempt);
        continue;
      }
      if (!b->in_tx && PQstatus(b->conn) == CONNECTION_BAD && !reconnected) {
        PQclear(res);
        b->uses[id] = 0;
        reconnected = true;
        continue;
      }
      pgerr(b, res, what, err);
      PQclear(res);
      return NULL;
    }
    if (!b->prepared[id]) {
      PGresult *p = PQprepare(b->conn, name, SQL[id], 0, NULL);
      if (PQresultStatus(p) != PGRES_COMMAND_OK) {
        bool lost = PQstatus(b->conn) == CONNECTION_BAD;
        if (lost && !b->in_tx && !reconnected) {
          PQclear(p);
          reconnected = true;
          continue;
        }
        char *w = wr_asprintf("preparing a statement for %s", what);
        pgerr(b, p, w, err);
        free(w);
        PQclear(p);
        return NULL;
      }
      PQclear(p);
      b->prepared[id] = true;
    }
    PGresult *res = PQexecPrepared(b->conn, name, n, vals, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) return res;
    if (!b->in_tx) {
      if (retryable(res) && attempt + 1 < PG_RETRY_ATTEMPTS) {
        PQclear(res);
        backoff(attempt);
        continue;
      }
      if (PQstatus(b->conn) == CONNECTION_BAD && !reconnected) {
        PQclear(res);
        reconnected = true;
        continue;
      }
    }
    pgerr(b, res, what, err);
    PQclear(res);
    return NULL;
  }
}

static int exec_sql(pg_backend *b, const char *sql, const char *what, weir_error *err) {
  PGresult *res = PQexec(b->conn, sql);
  ExecStatusType st = PQresultStatus(res);
  int rc = WEIR_OK;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) rc = pgerr(b, res, what, err);
  PQclear(res);
  return rc;
}

static char *val(const PGresult *r, int row, int col) {
  return PQgetisnull(r, row, col) ? NULL : wr_strdup(PQgetvalue(r, row, col));
}

static int64_t val_i64(const PGresult *r, int row, int col) {
  return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static void val_hash(const PGresult *r, int row, int col, char out[WEIR_HASH_LEN + 1]) {
  if (PQgetisnull(r, row, col)) out[0] = 0;
  else snprintf(out, WEIR_HASH_LEN + 1, "%s", PQgetvalue(r, row, col));
}

static long affected(const PGresult *r) { return strtol(PQcmdTuples((PGresult *)r), NULL, 10); }

/* ---- lifecycle and schema ----------------------------------------------------------- */

static void pg_close(catalog_backend *be) {
  pg_backend *b = PB(be);
  if (!b) return;
  if (b->conn) PQfinish(b->conn);
  free(b->schema);
  free(b->where);
  free(b->begin_write);
  free(b);
}

static int pg_probe(catalog_backend *be, int *version, weir_error *err) {
  pg_backend *b = PB(be);
  const char *vals[1] = {b->schema};
  PGresult *r = exec_st(b, ST_PROBE, 1, vals, "reading the schema", err);
  if (!r) return err ? err->code : WEIR_ECATALOG;
  int64_t n_objects = val_i64(r, 0, 0), has_schema = val_i64(r, 0, 1);
  PQclear(r);
  if (!has_schema) {
    *version = n_objects == 0 ? 0 : -1;
    return WEIR_OK;
  }
  r = exec_st(b, ST_VERSION, 0, NULL, "reading the schema version", err);
  if (!r) return err ? err->code : WEIR_ECATALOG;
  *version = (int)val_i64(r, 0, 0);
  PQclear(r);
  return WEIR_OK;
}

static int pg_migrate(catalog_backend *be, const catalog_migration *m, weir_error *err) {
  pg_backend *b = PB(be);
  int rc = exec_sql(b,
                    "CREATE TABLE IF NOT EXISTS weir_schema_migrations ("
                    " version INTEGER PRIMARY KEY,"
                    " description TEXT NOT NULL,"
                    " applied_us BIGINT NOT NULL)",
                    "creating the migrations table", err);
  if (rc) return rc;
  /* Table storage hints (m->clustered) have no PostgreSQL counterpart worth having:
   * heap tables with a primary key index are what it offers. */
  for (int i = 0; m->statements[i]; i++) {
    char *what = wr_asprintf("applying schema migration %d (%s)", m->version, m->description);
    rc = exec_sql(b, catalog_migration_sql(m, i, "postgresql"), what, err);
    free(what);
    if (rc) return rc;
  }
  char v[16], now[32];
  snprintf(v, sizeof v, "%d", m->version);
  snprintf(now, sizeof now, "%lld", (long long)wr_now_us());
  const char *vals[3] = {v, m->description, now};
  PGresult *r = exec_st(b, ST_MIGRATION_PUT, 3, vals, "recording a schema migration", err);
  if (!r) return err ? err->code : WEIR_ECATALOG;
  PQclear(r);
  return WEIR_OK;
}

/* ---- transactions ------------------------------------------------------------------- */

static int pg_begin(catalog_backend *be, bool write, weir_error *err) {
  pg_backend *b = PB(be);
  const char *sql = write ? b->begin_write : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
  for (int attempt = 0;; attempt++) {
    int rc = ensure_connected(b, err);
    if (rc) return rc;
    PGresult *res = PQexec(b->conn, sql);
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
      PQclear(res);
      b->in_tx = true;
      return WEIR_OK;
    }
    bool again = retryable(res) && attempt + 1 < PG_RETRY_ATTEMPTS;
    bool lost = PQstatus(b->conn) == CONNECTION_BAD && attempt == 0;
    if (!again && !lost) {
      rc = pgerr(b, res, write ? "starting a write transaction" : "starting a read transaction", err);
      PQclear(res);
      if (PQstatus(b->conn) == CONNECTION_OK && PQtransactionStatus(b->conn) != PQTRANS_IDLE)
        PQclear(PQexec(b->conn, "ROLLBACK"));
      return rc;
    }
    PQclear(res);
    if (PQstatus(b->conn) == CONNECTION_OK) PQclear(PQexec(b->conn, "ROLLBACK"));
    if (again) backoff(attempt);
  }
}

static int pg_commit(catalog_backend *be, weir_error *err) {
  pg_backend *b = PB(be);
  int rc = exec_sql(b, "COMMIT", "committing a transaction", err);
  b->in_tx = false;
  return rc;
}

static void pg_rollback(catalog_backend *be) {
  pg_backend *b = PB(be);
  if (PQstatus(b->conn) == CONNECTION_OK && PQtransactionStatus(b->conn) != PQTRANS_IDLE)
    PQclear(PQexec(b->conn, "ROLLBACK"));
  b->in_tx = false;
}

static int pg_savepoint(catalog_backend *be, int level, weir_error *err) {
  char sql[64];
  snprintf(sql, sizeof sql, "SAVEPOINT weir_sp%d", level);
  return exec_sql(PB(be), sql, "opening a nested transaction", err);
}

static int pg_release(catalog_backend *be, int level, weir_error *err) {
  char sql[64];
  snprintf(sql, sizeof sql, "RELEASE SAVEPOINT weir_sp%d", level);
  return exec_sql(PB(be), sql, "committing a nested transaction", err);
}

static void pg_rollback_to(catalog_backend *be, int level) {
  char sql[96];
  snprintf(sql, sizeof sql, "ROLLBACK TO SAVEPOINT weir_sp%d; RELEASE SAVEPOINT weir_sp%d", level,
           level);
  exec_sql(PB(be), sql, "rolling back a nested transaction", NULL);
}

/* ---- tree nodes --------------------------------------------------------------------- */

#define EXEC(b, id, n, vals, what)                                \
  PGresult *r = exec_st((b), (id), (n), (vals), (what), err);    \
  if (!r) return err ? err->code : WEIR_ECATALOG

static int pg_node_get(catalog_backend *be, const char *hash, char **body, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {hash};
  EXEC(b, ST_NODE_GET, 1, v, "reading a table map node");
  int rc = WEIR_OK;
  if (PQntuples(r) == 0)
    rc = wr_seterr(err, WEIR_ECATALOG, "catalog %s is corrupt: table map node %s is missing", b->where,
                   hash);
  else *body = val(r, 0, 0);
  PQclear(r);
  return rc;
}

static int pg_node_put(catalog_backend *be, const char *hash, const char *body, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[2] = {hash, body};
  EXEC(b, ST_NODE_PUT, 2, v, "writing a table map node");
  PQclear(r);
  return WEIR_OK;
}

/* ---- commits ------------------------------------------------------------------------ */

static int pg_commit_get(catalog_backend *be, const char *hash, wr_commit_rec *out, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {hash};
  EXEC(b, ST_COMMIT_GET, 1, v, "reading a commit");
  if (PQntuples(r) == 0) {
    PQclear(r);
    return wr_seterr(err, WEIR_ENOTFOUND, "commit %s not found", hash);
  }
  memset(out, 0, sizeof *out);
  snprintf(out->hash, sizeof out->hash, "%s", hash);
  val_hash(r, 0, 0, out->tables_root);
  out->author = val(r, 0, 1);
  out->message = val(r, 0, 2);
  out->time_us = val_i64(r, 0, 3);
  const char *props = PQgetisnull(r, 0, 4) ? NULL : PQgetvalue(r, 0, 4);
  out->properties = props ? json_loads(props, 0, NULL) : NULL;
  if (!json_is_object(out->properties)) {
    json_decref(out->properties);
    out->properties = json_object();
  }
  out->generation = val_i64(r, 0, 5);
  out->run_id = val(r, 0, 6);
  val_hash(r, 0, 7, out->parents[0]);
  val_hash(r, 0, 8, out->parents[1]);
  out->n_parents = out->parents[0][0] ? (out->parents[1][0] ? 2 : 1) : 0;
  PQclear(r);
  if (!out->author) out->author = wr_strdup("");
  if (!out->message) out->message = wr_strdup("");
  return WEIR_OK;
}

static int pg_commit_put(catalog_backend *be, const wr_commit_rec *c, weir_error *err) {
  pg_backend *b = PB(be);
  char *props = wr_json_canonical(c->properties);
  char t[32], g[32];
  snprintf(t, sizeof t, "%lld", (long long)c->time_us);
  snprintf(g, sizeof g, "%lld", (long long)c->generation);
  const char *v[8] = {c->hash, c->tables_root, c->author, c->message, t, props, g, c->run_id};
  PGresult *r = exec_st(b, ST_COMMIT_PUT, 8, v, "writing a commit", err);
  free(props);
  if (!r) return err ? err->code : WEIR_ECATALOG;
  PQclear(r);
  for (int i = 0; i < c->n_parents; i++) {
    char pos[16];
    snprintf(pos, sizeof pos, "%d", i);
    const char *pv[3] = {c->hash, pos, c->parents[i]};
    r = exec_st(b, ST_PARENT_PUT, 3, pv, "writing a commit's parent", err);
    if (!r) return err ? err->code : WEIR_ECATALOG;
    PQclear(r);
  }
  return WEIR_OK;
}

static int pg_commit_prefix(catalog_backend *be, const char *prefix, char (*out)[WEIR_HASH_LEN + 1],
                            size_t max, size_t *n, weir_error *err) {
  pg_backend *b = PB(be);
  /* Hashes are lowercase hex, so every hash with this prefix sorts below prefix + "g". */
  char *upper = wr_asprintf("%sg", prefix);
  char lim[32];
  snprintf(lim, sizeof lim, "%zu", max);
  const char *v[3] = {prefix, upper, lim};
  PGresult *r = exec_st(b, ST_COMMIT_PREFIX, 3, v, "looking up a commit hash prefix", err);
  free(upper);
  if (!r) return err ? err->code : WEIR_ECATALOG;
  *n = 0;
  for (int i = 0; i < PQntuples(r) && *n < max; i++) val_hash(r, i, 0, out[(*n)++]);
  PQclear(r);
  return WEIR_OK;
}

static const char *change_name(wr_change_kind k) {
  switch (k) {
  case WEIR_CHANGE_ADDED: return "added";
  case WEIR_CHANGE_CHANGED: return "changed";
  default: return "dropped";
  }
}

static int pg_changes_put(catalog_backend *be, const char *commit, const char *table,
                          wr_change_kind kind, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[3] = {commit, table, change_name(kind)};
  EXEC(b, ST_CHANGE_PUT, 3, v, "recording a commit's table changes");
  PQclear(r);
  return WEIR_OK;
}

static int pg_changes_get(catalog_backend *be, const char *commit, json_t **out, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {commit};
  EXEC(b, ST_CHANGES_GET, 1, v, "reading a commit's table changes");
  json_t *arr = json_array();
  for (int i = 0; i < PQntuples(r); i++)
    json_array_append_new(arr, json_pack("{s:s,s:s}", "table", PQgetvalue(r, i, 0), "change",
                                         PQgetvalue(r, i, 1)));
  PQclear(r);
  *out = arr;
  return WEIR_OK;
}

/* ---- refs --------------------------------------------------------------------------- */

static const char *kind_name(wr_ref_kind k) { return k == WEIR_REF_TAG ? "tag" : "branch"; }
static const char *kind_num(wr_ref_kind k) { return k == WEIR_REF_TAG ? "1" : "0"; }

static int pg_ref_get(catalog_backend *be, wr_ref_kind kind, const char *name,
                      char out[WEIR_HASH_LEN + 1], weir_error *err) {
  pg_backend *b = PB(be);
  /* PostgreSQL refuses text that is not UTF-8 (and the error would abort the caller's
   * transaction); no ref can have such a name, so it is simply not found, as in SQLite. */
  if (!wr_utf8_valid(name, strlen(name)))
    return wr_seterr(err, WEIR_ENOTFOUND, "%s '%s' not found", kind_name(kind), name);
  const char *v[2] = {kind_num(kind), name};
  EXEC(b, ST_REF_GET, 2, v, "reading a ref");
  int rc = WEIR_OK;
  if (PQntuples(r) == 0) rc = wr_seterr(err, WEIR_ENOTFOUND, "%s '%s' not found", kind_name(kind), name);
  else val_hash(r, 0, 0, out);
  PQclear(r);
  return rc;
}

static int pg_ref_list(catalog_backend *be, wr_ref_kind kind, wr_ref_rec **out, size_t *n,
                       weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {kind_num(kind)};
  EXEC(b, ST_REF_LIST, 1, v, "listing refs");
  size_t len = (size_t)PQntuples(r);
  wr_ref_rec *recs = wr_calloc(len ? len : 1, sizeof *recs);
  for (size_t i = 0; i < len; i++) {
    recs[i].name = val(r, (int)i, 0);
    val_hash(r, (int)i, 1, recs[i].target);
    recs[i].updated_us = val_i64(r, (int)i, 2);
  }
  PQclear(r);
  *out = recs;
  *n = len;
  return WEIR_OK;
}

static int pg_ref_create(catalog_backend *be, wr_ref_kind kind, const char *name, const char *target,
                         int64_t now_us, weir_error *err) {
  pg_backend *b = PB(be);
  char now[32];
  snprintf(now, sizeof now, "%lld", (long long)now_us);
  const char *v[4] = {kind_num(kind), name, target, now};
  EXEC(b, ST_REF_CREATE, 4, v, "creating a ref");
  long changed = affected(r);
  PQclear(r);
  if (changed == 0) return wr_seterr(err, WEIR_EEXISTS, "%s '%s' already exists", kind_name(kind), name);
  return WEIR_OK;
}

static int pg_ref_delete(catalog_backend *be, wr_ref_kind kind, const char *name, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[2] = {kind_num(kind), name};
  EXEC(b, ST_REF_DELETE, 2, v, "deleting a ref");
  long changed = affected(r);
  PQclear(r);
  if (changed == 0) return wr_seterr(err, WEIR_ENOTFOUND, "%s '%s' not found", kind_name(kind), name);
  return WEIR_OK;
}

static int pg_ref_cas(catalog_backend *be, const char *name, const char *expected, const char *target,
                      int64_t now_us, bool *swapped, weir_error *err) {
  pg_backend *b = PB(be);
  char now[32];
  snprintf(now, sizeof now, "%lld", (long long)now_us);
  const char *v[4] = {target, now, name, expected};
  EXEC(b, ST_REF_CAS, 4, v, "moving a branch");
  *swapped = affected(r) == 1;
  PQclear(r);
  return WEIR_OK;
}

/* ---- provenance --------------------------------------------------------------------- */

static int pg_version_put(catalog_backend *be, const char *loc, const char *table, const char *commit,
                          const char *run_id, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[4] = {loc, table, commit, run_id};
  EXEC(b, ST_VERSION_PUT, 4, v, "recording a table version");
  PQclear(r);
  return WEIR_OK;
}

static int pg_version_get(catalog_backend *be, const char *loc, catalog_table_version *out, bool *found,
                          weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {loc};
  memset(out, 0, sizeof *out);
  *found = false;
  EXEC(b, ST_VERSION_GET, 1, v, "reading a table version");
  if (PQntuples(r) > 0) {
    out->metadata_location = wr_strdup(loc);
    out->table = val(r, 0, 0);
    val_hash(r, 0, 1, out->commit);
    out->run_id = val(r, 0, 2);
    *found = true;
  }
  PQclear(r);
  return WEIR_OK;
}

static int pg_run_versions(catalog_backend *be, const char *run_id, catalog_table_version **out,
                           size_t *n, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {run_id};
  EXEC(b, ST_RUN_VERSIONS, 1, v, "reading a run's table versions");
  size_t len = (size_t)PQntuples(r);
  catalog_table_version *vs = wr_calloc(len ? len : 1, sizeof *vs);
  for (size_t i = 0; i < len; i++) {
    vs[i].metadata_location = val(r, (int)i, 0);
    vs[i].table = val(r, (int)i, 1);
    val_hash(r, (int)i, 2, vs[i].commit);
    vs[i].run_id = wr_strdup(run_id);
  }
  PQclear(r);
  *out = vs;
  *n = len;
  return WEIR_OK;
}

static int read_strings(pg_backend *b, int id, const char *arg, const char *what, char ***out,
                        size_t *n, weir_error *err) {
  const char *v[1] = {arg};
  EXEC(b, id, 1, v, what);
  size_t len = (size_t)PQntuples(r);
  char **s = wr_calloc(len ? len : 1, sizeof *s);
  for (size_t i = 0; i < len; i++) s[i] = val(r, (int)i, 0);
  PQclear(r);
  *out = s;
  *n = len;
  return WEIR_OK;
}

static int pg_run_tables(catalog_backend *be, const char *run_id, char ***out, size_t *n,
                         weir_error *err) {
  return read_strings(PB(be), ST_RUN_TABLES, run_id, "reading the tables a run wrote", out, n, err);
}

/* ---- runs --------------------------------------------------------------------------- */

static int pg_run_create(catalog_backend *be, const catalog_run_row *row, weir_error *err) {
  pg_backend *b = PB(be);
  char started[32];
  snprintf(started, sizeof started, "%lld", (long long)row->started_us);
  const char *v[9] = {row->run_id,   wr_run_status_name(row->status), row->project,
                      row->project_digest, row->branch, row->run_branch,
                      row->base_commit, started, row->owner};
  EXEC(b, ST_RUN_CREATE, 9, v, "recording a run");
  long changed = affected(r);
  PQclear(r);
  if (changed == 0) return wr_seterr(err, WEIR_EEXISTS, "run %s already exists", row->run_id);
  return WEIR_OK;
}

static int pg_run_model_put(catalog_backend *be, const char *run_id, const char *model,
                            const char *body, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[3] = {run_id, model, body};
  EXEC(b, ST_RUN_MODEL_PUT, 3, v, "recording a model of a run");
  PQclear(r);
  return WEIR_OK;
}

static int pg_run_finish(catalog_backend *be, const char *run_id, wr_run_status status,
                         const char *result_commit, const char *error_json, int64_t ended_us,
                         weir_error *err) {
  pg_backend *b = PB(be);
  char ended[32];
  snprintf(ended, sizeof ended, "%lld", (long long)ended_us);
  const char *v[5] = {wr_run_status_name(status), result_commit, error_json, ended, run_id};
  EXEC(b, ST_RUN_FINISH, 5, v, "finishing a run");
  long changed = affected(r);
  PQclear(r);
  if (changed == 0) return wr_seterr(err, WEIR_ENOTFOUND, "run %s not found", run_id);
  return WEIR_OK;
}

static wr_run_status parse_status(const char *s) {
  if (s && strcmp(s, "succeeded") == 0) return WEIR_RUN_SUCCEEDED;
  if (s && strcmp(s, "failed") == 0) return WEIR_RUN_FAILED;
  return WEIR_RUN_RUNNING;
}

static int pg_run_get(catalog_backend *be, const char *run_id, catalog_run_row *out, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {run_id};
  EXEC(b, ST_RUN_GET, 1, v, "reading a run");
  if (PQntuples(r) == 0) {
    PQclear(r);
    return wr_seterr(err, WEIR_ENOTFOUND, "run %s not found", run_id);
  }
  memset(out, 0, sizeof *out);
  out->run_id = wr_strdup(run_id);
  out->status = parse_status(PQgetvalue(r, 0, 0));
  out->project = val(r, 0, 1);
  out->project_digest = val(r, 0, 2);
  out->branch = val(r, 0, 3);
  out->run_branch = val(r, 0, 4);
  out->base_commit = val(r, 0, 5);
  out->result_commit = val(r, 0, 6);
  out->started_us = val_i64(r, 0, 7);
  out->ended_us = val_i64(r, 0, 8);
  out->error_json = val(r, 0, 9);
  out->owner = val(r, 0, 10);
  PQclear(r);
  return WEIR_OK;
}

static int pg_run_models(catalog_backend *be, const char *run_id, char ***bodies, size_t *n,
                         weir_error *err) {
  return read_strings(PB(be), ST_RUN_MODELS, run_id, "reading a run's models", bodies, n, err);
}

static int pg_run_list(catalog_backend *be, int64_t max, char ***ids, size_t *n, weir_error *err) {
  char lim[32];
  snprintf(lim, sizeof lim, "%lld", (long long)max);
  return read_strings(PB(be), ST_RUN_LIST, max > 0 ? lim : NULL, "listing runs", ids, n, err);
}

/* ---- access and namespaces ---------------------------------------------------------- */

static int pg_token_put(catalog_backend *be, const catalog_token_row *r_, weir_error *err) {
  pg_backend *b = PB(be);
  char created[32];
  snprintf(created, sizeof created, "%lld", (long long)r_->created_us);
  const char *v[5] = {r_->name, r_->secret_sha256, r_->read_only ? "1" : "0", r_->branches, created};
  EXEC(b, ST_TOKEN_PUT, 5, v, "recording a token");
  long changed = affected(r);
  PQclear(r);
  if (changed == 0) return wr_seterr(err, WEIR_EEXISTS, "a token named \"%s\" already exists", r_->name);
  return WEIR_OK;
}

static int pg_token_find(catalog_backend *be, const char *sha256, catalog_token_row *out, bool *found,
                         weir_error *err) {
  pg_backend *b = PB(be);
  *found = false;
  const char *v[1] = {sha256};
  EXEC(b, ST_TOKEN_FIND, 1, v, "looking up a token");
  if (PQntuples(r) > 0) {
    memset(out, 0, sizeof *out);
    out->name = val(r, 0, 0);
    snprintf(out->secret_sha256, sizeof out->secret_sha256, "%s", sha256);
    out->read_only = val_i64(r, 0, 1) != 0;
    out->branches = val(r, 0, 2);
    out->created_us = val_i64(r, 0, 3);
    out->revoked_us = val_i64(r, 0, 4);
    *found = true;
  }
  PQclear(r);
  return WEIR_OK;
}

static int pg_token_list(catalog_backend *be, catalog_token_row **out, size_t *n, weir_error *err) {
  pg_backend *b = PB(be);
  *out = NULL;
  *n = 0;
  EXEC(b, ST_TOKEN_LIST, 0, NULL, "listing tokens");
  size_t len = (size_t)PQntuples(r);
  catalog_token_row *rows = wr_calloc(len ? len : 1, sizeof *rows);
  for (size_t i = 0; i < len; i++) {
    rows[i].name = val(r, (int)i, 0);
    snprintf(rows[i].secret_sha256, sizeof rows[i].secret_sha256, "%s", PQgetvalue(r, (int)i, 1));
    rows[i].read_only = val_i64(r, (int)i, 2) != 0;
    rows[i].branches = val(r, (int)i, 3);
    rows[i].created_us = val_i64(r, (int)i, 4);
    rows[i].revoked_us = val_i64(r, (int)i, 5);
  }
  PQclear(r);
  *out = rows;
  *n = len;
  return WEIR_OK;
}

static int pg_token_revoke(catalog_backend *be, const char *name, int64_t now_us, bool *found,
                           weir_error *err) {
  pg_backend *b = PB(be);
  char now[32];
  snprintf(now, sizeof now, "%lld", (long long)now_us);
  const char *v[2] = {now, name};
  EXEC(b, ST_TOKEN_REVOKE, 2, v, "revoking a token");
  *found = affected(r) > 0;
  PQclear(r);
  return WEIR_OK;
}

static int pg_protect_set(catalog_backend *be, const char *branch, bool on, int64_t now_us,
                          weir_error *err) {
  pg_backend *b = PB(be);
  char now[32];
  snprintf(now, sizeof now, "%lld", (long long)now_us);
  const char *v[2] = {branch, now};
  EXEC(b, on ? ST_PROTECT_ON : ST_PROTECT_OFF, on ? 2 : 1, v,
       on ? "protecting a branch" : "unprotecting a branch");
  PQclear(r);
  return WEIR_OK;
}

static int pg_protect_get(catalog_backend *be, const char *branch, bool *on, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {branch};
  EXEC(b, ST_PROTECT_GET, 1, v, "reading branch protection");
  *on = PQntuples(r) > 0;
  PQclear(r);
  return WEIR_OK;
}

static int pg_checks_set(catalog_backend *be, const char *branch, const char *const *projects, size_t n,
                         int64_t now_us, weir_error *err) {
  pg_backend *b = PB(be);
  {
    const char *v[1] = {branch};
    EXEC(b, ST_CHECKS_CLEAR, 1, v, "clearing a branch's merge checks");
    PQclear(r);
  }
  char now[32];
  snprintf(now, sizeof now, "%lld", (long long)now_us);
  for (size_t i = 0; i < n; i++) {
    char pos[32];
    snprintf(pos, sizeof pos, "%zu", i);
    const char *v[4] = {branch, projects[i], pos, now};
    EXEC(b, ST_CHECKS_ADD, 4, v, "recording a branch's merge check");
    PQclear(r);
  }
  return WEIR_OK;
}

static int pg_checks_get(catalog_backend *be, const char *branch, char ***projects, size_t *n, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {branch};
  EXEC(b, ST_CHECKS_GET, 1, v, "reading a branch's merge checks");
  size_t len = (size_t)PQntuples(r);
  char **s = wr_calloc(len ? len : 1, sizeof *s);
  for (size_t i = 0; i < len; i++) s[i] = val(r, (int)i, 0);
  PQclear(r);
  *projects = s;
  *n = len;
  return WEIR_OK;
}

static int pg_namespace_put(catalog_backend *be, const char *name, const char *properties, bool replace,
                            int64_t now_us, weir_error *err) {
  pg_backend *b = PB(be);
  char now[32];
  snprintf(now, sizeof now, "%lld", (long long)now_us);
  const char *v[3] = {name, properties, now};
  EXEC(b, replace ? ST_NS_UPDATE : ST_NS_INSERT, replace ? 2 : 3, v, "recording a namespace");
  long changed = affected(r);
  PQclear(r);
  if (changed == 0)
    return replace ? wr_seterr(err, WEIR_ENOTFOUND, "namespace %s not found", name)
                   : wr_seterr(err, WEIR_EEXISTS, "namespace %s already exists", name);
  return WEIR_OK;
}

static int pg_namespace_get(catalog_backend *be, const char *name, char **properties, bool *found,
                            weir_error *err) {
  pg_backend *b = PB(be);
  *found = false;
  *properties = NULL;
  const char *v[1] = {name};
  EXEC(b, ST_NS_GET, 1, v, "reading a namespace");
  if (PQntuples(r) > 0) {
    *properties = val(r, 0, 0);
    *found = true;
  }
  PQclear(r);
  return WEIR_OK;
}

static int pg_namespace_list(catalog_backend *be, char ***names, size_t *n, weir_error *err) {
  pg_backend *b = PB(be);
  EXEC(b, ST_NS_LIST, 0, NULL, "listing namespaces");
  size_t len = (size_t)PQntuples(r);
  char **s = wr_calloc(len ? len : 1, sizeof *s);
  for (size_t i = 0; i < len; i++) s[i] = val(r, (int)i, 0);
  PQclear(r);
  *names = s;
  *n = len;
  return WEIR_OK;
}

static int pg_namespace_delete(catalog_backend *be, const char *name, bool *found, weir_error *err) {
  pg_backend *b = PB(be);
  const char *v[1] = {name};
  EXEC(b, ST_NS_DELETE, 1, v, "dropping a namespace");
  *found = affected(r) > 0;
  PQclear(r);
  return WEIR_OK;
}

static int pg_commit_all(catalog_backend *be, char ***hashes, size_t *n, weir_error *err) {
  pg_backend *b = PB(be);
  EXEC(b, ST_COMMIT_ALL, 0, NULL, "listing commits");
  size_t len = (size_t)PQntuples(r);
  char **s = wr_calloc(len ? len : 1, sizeof *s);
  for (size_t i = 0; i < len; i++) s[i] = val(r, (int)i, 0);
  PQclear(r);
  *hashes = s;
  *n = len;
  return WEIR_OK;
}

static int pg_expiry_put(catalog_backend *be, const char *hash, int64_t expired_us, const char *reason,
                         weir_error *err) {
  pg_backend *b = PB(be);
  char when[32];
  snprintf(when, sizeof when, "%lld", (long long)expired_us);
  const char *v[3] = {hash, when, reason};
  EXEC(b, ST_EXPIRY_PUT, 3, v, "recording an expired commit");
  PQclear(r);
  return WEIR_OK;
}

static int pg_expiry_get(catalog_backend *be, const char *hash, int64_t *expired_us, char **reason, bool *found,
                         weir_error *err) {
  pg_backend *b = PB(be);
  *found = false;
  const char *v[1] = {hash};
  EXEC(b, ST_EXPIRY_GET, 1, v, "reading an expired commit");
  if (PQntuples(r) > 0) {
    *found = true;
    *expired_us = val_i64(r, 0, 0);
    *reason = val(r, 0, 1);
  }
  PQclear(r);
  return WEIR_OK;
}

static const catalog_backend_ops POSTGRES_OPS = {
    .name = "postgresql",
    .close = pg_close,
    .probe = pg_probe,
    .migrate = pg_migrate,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .savepoint = pg_savepoint,
    .release = pg_release,
    .rollback_to = pg_rollback_to,
    .node_get = pg_node_get,
    .node_put = pg_node_put,
    .commit_get = pg_commit_get,
    .commit_put = pg_commit_put,
    .commit_prefix = pg_commit_prefix,
    .changes_put = pg_changes_put,
    .changes_get = pg_changes_get,
    .ref_get = pg_ref_get,
    .ref_list = pg_ref_list,
    .ref_create = pg_ref_create,
    .ref_delete = pg_ref_delete,
    .ref_cas = pg_ref_cas,
    .version_put = pg_version_put,
    .version_get = pg_version_get,
    .run_versions = pg_run_versions,
    .run_tables = pg_run_tables,
    .run_create = pg_run_create,
    .run_model_put = pg_run_model_put,
    .run_finish = pg_run_finish,
    .run_get = pg_run_get,
    .run_models = pg_run_models,
    .run_list = pg_run_list,
    .token_put = pg_token_put,
    .token_find = pg_token_find,
    .token_list = pg_token_list,
    .token_revoke = pg_token_revoke,
    .protect_set = pg_protect_set,
    .protect_get = pg_protect_get,
    .checks_set = pg_checks_set,
    .checks_get = pg_checks_get,
    .namespace_put = pg_namespace_put,
    .namespace_get = pg_namespace_get,
    .namespace_list = pg_namespace_list,
    .commit_all = pg_commit_all,
    .expiry_put = pg_expiry_put,
    .expiry_get = pg_expiry_get,
    .namespace_delete = pg_namespace_delete,
};

/* ---- locations ---------------------------------------------------------------------- */

bool catalog_is_postgres_uri(const char *uri) {
  return uri && (strncmp(uri, "postgresql://", 13) == 0 || strncmp(uri, "postgres://", 11) == 0);
}

static bool valid_schema(const char *s) {
  if (!*s || strlen(s) > 63) return false;
  if (!(islower((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_')) return false;
  return true;
}

/* Splits `uri` into what libpq reads (the URI without weir's `schema` parameter) and the
 * schema. */
static int split_uri(const char *uri, char **libpq_uri, char **schema, weir_error *err) {
  *libpq_uri = NULL;
  *schema = NULL;
  const char *q = strchr(uri, '?');
  wr_buf out = WEIR_BUF_INIT;
  wr_buf_append(&out, uri, q ? (size_t)(q - uri) : strlen(uri));
  char *sch = NULL;
  if (q) {
    char *params = wr_strdup(q + 1);
    int kept = 0;
    char *save = NULL;
    for (char *p = strtok_r(params, "&", &save); p; p = strtok_r(NULL, "&", &save)) {
      if (strncmp(p, "schema=", 7) == 0) {
        free(sch);
        sch = wr_strdup(p + 7);
        continue;
      }
      wr_buf_printf(&out, "%c%s", kept++ ? '&' : '?', p);
    }
    free(params);
  }
  if (sch && !valid_schema(sch)) {
    int rc = wr_seterr(err, WEIR_EINVALIDARG,
                       "catalog location: schema '%s' is not a valid name (lowercase letters, digits "
                       "and _, starting with a letter or _, at most 63 characters)",
                       sch);
    free(sch);
    wr_buf_free(&out);
    return rc;
  }
  *schema = sch ? sch : wr_strdup("public");
  *libpq_uri = wr_strdup(wr_buf_cstr(&out));
  wr_buf_free(&out);
  return WEIR_OK;
}

int catalog_postgres_location(const char *uri, char **stored, bool *had_password, weir_error *err) {
  *stored = NULL;
  *had_password = false;
  char *libpq_uri = NULL, *schema = NULL;
  int rc = split_uri(uri, &libpq_uri, &schema, err);
  if (rc) return rc;
  char *perr = NULL;
  PQconninfoOption *opts = PQconninfoParse(libpq_uri, &perr);
  if (!opts) {
    char *msg = first_line(perr);
    /* The message of a parse error never holds the URI's password (libpq names the part
     * it could not read), but the URI itself may: it is not repeated. */
    rc = wr_seterr(err, WEIR_EINVALIDARG, "the catalog location is not a valid PostgreSQL URI: %s", msg);
    free(msg);
    PQfreemem(perr);
    free(libpq_uri);
    free(schema);
    return rc;
  }
  for (PQconninfoOption *o = opts; o->keyword; o++)
    if (strcmp(o->keyword, "password") == 0 && o->val && *o->val) *had_password = true;
  /* Rebuilt from the parsed options (in libpq's order, password left out), so the stored
   * form is canonical: postgresql://USER@HOST:PORT/DB?param=value&...&schema=S. */
  const char *user = NULL, *host = NULL, *port = NULL, *db = NULL;
  wr_buf params = WEIR_BUF_INIT;
  for (PQconninfoOption *o = opts; o->keyword; o++) {
    if (!o->val || !*o->val) continue;
    if (strcmp(o->keyword, "user") == 0) user = o->val;
    else if (strcmp(o->keyword, "host") == 0) host = o->val;
    else if (strcmp(o->keyword, "port") == 0) port = o->val;
    else if (strcmp(o->keyword, "dbname") == 0) db = o->val;
    else if (strcmp(o->keyword, "password") != 0) {
      char *enc = wr_strdup(o->val);
      wr_buf_printf(&params, "%s%s=", params.len ? "&" : "", o->keyword);
      for (const unsigned char *c = (const unsigned char *)enc; *c; c++) {
        if (isalnum(*c) || strchr("-._~", *c)) wr_buf_printf(&params, "%c", *c);
        else wr_buf_printf(&params, "%%%02X", *c);
      }
      free(enc);
    }
  }
  wr_buf s = WEIR_BUF_INIT;
  wr_buf_puts(&s, "postgresql://");
  if (user) wr_buf_printf(&s, "%s@", user);
  if (host) {
    bool socket = host[0] == '/';
    if (socket) {
      /* A socket directory goes in the query (host=/path), as libpq reads it. */
      wr_buf_printf(&params, "%shost=%s", params.len ? "&" : "", host);
    } else if (strchr(host, ':') && !strchr(host, ',')) wr_buf_printf(&s, "[%s]", host);
    else wr_buf_puts(&s, host);
  }
  if (port && !(host && host[0] == '/')) wr_buf_printf(&s, ":%s", port);
  else if (port) wr_buf_printf(&params, "%sport=%s", params.len ? "&" : "", port);
  wr_buf_puts(&s, "/");
  if (db) wr_buf_puts(&s, db);
  if (strcmp(schema, "public") != 0) wr_buf_printf(&params, "%sschema=%s", params.len ? "&" : "", schema);
  if (params.len) wr_buf_printf(&s, "?%s", wr_buf_cstr(&params));
  *stored = wr_strdup(wr_buf_cstr(&s));
  wr_buf_free(&s);
  wr_buf_free(&params);
  PQconninfoFree(opts);
  free(libpq_uri);
  free(schema);
  return WEIR_OK;
}

/* ---- open --------------------------------------------------------------------------- */

static void ignore_notice(void *arg, const char *message) {
  (void)arg;
  (void)message;
}

static char *describe(PGconn *conn, const char *schema) {
  const char *host = PQhost(conn), *port = PQport(conn), *db = PQdb(conn), *user = PQuser(conn);
  bool socket = host && host[0] == '/';
  return wr_asprintf("PostgreSQL server %s%s%s%s, database %s, schema %s%s%s", socket ? "socket " : "",
                     host && *host ? host : "(default)", port && *port ? (socket ? " port " : ":") : "",
                     port && *port ? port : "", db && *db ? db : "(default)", schema,
                     user && *user ? ", user " : "", user && *user ? user : "");
}

/* Why a connection failed, as a weir error: a missing database is WEIR_ENOTFOUND, a refused
 * login WEIR_ECATALOG with where passwords come from, anything else (refused connection,
 * unknown host, timeout) WEIR_EIO. */
static int connect_error(PGconn *conn, const char *where, weir_error *err) {
  const char *raw = PQerrorMessage(conn);
  char *msg = first_line(raw);
  int rc;
  if (strstr(raw, "database \"") && strstr(raw, "does not exist"))
    rc = wr_seterr(err, WEIR_ENOTFOUND,
                   "no catalog database at %s: %s (create the database first, e.g. createdb %s)", where,
                   msg, PQdb(conn) ? PQdb(conn) : "NAME");
  else if (PQconnectionNeedsPassword(conn))
    rc = wr_seterr(err, WEIR_ECATALOG,
                   "cannot log in to %s: the server asks for a password and none was found (weir never "
                   "keeps one in the lake: put it in ~/.pgpass or $PGPASSFILE, or set $PGPASSWORD)",
                   where);
  else if (strstr(raw, "authentication failed") || strstr(raw, "role \"") ||
           strstr(raw, "no pg_hba.conf entry") || strstr(raw, "permission denied"))
    rc = wr_seterr(err, WEIR_ECATALOG,
                   "cannot log in to %s: %s (weir reads passwords from ~/.pgpass, $PGPASSFILE or "
                   "$PGPASSWORD, never from the lake)",
                   where, msg);
  else rc = wr_seterr(err, WEIR_EIO, "cannot connect to the catalog at %s: %s", where, msg);
  free(msg);
  return rc;
}

int catalog_backend_postgres_open(const char *uri, bool create, const wr_catalog_settings *settings,
                                  catalog_backend **out, char **where, weir_error *err) {
  *out = NULL;
  *where = NULL;
  char *libpq_uri = NULL, *schema = NULL;
  int rc = split_uri(uri, &libpq_uri, &schema, err);
  if (rc) return rc;
  /* libpq parses the URI (expand_dbname) and fills in the rest from PG* variables and
   * ~/.pgpass; weir only names itself unless the URI does. */
  const char *keys[] = {"dbname", "fallback_application_name", NULL};
  const char *vals[] = {libpq_uri, "weir", NULL};
  PGconn *conn = PQconnectdbParams(keys, vals, 1);
  free(libpq_uri);
  if (!conn) {
    free(schema);
    return wr_seterr(err, WEIR_EIO, "cannot connect to a PostgreSQL catalog: out of memory");
  }
  char *desc = describe(conn, schema);
  if (PQstatus(conn) != CONNECTION_OK) {
    rc = connect_error(conn, desc, err);
    PQfinish(conn);
    free(desc);
    free(schema);
    return rc;
  }
  pg_backend *b = wr_calloc(1, sizeof *b);
  b->base.ops = &POSTGRES_OPS;
  b->conn = conn;
  b->schema = schema;
  b->where = desc;
  /* The lake's busy timeout (weir_lake_options.busy_timeout_ms) bounds the wait for the
   * lake's lock, as it bounds SQLite's busy wait. */
  b->busy_ms = settings && settings->busy_timeout_ms > 0 ? settings->busy_timeout_ms : 30000;
  /* Notices (CREATE ... IF NOT EXISTS) are not for weir's users. */
  PQsetNoticeProcessor(conn, ignore_notice, NULL);
  {
    char *lit = PQescapeLiteral(conn, schema, strlen(schema));
    b->begin_write = wr_asprintf("BEGIN ISOLATION LEVEL READ COMMITTED;"
                                 " SET LOCAL lock_timeout = %d;"
                                 " SELECT pg_catalog.pg_advisory_xact_lock(%d, pg_catalog.hashtext(%s))",
                                 b->busy_ms > 0 ? b->busy_ms : 1, WEIR_ADVISORY_CLASS, lit ? lit : "''");
    PQfreemem(lit);
  }
  rc = setup_session(b, err);
  if (!rc && create) {
    /* The schema is made if missing; an existing one is used as it is (the creator then
     * checks, under the lock, that it holds nothing). CREATE SCHEMA IF NOT EXISTS would
     * need the CREATE privilege on the database even for a schema that exists. */
    const char *sv[1] = {schema};
    PGresult *r = PQexecParams(conn, "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1", 1, NULL,
                               sv, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) rc = pgerr(b, r, "looking for the lake's schema", err);
    else if (PQntuples(r) == 0) {
      char *id = quote_ident(conn, schema);
      char *sql = wr_asprintf("CREATE SCHEMA %s", id);
      PGresult *c = PQexec(conn, sql);
      /* Another creator may have made it meanwhile: 42P06 duplicate_schema, or 23505 when
       * both inserted the catalog row at once. */
      if (PQresultStatus(c) != PGRES_COMMAND_OK && !state_is(c, "42P06") && !state_is(c, "23505"))
        rc = pgerr(b, c, "creating the lake's schema", err);
      PQclear(c);
      free(sql);
      free(id);
    }
    PQclear(r);
  }
  if (rc) {
    pg_close(&b->base);
    return rc;
  }
  *where = wr_strdup(b->where);
  *out = &b->base;
  return WEIR_OK;
}
