/*
 * merge.c -- merging a ref into a branch (docs/versioning.md, "Merge"), with the
 * aborted-work rule ("Aborted work must not leak").
 *
 * A merge is planned under one read snapshot (resolve both sides, find the relation of
 * the heads, diff tables against the merge base, check conflicts and provenance) and
 * then written in one write transaction whose branch move is a compare-and-swap against
 * the head the plan was computed from. If another writer moved the branch in between,
 * the plan is recomputed (bounded). Every step's cost grows with the number of tables
 * that differ and the history between the two heads, not with lake size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog_internal.h"
#include "catalog/tree.h"
#include "util/buf.h"
#include "util/json.h"

typedef struct merge_plan {
  char into_head[WEIR_HASH_LEN + 1];
  char source_head[WEIR_HASH_LEN + 1];
  char base[WEIR_HASH_LEN + 1]; /* "" when the heads share no ancestor */
  const char *result;           /* "up-to-date", "fast-forward", "merge" */
  bool fast_forward;            /* into's head is an ancestor of source's */
  wr_table_change *changes;   /* to apply to into's head; strings owned */
  size_t n_changes;
  json_t *tables;               /* [{table, action}] */
  int oom;                      /* sticky: a step of the plan could not allocate */
} merge_plan;

static void plan_clear(merge_plan *p) {
  for (size_t i = 0; i < p->n_changes; i++) {
    free((char *)p->changes[i].table);
    free((char *)p->changes[i].metadata_location);
  }
  free(p->changes);
  json_decref(p->tables);
  memset(p, 0, sizeof *p);
}

static const char *side_change(const wr_table_entry *base, const wr_table_entry *side) {
  if (catalog_same_version(base, side)) return "unchanged";
  if (!base) return "added";
  if (!side) return "dropped";
  return "changed";
}

/* Adds "apply `side` (or drop) to into's head" to the plan. */
/* Sets p->oom instead on OOM. */
static void plan_take(merge_plan *p, const char *table, const wr_table_entry *ours,
                      const wr_table_entry *side) {
  wr_table_change *v = wr_realloc(p->changes, (p->n_changes + 1) * sizeof *p->changes);
  if (!v) {
    p->oom = 1;
    return;
  }
  p->changes = v;
  wr_table_change *c = &p->changes[p->n_changes++];
  c->table = wr_strdup(table);
  c->metadata_location = side ? wr_strdup(side->metadata_location) : NULL;
  c->snapshot_id = side ? side->snapshot_id : -1;
  c->record_count = side ? side->record_count : 0;
  if (!c->table || (side && !c->metadata_location)) p->oom = 1;
  if (json_array_append_new(p->tables, json_pack("{s:s,s:s}", "table", table, "change",
                                                 side_change(ours, side))) != 0)
    p->oom = 1;
}

/* ---- the aborted-work rule ---------------------------------------------------------- */

/* For every table whose source version differs from the base, find the run that first
 * wrote that version; refuse if it is a run that has not succeeded (other than the run
 * doing this merge). A later successful run that rewrites a table writes a new version,
 * whose provenance is that run: the mark is cleared by construction. */
