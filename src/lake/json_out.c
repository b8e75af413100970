/*
 * json_out.c -- the JSON layer of the public API (json_out.h): stamping, list keys, and
 * the shapes shared between documents.
 */
#include <stdlib.h>
#include <string.h>

#include "lake/json_out.h"
#include "util/clock.h"
#include "util/json.h"

/* Indexed by wr_doc_kind. `list` is the key an array body is put under (NULL: the body is
 * an object). The names are the schema files' names. */
static const struct {
  const char *name;
  const char *list;
} KINDS[WR_DOC_KIND_COUNT] = {
    [WR_DOC_COMMIT_LOG] = {"commit_log", "commits"},
    [WR_DOC_COMMIT] = {"commit", NULL},
    [WR_DOC_DIFF] = {"diff", NULL},
    [WR_DOC_BRANCH_LIST] = {"branch_list", "branches"},
    [WR_DOC_TAG_LIST] = {"tag_list", "tags"},
    [WR_DOC_MERGE] = {"merge", NULL},
    [WR_DOC_TABLE_REVERT] = {"table_revert", NULL},
    [WR_DOC_RUN_REVERT] = {"run_revert", NULL},
    [WR_DOC_TABLE_LIST] = {"table_list", "tables"},
    [WR_DOC_TABLE] = {"table", NULL},
    [WR_DOC_IMPORT] = {"import", NULL},
    [WR_DOC_REPORT] = {"report", NULL},
    [WR_DOC_PLAN] = {"plan", NULL},
    [WR_DOC_RUN] = {"run", NULL},
    [WR_DOC_RUN_LIST] = {"run_list", "runs"},
    [WR_DOC_STAGED] = {"staged", NULL},
    [WR_DOC_PROGRESS] = {"progress", NULL},
    [WR_DOC_TOKEN] = {"token", NULL},
    [WR_DOC_TOKEN_LIST] = {"token_list", "tokens"},
    [WR_DOC_NAMESPACE] = {"namespace", NULL},
    [WR_DOC_NAMESPACE_LIST] = {"namespace_list", "namespaces"},
    [WR_DOC_TABLE_DROP] = {"table_drop", NULL},
    [WR_DOC_TABLE_RENAME] = {"table_rename", NULL},
    [WR_DOC_CONTRACT_DIFF] = {"contract_diff", NULL},
    [WR_DOC_MERGE_CONTRACTS] = {"merge_contracts", "breaking_changes"},
    [WR_DOC_READERS] = {"readers", "readers"},
    [WR_DOC_PROTECTION] = {"protection", NULL},
    [WR_DOC_STATUS] = {"status", NULL},
    [WR_DOC_COMPACT] = {"compact", NULL},
    [WR_DOC_REGISTER] = {"register", NULL},
    [WR_DOC_GC] = {"gc", NULL},
    [WR_DOC_BRANCH_PRUNE] = {"branch_prune", NULL},
    [WR_DOC_DELETE] = {"delete", NULL},
    [WR_DOC_QUERY_EXPLAIN] = {"query_explain", NULL},
    [WR_DOC_TABLE_ALTER] = {"table_alter", NULL},
};

const char *wr_doc_name(wr_doc_kind kind) {
  return kind >= 0 && kind < WR_DOC_KIND_COUNT ? KINDS[kind].name : NULL;
}

json_t *wr_doc_make(wr_doc_kind kind, json_t *body) {
  if (!body) return NULL;
  json_t *doc = json_object();
  if (json_object_set_new(doc, "schema_version", json_integer(WEIR_JSON_SCHEMA_VERSION))) {
    json_decref(doc);
    json_decref(body);
    return NULL;
  }
  if (json_is_array(body)) {
    if (json_object_set_new(doc, KINDS[kind].list ? KINDS[kind].list : "items", body)) {
      json_decref(doc);
      return NULL;
    }
    return doc;
  }
  /* Insertion order is kept: schema_version first, then the body's keys as built. A body
   * that already went through here (a run record re-read to add retried_runs) keeps its
   * keys; its old stamp is replaced. */
  const char *key;
  json_t *v;
  int bad = 0;
  json_object_foreach(body, key, v) {
    if (strcmp(key, "schema_version") != 0) bad |= json_object_set(doc, key, v);
  }
  json_decref(body);
  if (bad) {
    json_decref(doc);
    return NULL;
  }
  return doc;
}

char *wr_doc_dump(wr_doc_kind kind, json_t *body) {
  json_t *doc = wr_doc_make(kind, body);
  if (!doc) return NULL;
  if (wr_json_failed_since_mark()) { /* a body from code that does not check each json_* call */
    json_decref(doc);
    return NULL;
  }
  char *s = wr_json_pretty(doc);
  json_decref(doc);
  return s;
}

/* ---- shared shapes ---------------------------------------------------------------------- */

json_t *wr_json_time(int64_t us) {
  char buf[40];
  wr_format_time_us(us, buf, sizeof buf);
  return json_string(buf);
}

/* The shapes below return NULL only on OOM (a document missing a key would not be one). */
static json_t *whole(json_t *o, int bad) {
  if (!bad) return o;
  json_decref(o);
  return NULL;
}

json_t *wr_json_commit(const wr_commit_rec *c) {
  json_t *o = json_object();
  int bad = json_object_set_new(o, "hash", json_string(c->hash));
  json_t *parents = json_array();
  for (int i = 0; i < c->n_parents; i++) bad |= json_array_append_new(parents, json_string(c->parents[i]));
  bad |= json_object_set_new(o, "parents", parents);
  bad |= json_object_set_new(o, "time", wr_json_time(c->time_us));
  bad |= json_object_set_new(o, "author", wr_json_text(c->author ? c->author : ""));
  bad |= json_object_set_new(o, "message", wr_json_text(c->message ? c->message : ""));
  bad |= json_object_set_new(o, "properties", c->properties ? json_incref(c->properties) : json_object());
  return whole(o, bad);
}

json_t *wr_json_table_entry(const wr_table_entry *e) {
  json_t *o = json_object();
  int bad = json_object_set_new(o, "table", json_string(e->table));
  bad |= json_object_set_new(o, "record_count", json_integer(e->record_count));
  bad |= json_object_set_new(o, "snapshot_id", e->snapshot_id >= 0 ? json_integer(e->snapshot_id) : json_null());
  bad |= json_object_set_new(o, "metadata_location", json_string(e->metadata_location));
  return whole(o, bad);
}

json_t *wr_json_ref(const wr_ref_rec *r, bool branch) {
  json_t *o = json_object();
  int bad = json_object_set_new(o, "name", json_string(r->name));
  bad |= json_object_set_new(o, branch ? "head" : "target", json_string(r->target));
  bad |= json_object_set_new(o, "time", wr_json_time(r->updated_us));
  return whole(o, bad);
}

json_t *wr_json_error(const weir_error *err) {
  json_t *o = json_object();
  int bad = json_object_set_new(o, "code", json_string(weir_error_name(err->code)));
  bad |= json_object_set_new(o, "message", wr_json_text(err->message ? err->message : ""));
  json_t *details = NULL;
  json_error_t je;
  bool oom = false;
  if (err->details) details = wr_json_loads(err->details, 0, &je, &oom);
  if (oom) bad = 1;
  bad |= json_object_set_new(o, "details", json_is_array(details) ? details : json_array());
  if (details && !json_is_array(details)) json_decref(details);
  return whole(o, bad);
}
