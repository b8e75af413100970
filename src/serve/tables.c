/*
 * tables.c -- the table routes: list, create, load, exists, drop, rename, register.
 *
 * A table loaded at a ref is the Iceberg version that ref's commit holds: its metadata
 * file, whose `main` is that version's snapshot. weir's tags whose version of the table
 * is one of that file's snapshots are added as Iceberg tags in the returned document, so
 * engines can time travel by tag name (`VERSION AS OF 'v1'`); the file itself is never
 * changed.
 */
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "util/json.h"
#include "util/names.h"

bool rest_require_branch(rest_ctx *c) {
  if (c->ref.branch) return true;
  rest_respond_error(c->resp, 403, "ForbiddenException", NULL,
                     "%s \"%s\" is read-only: write through a branch (configure warehouse=<branch>)",
                     c->ref.tag ? "tag" : "commit", c->ref.name);
  return false;
}

bool rest_route_table(const rest_ctx *c, char *out, size_t size) {
  weir_error err = {0};
  const char *ns = c->route->ns ? c->route->ns : "";
  if (wr_ident_check(ns, "namespace", &err) ||
      (c->route->table && wr_ident_check(c->route->table, "table name", &err))) {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL, "%s", err.message);
    weir_error_clear(&err);
    return false;
  }
  snprintf(out, size, "%s.%s", ns, c->route->table ? c->route->table : "");
  return true;
}

json_t *rest_load_result(rest_ctx *c, const char *table, const iceberg_table *t) {
  json_t *meta = rest_metadata_with_tags(c->lake, table, t->json);
  return json_pack("{s:s,s:o,s:o}", "metadata-location", t->metadata_location, "metadata", meta, "config",
                   rest_fileio_config(c, c->srv->vend_credentials));
}

json_t *rest_metadata_with_tags(weir_lake *lake, const char *table, const json_t *doc) {
  json_t *meta = json_deep_copy(doc);
  json_t *snaps = json_object_get(meta, "snapshots");
  json_t *refs = json_object_get(meta, "refs");
  if (!json_is_object(refs)) {
    refs = json_object();
    json_object_set_new(meta, "refs", refs);
  }
  wr_ref_rec *tags = NULL;
  size_t nt = 0;
  weir_error err = {0};
  if (catalog_ref_list(lake->cat, WEIR_REF_TAG, &tags, &nt, &err) == WEIR_OK) {
    for (size_t i = 0; i < nt; i++) {
      if (json_object_get(refs, tags[i].name)) continue; /* never shadow the file's own refs */
      wr_table_entry e;
      weir_error ignore = {0};
      if (catalog_table_get(lake->cat, tags[i].target, table, &e, &ignore) != WEIR_OK) {
        weir_error_clear(&ignore);
        continue;
      }
      bool present = false;
      size_t k;
      json_t *s;
      json_array_foreach(snaps, k, s) if (wr_json_int(s, "snapshot-id", -2) == e.snapshot_id) present = true;
      if (present && e.snapshot_id >= 0)
        json_object_set_new(refs, tags[i].name,
                            json_pack("{s:I,s:s}", "snapshot-id", (json_int_t)e.snapshot_id, "type", "tag"));
      wr_table_entry_clear(&e);
    }
    wr_ref_recs_free(tags, nt);
  }
  weir_error_clear(&err);
  return meta;
}

