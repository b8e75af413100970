/*
 * history.c -- refs, branches, tags, log, show, diff, merge and revert: the Git-like
 * surface of the public API, over the catalog.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "lake/merge_appends.h"
#include "lake/serial.h"
#include "util/clock.h"
#include "util/json.h"
#include "util/names.h"

int lake_ref_resolve(weir_lake *lake, const char *ref, char out_hash[WEIR_HASH_HEX_SIZE],
                     weir_error *err) {
  return lake_resolve(lake, ref, out_hash, err);
}

/* A commit with what it changed relative to its first parent (wr_json_commit plus
 * tables_changed: [{table, change}]). *rc is WEIR_ENOMEM when it could not be built. */
static json_t *commit_json(weir_lake *lake, const wr_commit_rec *c, weir_error *err, int *rc) {
  json_t *o = wr_json_commit(c);
  json_t *changes = NULL;
  *rc = o ? catalog_commit_changes(lake->cat, c->hash, &changes, err) : wr_oom(err);
  if (*rc == WEIR_OK) {
    /* Namespace entries (keys without a dot, catalog.h) are listed apart from tables. */
    json_t *tables = json_array(), *namespaces = json_array();
    size_t ci;
    json_t *cv;
    json_array_foreach(changes, ci, cv) {
      const char *key = wr_json_str(cv, "table", "");
      if (catalog_key_is_namespace(key))
        json_array_append_new(namespaces, json_pack("{s:s,s:O}", "namespace", key, "change", json_object_get(cv, "change")));
      else
        json_array_append(tables, cv);
    }
    if (json_object_set_new(o, "tables_changed", tables)) *rc = wr_oom(err);
    if (json_array_size(namespaces)) json_object_set_new(o, "namespaces_changed", namespaces);
    else json_decref(namespaces);
  }
  json_decref(changes);
  /* A commit gc marked: shown as such (its tables can no longer be read). */
  if (*rc == WEIR_OK) {
    int64_t when = 0;
    char *reason = NULL;
    bool found = false;
    *rc = catalog_commit_expiry(lake->cat, c->hash, &when, &reason, &found, err);
    if (*rc == WEIR_OK && found &&
        json_object_set_new(o, "expired", json_pack("{s:o,s:s}", "time", wr_json_time(when), "reason", reason)))
      *rc = wr_oom(err);
    free(reason);
  }
  return o;
}

int lake_commit_log(weir_lake *lake, const char *ref, int64_t max_count, char **out_json,
             weir_error *err) {
  *out_json = NULL;
  char head[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref, head, err);
  if (rc) return rc;
  wr_commit_rec *v = NULL;
  size_t n = 0;
  if ((rc = catalog_log(lake->cat, head, max_count, &v, &n, err))) return rc;
  json_t *arr = json_array();
  if (!arr) rc = wr_oom(err);
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    json_t *c = commit_json(lake, &v[i], err, &rc);
    if (rc) json_decref(c);
    else if (json_array_append_new(arr, c)) rc = wr_oom(err);
  }
  wr_commit_recs_free(v, n);
  if (rc) {
    json_decref(arr);
    return rc;
  }
  *out_json = wr_doc_dump(WR_DOC_COMMIT_LOG, arr);
  return *out_json ? WEIR_OK : wr_oom(err);
}

/* The change a commit's record names for `table` ("added", "changed", "dropped"), or NULL. */
static const char *change_of(const json_t *changes, const char *table) {
  size_t i;
  json_t *c;
  json_array_foreach(changes, i, c) if (strcasecmp(wr_json_str(c, "table", ""), table) == 0)
    return wr_json_str(c, "change", "");
  return NULL;
}

/* One table's history, following its renames (as Nessie follows a content id).
 *
 * Invariants:
 *   - The table is followed by the name it has at each commit: the name at `ref` (its
 *     head) is the one given, and a commit that renamed X to that name hands X to its
 *     parents (the rename's weir.rename_from/rename_to properties, manage.c). A commit
 *     that *added* the name without a rename is where the table began: its parents do
 *     not hold it (a table dropped earlier under that name is another table), except a
 *     merge's second parent, where an added table came from.
 *   - Commits come in catalog_log's order (newest first, a child before its parents for
 *     commits made on one clock); a commit no child handed a name reads the given one.
 *   - A commit is listed when its own change record (relative to its first parent) names
 *     the table's name there, or when it renamed the table; at most max_count (0 = all).
 */
