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
#include "lake/serial.h"
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
    if (n == 0) { /* nothing to change: no empty commit */
      memcpy(out, head, WEIR_HASH_HEX_SIZE);
      return WEIR_OK;
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
  return !out_json || *out_json ? WEIR_OK : wr_oom(err);
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
  return !out_json || *out_json ? WEIR_OK : wr_oom(err);
}

/* ---- namespaces --------------------------------------------------------------------- */

/* Namespaces are versioned (docs/versioning.md, "Namespaces"): a created namespace is an
 * entry of the commit trie under its own name (catalog.h, CATALOG_NAMESPACE_PREFIX), whose
 * content is its properties, so a create, drop or property change is a commit on a branch
 * and merges per namespace like a table. Catalogs older than this also hold lake-wide
 * namespaces (the `namespaces` table, docs/catalog.md): they keep existing at every ref. */

/* {namespace, change, commit, branch}: the result of a namespace's creation or drop. */
static char *namespace_doc(const char *ns, const char *change, const char *commit, const char *branch) {
  json_t *o = json_pack("{s:s,s:s}", "namespace", ns, "change", change);
  if (commit) json_object_set_new(o, "commit", json_string(commit));
  if (branch) json_object_set_new(o, "branch", json_string(branch));
  return wr_doc_dump(WR_DOC_NAMESPACE, o);
}

/* The properties of namespace entry `e` (a new object). */
static json_t *entry_props(const wr_table_entry *e) {
  const char *text = e->metadata_location + strlen(CATALOG_NAMESPACE_PREFIX);
  json_t *o = json_loads(text, 0, NULL);
  if (!json_is_object(o)) {
    json_decref(o);
    o = json_object();
  }
  return o;
}

/* Is a table in `ns` at commit `hash`? *table (may be NULL) gets the first one (owned). */
static int ns_holds_table(weir_lake *lake, const char *hash, const char *ns, bool *held, char **table,
                          weir_error *err) {
  if (table) *table = NULL;
  *held = false;
  wr_table_entry *all = NULL;
  size_t na = 0;
  int rc = catalog_tables(lake->cat, hash, &all, &na, err);
  size_t plen = strlen(ns);
  for (size_t i = 0; rc == WEIR_OK && i < na && !*held; i++)
    if (strncmp(all[i].table, ns, plen) == 0 && all[i].table[plen] == '.') {
      *held = true;
      if (table) *table = wr_strdup(all[i].table);
    }
  wr_table_entries_free(all, na);
  return rc;
}

/* The lake-wide namespace `ns` of an older catalog: *found, and its properties (may be NULL). */
static int legacy_get(weir_lake *lake, const char *ns, bool *found, json_t **props, weir_error *err) {
  if (props) *props = NULL;
  json_t *p = NULL;
  /* catalog_namespace_get leaves *p NULL when there is no such row. */
  int rc = catalog_namespace_get(lake->cat, ns, &p, err);
  *found = rc == WEIR_OK && p != NULL;
  if (props && *found) *props = p;
  else json_decref(p);
  return rc;
}

int lake_namespace_get(weir_lake *lake, const char *hash, const char *ns, bool *found, json_t **props,
                       weir_error *err) {
  *found = false;
  if (props) *props = NULL;
  wr_table_entry e;
  weir_error inner = {0};
  int rc = catalog_table_get(lake->cat, hash, ns, &e, &inner);
  if (rc == WEIR_OK) {
    *found = true;
    if (props) *props = entry_props(&e);
    wr_table_entry_clear(&e);
    return WEIR_OK;
  }
  if (rc != WEIR_ENOTFOUND) {
    wr_error_move(err, &inner);
    return rc;
  }
  weir_error_clear(&inner);
  if ((rc = legacy_get(lake, ns, found, props, err)) || *found) return rc;
  bool held = false;
  if ((rc = ns_holds_table(lake, hash, ns, &held, NULL, err))) return rc;
  *found = held || strcmp(ns, WEIR_DEFAULT_NAMESPACE) == 0;
  if (*found && props) *props = json_object();
  return WEIR_OK;
}

