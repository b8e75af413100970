/*
 * manage.c -- table drop and rename, and namespaces: each table change is one commit on a
 * branch, so it is versioned, reverted and merged like any write.
 *
 * A rename keeps the table's identity: the new name points to the very same Iceberg
 * version (metadata file, table-uuid, snapshots, stored contract, lineage), so readers
 * and engines see one table under a new name, as Nessie's content id does. Later writes
 * under the new name put their files in the new name's folder.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "util/json.h"

#define MANAGE_ATTEMPTS 16

static const char *branch_or_main(const char *b) { return b ? b : "main"; }

/* Commits `changes` on `branch` at its current head, retrying when another writer moves
 * the head in between (the changes were computed from a head, so `prepare` recomputes
 * them on each attempt). */
typedef int (*prepare_fn)(weir_lake *lake, const char *head, wr_table_change *changes, size_t *n,
                          void *ctx, weir_error *err);

static int commit_changes(weir_lake *lake, const char *branch, prepare_fn prepare, void *ctx, const char *message,
                          json_t *props, char out[WEIR_HASH_HEX_SIZE], weir_error *err) {
  int rc = WEIR_OK;
  for (int attempt = 0; attempt < MANAGE_ATTEMPTS; attempt++) {
    char head[WEIR_HASH_HEX_SIZE];
    if ((rc = lake_branch_head(lake, branch, head, err))) return rc;
    wr_table_change changes[4];
    size_t n = 0;
    memset(changes, 0, sizeof changes);
    if ((rc = prepare(lake, head, changes, &n, ctx, err))) {
      for (size_t i = 0; i < n; i++) free((char *)changes[i].metadata_location);
      return rc;
    }
    wr_commit_request c = {0};
    c.branch = branch;
    c.expected_head = head;
    c.changes = changes;
    c.n_changes = n;
    c.author = lake->author;
    c.message = message;
    c.properties = props;
    weir_error inner = {0};
    rc = catalog_commit(lake->cat, &c, out, &inner);
    for (size_t i = 0; i < n; i++) free((char *)changes[i].metadata_location);
    if (rc == WEIR_ECONCURRENT && attempt + 1 < MANAGE_ATTEMPTS) {
      weir_error_clear(&inner);
      continue;
    }
    wr_error_move(err, &inner);
    return rc;
  }
  return rc;
}

typedef struct drop_ctx {
  const char *table;
  const char *new_name;
  const char *branch;
  /* The tables' quarantines (<table>__quarantine): they follow their table, dropped or
   * renamed in the same commit, so that no quarantine outlives or loses its table. */
  char q_table[2 * WEIR_NAME_MAX + 16], q_new[2 * WEIR_NAME_MAX + 16];
} drop_ctx;

/* Adds the changes that move the quarantine of d->table with it (dropped, or renamed to
 * d->new_name's) when it has one at `head`. */
static int prepare_quarantine(weir_lake *lake, const char *head, drop_ctx *d, wr_table_change *changes, size_t *n,
                              weir_error *err) {
  snprintf(d->q_table, sizeof d->q_table, "%s__quarantine", d->table);
  wr_table_entry q;
  weir_error inner = {0}, ignore = {0};
  int rc = catalog_table_get(lake->cat, head, d->q_table, &q, &inner);
  if (rc == WEIR_ENOTFOUND) {
    weir_error_clear(&inner);
    return WEIR_OK;
  }
  if (rc) {
    wr_error_move(err, &inner);
    return rc;
  }
  changes[*n].table = d->q_table;
  changes[*n].metadata_location = NULL;
  (*n)++;
  if (d->new_name) {
    snprintf(d->q_new, sizeof d->q_new, "%s__quarantine", d->new_name);
    wr_table_entry other;
    int orc = catalog_table_get(lake->cat, head, d->q_new, &other, &ignore);
    weir_error_clear(&ignore);
    if (orc == WEIR_OK) {
      wr_table_entry_clear(&other);
      wr_table_entry_clear(&q);
      return wr_seterr(err, WEIR_EEXISTS, "cannot rename %s to %s: its quarantine would be %s, which already exists "
                       "on branch %s", d->table, d->new_name, d->q_new, d->branch);
    }
    changes[*n].table = d->q_new;
    changes[*n].metadata_location = wr_strdup(q.metadata_location);
    changes[*n].snapshot_id = q.snapshot_id;
    changes[*n].record_count = q.record_count;
    (*n)++;
  }
  wr_table_entry_clear(&q);
  return WEIR_OK;
}