int lake_table_log(weir_lake *lake, const char *ref, const char *table, int64_t max_count, char **out_json,
                   weir_error *err) {
  *out_json = NULL;
  char full[WR_TABLE_FULL_MAX];
  int rc = wr_table_full_name(table, full, err);
  if (rc) return rc;
  char head[WEIR_HASH_HEX_SIZE];
  if ((rc = lake_resolve(lake, ref, head, err))) return rc;
  wr_commit_rec *v = NULL;
  size_t n = 0;
  if ((rc = catalog_log(lake->cat, head, 0, &v, &n, err))) return rc;
  json_t *names = json_object(); /* hash -> the table's name there, or null: not held */
  json_object_set_new(names, head, json_string(full));
  json_t *arr = json_array();
  bool seen = false; /* the name was met at some commit: else it never existed here */
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    if (max_count && (int64_t)json_array_size(arr) >= max_count) break;
    const wr_commit_rec *c = &v[i];
    json_t *nm = json_object_get(names, c->hash);
    if (nm && json_is_null(nm)) { /* before the table began: so are its parents */
      for (int k = 0; k < c->n_parents; k++)
        if (!json_object_get(names, c->parents[k])) json_object_set_new(names, c->parents[k], json_null());
      continue;
    }
    const char *name = nm ? json_string_value(nm) : full;
    json_t *changes = NULL;
    if ((rc = catalog_commit_changes(lake->cat, c->hash, &changes, err))) break;
    const char *change = change_of(changes, name);
    const char *to = wr_json_str(c->properties, "weir.rename_to", NULL);
    const char *from = wr_json_str(c->properties, "weir.rename_from", NULL);
    bool renamed = to && from && strcasecmp(to, name) == 0;
    if (change) seen = true;
    /* What the parents hold: the old name across a rename, nothing before a creation --
     * except a merge's second parent, from which a table "added" relative to the first
     * parent came. */
    bool added = change && strcmp(change, "added") == 0 && !renamed;
    for (int k = 0; k < c->n_parents; k++) {
      if (json_object_get(names, c->parents[k])) continue;
      json_object_set_new(names, c->parents[k], renamed             ? json_string(from)
                                                : added && k == 0 ? json_null()
                                                                  : json_string(name));
    }
    json_decref(changes);
    if (change || renamed) json_array_append_new(arr, commit_json(lake, c, err, &rc));
  }
  wr_commit_recs_free(v, n);
  json_decref(names);
  if (rc == WEIR_OK && !seen)
    rc = wr_seterr(err, WEIR_ENOTFOUND, "table %s has no history at %s: no commit reachable from it wrote it", full,
                   ref ? ref : "main");
  if (rc) {
    json_decref(arr);
    return rc;
  }
  *out_json = wr_doc_dump(WR_DOC_COMMIT_LOG, arr);
  return WEIR_OK;
}

int lake_commit_show(weir_lake *lake, const char *ref, char **out_json, weir_error *err) {
  *out_json = NULL;
  char hash[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref, hash, err);
  if (rc) return rc;
  wr_commit_rec c = {0};
  if ((rc = catalog_commit_get(lake->cat, hash, &c, err))) return rc;
  json_t *o = commit_json(lake, &c, err, &rc);
  wr_commit_rec_clear(&c);
  if (rc) {
    json_decref(o);
    return rc;
  }
  wr_table_entry *tables = NULL;
  size_t n = 0;
  if ((rc = catalog_tables(lake->cat, hash, &tables, &n, err))) {
    json_decref(o);
    return rc;
  }
  json_t *arr = json_array();
  int bad = !arr;
  for (size_t i = 0; i < n; i++) bad |= json_array_append_new(arr, wr_json_table_entry(&tables[i]));
  wr_table_entries_free(tables, n);
  bad |= json_object_set_new(o, "tables", arr);
  if (bad) {
    json_decref(o);
    return wr_oom(err);
  }
  *out_json = wr_doc_dump(WR_DOC_COMMIT, o);
  return *out_json ? WEIR_OK : wr_oom(err);
}

