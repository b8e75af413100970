/*
 * config.c -- GET /v1/config and the namespace routes.
 *
 * The warehouse a client asks for is a weir ref, and it comes back as the catalog's
 * prefix: every later route then reads the lake at that ref. Namespaces are versioned
 * (src/lake/manage.c): create, drop and property updates are commits on the warehouse's
 * branch (refused on tags and commits), and at a ref a namespace also exists while a table
 * there is in it, so every table a ref holds can be listed through its namespace.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "storage/location.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/json.h"

static const char *const ENDPOINTS[] = {
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
    NULL};

/* A ref name as one path segment: unreserved characters as they are, the rest escaped. */
static char *segment_escape(const char *s) {
  wr_buf b = WEIR_BUF_INIT;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~')
      wr_buf_printf(&b, "%c", *p);
    else
      wr_buf_printf(&b, "%%%02X", *p);
  }
  return wr_buf_detach(&b);
}

json_t *rest_fileio_config(rest_ctx *c, bool credentials) {
  json_t *o = json_object();
  if (!wr_location_is_remote(c->lake->warehouse)) return o;
  wr_storage_s3_settings s;
  weir_error err = {0};
  if (wr_storage_s3_settings_get(&s, &err)) {
    /* The lake opened, so the configuration resolved once; an engine without these
     * properties still has its own AWS configuration. */
    weir_error_clear(&err);
    return o;
  }
  if (s.endpoint) {
    json_object_set_new(o, "s3.endpoint", json_string(s.endpoint));
    /* weir addresses a custom endpoint path-style (docs/storage.md): engines must too. */
    json_object_set_new(o, "s3.path-style-access", json_string("true"));
  }
  if (s.region) {
    json_object_set_new(o, "s3.region", json_string(s.region));    /* pyiceberg */
    json_object_set_new(o, "client.region", json_string(s.region)); /* Java's S3FileIO */
  }
  if (credentials && s.access_key && s.secret_key) {
    json_object_set_new(o, "s3.access-key-id", json_string(s.access_key));
    json_object_set_new(o, "s3.secret-access-key", json_string(s.secret_key));
    if (s.session_token) json_object_set_new(o, "s3.session-token", json_string(s.session_token));
  }
  wr_storage_s3_settings_clear(&s);
  return o;
}

void rest_h_config(rest_ctx *c) {
  char *wh = rest_arg(c->req, "warehouse");
  const char *ref = wh && *wh ? wh : "main";
  if (strlen(ref) > WEIR_NAME_MAX) {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL, "warehouse longer than %d bytes", WEIR_NAME_MAX);
    free(wh);
    return;
  }
  /* Resolve as the prefix routes will, so a typo fails here, not at the first table. */
  char hash[WEIR_HASH_HEX_SIZE];
  weir_error err = {0};
  bool branch = catalog_ref_get(c->lake->cat, WEIR_REF_BRANCH, ref, hash, &err) == WEIR_OK;
  weir_error_clear(&err);
  bool tag = !branch && catalog_ref_get(c->lake->cat, WEIR_REF_TAG, ref, hash, &err) == WEIR_OK;
  weir_error_clear(&err);
  if (!branch && !tag && lake_resolve(c->lake, ref, hash, &err) != WEIR_OK) {
    rest_respond_error(c->resp, 404, "NoSuchWarehouseException", NULL,
                       "warehouse \"%s\": no such branch, tag or commit in lake %s", ref, c->lake->path);
    weir_error_clear(&err);
    free(wh);
    return;
  }
  rest_ref rr = {{0}, {0}, branch, tag};
  snprintf(rr.name, sizeof rr.name, "%s", ref);
  if (!rest_authorize(c->token, &rr, false, c->resp)) {
    free(wh);
    return;
  }
  char *prefix = segment_escape(ref);
  json_t *endpoints = json_array();
  for (size_t i = 0; ENDPOINTS[i]; i++) json_array_append_new(endpoints, json_string(ENDPOINTS[i]));
  /* Where the warehouse is, as defaults (an engine's own settings win: it may reach the
   * bucket another way); never credentials, which only loadTable hands out, on opt-in. */
  json_t *doc = json_pack("{s:o,s:{s:s,s:s},s:o}", "defaults", rest_fileio_config(c, false), "overrides", "prefix",
                          prefix, "weir.ref-kind", branch ? "branch" : tag ? "tag" : "commit", "endpoints", endpoints);
  free(prefix);
  free(wh);
  rest_respond_json(c->resp, 200, doc);
}

/* ---- namespaces -------------------------------------------------------------------------- */

/* Does namespace `ns` exist at the ref? *props (may be NULL) gets its properties there. */
static bool ns_exists(rest_ctx *c, const char *ns, json_t **props, bool *ok) {
  *ok = true;
  bool found = false;
  weir_error err = {0};
  if (lake_namespace_get(c->lake, c->ref.hash, ns, &found, props, &err)) {
    rest_respond_weir_error(c->resp, &err, "NoSuchNamespaceException");
    weir_error_clear(&err);
    *ok = false;
    return false;
  }
  return found;
}

static void no_namespace(rest_ctx *c, const char *ns) {
  rest_respond_error(c->resp, 404, "NoSuchNamespaceException", NULL, "namespace %s does not exist at %s", ns,
                     c->ref.name);
}