static int check_partial(wr_catalog *cat, const wr_merge_request *req,
                         const tree_diff_item *items, size_t n, weir_error *err) {
  if (req->allow_partial) return WEIR_OK;
  json_t *runs = json_object(); /* run_id -> {run_id, status, tables} */
  json_t *order = json_array();
  int rc = runs && order ? WEIR_OK : wr_oom(err);
  for (size_t i = 0; i < n && !rc; i++) {
    if (!items[i].b) continue; /* dropped on the source side: no version to trace */
    catalog_table_version v;
    bool found = false;
    rc = cat->be->ops->version_get(cat->be, items[i].b->metadata_location, &v, &found, err);
    if (rc || !found) continue;
    if (v.run_id && !(req->run_id && strcmp(v.run_id, req->run_id) == 0)) {
      json_t *r = json_object_get(runs, v.run_id);
      if (!r) {
        catalog_run_row row;
        weir_error gerr = {0};
        const char *status = "unknown";
        int grc = cat->be->ops->run_get(cat->be, v.run_id, &row, &gerr);
        if (grc == WEIR_OK) {
          status = wr_run_status_name(row.status);
          catalog_run_row_clear(&row);
        } else if (grc != WEIR_ENOTFOUND) {
          wr_error_move(err, &gerr);
          rc = grc;
        }
        weir_error_clear(&gerr);
        r = json_pack("{s:s,s:s,s:[]}", "run_id", v.run_id, "status", status, "tables");
        if (json_object_set(runs, v.run_id, r) != 0 ||
            (strcmp(status, "succeeded") != 0 && json_array_append(order, r) != 0)) {
          json_decref(r);
          catalog_table_version_clear(&v);
          rc = wr_oom(err);
          break;
        }
        json_decref(r);
      }
      if (strcmp(wr_json_str(r, "status", ""), "succeeded") != 0 &&
          json_array_append_new(json_object_get(r, "tables"), json_string(items[i].table)) != 0) {
        catalog_table_version_clear(&v);
        rc = wr_oom(err);
        break;
      }
    }
    catalog_table_version_clear(&v);
  }
  if (!rc && json_array_size(order) > 0) {
    wr_buf b = WEIR_BUF_INIT;
    size_t i;
    json_t *r;
    json_array_foreach(order, i, r) {
      wr_buf_printf(&b, "%srun %s (%s) wrote ", i ? "; " : "", wr_json_str(r, "run_id", ""),
                      strcmp(wr_json_str(r, "status", ""), "unknown") == 0
                          ? "no run record"
                          : wr_json_str(r, "status", ""));
      size_t j;
      json_t *t;
      json_t *tables = json_object_get(r, "tables");
      json_array_foreach(tables, j, t) {
        if (j == 10) {
          wr_buf_printf(&b, " and %zu more", json_array_size(tables) - 10);
          break;
        }
        wr_buf_printf(&b, "%s%s", j ? ", " : "", json_string_value(t));
      }
    }
    rc = wr_buf_status(&b) ? wr_oom(err)
         : wr_seterr(err, WEIR_EPARTIAL,
                     "merging %s into %s would publish the work of a run that did not succeed: "
                     "%s; merge with --allow-partial to publish it anyway",
                     req->source, req->into, wr_buf_cstr(&b));
    if (rc == WEIR_EPARTIAL) wr_error_set_details(err, json_incref(order));
    if (err) rc = err->code;
    wr_buf_free(&b);
  }
  json_decref(order);
  json_decref(runs);
  return rc;
}

/* ---- planning ----------------------------------------------------------------------- */

static int conflict_error(const wr_merge_request *req, json_t *conflicts, weir_error *err) {
  size_t n = json_array_size(conflicts);
  wr_buf b = WEIR_BUF_INIT;
  size_t i;
  json_t *c;
  json_array_foreach(conflicts, i, c) {
    if (i == 10) {
      wr_buf_printf(&b, ", and %zu more", n - 10);
      break;
    }
    const char *key = wr_json_str(c, "table", "");
    wr_buf_printf(&b, "%s%s%s (%s: %s, %s: %s)", i ? ", " : "", catalog_key_is_namespace(key) ? "namespace " : "", key,
                    req->into, wr_json_str(c, "ours", ""), req->source,
                    wr_json_str(c, "theirs", ""));
  }
  /* A conflict with a reason (a delete on one side, ...) says it: "changed on both
   * sides" alone would not tell the user what cannot be combined, nor what to do. */
  json_array_foreach(conflicts, i, c) {
    const char *why = wr_json_str(c, "reason", NULL);
    if (why) wr_buf_printf(&b, "\n  - %s: %s", wr_json_str(c, "table", ""), why);
  }
  if (wr_buf_status(&b)) {
    wr_buf_free(&b);
    return wr_oom(err);
  }
  int rc = wr_seterr(err, WEIR_ECONFLICT,
              "merge conflict merging %s into %s: %zu table%s changed on both sides: %s",
              req->source, req->into, n, n == 1 ? "" : "s", wr_buf_cstr(&b));
  if (rc == WEIR_ECONFLICT) wr_error_set_details(err, json_incref(conflicts));
  wr_buf_free(&b);
  return err ? err->code : rc;
}