typedef struct diff_ctx {
  json_t *added, *removed, *changed;
  int oom;
} diff_ctx;

/* Sets d->oom instead of failing (the callback's status is the walk's own). */
static int diff_cb(const char *table, const wr_table_entry *a, const wr_table_entry *b, void *p) {
  diff_ctx *d = p;
  json_t *o = json_object();
  int bad = json_object_set_new(o, "table", json_string(table));
  if (!a) {
    bad |= json_object_set_new(o, "record_count", json_integer(b->record_count));
    bad |= json_object_set_new(o, "record_change", json_integer(b->record_count));
    bad |= json_object_set_new(o, "metadata_location", json_string(b->metadata_location));
    if (bad) json_decref(o);
    else bad = json_array_append_new(d->added, o);
  } else if (!b) {
    bad |= json_object_set_new(o, "record_count", json_integer(a->record_count));
    bad |= json_object_set_new(o, "record_change", json_integer(-a->record_count));
    bad |= json_object_set_new(o, "metadata_location", json_string(a->metadata_location));
    if (bad) json_decref(o);
    else bad = json_array_append_new(d->removed, o);
  } else {
    bad |= json_object_set_new(o, "records_before", json_integer(a->record_count));
    bad |= json_object_set_new(o, "records_after", json_integer(b->record_count));
    bad |= json_object_set_new(o, "record_change", json_integer(b->record_count - a->record_count));
    bad |= json_object_set_new(o, "metadata_before", json_string(a->metadata_location));
    bad |= json_object_set_new(o, "metadata_after", json_string(b->metadata_location));
    if (bad) json_decref(o);
    else bad = json_array_append_new(d->changed, o);
  }
  if (bad) d->oom = 1;
  return 0;
}

int lake_commit_diff(weir_lake *lake, const char *ref_a, const char *ref_b, char **out_json,
              weir_error *err) {
  *out_json = NULL;
  char a[WEIR_HASH_HEX_SIZE], b[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref_a, a, err);
  if (rc) return rc;
  if ((rc = lake_resolve(lake, ref_b, b, err))) return rc;
  diff_ctx d = {json_array(), json_array(), json_array(), 0};
  d.oom = !d.added || !d.removed || !d.changed;
  rc = d.oom ? WEIR_OK : catalog_diff(lake->cat, a, b, diff_cb, &d, err);
  if (!rc && d.oom) rc = wr_oom(err);
  if (rc) {
    json_decref(d.added);
    json_decref(d.removed);
    json_decref(d.changed);
    return rc;
  }
  json_t *o = json_object();
  int bad = json_object_set_new(o, "from", json_string(ref_a ? ref_a : "main"));
  bad |= json_object_set_new(o, "to", json_string(ref_b ? ref_b : "main"));
  bad |= json_object_set_new(o, "from_commit", json_string(a));
  bad |= json_object_set_new(o, "to_commit", json_string(b));
  bad |= json_object_set_new(o, "added", d.added);
  bad |= json_object_set_new(o, "removed", d.removed);
  bad |= json_object_set_new(o, "changed", d.changed);
  if (bad) {
    json_decref(o);
    return wr_oom(err);
  }
  *out_json = wr_doc_dump(WR_DOC_DIFF, o);
  return *out_json ? WEIR_OK : wr_oom(err);
}

/* ---- branches and tags --------------------------------------------------------------- */

/* A ref name must mean one thing: not a name the other kind already uses, and not
 * something that reads as a commit hash (git allows both and then guesses; weir says no). */
