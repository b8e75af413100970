/*
 * http.c -- the transport: libmicrohttpd with its own thread pool, and the server's life.
 *
 * Bounds: a request body larger than max_body is refused with 413 as soon as its size is
 * known (Content-Length) or reached (chunked), before it is buffered whole; headers are
 * bounded by libmicrohttpd's per-connection memory limit; idle connections time out.
 * libmicrohttpd's own URL unescaping is turned off (an identity callback), so the router
 * decodes each path segment itself and "%2F" inside a ref name stays inside its segment.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "serve/serve.h"
#include "util/buf.h"

struct weir_server {
  rest_server core;
  struct MHD_Daemon *daemon;
  int port;
};

/* ---- the pool of lake handles ------------------------------------------------------------ */

int rest_server_init(rest_server *srv, const char *lake_path, size_t max_body, weir_error *err) {
  memset(srv, 0, sizeof *srv);
  weir_lake *lake = NULL;
  weir_lake_options defaults = WEIR_LAKE_OPTIONS_INIT;
  int rc = lake_open(lake_path, &defaults, &lake, err);
  if (rc) return rc;
  srv->lake_path = wr_strdup(lake->path);
  srv->max_body = max_body ? max_body : REST_DEFAULT_MAX_BODY;
  srv->metrics = rest_metrics_new();
  pthread_mutex_init(&srv->mu, NULL);
  rest_lake_put(srv, lake);
  return WEIR_OK;
}

void rest_server_clear(rest_server *srv) {
  for (size_t i = 0; i < srv->n_idle; i++) lake_free(srv->idle[i]);
  free(srv->idle);
  rest_metrics_free(srv->metrics);
  free(srv->lake_path);
  pthread_mutex_destroy(&srv->mu);
  memset(srv, 0, sizeof *srv);
}

int rest_lake_get(rest_server *srv, weir_lake **out, weir_error *err) {
  pthread_mutex_lock(&srv->mu);
  weir_lake *l = srv->n_idle ? srv->idle[--srv->n_idle] : NULL;
  pthread_mutex_unlock(&srv->mu);
  if (l) {
    *out = l;
    return WEIR_OK;
  }
  weir_lake_options defaults = WEIR_LAKE_OPTIONS_INIT;
  return lake_open(srv->lake_path, &defaults, out, err);
}

void rest_lake_put(rest_server *srv, weir_lake *lake) {
  pthread_mutex_lock(&srv->mu);
  if (srv->n_idle == srv->cap_idle) {
    srv->cap_idle = srv->cap_idle ? 2 * srv->cap_idle : 8;
    srv->idle = wr_realloc(srv->idle, srv->cap_idle * sizeof *srv->idle);
  }
  srv->idle[srv->n_idle++] = lake;
  pthread_mutex_unlock(&srv->mu);
}

/* ---- libmicrohttpd callbacks ---------------------------------------------------------------- */

typedef struct conn_state {
  wr_buf body;
  bool too_large;
} conn_state;

typedef struct arg_collect {
  rest_request *req;
} arg_collect;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  (void)kind;
  rest_request *req = cls;
  if (req->n_args < REST_MAX_ARGS) {
    req->arg_keys[req->n_args] = key;
    req->arg_values[req->n_args] = value;
    req->n_args++;
  }
  return MHD_YES;
}

static size_t identity_unescape(void *cls, struct MHD_Connection *c, char *s) {
  (void)cls;
  (void)c;
  return strlen(s);
}

