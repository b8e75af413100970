/*
 * serve.h -- `weir serve`: the Apache Iceberg REST catalog API over a weir lake
 * (docs/serve.md). What the files of this module share.
 *
 *   http.c      libmicrohttpd glue: the daemon and its thread pool, bounded request
 *               bodies, the server's lifecycle (weir_server_*), the pool of lake handles
 *   router.c    path and method -> route, path segments percent-decoded one by one
 *   request.c   request bodies: JSON parsed with bounds, typed field access
 *   response.c  responses: the spec's ErrorModel, weir errors mapped to HTTP statuses
 *   dispatch.c  one request end to end: route, authenticate, resolve the ref, authorize,
 *               run the handler, count it
 *   auth.c      bearer tokens and what a token may reach
 *   config.c    GET /v1/config and the namespace routes
 *   tables.c    table routes: list, create, load, exists, drop, rename, register
 *   commit.c    table commits: requirements checked, updates applied, one weir commit
 *   admit.c     what an engine's commit must satisfy before weir adopts it: the table's
 *               stored contract, checked on schema changes and added data files
 *   metrics.c   GET /metrics: counters and latency histograms, Prometheus text format
 *
 * The ref is the warehouse: a client that configures warehouse=dev gets prefix "dev" and
 * every route under /v1/dev/... reads (and, dev being a branch, writes) the lake at dev.
 * Tags and commit hashes are read-only prefixes.
 *
 * Threads: libmicrohttpd's pool runs rest_dispatch concurrently; each call borrows its own
 * lake handle (weir_lake handles are single-threaded) and returns it, so handlers share
 * nothing but the metrics (atomic) and the pool (a mutex).
 */
#ifndef WEIR_SERVE_SERVE_H
#define WEIR_SERVE_SERVE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "lake/lake.h"

#define REST_MAX_ARGS 16
#define REST_DEFAULT_MAX_BODY (8u << 20)

/* A request as the transport hands it over: everything raw (percent-encoded), so that
 * decoding happens once, here, with the rules of the spec (a %2F inside a segment is not
 * a separator; %1F separates namespace levels). */
typedef struct rest_request {
  const char *method;
  const char *path;
  const char *arg_keys[REST_MAX_ARGS]; /* query arguments, raw */
  const char *arg_values[REST_MAX_ARGS];
  size_t n_args;
  const char *authorization; /* the Authorization header, or NULL */
  const char *body;          /* not NUL-terminated */
  size_t body_len;
} rest_request;

typedef struct rest_response {
  int status;
  char *body;               /* owned; NULL for no body */
  const char *content_type; /* static */
} rest_response;

void rest_response_clear(rest_response *r);

/* ---- response.c ------------------------------------------------------------------------ */

/* 200 (or `status`) with a JSON document (stolen). */
void rest_respond_json(rest_response *r, int status, json_t *doc);
/* 204, no body. */
void rest_respond_empty(rest_response *r);
/* The spec's error shape: {"error": {"message", "type", "code"}}; `details` (stolen, may be
 * NULL) is added as "stack" (one line per item) and "weir" (the items themselves). */