static json_t *loc_or_null(const wr_table_entry *e) {
  return e ? json_string(e->metadata_location) : json_null();
}

/* A table the source side adds whose name differs from one of into's tables only in case
 * (each side created one). SQL folds the case of names, so the merged lake could not be
 * queried for both; it is a conflict like any other, listed with the rest. The walk of
 * into's tables is paid only by merges that add a table. */
static int case_twins(wr_catalog *cat, const char *into_root, const tree_diff_item *theirs, size_t nt,
                      const char *base, json_t *conflicts, weir_error *err) {
  bool adds = false;
  for (size_t j = 0; j < nt && !adds; j++) adds = !theirs[j].a && theirs[j].b;
  if (!adds) return WEIR_OK;
  wr_table_entry *into = NULL;
  size_t n_into = 0;
  int rc = tree_list(cat, into_root, &into, &n_into, err);
  for (size_t j = 0; j < nt && !rc; j++) {
    if (theirs[j].a || !theirs[j].b) continue;
    for (size_t k = 0; k < n_into; k++) {
      const char *other = into[k].table;
      if (strcasecmp(other, theirs[j].table) != 0 || strcmp(other, theirs[j].table) == 0) continue;
      char *ours = wr_asprintf("added %s, whose name differs only in case", other);
      if (!ours ||
          json_array_append_new(conflicts,
                            json_pack("{s:s,s:o,s:s,s:s,s:n,s:s,s:s}", "table", theirs[j].table, "base",
                                      base ? json_string(base) : json_null(), "ours", ours, "theirs",
                                      "added", "base_metadata", "ours_metadata",
                                      into[k].metadata_location, "theirs_metadata",
                                      theirs[j].b->metadata_location)) != 0)
        rc = wr_oom(err);
      free(ours);
      if (rc) break;
    }
  }
  wr_table_entries_free(into, n_into);
  return rc;
}

