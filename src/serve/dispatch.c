/*
 * dispatch.c -- one request from start to end: route it, authenticate the token, resolve
 * the prefix (a weir ref) once, check what the token may do there, run the handler, and
 * count the outcome. Every path ends in a response; nothing here can crash on a request,
 * whatever its bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "util/clock.h"

/* The prefix as a ref: a branch (read-write), a tag or a commit (read-only). A prefix
 * with ~N is read-only too: it names a commit, not where a branch is. */
static bool resolve_ref(rest_ctx *c, const char *prefix) {
  rest_ref *r = &c->ref;
  memset(r, 0, sizeof *r);
  if (strlen(prefix) > WEIR_NAME_MAX) {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL, "prefix longer than %d bytes", WEIR_NAME_MAX);
    return false;
  }
  snprintf(r->name, sizeof r->name, "%s", prefix);
  weir_error err = {0};
  if (catalog_ref_get(c->lake->cat, WEIR_REF_BRANCH, prefix, r->hash, &err) == WEIR_OK) {
    r->branch = true;
    return true;
  }
  weir_error_clear(&err);
  if (catalog_ref_get(c->lake->cat, WEIR_REF_TAG, prefix, r->hash, &err) == WEIR_OK) {
    r->tag = true;
    return true;
  }
  weir_error_clear(&err);
  if (lake_resolve(c->lake, prefix, r->hash, &err) == WEIR_OK) return true;
  if (err.code == WEIR_ENOTFOUND)
    rest_respond_error(c->resp, 404, "NoSuchWarehouseException", NULL,
                       "no ref \"%s\" in this lake (the warehouse is a branch, a tag or a commit hash)", prefix);
  else
    rest_respond_weir_error(c->resp, &err, "NoSuchWarehouseException");
  weir_error_clear(&err);
  return false;
}

static void handle(rest_ctx *c) {
  switch (c->route->id) {
  case R_CONFIG: rest_h_config(c); break;
  case R_NS_LIST: rest_h_ns_list(c); break;
  case R_NS_CREATE: rest_h_ns_create(c); break;
  case R_NS_LOAD: rest_h_ns_load(c, false); break;
  case R_NS_EXISTS: rest_h_ns_load(c, true); break;
  case R_NS_DROP: rest_h_ns_drop(c); break;
  case R_NS_PROPS: rest_h_ns_props(c); break;
  case R_TBL_LIST: rest_h_tbl_list(c); break;
  case R_TBL_CREATE: rest_h_tbl_create(c); break;
  case R_TBL_LOAD: rest_h_tbl_load(c, false); break;
  case R_TBL_EXISTS: rest_h_tbl_load(c, true); break;
  case R_TBL_DROP: rest_h_tbl_drop(c); break;
  case R_TBL_COMMIT: rest_h_tbl_commit(c); break;
  case R_TBL_REGISTER: rest_h_tbl_register(c); break;
  case R_TBL_RENAME: rest_h_tbl_rename(c); break;
  case R_TX_COMMIT: rest_h_tx_commit(c); break;
  case R_TBL_METRICS: rest_respond_empty(c->resp); break; /* engines' scan/commit reports: accepted, not kept */
  case R_METRICS: {
    free(c->resp->body);
    c->resp->status = 200;
    c->resp->body = rest_metrics_render(c->srv->metrics);
    c->resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
    break;
  }
  default:
    rest_respond_error(c->resp, 404, "NoSuchEndpointException", NULL, "no such route");
    break;
  }
}

void rest_dispatch(rest_server *srv, const rest_request *req, rest_response *resp) {
  wr_json_mark(); /* a request is a public call of its own (util/error.h) */
  int64_t t0 = wr_mono_us();
  memset(resp, 0, sizeof *resp);
  rest_route route;
  weir_lake *lake = NULL;
  catalog_token_row token = {0};
  bool have_token = false;
  if (!rest_route_match(req->method ? req->method : "", req->path, &route, resp)) goto done;
  if (route.id == R_OAUTH) {
    /* The spec deprecates this endpoint; weir's tokens are made by `weir token create`. */
    rest_respond_json(resp, 400,
                      json_pack("{s:s,s:s}", "error", "unsupported_grant_type", "error_description",
                                "weir serve takes bearer tokens made by `weir token create`; configure the client's "
                                "token, not a credential"));
    goto done;
  }
  weir_error err = {0};
  if (rest_lake_get(srv, &lake, &err)) {
    rest_respond_error(resp, 503, "ServiceUnavailableException", NULL, "cannot open the lake: %s",
                       err.message ? err.message : "unknown error");
    weir_error_clear(&err);
    goto done;
  }
  if (!rest_authenticate(lake, req->authorization, &token, resp)) goto done;
  have_token = true;
  rest_ctx c = {srv, req, &route, lake, &token, {{0}, {0}, false, false}, resp};
  if (route.has_prefix) {
    if (!resolve_ref(&c, route.prefix)) goto done;
    if (!rest_authorize(&token, &c.ref, route.write, resp)) goto done;
  }
  /* Commits carry the token's name as their author. */
  char *author = wr_asprintf("token:%s", token.name);
  if (author && *author) { /* as weir_lake_set_author, which lives above this module */
    free(lake->author);
    lake->author = wr_strdup(author);
  }
  free(author);
  handle(&c);

done:
  if (resp->status == 0) rest_respond_error(resp, 500, "InternalServerError", NULL, "no response was produced");
  if (lake) rest_lake_put(srv, lake);
  if (have_token) catalog_token_row_clear(&token);
  rest_metrics_request(srv->metrics, route.id, resp->status, wr_mono_us() - t0);
  rest_route_clear(&route);
}