void rest_respond_error(rest_response *r, int status, const char *type, json_t *details, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A weir error as the spec's error: NotFound -> 404 `not_found_type`, exists -> 409
 * AlreadyExistsException, concurrency -> 409 CommitFailedException, contract -> 400
 * ValidationException, protected branch -> 403 ForbiddenException, bad input -> 400,
 * unsupported -> 406, anything else -> 500. */
void rest_respond_weir_error(rest_response *r, const weir_error *err, const char *not_found_type);

/* ---- request.c ------------------------------------------------------------------------- */

/* Parses the body as one JSON object. On failure fills a 400 and returns NULL. */
json_t *rest_body_object(const rest_request *req, rest_response *resp);
/* Typed members; on a missing (when required) or mistyped member fill a 400 naming
 * `where` and the member, and return false. */
bool rest_get_string(const json_t *o, const char *key, bool required, const char **out, const char *where,
                     rest_response *resp);
bool rest_get_int(const json_t *o, const char *key, bool required, int64_t *out, bool *present, const char *where,
                  rest_response *resp);
bool rest_get_object(const json_t *o, const char *key, bool required, json_t **out, const char *where,
                     rest_response *resp);
bool rest_get_array(const json_t *o, const char *key, bool required, json_t **out, const char *where,
                    rest_response *resp);
/* A TableIdentifier {namespace: [one identifier], name} into "ns.name" (out, 2*255+2). */
bool rest_table_ident(const json_t *o, char *out, size_t size, const char *where, rest_response *resp);
/* A query argument, percent-decoded (caller frees), or NULL. */
char *rest_arg(const rest_request *req, const char *key);
/* Percent-decodes `n` bytes (`form`: '+' is a space, as in query strings); NULL on a bad
 * escape or an embedded NUL. Caller frees. */
char *rest_percent_decode(const char *s, size_t n, bool form);

/* ---- router.c -------------------------------------------------------------------------- */

typedef enum rest_route_id {
  R_CONFIG = 0,
  R_METRICS,
  R_OAUTH,
  R_NS_LIST,
  R_NS_CREATE,
  R_NS_LOAD,
  R_NS_EXISTS,
  R_NS_DROP,
  R_NS_PROPS,
  R_TBL_LIST,
  R_TBL_CREATE,
  R_TBL_LOAD,
  R_TBL_EXISTS,
  R_TBL_DROP,
  R_TBL_COMMIT,
  R_TBL_REGISTER,
  R_TBL_RENAME,
  R_TBL_METRICS,
  R_TX_COMMIT,
  R_COUNT
} rest_route_id;

typedef struct rest_route {
  rest_route_id id;
  const char *name;  /* the spec's operationId, e.g. "loadTable" (metrics label) */
  bool write;        /* changes the lake: needs a branch and a token that may write */
  bool has_prefix;
  char *prefix;      /* decoded, owned */
  char *ns;          /* decoded namespace (one level), owned */
  char *table;       /* decoded table name, owned */
} rest_route;

void rest_route_clear(rest_route *r);
/* Matches method and raw path. On failure fills 404 (no such route), 405 (no such method)
 * or 400 (a bad escape, a multi-level namespace) and returns false. */
bool rest_route_match(const char *method, const char *path, rest_route *out, rest_response *resp);
/* The route's operationId by id (for metrics), "unknown" for R_COUNT. */
const char *rest_route_name(rest_route_id id);

/* ---- metrics.c ------------------------------------------------------------------------- */

typedef struct rest_metrics rest_metrics;
rest_metrics *rest_metrics_new(void);
void rest_metrics_free(rest_metrics *m);
/* Counts one request (route R_COUNT: unmatched) with its status and duration. */
void rest_metrics_request(rest_metrics *m, rest_route_id route, int status, int64_t micros);
void rest_metrics_commit(rest_metrics *m, bool ok, bool conflict);
/* Prometheus text exposition format 0.0.4. Caller frees. */
char *rest_metrics_render(rest_metrics *m);

/* ---- the server (http.c) --------------------------------------------------------------- */

typedef struct rest_server {
  char *lake_path;
  size_t max_body;
  bool vend_credentials; /* loadTable hands engines weir's S3 credentials (--vend-credentials) */
  rest_metrics *metrics;
  pthread_mutex_t mu; /* guards the idle handles */
  weir_lake **idle;
  size_t n_idle, cap_idle;
} rest_server;

/* Borrows a lake handle (opening one when none is idle) / gives it back. */
int rest_lake_get(rest_server *srv, weir_lake **out, weir_error *err);
void rest_lake_put(rest_server *srv, weir_lake *lake);
/* Sets up / tears down what rest_dispatch needs (no network): used by http.c and by the
 * fuzz target. */
int rest_server_init(rest_server *srv, const char *lake_path, size_t max_body, weir_error *err);
void rest_server_clear(rest_server *srv);

/* ---- dispatch.c ------------------------------------------------------------------------ */

/* A prefix resolved: the ref's name, its commit, and whether it is a branch. */
typedef struct rest_ref {
  char name[WEIR_NAME_MAX + 1];
  char hash[WEIR_HASH_HEX_SIZE];
  bool branch;
  bool tag;
} rest_ref;

typedef struct rest_ctx {
  rest_server *srv;
  const rest_request *req;
  const rest_route *route;
  weir_lake *lake;
  const catalog_token_row *token;
  rest_ref ref;          /* set for routes with a prefix */
  rest_response *resp;
} rest_ctx;

/* Handles one request; never fails (every outcome is a response). Thread-safe. */
void rest_dispatch(rest_server *srv, const rest_request *req, rest_response *resp);

/* ---- auth.c ---------------------------------------------------------------------------- */

/* The valid token named by `authorization` ("Bearer <secret>"); otherwise fills a 401 and
 * returns false. */
bool rest_authenticate(weir_lake *lake, const char *authorization, catalog_token_row *out, rest_response *resp);
/* May the token reach ref (and write, for write routes)? Otherwise fills a 403 (or a 404
 * for a ref it may not see, so that names do not leak) and returns false. */
bool rest_authorize(const catalog_token_row *t, const rest_ref *ref, bool write, rest_response *resp);

/* ---- handlers (config.c, tables.c, commit.c) ------------------------------------------ */

void rest_h_config(rest_ctx *c);
void rest_h_ns_list(rest_ctx *c);
void rest_h_ns_create(rest_ctx *c);
void rest_h_ns_load(rest_ctx *c, bool head_only);
void rest_h_ns_drop(rest_ctx *c);
void rest_h_ns_props(rest_ctx *c);
void rest_h_tbl_list(rest_ctx *c);
void rest_h_tbl_create(rest_ctx *c);
void rest_h_tbl_load(rest_ctx *c, bool head_only);
void rest_h_tbl_drop(rest_ctx *c);
void rest_h_tbl_register(rest_ctx *c);
void rest_h_tbl_rename(rest_ctx *c);
void rest_h_tbl_commit(rest_ctx *c);
void rest_h_tx_commit(rest_ctx *c);

/* tables.c: {"metadata-location", "metadata", "config"} of a table version as loaded at
 * `ref`: weir's tags whose version of the table is a snapshot of this metadata are added
 * as Iceberg tag refs, so `VERSION AS OF 'tag'` works. New reference. */
json_t *rest_load_result(rest_ctx *c, const char *table, const iceberg_table *t);
/* config.c: the FileIO properties engines need to reach the lake's warehouse themselves,
 * as an object (new reference; empty for a local warehouse). For s3://: `s3.endpoint` (a
 * custom endpoint only), `s3.path-style-access`, `s3.region` and `client.region`; with
 * `credentials` also `s3.access-key-id`, `s3.secret-access-key` (and `s3.session-token`)
 * of weir's own resolved configuration, when there are any. */
json_t *rest_fileio_config(rest_ctx *c, bool credentials);
/* A copy of the metadata document `doc` with those tag refs added. New reference. */
json_t *rest_metadata_with_tags(weir_lake *lake, const char *table, const json_t *doc);
/* "ns.name" of the route's namespace and table into out (2*255+2). */
bool rest_route_table(const rest_ctx *c, char *out, size_t size);
/* Refuses (403) a write through a prefix that is not a branch. */
bool rest_require_branch(rest_ctx *c);

/* ---- commit.c ----------------------------------------------------------------------------- */

/* One table's change in a commit request. */
typedef struct rest_table_change {
  char table[2 * WEIR_NAME_MAX + 2];
  json_t *requirements;        /* borrowed arrays, may be NULL */
  json_t *updates;
  const iceberg_table *adopt;  /* register: the new version is this document (the table
                                  must not exist on the branch) */
} rest_table_change;

typedef enum rest_respond_with {
  REST_RESPOND_COMMIT = 0, /* CommitTableResponse {metadata-location, metadata} */
  REST_RESPOND_LOAD,       /* LoadTableResult of the new version */
  REST_RESPOND_STAGED,     /* LoadTableResult of the version, neither written nor committed */
  REST_RESPOND_EMPTY       /* 204 */
} rest_respond_with;

/* Applies the changes as one weir commit on branch c->ref (requirements checked against
 * the head the commit lands on, updates applied to that head's versions, contracts
 * checked, metadata files written, then one catalog commit; retried when another writer
 * moved the branch). Fills the response as `respond` says. */
void rest_commit(rest_ctx *c, rest_table_change *changes, size_t n, rest_respond_with respond);

/* ---- admit.c ------------------------------------------------------------------------------ */

/* Checks that the new version `next` of `table` (its previous version `prev`, or NULL
 * for a new table) keeps the table's type (the stored contract, else the previous
 * schema): a changed current schema must match a stored contract exactly; data files the
 * new current snapshot adds must hold no nulls in required columns and respect min/max
 * rules, from their manifest statistics where those decide it, otherwise (and for every
 * other rule) by reading the added files with weir's validator. WEIR_ECONTRACT with the
 * violations in err->details when they do not; WEIR_EUNSUPPORTED for row-level deletes. */
int rest_admit(weir_lake *lake, const char *table, const iceberg_table *prev, const iceberg_table *next,
               weir_error *err);


/* The server behind src/api/server.c (http.c). */
int serve_server_start(const char *lake_path, const weir_serve_options *opts, weir_server **out, weir_error *err);
int serve_server_port(const weir_server *srv);
void serve_server_stop(weir_server *srv);

#endif