static int plan_three_way(wr_catalog *cat, const wr_merge_request *req, merge_plan *p,
                          const commit_head *hi, const commit_head *hs, weir_error *err) {
  bool found = false;
  char base[WEIR_HASH_LEN + 1];
  int rc = WEIR_OK;
  if (req->base) {
    found = true;
    memcpy(base, req->base, sizeof base);
  } else {
    rc = catalog_merge_base(cat, p->into_head, p->source_head, base, &found, err);
  }
  if (rc) return rc;
  const char *base_root = tree_empty_root();
  commit_head hb;
  if (found) {
    memcpy(p->base, base, sizeof base);
    rc = catalog_head_get(cat, base, &hb, err);
    if (rc) return rc;
    base_root = hb.tables_root;
  }
  tree_diff_item *ours = NULL, *theirs = NULL;
  size_t no = 0, nt = 0;
  rc = tree_diff(cat, base_root, hi->tables_root, &ours, &no, err);
  if (!rc) rc = tree_diff(cat, base_root, hs->tables_root, &theirs, &nt, err);
  json_t *conflicts = json_array();
  if (!rc && !conflicts) rc = wr_oom(err);
  size_t i = 0, j = 0;
  while (!rc && (i < no || j < nt)) {
    int cmp = i == no ? 1 : j == nt ? -1 : strcmp(ours[i].table, theirs[j].table);
    if (cmp < 0) {
      i++; /* changed on into's side only: keep it */
    } else if (cmp > 0) {
      /* changed on the source side only: take it (into still has the base version) */
      plan_take(p, theirs[j].table, theirs[j].a, theirs[j].b);
      j++;
    } else {
      const tree_diff_item *o = &ours[i++], *t = &theirs[j++];
      if (catalog_same_version(o->b, t->b)) continue; /* same result on both sides */
      /* Before any strategy: a combination keeps both sides' work, so no side has to win. */
      char *why = NULL;
      /* A namespace's content is its properties: different ones are a plain conflict. */
      if (req->combine && o->a && o->b && t->b && !catalog_key_is_namespace(o->table)) {
        wr_table_change c = {0};
        bool combined = false;
        if ((rc = req->combine(o->table, o->a, o->b, t->b, req->combine_ctx, &c, &combined, &why, err))) {
          free(why);
          break;
        }
        if (combined) {
          wr_table_change *v = wr_realloc(p->changes, (p->n_changes + 1) * sizeof *p->changes);
          if (!v) {
            free((char *)c.table);
            free((char *)c.metadata_location);
            rc = wr_oom(err);
            break;
          }
          p->changes = v;
          p->changes[p->n_changes++] = c;
          if (json_array_append_new(p->tables, json_pack("{s:s,s:s}", "table", o->table, "change", "merged: appends")))
            p->oom = 1;
          continue;
        }
      }
      if (req->strategy != WEIR_MERGE_FAIL_ON_CONFLICT) {
        free(why);
        why = NULL;
      }
      if (req->strategy == WEIR_MERGE_TARGET_WINS) {
        /* into keeps its version: nothing to apply, but say so. */
        if (json_array_append_new(p->tables, json_pack("{s:s,s:s}", "table", o->table, "change",
                                                       "conflict: target wins")))
          p->oom = 1;
        continue;
      }
      if (req->strategy == WEIR_MERGE_SOURCE_WINS) {
        plan_take(p, t->table, o->b, t->b);
        if (!p->oom && json_object_set_new(json_array_get(p->tables, json_array_size(p->tables) - 1), "change",
                                           json_string("conflict: source wins")))
          p->oom = 1;
        continue;
      }
      if (json_array_append_new(
          conflicts,
          json_pack("{s:s,s:o,s:s,s:s,s:o,s:o,s:o}", "table", o->table, "base",
                    found ? json_string(p->base) : json_null(), "ours", side_change(o->a, o->b),
                    "theirs", side_change(t->a, t->b), "base_metadata", loc_or_null(o->a),
                    "ours_metadata", loc_or_null(o->b), "theirs_metadata", loc_or_null(t->b))))
        rc = wr_oom(err);
      if (!rc && !why && catalog_key_is_namespace(o->table))
        why = wr_asprintf("namespace %s has different properties on each side", o->table);
      if (!rc && why && json_object_set_new(json_array_get(conflicts, json_array_size(conflicts) - 1), "reason",
                                            json_string(why)))
        rc = wr_oom(err);
      free(why);
    }
  }
  if (!rc && p->oom) rc = wr_oom(err);
  if (!rc) rc = case_twins(cat, hi->tables_root, theirs, nt, found ? p->base : NULL, conflicts, err);
  if (!rc && json_array_size(conflicts) > 0) rc = conflict_error(req, conflicts, err);
  if (!rc) rc = check_partial(cat, req, theirs, nt, err);
  json_decref(conflicts);
  tree_diff_free(ours, no);
  tree_diff_free(theirs, nt);
  return rc;
}

static int plan_merge(wr_catalog *cat, const wr_merge_request *req, merge_plan *p,
                      weir_error *err) {
  p->tables = json_array();
  if (!p->tables) return wr_oom(err);
  int rc = catalog_resolve(cat, req->source, p->source_head, err);
  if (rc) return rc;
  rc = cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, req->into, p->into_head, err);
  if (rc == WEIR_ENOTFOUND)
    return wr_seterr(err, rc, "cannot merge into '%s': no such branch", req->into);
  if (rc) return rc;
  bool up_to_date = false, ff = false;
  rc = catalog_is_ancestor(cat, p->source_head, p->into_head, &up_to_date, err);
  if (rc) return rc;
  /* Against a given base, a source already reachable from into is still merged three-way:
   * into may have changed its tables since it took them. */
  if (up_to_date && !req->base) {
    p->result = "up-to-date";
    memcpy(p->base, p->source_head, sizeof p->base);
    return WEIR_OK;
  }
  commit_head hi, hs;
  rc = catalog_head_get(cat, p->into_head, &hi, err);
  if (!rc) rc = catalog_head_get(cat, p->source_head, &hs, err);
  if (!rc) rc = catalog_is_ancestor(cat, p->into_head, p->source_head, &ff, err);
  if (rc) return rc;
  if (!ff) {
    p->result = "merge";
    rc = plan_three_way(cat, req, p, &hi, &hs, err);
    /* Everything the source did since the given base is already on into. */
    if (!rc && req->base && p->n_changes == 0) {
      p->result = "up-to-date";
      memcpy(p->base, req->base, sizeof p->base);
    }
    return rc;
  }
  /* into's head is an ancestor of the source: everything that differs comes from it. */
  p->fast_forward = true;
  p->result = req->no_ff ? "merge" : "fast-forward";
  memcpy(p->base, p->into_head, sizeof p->base);
  tree_diff_item *items = NULL;
  size_t n = 0;
  rc = tree_diff(cat, hi.tables_root, hs.tables_root, &items, &n, err);
  for (size_t i = 0; i < n && !rc; i++) plan_take(p, items[i].table, items[i].a, items[i].b);
  if (!rc && p->oom) rc = wr_oom(err);
  if (!rc) rc = check_partial(cat, req, items, n, err);
  tree_diff_free(items, n);
  return rc;
}