void rest_h_ns_list(rest_ctx *c) {
  char *parent = rest_arg(c->req, "parent");
  json_t *list = json_array();
  if (parent && *parent) {
    /* weir namespaces have one level: nothing is below one. */
    bool ok;
    bool found = ns_exists(c, parent, NULL, &ok);
    free(parent);
    if (!ok) {
      json_decref(list);
      return;
    }
    if (!found) {
      json_decref(list);
      no_namespace(c, "(parent)");
      return;
    }
    rest_respond_json(c->resp, 200, json_pack("{s:o}", "namespaces", list));
    return;
  }
  free(parent);
  json_t *all = NULL;
  weir_error err = {0};
  if (lake_namespaces_at(c->lake, c->ref.hash, &all, &err)) {
    json_decref(list);
    rest_respond_weir_error(c->resp, &err, NULL);
    weir_error_clear(&err);
    return;
  }
  size_t i;
  json_t *o;
  json_array_foreach(all, i, o) json_array_append_new(list, json_pack("[s]", wr_json_str(o, "name", "")));
  json_decref(all);
  rest_respond_json(c->resp, 200, json_pack("{s:o}", "namespaces", list));
}

void rest_h_ns_create(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  json_t *body = rest_body_object(c->req, c->resp);
  if (!body) return;
  json_t *ns = NULL, *props = NULL;
  if (!rest_get_array(body, "namespace", true, &ns, "CreateNamespaceRequest", c->resp) ||
      !rest_get_object(body, "properties", false, &props, "CreateNamespaceRequest", c->resp)) {
    json_decref(body);
    return;
  }
  if (json_array_size(ns) != 1 || !json_is_string(json_array_get(ns, 0))) {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL,
                       "CreateNamespaceRequest: weir namespaces have one level (\"namespace\": [\"name\"])");
    json_decref(body);
    return;
  }
  const char *name = json_string_value(json_array_get(ns, 0));
  bool ok;
  if (ns_exists(c, name, NULL, &ok) || !ok) {
    if (ok)
      rest_respond_error(c->resp, 409, "AlreadyExistsException", NULL, "namespace %s already exists", name);
    json_decref(body);
    return;
  }
  weir_error err = {0};
  if (lake_namespace_create(c->lake, name, c->ref.name, NULL, props, NULL, &err)) {
    rest_respond_weir_error(c->resp, &err, NULL);
    weir_error_clear(&err);
    json_decref(body);
    return;
  }
  json_t *shown = props ? json_incref(props) : json_object();
  rest_respond_json(c->resp, 200, json_pack("{s:[s],s:o}", "namespace", name, "properties", shown));
  json_decref(body);
}

void rest_h_ns_load(rest_ctx *c, bool head_only) {
  json_t *props = NULL;
  bool ok;
  bool found = ns_exists(c, c->route->ns, head_only ? NULL : &props, &ok);
  if (!ok) return;
  if (!found) {
    no_namespace(c, c->route->ns);
    return;
  }
  if (head_only) {
    rest_respond_empty(c->resp);
    return;
  }
  rest_respond_json(c->resp, 200, json_pack("{s:[s],s:o}", "namespace", c->route->ns, "properties", props));
}

void rest_h_ns_drop(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  weir_error err = {0};
  if (lake_namespace_drop(c->lake, c->route->ns, c->ref.name, NULL, NULL, &err)) {
    if (err.code == WEIR_EINVALIDARG)
      rest_respond_error(c->resp, 409, "NamespaceNotEmptyException", NULL, "%s", err.message);
    else
      rest_respond_weir_error(c->resp, &err, "NoSuchNamespaceException");
    weir_error_clear(&err);
    return;
  }
  rest_respond_empty(c->resp);
}

void rest_h_ns_props(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  json_t *body = rest_body_object(c->req, c->resp);
  if (!body) return;
  json_t *removals = NULL, *updates = NULL;
  const char *where = "UpdateNamespacePropertiesRequest";
  if (!rest_get_array(body, "removals", false, &removals, where, c->resp) ||
      !rest_get_object(body, "updates", false, &updates, where, c->resp)) {
    json_decref(body);
    return;
  }
  json_t *props = NULL;
  bool ok;
  if (!ns_exists(c, c->route->ns, &props, &ok)) {
    if (ok) no_namespace(c, c->route->ns);
    json_decref(body);
    return;
  }
  json_t *updated = json_array(), *removed = json_array(), *missing = json_array();
  size_t i;
  json_t *v;
  bool bad = false;
  json_array_foreach(removals, i, v) {
    if (!json_is_string(v)) {
      bad = true;
      break;
    }
    const char *k = json_string_value(v);
    if (json_object_get(updates, k)) {
      rest_respond_error(c->resp, 422, "UnprocessableEntityException", NULL,
                         "property \"%s\" is both updated and removed", k);
      bad = true;
      break;
    }
    if (json_object_get(props, k)) {
      json_object_del(props, k);
      json_array_append_new(removed, json_string(k));
    } else {
      json_array_append_new(missing, json_string(k));
    }
  }
  const char *k;
  if (!bad) json_object_foreach(updates, k, v) {
      if (!json_is_string(v)) {
        rest_respond_error(c->resp, 400, "BadRequestException", NULL, "%s: property \"%s\" is not a string", where, k);
        bad = true;
        break;
      }
      json_object_set(props, k, v);
      json_array_append_new(updated, json_string(k));
    }
  if (bad && c->resp->status == 0)
    rest_respond_error(c->resp, 400, "BadRequestException", NULL, "%s: removals must be strings", where);
  weir_error err = {0};
  if (!bad && lake_namespace_set_properties(c->lake, c->route->ns, c->ref.name, props, &err)) {
    rest_respond_weir_error(c->resp, &err, "NoSuchNamespaceException");
    weir_error_clear(&err);
    bad = true;
  }
  if (!bad)
    rest_respond_json(c->resp, 200,
                      json_pack("{s:O,s:O,s:O}", "updated", updated, "removed", removed, "missing", missing));
  json_decref(updated);
  json_decref(removed);
  json_decref(missing);
  json_decref(props);
  json_decref(body);
}