typedef struct ns_ctx {
  const char *ns;
  const char *branch;
  json_t *props;   /* the content to commit; NULL drops the entry */
  bool create;     /* refuse when the entry exists */
  bool must_exist; /* refuse when it does not */
  const char *base; /* --expect-head resolved, or NULL */
  const char *what; /* "creating namespace NS", for a refusal */
} ns_ctx;

/* The change was decided at d->base: refused if the namespace changed on the branch since
 * (a decision against the head it lands on is then the same decision). */
static int check_base(weir_lake *lake, const ns_ctx *d, const char *head, weir_error *err) {
  if (!d->base || strcmp(d->base, head) == 0) return WEIR_OK;
  catalog_serial_report r;
  catalog_serial_init(&r, d->branch, d->base, head);
  int rc = catalog_serial_check_table(lake->cat, &r, d->ns, false, "this change was decided without seeing it", err);
  if (!rc) rc = catalog_serial_error(&r, d->what, "review the namespace at the new head and retry", err);
  catalog_serial_clear(&r);
  return rc;
}

static int prepare_ns(weir_lake *lake, const char *head, wr_table_change *changes, size_t *n, void *ctx,
                      weir_error *err) {
  ns_ctx *d = ctx;
  int rc = check_base(lake, d, head, err);
  if (rc) return rc;
  wr_table_entry e;
  weir_error inner = {0};
  rc = catalog_table_get(lake->cat, head, d->ns, &e, &inner);
  bool have = rc == WEIR_OK;
  char *want = NULL;
  if (d->props) {
    char *canon = wr_json_canonical(d->props);
    want = wr_asprintf("%s%s", CATALOG_NAMESPACE_PREFIX, canon);
    free(canon);
  }
  /* Properties set to what they are: no change (and so no commit). */
  bool same = have && want && strcmp(e.metadata_location, want) == 0;
  if (have) wr_table_entry_clear(&e);
  if (same && !d->create) {
    free(want);
    *n = 0;
    return WEIR_OK;
  }
  if (rc && rc != WEIR_ENOTFOUND) {
    free(want);
    wr_error_move(err, &inner);
    return rc;
  }
  weir_error_clear(&inner);
  if (have && d->create) {
    free(want);
    return wr_seterr(err, WEIR_EEXISTS, "namespace %s already exists on branch %s", d->ns, d->branch);
  }
  if (!d->props) {
    char *t = NULL;
    bool held = false;
    rc = ns_holds_table(lake, head, d->ns, &held, &t, err);
    if (!rc && held) {
      rc = wr_seterr(err, WEIR_EINVALIDARG,
                     "namespace %s is not empty: table %s on branch %s (drop or rename its tables first)", d->ns, t,
                     d->branch);
      wr_error_set_details(err, json_pack("[{s:s,s:s}]", "branch", d->branch, "table", t));
    }
    free(t);
    if (rc) return rc;
  }
  if (!have && d->must_exist)
    return wr_seterr(err, WEIR_ENOTFOUND, "namespace %s was not created on branch %s", d->ns, d->branch);
  changes[0].table = d->ns;
  changes[0].metadata_location = want; /* NULL: drop; freed by commit_changes */
  changes[0].snapshot_id = -1;
  changes[0].record_count = 0;
  *n = 1;
  return WEIR_OK;
}

static int check_props(json_t *props, weir_error *err) {
  if (!props) return WEIR_OK;
  if (!json_is_object(props))
    return wr_seterr(err, WEIR_EINVALIDARG, "namespace properties must be an object of strings");
  const char *k;
  json_t *v;
  json_object_foreach(props, k, v) if (!json_is_string(v))
      return wr_seterr(err, WEIR_EINVALIDARG, "namespace property \"%s\" is not a string", k);
  return WEIR_OK;
}