/* ---- merging ------------------------------------------------------------------------ */

/* The caller reviewed `into` at expected_head, which is no longer its head: the merge may
 * still land if nothing it changes on `into` changed since (a merge into a branch that
 * moved elsewhere is what merging after that move would have done). Checked under the
 * plan's read snapshot; the commit's compare-and-swap then requires the same head. */
static int check_expected(wr_catalog *cat, const wr_merge_request *req, const merge_plan *p, weir_error *err) {
  int rc = catalog_base_check(cat, req->into, req->expected_head, p->into_head, err);
  if (rc) return rc;
  catalog_serial_report r;
  catalog_serial_init(&r, req->into, req->expected_head, p->into_head);
  for (size_t i = 0; i < p->n_changes && !rc; i++)
    rc = catalog_serial_check_table(cat, &r, p->changes[i].table, false, "this merge would overwrite it unseen", err);
  if (!rc) {
    char *what = wr_asprintf("merging %s into %s", req->source, req->into);
    rc = what ? catalog_serial_error(&r, what, "review the new head and merge again", err) : wr_oom(err);
    free(what);
  }
  catalog_serial_clear(&r);
  return rc;
}

/* One attempt. *retry is set when the attempt lost a race with another writer of the
 * branch (as opposed to, say, timing out on the database lock). */
