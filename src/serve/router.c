/*
 * router.c -- the REST spec's routes. The path is split on '/' before any decoding, then
 * each segment is percent-decoded on its own: a ref such as run/1a2b arrives as one
 * segment "run%2F1a2b", and a namespace's levels are separated by %1F inside its segment
 * (weir namespaces have one level, so a separator is refused with a 400 naming it).
 */
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

#define MAX_SEGMENTS 8

static const char *const NAMES[R_COUNT] = {
    [R_CONFIG] = "getConfig",
    [R_METRICS] = "metrics",
    [R_OAUTH] = "getToken",
    [R_NS_LIST] = "listNamespaces",
    [R_NS_CREATE] = "createNamespace",
    [R_NS_LOAD] = "loadNamespaceMetadata",
    [R_NS_EXISTS] = "namespaceExists",
    [R_NS_DROP] = "dropNamespace",
    [R_NS_PROPS] = "updateProperties",
    [R_TBL_LIST] = "listTables",
    [R_TBL_CREATE] = "createTable",
    [R_TBL_LOAD] = "loadTable",
    [R_TBL_EXISTS] = "tableExists",
    [R_TBL_DROP] = "dropTable",
    [R_TBL_COMMIT] = "updateTable",
    [R_TBL_REGISTER] = "registerTable",
    [R_TBL_RENAME] = "renameTable",
    [R_TBL_METRICS] = "reportMetrics",
    [R_TX_COMMIT] = "commitTransaction",
};

const char *rest_route_name(rest_route_id id) { return id < R_COUNT ? NAMES[id] : "unknown"; }

void rest_route_clear(rest_route *r) {
  if (!r) return;
  free(r->prefix);
  free(r->ns);
  free(r->table);
  memset(r, 0, sizeof *r);
  r->id = R_COUNT;
}

/* Routes by shape: literal segments, '*' for a parameter (prefix, namespace, table). */
typedef struct shape {
  const char *segs[MAX_SEGMENTS];
  size_t n;
  const char *method;
  rest_route_id id;
  bool write;
} shape;

static const shape SHAPES[] = {
    {{"v1", "config"}, 2, "GET", R_CONFIG, false},
    {{"metrics"}, 1, "GET", R_METRICS, false},
    {{"v1", "oauth", "tokens"}, 3, "POST", R_OAUTH, false},
    {{"v1", "*", "namespaces"}, 3, "GET", R_NS_LIST, false},
    {{"v1", "*", "namespaces"}, 3, "POST", R_NS_CREATE, true},
    {{"v1", "*", "namespaces", "*"}, 4, "GET", R_NS_LOAD, false},
    {{"v1", "*", "namespaces", "*"}, 4, "HEAD", R_NS_EXISTS, false},
    {{"v1", "*", "namespaces", "*"}, 4, "DELETE", R_NS_DROP, true},
    {{"v1", "*", "namespaces", "*", "properties"}, 5, "POST", R_NS_PROPS, true},
    {{"v1", "*", "namespaces", "*", "tables"}, 5, "GET", R_TBL_LIST, false},
    {{"v1", "*", "namespaces", "*", "tables"}, 5, "POST", R_TBL_CREATE, true},
    {{"v1", "*", "namespaces", "*", "tables", "*"}, 6, "GET", R_TBL_LOAD, false},
    {{"v1", "*", "namespaces", "*", "tables", "*"}, 6, "HEAD", R_TBL_EXISTS, false},
    {{"v1", "*", "namespaces", "*", "tables", "*"}, 6, "POST", R_TBL_COMMIT, true},
    {{"v1", "*", "namespaces", "*", "tables", "*"}, 6, "DELETE", R_TBL_DROP, true},
    {{"v1", "*", "namespaces", "*", "tables", "*", "metrics"}, 7, "POST", R_TBL_METRICS, false},
    {{"v1", "*", "namespaces", "*", "register"}, 5, "POST", R_TBL_REGISTER, true},
    {{"v1", "*", "tables", "rename"}, 4, "POST", R_TBL_RENAME, true},
    {{"v1", "*", "transactions", "commit"}, 4, "POST", R_TX_COMMIT, true},
};

static bool shape_matches(const shape *s, char *const *segs, size_t n) {
  if (s->n != n) return false;
  for (size_t i = 0; i < n; i++)
    if (strcmp(s->segs[i], "*") != 0 && strcmp(s->segs[i], segs[i]) != 0) return false;
  return true;
}

bool rest_route_match(const char *method, const char *path, rest_route *out, rest_response *resp) {
  memset(out, 0, sizeof *out);
  out->id = R_COUNT;
  out->name = "unknown";
  char *segs[MAX_SEGMENTS + 1] = {0};
  size_t n = 0;
  bool ok = true, too_many = false;
  const char *p = path ? path : "";
  if (*p == '/') p++;
  while (ok) {
    const char *e = strchr(p, '/');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (!(len == 0 && !e && n > 0)) { /* a trailing '/' adds no segment */
      if (n == MAX_SEGMENTS) {
        too_many = true;
        break;
      }
      segs[n] = rest_percent_decode(p, len, false);
      if (!segs[n]) ok = false;
      n++;
    }
    if (!e) break;
    p = e + 1;
  }
  bool matched = false;
  if (ok && !too_many) {
    bool path_known = false;
    for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++) {
      const shape *s = &SHAPES[i];
      if (!shape_matches(s, segs, n)) continue;
      path_known = true;
      if (strcmp(s->method, method) != 0) continue;
      out->id = s->id;
      out->name = NAMES[s->id];
      out->write = s->write;
      if (n >= 2 && strcmp(s->segs[1], "*") == 0) {
        out->has_prefix = true;
        out->prefix = wr_strdup(segs[1]);
      }
      if (n >= 4 && strcmp(s->segs[3], "*") == 0) out->ns = wr_strdup(segs[3]);
      if (n >= 6 && strcmp(s->segs[5], "*") == 0) out->table = wr_strdup(segs[5]);
      matched = true;
      break;
    }
    if (!matched) {
      if (path_known)
        rest_respond_error(resp, 405, "MethodNotAllowedException", NULL, "method %s is not allowed on %s", method, path);
      else
        rest_respond_error(resp, 404, "NoSuchEndpointException", NULL, "no route %s %s (see docs/serve.md)", method,
                           path);
    }
  } else {
    rest_respond_error(resp, too_many ? 404 : 400, too_many ? "NoSuchEndpointException" : "BadRequestException", NULL,
                       too_many ? "no route %s %s" : "%s %s: malformed percent-escape in the path", method, path);
  }
  for (size_t i = 0; i < n; i++) free(segs[i]);
  if (matched && out->ns && strchr(out->ns, 0x1f)) {
    rest_respond_error(resp, 400, "BadRequestException", NULL,
                       "namespace \"%s\" has several levels (separated by %%1F); weir namespaces have one", path);
    rest_route_clear(out);
    return false;
  }
  if (matched && out->prefix && !*out->prefix) {
    rest_respond_error(resp, 400, "BadRequestException", NULL, "%s: empty prefix (the prefix is a weir ref)", path);
    rest_route_clear(out);
    return false;
  }
  return matched;
}