static enum MHD_Result send_response(struct MHD_Connection *conn, rest_response *r, bool head) {
  const char *body = r->body ? r->body : "";
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(head ? 0 : strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
  if (!resp) return MHD_NO;
  if (r->content_type) MHD_add_response_header(resp, "Content-Type", r->content_type);
  enum MHD_Result ret = MHD_queue_response(conn, (unsigned)r->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls) {
  (void)version;
  struct weir_server *s = cls;
  conn_state *st = *con_cls;
  if (!st) {
    st = wr_calloc(1, sizeof *st);
    *con_cls = st;
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > s->core.max_body) st->too_large = true;
    return MHD_YES;
  }
  if (*upload_size) {
    if (!st->too_large && st->body.len + *upload_size > s->core.max_body) st->too_large = true;
    if (!st->too_large) {
      if (st->body.cap < st->body.len + *upload_size + 1) {
        size_t cap = st->body.cap ? st->body.cap : 4096;
        while (cap < st->body.len + *upload_size + 1) cap *= 2;
        st->body.data = wr_realloc(st->body.data, cap);
        st->body.cap = cap;
      }
      memcpy(st->body.data + st->body.len, upload, *upload_size);
      st->body.len += *upload_size;
      st->body.data[st->body.len] = 0;
    }
    *upload_size = 0;
    return MHD_YES;
  }
  rest_response resp = {0};
  if (st->too_large) {
    rest_respond_error(&resp, 413, "RequestTooLargeException", NULL, "request body larger than %zu bytes",
                       s->core.max_body);
  } else {
    rest_request req = {0};
    req.method = method;
    req.path = url;
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &req);
    req.authorization = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    req.body = st->body.data;
    req.body_len = st->body.len;
    rest_dispatch(&s->core, &req, &resp);
  }
  enum MHD_Result ret = send_response(conn, &resp, strcmp(method, "HEAD") == 0);
  rest_response_clear(&resp);
  return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode t) {
  (void)cls;
  (void)conn;
  (void)t;
  conn_state *st = *con_cls;
  if (!st) return;
  wr_buf_free(&st->body);
  free(st);
  *con_cls = NULL;
}

/* ---- lifecycle ----------------------------------------------------------------------------------- */

int serve_server_start(const char *lake_path, const weir_serve_options *opts, weir_server **out, weir_error *err) {
  *out = NULL;
  weir_serve_options none = WEIR_SERVE_OPTIONS_INIT;
  if (!opts) opts = &none;
  const char *host = opts->host && *opts->host ? opts->host : "127.0.0.1";
  if (opts->port < 0 || opts->port > 65535)
    return wr_seterr(err, WEIR_EINVALIDARG, "--port %d: expected 0 to 65535", opts->port);
  if (opts->threads < 0 || opts->threads > 256)
    return wr_seterr(err, WEIR_EINVALIDARG, "--threads %d: expected 1 to 256", opts->threads);
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t sl;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
  struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
  if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)opts->port);
    sl = sizeof *a4;
  } else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)opts->port);
    sl = sizeof *a6;
    flags |= MHD_USE_IPv6;
  } else {
    return wr_seterr(err, WEIR_EINVALIDARG, "--host %s: expected an IPv4 or IPv6 address (e.g. 127.0.0.1)", host);
  }
  (void)sl;
  struct weir_server *s = wr_calloc(1, sizeof *s);
  int rc = rest_server_init(&s->core, lake_path, opts->max_body_bytes, err);
  s->core.vend_credentials = opts->vend_credentials != 0;
  if (rc) {
    free(s);
    return rc;
  }
  unsigned threads = opts->threads ? (unsigned)opts->threads : 4;
  s->daemon = MHD_start_daemon(flags, (uint16_t)opts->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
                               (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE, threads,
                               MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_UNESCAPE_CALLBACK,
                               identity_unescape, NULL, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
                               MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_END);
  if (!s->daemon) {
    rest_server_clear(&s->core);
    free(s);
    return wr_seterr(err, WEIR_EIO, "cannot listen on %s port %d (in use, or not an address of this machine)", host,
                     opts->port);
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : opts->port;
  *out = s;
  return WEIR_OK;
}

int serve_server_port(const weir_server *srv) { return srv ? srv->port : 0; }

void serve_server_stop(weir_server *srv) {
  if (!srv) return;
  MHD_stop_daemon(srv->daemon);
  rest_server_clear(&srv->core);
  free(srv);
}