static int prepare_drop(weir_lake *lake, const char *head, wr_table_change *changes, size_t *n, void *ctx,
                        weir_error *err) {
  drop_ctx *d = ctx;
  wr_table_entry e;
  int rc = catalog_table_get(lake->cat, head, d->table, &e, err);
  if (rc == WEIR_ENOTFOUND)
    return wr_seterr(err, WEIR_ENOTFOUND, "table %s not found on branch %s", d->table, d->branch);
  if (rc) return rc;
  changes[0].table = d->table;
  changes[0].metadata_location = NULL;
  *n = 1;
  if (d->new_name) {
    wr_table_entry other;
    weir_error ignore = {0};
    int orc = catalog_table_get(lake->cat, head, d->new_name, &other, &ignore);
    weir_error_clear(&ignore);
    if (orc == WEIR_OK) {
      wr_table_entry_clear(&other);
      wr_table_entry_clear(&e);
      return wr_seterr(err, WEIR_EEXISTS, "cannot rename %s to %s: table %s already exists on branch %s",
                       d->table, d->new_name, d->new_name, d->branch);
    }
    /* SQL folds case: a name differing from another table's only in case is refused. */
    wr_table_entry *all = NULL;
    size_t na = 0;
    if ((rc = catalog_tables(lake->cat, head, &all, &na, err))) {
      wr_table_entry_clear(&e);
      return rc;
    }
    for (size_t i = 0; i < na && rc == WEIR_OK; i++)
      if (strcasecmp(all[i].table, d->new_name) == 0 && strcmp(all[i].table, d->table) != 0)
        rc = wr_seterr(err, WEIR_EEXISTS, "cannot rename %s to %s: it would differ from table %s only in case",
                       d->table, d->new_name, all[i].table);
    wr_table_entries_free(all, na);
    if (rc) {
      wr_table_entry_clear(&e);
      return rc;
    }
    changes[1].table = d->new_name;
    changes[1].metadata_location = wr_strdup(e.metadata_location);
    changes[1].snapshot_id = e.snapshot_id;
    changes[1].record_count = e.record_count;
    *n = 2;
  }
  wr_table_entry_clear(&e);
  return prepare_quarantine(lake, head, d, changes, n, err);
}

int lake_table_drop(weir_lake *lake, const char *table, const char *branch, char **out_json, weir_error *err) {
  if (out_json) *out_json = NULL;
  wr_table_id id;
  int rc = wr_table_id_parse(table, &id, err);
  if (rc) return rc;
  char full[2 * WEIR_NAME_MAX + 2];
  wr_table_id_format(&id, full, sizeof full);
  drop_ctx d = {full, NULL, branch_or_main(branch), "", ""};
  char *msg = wr_asprintf("drop table %s", full);
  char hash[WEIR_HASH_HEX_SIZE];
  rc = commit_changes(lake, d.branch, prepare_drop, &d, msg, NULL, hash, err);
  free(msg);
  if (rc) return rc;
  if (out_json)
    *out_json = wr_doc_dump(WR_DOC_TABLE_DROP, json_pack("{s:s,s:s,s:s,s:s}", "commit", hash, "table", full,
                                                         "branch", d.branch, "change", "dropped"));
  return WEIR_OK;
}

int lake_table_rename(weir_lake *lake, const char *table, const char *new_name, const char *branch,
                      char **out_json, weir_error *err) {
  if (out_json) *out_json = NULL;
  wr_table_id a, b;
  int rc = wr_table_id_parse(table, &a, err);
  if (rc == WEIR_OK) rc = wr_table_id_parse(new_name, &b, err);
  if (rc) return rc;
  char fa[2 * WEIR_NAME_MAX + 2], fb[2 * WEIR_NAME_MAX + 2];
  wr_table_id_format(&a, fa, sizeof fa);
  wr_table_id_format(&b, fb, sizeof fb);
  if (strcmp(fa, fb) == 0) return wr_seterr(err, WEIR_EINVALIDARG, "cannot rename %s to itself", fa);
  drop_ctx d = {fa, fb, branch_or_main(branch), "", ""};
  char *msg = wr_asprintf("rename table %s to %s", fa, fb);
  json_t *props = json_pack("{s:s,s:s}", "weir.rename_from", fa, "weir.rename_to", fb);
  char hash[WEIR_HASH_HEX_SIZE];
  rc = commit_changes(lake, d.branch, prepare_drop, &d, msg, props, hash, err);
  free(msg);
  json_decref(props);
  if (rc) return rc;
  if (out_json)
    *out_json = wr_doc_dump(WR_DOC_TABLE_RENAME, json_pack("{s:s,s:s,s:s,s:s}", "commit", hash, "table", fa,
                                                           "new_name", fb, "branch", d.branch));
  return WEIR_OK;
}

/* ---- namespaces --------------------------------------------------------------------- */

/* {namespace, change: "added" | "dropped"}: the result of a namespace's creation or drop. */
static char *namespace_doc(const char *ns, const char *change) {
  return wr_doc_dump(WR_DOC_NAMESPACE, json_pack("{s:s,s:s}", "namespace", ns, "change", change));
}