static int check_unambiguous(weir_lake *lake, const char *name, wr_ref_kind kind, weir_error *err) {
  size_t n = strlen(name);
  bool hexlike = n >= 7 && n <= 64;
  for (size_t i = 0; i < n && hexlike; i++)
    hexlike = (name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f');
  const char *what = kind == WEIR_REF_BRANCH ? "branch" : "tag";
  if (hexlike)
    return wr_seterr(err, WEIR_EINVALIDNAME,
                       "invalid %s name \"%s\": it reads as a commit hash (7 to 64 hex digits)", what, name);
  char target[WEIR_HASH_HEX_SIZE];
  weir_error inner = {0};
  wr_ref_kind other = kind == WEIR_REF_BRANCH ? WEIR_REF_TAG : WEIR_REF_BRANCH;
  int rc = catalog_ref_get(lake->cat, other, name, target, &inner);
  weir_error_clear(&inner);
  if (rc == WEIR_ENOMEM) return wr_oom(err);
  if (rc == WEIR_OK)
    return wr_seterr(err, WEIR_EEXISTS, "a %s named \"%s\" already exists: branches and tags need different names",
                       other == WEIR_REF_TAG ? "tag" : "branch", name);
  return WEIR_OK;
}

int lake_branch_create(weir_lake *lake, const char *name, const char *from_ref,
                       char out_head[WEIR_HASH_HEX_SIZE], weir_error *err) {
  int rc = wr_ref_name_check(name, "branch", err);
  if (rc) return rc;
  if (strncmp(name, "run/", 4) == 0)
    return wr_seterr(err, WEIR_EINVALIDNAME,
                       "invalid branch name \"%s\": names under run/ are reserved for pipeline runs", name);
  if ((rc = check_unambiguous(lake, name, WEIR_REF_BRANCH, err))) return rc;
  char target[WEIR_HASH_HEX_SIZE];
  if ((rc = lake_resolve(lake, from_ref, target, err))) return rc;
  if ((rc = catalog_ref_create(lake->cat, WEIR_REF_BRANCH, name, target, err))) {
    if (rc == WEIR_EEXISTS) return wr_seterr(err, WEIR_EEXISTS, "branch \"%s\" already exists", name);
    return rc;
  }
  if (out_head) memcpy(out_head, target, WEIR_HASH_HEX_SIZE);
  return WEIR_OK;
}

int lake_branch_delete(weir_lake *lake, const char *name, unsigned flags, weir_error *err) {
  if (name && strcmp(name, "main") == 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "cannot delete branch \"main\"");
  char head[WEIR_HASH_HEX_SIZE];
  int rc = lake_branch_head(lake, name, head, err);
  if (rc == WEIR_ENOTFOUND) return wr_seterr(err, WEIR_ENOTFOUND, "branch \"%s\" does not exist", name);
  if (rc) return rc;
  if (!(flags & WEIR_BRANCH_FORCE)) {
    /* Is the head reachable from any other branch or tag? If not, deleting the branch
     * would leave its commits reachable only by hash. */
    bool reachable = false;
    for (int kind = 0; kind < 2 && !reachable && rc == WEIR_OK; kind++) {
      wr_ref_rec *refs = NULL;
      size_t n = 0;
      if ((rc = catalog_ref_list(lake->cat, (wr_ref_kind)kind, &refs, &n, err))) break;
      for (size_t i = 0; i < n && !reachable && rc == WEIR_OK; i++) {
        if (kind == WEIR_REF_BRANCH && strcmp(refs[i].name, name) == 0) continue;
        rc = catalog_is_ancestor(lake->cat, head, refs[i].target, &reachable, err);
      }
      wr_ref_recs_free(refs, n);
    }
    if (rc) return rc;
    /* A run's branch is kept for inspection after the run failed; merging it is refused
     * (the aborted-work rule), so the advice is to delete it when done. */
    if (!reachable && strncmp(name, "run/", 4) == 0)
      return wr_seterr(err, WEIR_EGENERIC,
                         "branch \"%s\" holds the commits of run %s, which no other branch or tag "
                         "reaches (head %.12s); delete it with --force when you are done with it "
                         "(the run's record stays in weir runs)",
                         name, name + 4, head);
    if (!reachable)
      return wr_seterr(err, WEIR_EGENERIC,
                         "branch \"%s\" has commits not reachable from any other branch or tag "
                         "(head %.12s); merge it first, or delete it anyway with --force",
                         name, head);
  }
  return catalog_ref_delete(lake->cat, WEIR_REF_BRANCH, name, err);
}

static int list_refs(weir_lake *lake, wr_ref_kind kind, char **out_json, weir_error *err) {
  *out_json = NULL;
  wr_ref_rec *refs = NULL;
  size_t n = 0;
  int rc = catalog_ref_list(lake->cat, kind, &refs, &n, err);
  if (rc) return rc;
  json_t *arr = json_array();
  int bad = !arr;
  for (size_t i = 0; i < n; i++) bad |= json_array_append_new(arr, wr_json_ref(&refs[i], kind == WEIR_REF_BRANCH));
  wr_ref_recs_free(refs, n);
  if (bad) {
    json_decref(arr);
    return wr_oom(err);
  }
  *out_json = wr_doc_dump(kind == WEIR_REF_BRANCH ? WR_DOC_BRANCH_LIST : WR_DOC_TAG_LIST, arr);
  return *out_json ? WEIR_OK : wr_oom(err);
}

int lake_branch_list(weir_lake *lake, char **out_json, weir_error *err) {
  return list_refs(lake, WEIR_REF_BRANCH, out_json, err);
}

int lake_tag_create(weir_lake *lake, const char *name, const char *ref,
                    char out_target[WEIR_HASH_HEX_SIZE], weir_error *err) {
  int rc = wr_ref_name_check(name, "tag", err);
  if (rc) return rc;
  /* run/<id> names a run's branch; a tag there would shadow or be shadowed by one. */
  if (strncmp(name, "run/", 4) == 0)
    return wr_seterr(err, WEIR_EINVALIDNAME,
                       "invalid tag name \"%s\": names under run/ are reserved for pipeline runs", name);
  if ((rc = check_unambiguous(lake, name, WEIR_REF_TAG, err))) return rc;
  char target[WEIR_HASH_HEX_SIZE];
  if ((rc = lake_resolve(lake, ref, target, err))) return rc;
  if ((rc = catalog_ref_create(lake->cat, WEIR_REF_TAG, name, target, err))) {
    if (rc == WEIR_EEXISTS) return wr_seterr(err, WEIR_EEXISTS, "tag \"%s\" already exists (tags never move)", name);
    return rc;
  }
  if (out_target) memcpy(out_target, target, WEIR_HASH_HEX_SIZE);
  return WEIR_OK;
}

int lake_tag_delete(weir_lake *lake, const char *name, weir_error *err) {
  int rc = wr_ref_name_check(name, "tag", err);
  if (rc) return rc;
  rc = catalog_ref_delete(lake->cat, WEIR_REF_TAG, name, err);
  if (rc == WEIR_ENOTFOUND) return wr_seterr(err, WEIR_ENOTFOUND, "tag \"%s\" does not exist", name);
  return rc;
}

int lake_tag_list(weir_lake *lake, char **out_json, weir_error *err) {
  return list_refs(lake, WEIR_REF_TAG, out_json, err);
}

/* ---- merge and revert ------------------------------------------------------------------ */

int lake_branch_merge(weir_lake *lake, const char *source, const char *into,
               const weir_merge_options *opts, char **out_json, weir_error *err) {
  return lake_branch_merge_gated(lake, source, into, opts, NULL, NULL, out_json, err);
}

int lake_branch_merge_gated(weir_lake *lake, const char *source, const char *into, const weir_merge_options *opts,
                            lake_merge_gate_fn gate, void *gate_ctx, char **out_json, weir_error *err) {
  *out_json = NULL;
  if (!into) into = "main"; /* "" is refused by lake_branch_head */
  char head[WEIR_HASH_HEX_SIZE];
  int rc = lake_branch_head(lake, into, head, err); /* into must be a branch */
  if (rc) return rc;
  wr_merge_request req = {0};
  req.source = source;
  req.into = into;
  req.message = opts ? opts->message : NULL;
  req.author = lake->author;
  req.no_ff = opts && opts->no_ff;
  req.allow_partial = opts && opts->allow_partial;
  req.combine = lake_merge_appends; /* both sides only appended: keep both (merge_appends.c) */
  req.combine_ctx = lake;
  const char *strategy = opts ? opts->strategy : NULL;
  if (!strategy || !*strategy) req.strategy = WEIR_MERGE_FAIL_ON_CONFLICT;
  else if (strcmp(strategy, "source-wins") == 0) req.strategy = WEIR_MERGE_SOURCE_WINS;
  else if (strcmp(strategy, "target-wins") == 0) req.strategy = WEIR_MERGE_TARGET_WINS;
  else
    return wr_seterr(err, WEIR_EINVALIDARG, "unknown merge strategy \"%s\" (expected source-wins or target-wins)",
                       strategy);
  char expected[WEIR_HASH_HEX_SIZE];
  if (opts && opts->expect_head) {
    if ((rc = lake_write_base(lake, into, opts->expect_head, expected, err))) return rc;
    req.expected_head = expected;
  }
  json_t *res = NULL;
  if (!gate) {
    if ((rc = catalog_merge(lake->cat, &req, &res, err))) return rc;
  } else {
    /* One write transaction from plan to commit: the gate checks the merged state under
     * the lock that commits it, so no writer can slip in between (the merge's branch
     * move is still a compare-and-swap against the head it was computed from). */
    if ((rc = catalog_tx_begin(lake->cat, true, err))) return rc;
    rc = catalog_merge(lake->cat, &req, &res, err);
    if (rc == WEIR_OK) rc = gate(lake, res, gate_ctx, err);
    if (rc == WEIR_OK) rc = catalog_tx_commit(lake->cat, err);
    else catalog_tx_rollback(lake->cat);
    if (rc) {
      json_decref(res);
      return rc;
    }
  }
  *out_json = wr_doc_dump(WR_DOC_MERGE, res);
  return *out_json ? WEIR_OK : wr_oom(err); /* the merge stands; its report could not be made */
}

/* The stored contract of a table version, or NULL (none, or unreadable: nothing to diff);
 * *oom set when it could not be read for want of memory (then the diff would be wrong). */
static weir_contract *version_contract(weir_lake *lake, const wr_table_entry *e, bool *oom) {
  iceberg_table *t = NULL;
  weir_error ignore = {0};
  weir_contract *c = NULL;
  int mrc = lake_metadata(lake, e->metadata_location, &t, &ignore);
  if (mrc == WEIR_ENOMEM) *oom = true;
  if (mrc == WEIR_OK) {
    bool stored = false;
    c = lake_table_type(t, e->table, &stored);
    if (!stored) {
      wr_contract_free(c);
      c = NULL;
    }
  }
  iceberg_table_free(t);
  weir_error_clear(&ignore);
  return c;
}

int lake_branch_merge_contracts(weir_lake *lake, const char *source, const char *into, char **out_json,
                                weir_error *err) {
  *out_json = NULL;
  if (!into) into = "main";
  char hi[WEIR_HASH_HEX_SIZE], hs[WEIR_HASH_HEX_SIZE], hb[WEIR_HASH_HEX_SIZE];
  int rc = lake_branch_head(lake, into, hi, err);
  if (!rc) rc = lake_resolve(lake, source, hs, err);
  bool found = false;
  if (!rc) rc = catalog_merge_base(lake->cat, hi, hs, hb, &found, err);
  if (rc) return rc;
  wr_table_entry *st = NULL;
  size_t ns = 0;
  if ((rc = catalog_tables(lake->cat, hs, &st, &ns, err))) return rc;
  json_t *out = json_array();
  bool oom = !out;
  for (size_t i = 0; i < ns && !rc && !oom; i++) {
    wr_table_entry iv, bv;
    weir_error ignore = {0};
    int irc = catalog_table_get(lake->cat, hi, st[i].table, &iv, &ignore);
    bool has_i = irc == WEIR_OK;
    weir_error_clear(&ignore);
    int brc = found ? catalog_table_get(lake->cat, hb, st[i].table, &bv, &ignore) : WEIR_ENOTFOUND;
    bool has_b = brc == WEIR_OK;
    weir_error_clear(&ignore);
    if (irc == WEIR_ENOMEM || brc == WEIR_ENOMEM) oom = true;
    /* What the merge takes from the source: a version the source changed since the base,
     * replacing a different one on `into`. */
    bool taken = has_i && (!has_b || strcmp(bv.metadata_location, st[i].metadata_location) != 0) &&
                 strcmp(iv.metadata_location, st[i].metadata_location) != 0;
    if (taken) {
      /* What the source changed: against the base when `into` changed the table too (a
       * schema change on one side combined with appends on the other, say), so that
       * `into`'s own change is not read as the source undoing it. */
      bool both = has_b && strcmp(bv.metadata_location, iv.metadata_location) != 0;
      weir_contract *old = version_contract(lake, both ? &bv : &iv, &oom), *new_ = version_contract(lake, &st[i], &oom);
      if (old && new_) {
        json_t *d = wr_contract_diff(old, new_);
        if (!d) oom = true;
        if (json_is_true(json_object_get(d, "breaking")) &&
            (json_object_set_new(d, "table", json_string(st[i].table)) || json_array_append(out, d)))
          oom = true;
        json_decref(d);
      }
      wr_contract_free(old);
      wr_contract_free(new_);
    }
    if (has_i) wr_table_entry_clear(&iv);
    if (has_b) wr_table_entry_clear(&bv);
  }
  wr_table_entries_free(st, ns);
  if (oom) {
    json_decref(out);
    return wr_oom(err);
  }
  *out_json = wr_doc_dump(WR_DOC_MERGE_CONTRACTS, out);
  return *out_json ? WEIR_OK : wr_oom(err);
}

/* ---- reverts: contracts only move forward ----------------------------------------------- */

/* The stored contract (the table property weir.contract) of a table version; NULL when it
 * has none. Borrowed from *keep, which the caller frees. */
static int stored_contract(weir_lake *lake, const wr_table_entry *e, iceberg_table **keep, const char **out,
                           weir_error *err) {
  *out = NULL;
  *keep = NULL;
  if (!e) return WEIR_OK;
  int rc = lake_metadata(lake, e->metadata_location, keep, err);
  if (rc == WEIR_OK) *out = wr_json_str((*keep)->properties, "weir.contract", NULL);
  return rc;
}

/* catalog_revert_check_fn: a revert may not change a table's stored contract unless the
 * caller allowed it (docs/versioning.md: no write restores an older contract; found by the
 * model, model/README.md, finding 3). Bringing back a dropped table, or dropping one,
 * changes no stored contract. */
static int revert_contract_check(const char *table, const wr_table_entry *cur, const wr_table_entry *to,
                                 void *ctx, weir_error *err) {
  weir_lake *lake = ctx;
  if (!cur || !to) return WEIR_OK;
  iceberg_table *a = NULL, *b = NULL;
  const char *now = NULL, *then = NULL;
  int rc = stored_contract(lake, cur, &a, &now, err);
  if (rc == WEIR_OK) rc = stored_contract(lake, to, &b, &then, err);
  if (rc == WEIR_OK && !(now ? then && strcmp(now, then) == 0 : !then)) {
    bool noom = false, toom = false;
    json_t *jn = now ? wr_json_loads(now, 0, NULL, &noom) : NULL, *jt = then ? wr_json_loads(then, 0, NULL, &toom) : NULL;
    const char *vn = wr_json_str(jn, "version", NULL), *vt = wr_json_str(jt, "version", NULL);
    const char *nn = wr_json_str(jn, "name", NULL), *nt = wr_json_str(jt, "name", NULL);
    char *desc_now = now ? wr_asprintf("%s%s%s%s", nn ? nn : "unnamed", vn ? " (version " : "", vn ? vn : "",
                                         vn ? ")" : "")
                         : wr_strdup("no contract");
    char *desc_then = then ? wr_asprintf("%s%s%s%s", nt ? nt : "unnamed", vt ? " (version " : "", vt ? vt : "",
                                           vt ? ")" : "")
                           : wr_strdup("no contract");
    rc = !desc_now || !desc_then || noom || toom ? wr_oom(err) : wr_seterr(err, WEIR_ECONTRACT,
                     "reverting %s would replace its stored contract %s by %s, the one of the version it restores: "
                     "contracts change only through a write that names one; pass --allow-contract-change to "
                     "revert the contract too",
                     table, desc_now, desc_then);
    json_t *d = rc != WEIR_ECONTRACT ? NULL
                : json_pack("[{s:s,s:s,s:s,s:o,s:o}]", "kind", "contract_change", "table", table,
                                          "message", err && err->message ? err->message : "",
                                          "current_contract", jn ? jn : json_null(), "restored_contract",
                                          jt ? jt : json_null());
    if (d) wr_error_set_details(err, d);
    else {
      if (rc == WEIR_ECONTRACT) jn = jt = NULL; /* json_pack took them even on failure */
      json_decref(jn);
      json_decref(jt);
      rc = wr_oom(err);
    }
    free(desc_now);
    free(desc_then);
  }
  iceberg_table_free(a);
  iceberg_table_free(b);
  return rc;
}

int lake_table_revert(weir_lake *lake, const char *table, const char *to_ref,
                      const char *branch, const weir_revert_options *opts, char **out_json,
                      weir_error *err) {
  *out_json = NULL;
  char full[WR_TABLE_FULL_MAX];
  int rc = wr_table_full_name(table, full, err);
  if (rc) return rc;
  char head[WEIR_HASH_HEX_SIZE], to[WEIR_HASH_HEX_SIZE];
  if ((rc = lake_branch_head(lake, branch, head, err))) return rc;
  if ((rc = lake_resolve(lake, to_ref, to, err))) return rc;
  /* A table in neither place is a typo, not a revert that changes nothing. */
  wr_table_entry e = {0};
  weir_error inner = {0};
  int hrc = catalog_table_get(lake->cat, head, full, &e, &inner);
  bool here = hrc == WEIR_OK;
  wr_table_entry_clear(&e);
  weir_error_clear(&inner);
  int trc = catalog_table_get(lake->cat, to, full, &e, &inner);
  bool there = trc == WEIR_OK;
  wr_table_entry_clear(&e);
  weir_error_clear(&inner);
  if (hrc == WEIR_ENOMEM || trc == WEIR_ENOMEM) return wr_oom(err);
  if (!here && !there)
    return wr_seterr(err, WEIR_ENOTFOUND, "table %s exists neither on branch %s nor at %s", full,
                       branch && *branch ? branch : "main", to_ref ? to_ref : "main");
  char expected[WEIR_HASH_HEX_SIZE];
  if (opts && opts->expect_head && (rc = lake_write_base(lake, branch, opts->expect_head, expected, err))) return rc;
  json_t *res = NULL;
  catalog_revert_opts ro = {0};
  ro.message = opts ? opts->message : NULL;
  ro.allow_partial = opts && opts->allow_partial;
  ro.expected_head = opts && opts->expect_head ? expected : NULL;
  if (!(opts && opts->allow_contract_change)) ro.check = revert_contract_check, ro.check_ctx = lake;
  rc = catalog_revert_table(lake->cat, full, to_ref, branch && *branch ? branch : "main", &ro, &res, err);
  if (rc) return rc;
  *out_json = wr_doc_dump(WR_DOC_TABLE_REVERT, res);
  return *out_json ? WEIR_OK : wr_oom(err); /* the revert stands; its report could not be made */
}

int lake_run_revert(weir_lake *lake, const char *run_id, const char *branch,
                    const weir_revert_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  if (!run_id || !*run_id) return wr_seterr(err, WEIR_EINVALIDARG, "no run id given");
  json_t *res = NULL;
  char expected[WEIR_HASH_HEX_SIZE];
  int rc = WEIR_OK;
  if (opts && opts->expect_head) {
    /* The base names a commit of the branch the run is reverted on. */
    char *target = NULL;
    if (!branch || !*branch) {
      json_t *run = NULL;
      if ((rc = catalog_run_get(lake->cat, run_id, &run, err))) return rc;
      target = wr_strdup(wr_json_str(run, "branch", "main"));
      json_decref(run);
      if (!target) return wr_oom(err);
    }
    rc = lake_write_base(lake, target ? target : branch, opts->expect_head, expected, err);
    free(target);
    if (rc) return rc;
  }
  catalog_revert_opts ro = {0};
  ro.message = opts ? opts->message : NULL;
  ro.allow_partial = opts && opts->allow_partial;
  ro.expected_head = opts && opts->expect_head ? expected : NULL;
  if (!(opts && opts->allow_contract_change)) ro.check = revert_contract_check, ro.check_ctx = lake;
  rc = catalog_revert_run(lake->cat, run_id, branch && *branch ? branch : NULL, &ro, &res, err);
  if (rc) return rc;
  *out_json = wr_doc_dump(WR_DOC_RUN_REVERT, res);
  return *out_json ? WEIR_OK : wr_oom(err); /* the revert stands; its report could not be made */
}