void rest_h_tbl_list(rest_ctx *c) {
  weir_error err = {0};
  if (wr_ident_check(c->route->ns, "namespace", &err)) {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL, "%s", err.message);
    weir_error_clear(&err);
    return;
  }
  json_t *nss = NULL;
  if (lake_namespaces_at(c->lake, c->ref.hash, &nss, &err)) {
    rest_respond_weir_error(c->resp, &err, NULL);
    weir_error_clear(&err);
    return;
  }
  bool exists = false;
  size_t i;
  json_t *o;
  json_array_foreach(nss, i, o) if (strcmp(wr_json_str(o, "name", ""), c->route->ns) == 0) exists = true;
  json_decref(nss);
  if (!exists) {
    rest_respond_error(c->resp, 404, "NoSuchNamespaceException", NULL, "namespace %s does not exist at %s",
                       c->route->ns, c->ref.name);
    return;
  }
  wr_table_entry *all = NULL;
  size_t n = 0;
  if (catalog_tables(c->lake->cat, c->ref.hash, &all, &n, &err)) {
    rest_respond_weir_error(c->resp, &err, NULL);
    weir_error_clear(&err);
    return;
  }
  json_t *ids = json_array();
  size_t plen = strlen(c->route->ns);
  for (size_t k = 0; k < n; k++)
    if (strncmp(all[k].table, c->route->ns, plen) == 0 && all[k].table[plen] == '.')
      json_array_append_new(ids, json_pack("{s:[s],s:s}", "namespace", c->route->ns, "name", all[k].table + plen + 1));
  wr_table_entries_free(all, n);
  rest_respond_json(c->resp, 200, json_pack("{s:o}", "identifiers", ids));
}

void rest_h_tbl_load(rest_ctx *c, bool head_only) {
  char table[2 * WEIR_NAME_MAX + 2];
  if (!rest_route_table(c, table, sizeof table)) return;
  iceberg_table *t = NULL;
  weir_error err = {0};
  if (lake_table_at(c->lake, c->ref.hash, table, true, &t, &err)) {
    rest_respond_weir_error(c->resp, &err, "NoSuchTableException");
    weir_error_clear(&err);
    return;
  }
  if (!t) {
    rest_respond_error(c->resp, 404, "NoSuchTableException", NULL, "table %s does not exist at %s", table,
                       c->ref.name);
    return;
  }
  if (head_only) rest_respond_empty(c->resp);
  else rest_respond_json(c->resp, 200, rest_load_result(c, table, t));
  iceberg_table_free(t);
}

void rest_h_tbl_drop(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  char table[2 * WEIR_NAME_MAX + 2];
  if (!rest_route_table(c, table, sizeof table)) return;
  weir_error err = {0};
  char *out = NULL;
  if (lake_table_drop(c->lake, table, c->ref.name, &out, &err)) {
    rest_respond_weir_error(c->resp, &err, "NoSuchTableException");
    weir_error_clear(&err);
    return;
  }
  free(out);
  /* purgeRequested is not honoured: files are deleted only by weir's collector, once no
   * ref reaches them (older commits still read this table). */
  rest_respond_empty(c->resp);
}

void rest_h_tbl_rename(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  json_t *body = rest_body_object(c->req, c->resp);
  if (!body) return;
  char from[2 * WEIR_NAME_MAX + 2], to[2 * WEIR_NAME_MAX + 2];
  if (!rest_table_ident(json_object_get(body, "source"), from, sizeof from, "RenameTableRequest.source", c->resp) ||
      !rest_table_ident(json_object_get(body, "destination"), to, sizeof to, "RenameTableRequest.destination",
                        c->resp)) {
    json_decref(body);
    return;
  }
  json_decref(body);
  weir_error err = {0};
  char *out = NULL;
  if (lake_table_rename(c->lake, from, to, c->ref.name, &out, &err)) {
    rest_respond_weir_error(c->resp, &err, "NoSuchTableException");
    weir_error_clear(&err);
    return;
  }
  free(out);
  rest_respond_empty(c->resp);
}