int lake_namespace_create(weir_lake *lake, const char *ns, const char *branch, const char *expect_head,
                          json_t *props, char **out_json, weir_error *err) {
  if (out_json) *out_json = NULL;
  int rc = wr_ident_check(ns, "namespace", err);
  if (!rc) rc = check_props(props, err);
  if (rc) return rc;
  bool legacy = false;
  if ((rc = legacy_get(lake, ns, &legacy, NULL, err))) return rc;
  if (legacy) return wr_seterr(err, WEIR_EEXISTS, "namespace %s already exists (lake-wide)", ns);
  char base[WEIR_HASH_HEX_SIZE];
  if (expect_head && (rc = lake_write_base(lake, branch_or_main(branch), expect_head, base, err))) return rc;
  json_t *empty = json_object();
  char *what = wr_asprintf("creating namespace %s", ns);
  ns_ctx d = {ns, branch_or_main(branch), props ? props : empty, true, false, expect_head ? base : NULL, what};
  char *msg = wr_asprintf("create namespace %s", ns);
  char hash[WEIR_HASH_HEX_SIZE];
  rc = commit_changes(lake, d.branch, prepare_ns, &d, msg, NULL, hash, err);
  free(msg);
  free(what);
  json_decref(empty);
  if (rc == WEIR_OK && out_json) *out_json = namespace_doc(ns, "added", hash, d.branch);
  return rc;
}

int lake_namespace_set_properties(weir_lake *lake, const char *ns, const char *branch, json_t *props,
                                  weir_error *err) {
  int rc = wr_ident_check(ns, "namespace", err);
  if (!rc) rc = check_props(props, err);
  if (rc) return rc;
  bool legacy = false;
  if ((rc = legacy_get(lake, ns, &legacy, NULL, err))) return rc;
  /* A lake-wide namespace of an older catalog keeps its lake-wide properties. */
  if (legacy) return catalog_namespace_set_properties(lake->cat, ns, props, err);
  json_t *empty = json_object(); /* NULL props: none (never a drop) */
  ns_ctx d = {ns, branch_or_main(branch), props ? props : empty, false, false, NULL, NULL};
  char *msg = wr_asprintf("set properties of namespace %s", ns);
  char hash[WEIR_HASH_HEX_SIZE];
  rc = commit_changes(lake, d.branch, prepare_ns, &d, msg, NULL, hash, err);
  free(msg);
  json_decref(empty);
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
  if (rc == WEIR_OK) rc = catalog_namespace_entries(lake->cat, hash, &all, &na, err);
  for (size_t i = 0; rc == WEIR_OK && i < na; i++)
    json_object_set_new(m, all[i].table, json_pack("{s:s,s:b,s:i}", "name", all[i].table, "created", 1, "tables", 0));
  wr_table_entries_free(all, na);
  all = NULL;
  na = 0;
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
  return *out_json ? WEIR_OK : wr_oom(err);
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

int lake_namespace_drop(weir_lake *lake, const char *ns, const char *branch, const char *expect_head,
                        char **out_json, weir_error *err) {
  if (out_json) *out_json = NULL;
  int rc = wr_ident_check(ns, "namespace", err);
  if (rc) return rc;
  bool legacy = false;
  if ((rc = legacy_get(lake, ns, &legacy, NULL, err))) return rc;
  if (!legacy) {
    char base[WEIR_HASH_HEX_SIZE];
    if (expect_head && (rc = lake_write_base(lake, branch_or_main(branch), expect_head, base, err))) return rc;
    char *what = wr_asprintf("dropping namespace %s", ns);
    ns_ctx d = {ns, branch_or_main(branch), NULL, false, true, expect_head ? base : NULL, what};
    char *msg = wr_asprintf("drop namespace %s", ns);
    char hash[WEIR_HASH_HEX_SIZE];
    rc = commit_changes(lake, d.branch, prepare_ns, &d, msg, NULL, hash, err);
    free(msg);
    free(what);
    if (rc == WEIR_OK && out_json) *out_json = namespace_doc(ns, "dropped", hash, d.branch);
    return rc;
  }
  /* Lake-wide (an older catalog's): dropped lake-wide, as then, while no branch holds it. */
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
  if (rc == WEIR_OK && out_json) *out_json = namespace_doc(ns, "dropped", NULL, NULL);
  return rc;
}