static int merge_once(wr_catalog *cat, const wr_merge_request *req, json_t **out,
                      bool *retry, weir_error *err) {
  *retry = false;
  merge_plan p = {0};
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  rc = plan_merge(cat, req, &p, err);
  if (!rc && req->expected_head && strcmp(req->expected_head, p.into_head) != 0) rc = check_expected(cat, req, &p, err);
  rc = catalog_read_end(cat, opened, rc, err);
  char commit[WEIR_HASH_LEN + 1] = "";
  if (!rc) {
    if (strcmp(p.result, "up-to-date") == 0) {
      memcpy(commit, p.into_head, sizeof commit);
    } else if (p.fast_forward && !req->no_ff) {
      rc = catalog_branch_cas(cat, req->into, p.into_head, p.source_head, err);
      if (!rc) memcpy(commit, p.source_head, sizeof commit);
    } else {
      char *msg = req->message ? NULL : wr_asprintf("Merge %s into %s", req->source, req->into);
      /* Conflicts a strategy resolved are recorded in the commit (hashed properties), so
       * that `weir show` and `log` tell a resolution from an ordinary merge. */
      json_t *props = NULL;
      wr_buf resolved = WEIR_BUF_INIT;
      size_t ti;
      json_t *tv;
      json_array_foreach(p.tables, ti, tv) {
        const char *action = wr_json_str(tv, "change", "");
        if (strncmp(action, "conflict: ", 10) == 0)
          wr_buf_printf(&resolved, "%s%s", resolved.len ? "," : "", wr_json_str(tv, "table", ""));
      }
      int bad = (!req->message && !msg) || wr_buf_status(&resolved);
      if (resolved.len && !bad)
        bad = !(props = json_pack("{s:s,s:s}", "merge_strategy",
                                  req->strategy == WEIR_MERGE_SOURCE_WINS ? "source-wins" : "target-wins",
                                  "resolved_conflicts", wr_buf_cstr(&resolved)));
      /* Tables whose appends on both sides were combined, likewise: the new versions are
       * the merge's own, and `weir show` says why. */
      wr_buf appended = WEIR_BUF_INIT;
      json_array_foreach(p.tables, ti, tv) if (strcmp(wr_json_str(tv, "change", ""), "merged: appends") == 0)
          wr_buf_printf(&appended, "%s%s", appended.len ? "," : "", wr_json_str(tv, "table", ""));
      if (wr_buf_status(&appended)) bad = 1;
      if (appended.len && !bad) {
        if (!props) props = json_object();
        if (json_object_set_new(props, "merged_appends", json_string(wr_buf_cstr(&appended)))) bad = 1;
      }
      wr_buf_free(&appended);
      wr_commit_request cr = {
          .branch = req->into,
          .expected_head = p.into_head,
          .second_parent = p.source_head,
          .changes = p.changes,
          .n_changes = p.n_changes,
          .author = req->author,
          .message = req->message ? req->message : msg,
          .properties = props,
          .run_id = req->run_id,
      };
      rc = bad ? wr_oom(err) : catalog_commit(cat, &cr, commit, err);
      free(msg);
      json_decref(props);
      wr_buf_free(&resolved);
    }
  }
  if (rc == WEIR_ECONCURRENT && p.result) {
    char now[WEIR_HASH_LEN + 1];
    if (cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, req->into, now, NULL) == WEIR_OK &&
        strcmp(now, p.into_head) != 0)
      *retry = true;
  }
  if (!rc) {
    /* Namespace entries (catalog.h) are reported apart: `tables` lists tables only. */
    json_t *tables = json_array(), *namespaces = json_array();
    size_t ti;
    json_t *tv;
    json_array_foreach(p.tables, ti, tv) {
      const char *key = wr_json_str(tv, "table", "");
      if (catalog_key_is_namespace(key))
        json_array_append_new(namespaces, json_pack("{s:s,s:O}", "namespace", key, "change", json_object_get(tv, "change")));
      else
        json_array_append(tables, tv);
    }
    *out = json_pack("{s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:o}", "result", p.result, "commit", commit,
                     "base", p.base[0] ? json_string(p.base) : json_null(), "source", req->source,
                     "source_commit", p.source_head, "into", req->into, "into_commit",
                     p.into_head, "tables", tables);
    /* The merge has landed (its commit is whole); only its report could not be made. */
    if (!*out) {
      json_decref(namespaces);
      rc = wr_oom(err);
    } else if (json_array_size(namespaces)) {
      json_object_set_new(*out, "namespaces", namespaces);
    } else {
      json_decref(namespaces);
    }
  }
  plan_clear(&p);
  return rc;
}

int catalog_merge(wr_catalog *cat, const wr_merge_request *req, json_t **out,
                  weir_error *err) {
  *out = NULL;
  if (!req || !req->source || !*req->source || !req->into || !*req->into)
    return wr_seterr(err, WEIR_EINVALIDARG, "a merge needs a source ref and a target branch");
  int rc = WEIR_ECONCURRENT;
  /* Inside a caller's transaction the snapshot cannot change, so a retry would see the
   * same state: one attempt only. */
  int attempts = cat->tx_depth > 0 ? 1 : CATALOG_CAS_ATTEMPTS;
  for (int i = 0; i < attempts; i++) {
    bool retry = false;
    rc = merge_once(cat, req, out, &retry, err);
    if (rc == WEIR_OK && i > 0) weir_error_clear(err); /* the lost races are history */
    if (rc != WEIR_ECONCURRENT || !retry) return rc;
  }
  if (attempts > 1)
    wr_seterr(err, WEIR_ECONCURRENT,
                "merging %s into %s: branch %s kept moving (gave up after %d attempts); retry "
                "later",
                req->source, req->into, req->into, attempts);
  return rc;
}