void rest_h_tbl_register(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  json_t *body = rest_body_object(c->req, c->resp);
  if (!body) return;
  const char *name = NULL, *loc = NULL;
  const char *where = "RegisterTableRequest";
  if (!rest_get_string(body, "name", true, &name, where, c->resp) ||
      !rest_get_string(body, "metadata-location", true, &loc, where, c->resp)) {
    json_decref(body);
    return;
  }
  if (json_is_true(json_object_get(body, "overwrite"))) {
    rest_respond_error(c->resp, 406, "UnsupportedOperationException", NULL,
                       "%s: overwrite is not supported (drop the table first: it stays in older commits)", where);
    json_decref(body);
    return;
  }
  rest_route r = *c->route;
  r.table = (char *)name;
  rest_ctx sub = *c;
  sub.route = &r;
  char table[2 * WEIR_NAME_MAX + 2];
  if (!rest_route_table(&sub, table, sizeof table)) {
    json_decref(body);
    return;
  }
  /* Any location URI weir reads (file:, s3:, a plain path): the storage layer opens it. */
  iceberg_table *t = NULL;
  weir_error err = {0};
  if (iceberg_table_load(loc, &t, &err)) {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL, "%s: %s", where, err.message);
    weir_error_clear(&err);
    json_decref(body);
    return;
  }
  /* Adopted as a new version written by weir (gc.enabled=false, the registered file its
   * predecessor in the metadata log); the engine's data files are referenced in place. */
  rest_table_change ch;
  memset(&ch, 0, sizeof ch);
  snprintf(ch.table, sizeof ch.table, "%s", table);
  ch.adopt = t;
  rest_commit(c, &ch, 1, REST_RESPOND_LOAD);
  iceberg_table_free(t);
  json_decref(body);
}

/* CreateTableRequest as the updates a new table's first version is made of, so that a
 * create and a transaction that creates (a staged create committed later) are one code
 * path. */
void rest_h_tbl_create(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  json_t *body = rest_body_object(c->req, c->resp);
  if (!body) return;
  const char *where = "CreateTableRequest";
  const char *name = NULL, *location = NULL;
  json_t *schema = NULL, *spec = NULL, *order = NULL, *props = NULL;
  if (!rest_get_string(body, "name", true, &name, where, c->resp) ||
      !rest_get_string(body, "location", false, &location, where, c->resp) ||
      !rest_get_object(body, "schema", true, &schema, where, c->resp) ||
      !rest_get_object(body, "partition-spec", false, &spec, where, c->resp) ||
      !rest_get_object(body, "write-order", false, &order, where, c->resp) ||
      !rest_get_object(body, "properties", false, &props, where, c->resp)) {
    json_decref(body);
    return;
  }
  rest_route r = *c->route;
  r.table = (char *)name;
  rest_ctx sub = *c;
  sub.route = &r;
  rest_table_change ch;
  memset(&ch, 0, sizeof ch);
  if (!rest_route_table(&sub, ch.table, sizeof ch.table)) {
    json_decref(body);
    return;
  }
  json_t *updates = json_array();
  json_array_append_new(updates, json_pack("{s:s,s:i}", "action", "upgrade-format-version", "format-version", 2));
  json_array_append_new(updates, json_pack("{s:s,s:O}", "action", "add-schema", "schema", schema));
  json_array_append_new(updates, json_pack("{s:s,s:i}", "action", "set-current-schema", "schema-id", -1));
  json_t *unpartitioned = json_pack("{s:i,s:[]}", "spec-id", 0, "fields");
  json_array_append_new(updates, json_pack("{s:s,s:O}", "action", "add-spec", "spec", spec ? spec : unpartitioned));
  json_decref(unpartitioned);
  json_array_append_new(updates, json_pack("{s:s,s:i}", "action", "set-default-spec", "spec-id", -1));
  json_t *unsorted = json_pack("{s:i,s:[]}", "order-id", 0, "fields");
  json_array_append_new(updates,
                        json_pack("{s:s,s:O}", "action", "add-sort-order", "sort-order", order ? order : unsorted));
  json_decref(unsorted);
  json_array_append_new(updates, json_pack("{s:s,s:i}", "action", "set-default-sort-order", "sort-order-id", -1));
  if (location) json_array_append_new(updates, json_pack("{s:s,s:s}", "action", "set-location", "location", location));
  if (props) json_array_append_new(updates, json_pack("{s:s,s:O}", "action", "set-properties", "updates", props));
  json_t *reqs = json_pack("[{s:s}]", "type", "assert-create");
  ch.requirements = reqs;
  ch.updates = updates;
  rest_commit(c, &ch, 1, json_is_true(json_object_get(body, "stage-create")) ? REST_RESPOND_STAGED : REST_RESPOND_LOAD);
  json_decref(reqs);
  json_decref(updates);
  json_decref(body);
}