int lake_namespace_create(weir_lake *lake, const char *ns, char **out_json, weir_error *err) {
  if (out_json) *out_json = NULL;
  int rc = catalog_namespace_create(lake->cat, ns, NULL, err);
  if (rc == WEIR_OK && out_json) *out_json = namespace_doc(ns, "added");
  return rc;
}

int lake_namespaces_at(weir_lake *lake, const char *hash, json_t **out, weir_error *err) {
  *out = NULL;
  json_t *m = json_object(); /* name -> {name, created, tables} */
  json_object_set_new(m, WEIR_DEFAULT_NAMESPACE,
                      json_pack("{s:s,s:b,s:i}", "name", WEIR_DEFAULT_NAMESPACE, "created", 0, "tables", 0));
  char **names = NULL;
  size_t nn = 0;
  int rc = catalog_namespace_list(lake->cat, &names, &nn, err);
  for (size_t i = 0; rc == WEIR_OK && i < nn; i++)
    json_object_set_new(m, names[i], json_pack("{s:s,s:b,s:i}", "name", names[i], "created", 1, "tables", 0));
  catalog_strv_free(names, nn);
  wr_table_entry *all = NULL;
  size_t na = 0;
  if (rc == WEIR_OK) rc = catalog_tables(lake->cat, hash, &all, &na, err);
  for (size_t i = 0; rc == WEIR_OK && i < na; i++) {
    wr_table_id id;
    if (wr_table_id_parse(all[i].table, &id, NULL)) continue;
    json_t *o = json_object_get(m, id.ns);
    if (!o) {
      o = json_pack("{s:s,s:b,s:i}", "name", id.ns, "created", 0, "tables", 0);
      json_object_set_new(m, id.ns, o);
    }
    json_object_set_new(o, "tables", json_integer(wr_json_int(o, "tables", 0) + 1));
  }
  wr_table_entries_free(all, na);
  if (rc) {
    json_decref(m);
    return rc;
  }
  /* jansson keeps insertion order; sort by name for a stable listing. */
  const char **keys = wr_calloc(json_object_size(m) + 1, sizeof *keys);
  size_t nk = 0;
  const char *k;
  json_t *v;
  json_object_foreach(m, k, v) keys[nk++] = k;
  for (size_t i = 1; i < nk; i++)
    for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
      const char *t = keys[j];
      keys[j] = keys[j - 1];
      keys[j - 1] = t;
    }
  json_t *arr = json_array();
  for (size_t i = 0; i < nk; i++) json_array_append(arr, json_object_get(m, keys[i]));
  free(keys);
  json_decref(m);
  *out = arr;
  return WEIR_OK;
}

int lake_namespace_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err) {
  *out_json = NULL;
  char hash[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref, hash, err);
  if (rc) return rc;
  json_t *arr = NULL;
  if ((rc = lake_namespaces_at(lake, hash, &arr, err))) return rc;
  *out_json = wr_doc_dump(WR_DOC_NAMESPACE_LIST, arr);
  return WEIR_OK;
}

int lake_namespace_tables(weir_lake *lake, const char *ns, json_t **out, weir_error *err) {
  *out = json_array();
  wr_ref_rec *refs = NULL;
  size_t nr = 0;
  int rc = catalog_ref_list(lake->cat, WEIR_REF_BRANCH, &refs, &nr, err);
  size_t plen = strlen(ns);
  for (size_t i = 0; rc == WEIR_OK && i < nr; i++) {
    wr_table_entry *all = NULL;
    size_t na = 0;
    if ((rc = catalog_tables(lake->cat, refs[i].target, &all, &na, err))) break;
    for (size_t j = 0; j < na; j++)
      if (strncmp(all[j].table, ns, plen) == 0 && all[j].table[plen] == '.')
        json_array_append_new(*out, json_pack("{s:s,s:s}", "branch", refs[i].name, "table", all[j].table));
    wr_table_entries_free(all, na);
  }
  wr_ref_recs_free(refs, nr);
  return rc;
}

int lake_namespace_drop(weir_lake *lake, const char *ns, char **out_json, weir_error *err) {
  if (out_json) *out_json = NULL;
  int rc = wr_ident_check(ns, "namespace", err);
  if (rc) return rc;
  json_t *held = NULL;
  if ((rc = lake_namespace_tables(lake, ns, &held, err))) {
    json_decref(held);
    return rc;
  }
  if (json_array_size(held) > 0) {
    json_t *first = json_array_get(held, 0);
    wr_seterr(err, WEIR_EINVALIDARG,
              "namespace %s is not empty: table %s on branch %s%s (drop or rename its tables first)", ns,
              wr_json_str(first, "table", ""), wr_json_str(first, "branch", ""),
              json_array_size(held) > 1 ? " and others" : "");
    wr_error_set_details(err, held);
    return WEIR_EINVALIDARG;
  }
  json_decref(held);
  rc = catalog_namespace_delete(lake->cat, ns, err);
  if (rc == WEIR_OK && out_json) *out_json = namespace_doc(ns, "dropped");
  return rc;
}
