/*
 * records.c -- the catalog's record types: release functions, the canonical form commit
 * hashes are computed over, and small helpers shared by the backend-independent files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "util/json.h"

void wr_table_entry_clear(wr_table_entry *e) {
  if (!e) return;
  free(e->table);
  free(e->metadata_location);
  memset(e, 0, sizeof *e);
}

void wr_table_entries_free(wr_table_entry *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) wr_table_entry_clear(&v[i]);
  free(v);
}

void wr_commit_rec_clear(wr_commit_rec *c) {
  if (!c) return;
  free(c->author);
  free(c->message);
  free(c->run_id);
  json_decref(c->properties);
  memset(c, 0, sizeof *c);
}

void wr_commit_recs_free(wr_commit_rec *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) wr_commit_rec_clear(&v[i]);
  free(v);
}

/* {"author":...,"message":...,"parents":[...],"properties":{...},"tables":"<root>",
 *  "time":<us>} with sorted keys and no whitespace. */
char *catalog_commit_canonical(const wr_commit_rec *c) {
  /* Every key must be there: a key lost to OOM would hash a different commit. */
  json_t *parents = json_array();
  int bad = !parents;
  for (int i = 0; i < c->n_parents && i < 2; i++)
    bad |= json_array_append_new(parents, json_string(c->parents[i]));
  json_t *o = json_object();
  bad |= json_object_set_new(o, "author", json_string(c->author ? c->author : ""));
  bad |= json_object_set_new(o, "message", json_string(c->message ? c->message : ""));
  bad |= json_object_set_new(o, "parents", parents);
  bad |= json_object_set_new(o, "properties",
                             c->properties ? json_incref(c->properties) : json_object());
  bad |= json_object_set_new(o, "tables", json_string(c->tables_root));
  bad |= json_object_set_new(o, "time", json_integer((json_int_t)c->time_us));
  char *s = bad ? NULL : wr_json_canonical(o);
  json_decref(o);
  return s;
}

void wr_ref_recs_free(wr_ref_rec *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) free(v[i].name);
  free(v);
}

const char *wr_run_status_name(wr_run_status s) {
  switch (s) {
  case WEIR_RUN_SUCCEEDED: return "succeeded";
  case WEIR_RUN_FAILED: return "failed";
  default: return "running";
  }
}

void catalog_table_version_clear(catalog_table_version *v) {
  if (!v) return;
  free(v->table);
  free(v->metadata_location);
  free(v->run_id);
  memset(v, 0, sizeof *v);
}

void catalog_table_versions_free(catalog_table_version *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) catalog_table_version_clear(&v[i]);
  free(v);
}

void catalog_run_row_clear(catalog_run_row *r) {
  if (!r) return;
  free(r->run_id);
  free(r->project);
  free(r->project_digest);
  free(r->branch);
  free(r->run_branch);
  free(r->base_commit);
  free(r->result_commit);
  free(r->error_json);
  free(r->owner);
  memset(r, 0, sizeof *r);
}

void catalog_strv_free(char **v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

bool catalog_is_full_hash(const char *s) {
  if (!s) return false;
  for (int i = 0; i < WEIR_HASH_LEN; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  return s[WEIR_HASH_LEN] == 0;
}

const char *catalog_short(const char *hash, char buf[13]) {
  snprintf(buf, 13, "%s", hash ? hash : "");
  return buf;
}

bool catalog_same_version(const wr_table_entry *a, const wr_table_entry *b) {
  if (!a || !b) return !a && !b;
  return strcmp(a->metadata_location, b->metadata_location) == 0;
}

int catalog_entry_copy(wr_table_entry *out, const wr_table_entry *in) {
  out->table = wr_strdup(in->table);
  out->metadata_location = wr_strdup(in->metadata_location);
  out->snapshot_id = in->snapshot_id;
  out->record_count = in->record_count;
  if ((in->table && !out->table) || (in->metadata_location && !out->metadata_location)) {
    wr_table_entry_clear(out);
    return WEIR_ENOMEM;
  }
  return WEIR_OK;
}

const char *catalog_change_name(wr_change_kind k) {
  switch (k) {
  case WEIR_CHANGE_ADDED: return "added";
  case WEIR_CHANGE_CHANGED: return "changed";
  default: return "dropped";
  }
}
