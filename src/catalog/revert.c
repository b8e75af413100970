/*
 * revert.c -- putting tables back (docs/versioning.md, "Revert" and "Aborted work must
 * not leak"). A revert is an ordinary commit; history is never rewritten.
 *
 * The tables a run published belong together: reverting one of them alone is refused
 * while the run's other tables are still at the versions the run wrote (the provenance
 * of each version is in table_versions), unless the caller allows it. revert_run puts all
 * of a run's tables back, in one commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "catalog/tree.h"
#include "util/buf.h"
#include "util/json.h"

static const char *change_of(const wr_table_entry *cur, const wr_table_entry *to) {
  if (!cur) return "added";
  if (!to) return "dropped";
  return "changed";
}

static void entry_free(wr_table_entry *e) {
  if (!e) return;
  wr_table_entry_clear(e);
  free(e);
}

/* The entry of `table` in the map at `root`, or NULL when absent. */
static int entry_at(wr_catalog *cat, const char *root, const char *table,
                    wr_table_entry **out, weir_error *err) {
  *out = NULL;
  wr_table_entry *e = wr_calloc(1, sizeof *e);
  if (!e) return wr_oom(err);
  bool found = false;
  int rc = tree_get(cat, root, table, e, &found, err);
  if (rc || !found) {
    free(e);
    return rc;
  }
  *out = e;
  return WEIR_OK;
}

/* After a commit failed with WEIR_ECONCURRENT: did the branch really move (retry), or was
 * it something else, such as a lock timeout (do not)? */
static bool branch_moved(wr_catalog *cat, const char *branch, const char *head) {
  char now[WEIR_HASH_LEN + 1];
  return cat->tx_depth == 0 &&
         cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, branch, now, NULL) == WEIR_OK &&
         strcmp(now, head) != 0;
}

/* ---- one table ---------------------------------------------------------------------- */

/* Refuses when `cur` was written by a run whose other tables are still, on the branch
 * (map at `root`), at versions that run wrote. */
static int check_run_siblings(wr_catalog *cat, const char *table, const char *branch,
                              const char *root, const wr_table_entry *cur, weir_error *err) {
  catalog_table_version v;
  bool found = false;
  int rc = cat->be->ops->version_get(cat->be, cur->metadata_location, &v, &found, err);
  if (rc || !found) return rc;
  if (!v.run_id) {
    catalog_table_version_clear(&v);
    return WEIR_OK;
  }
  catalog_table_version *vs = NULL;
  size_t n = 0;
  rc = cat->be->ops->run_versions(cat->be, v.run_id, &vs, &n, err);
  json_t *others = json_array();
  if (!rc && !others) rc = wr_oom(err);
  const char *last = NULL;
  for (size_t i = 0; i < n && !rc; i++) {
    if (strcmp(vs[i].table, table) == 0) continue;
    if (last && strcmp(last, vs[i].table) == 0) continue; /* already listed */
    wr_table_entry *e = NULL;
    rc = entry_at(cat, root, vs[i].table, &e, err);
    if (!rc && e && strcmp(e->metadata_location, vs[i].metadata_location) == 0) {
      if (json_array_append_new(others, json_string(vs[i].table))) rc = wr_oom(err);
      last = vs[i].table;
    }
    entry_free(e);
  }
  if (!rc && json_array_size(others) > 0) {
    wr_buf b = WEIR_BUF_INIT;
    size_t i;
    json_t *t;
    json_array_foreach(others, i, t) wr_buf_printf(&b, "%s%s", i ? ", " : "", json_string_value(t));
    rc = wr_buf_status(&b) ? wr_oom(err) : wr_seterr(err, WEIR_EPARTIAL,
                     "table %s on branch %s was written by run %s together with %s, which %s "
                     "still at that run's versions: revert them together with `weir revert "
                     "--run %s --branch %s`, or pass --allow-partial to revert %s alone",
                     table, branch, v.run_id, wr_buf_cstr(&b),
                     json_array_size(others) == 1 ? "is" : "are", v.run_id, branch, table);
    json_t *d = rc == WEIR_EPARTIAL ? json_pack("[{s:s,s:s,s:O}]", "run_id", v.run_id, "table", table,
                                                "tables", others) : NULL;
    if (d) wr_error_set_details(err, d);
    else rc = wr_oom(err);
    wr_buf_free(&b);
  }
  json_decref(others);
  catalog_table_versions_free(vs, n);
  catalog_table_version_clear(&v);
  return rc;
}

/* Refuses when the version `target` was written by a run that did not succeed: reverting
 * to it would publish that run's work table by table, which a merge of its branch refuses
 * (the aborted-work rule of docs/catalog.md). And when it was written by a run that did
 * succeed but whose other tables are, on the branch (map at `root`), no longer at that
 * run's versions: the revert would put one table of the run back alone (the mirror of
 * check_run_siblings, found by the model: model/README.md, finding 2). */
static int check_target_run(wr_catalog *cat, const char *table, const char *to_ref, const char *branch,
                            const char *root, const wr_table_entry *target, weir_error *err) {
  catalog_table_version v;
  bool found = false;
  int rc = cat->be->ops->version_get(cat->be, target->metadata_location, &v, &found, err);
  if (rc || !found || !v.run_id) {
    if (found) catalog_table_version_clear(&v);
    return rc;
  }
  catalog_run_row row;
  weir_error gerr = {0};
  const char *status = "no run record";
  bool failed = true;
  int grc = cat->be->ops->run_get(cat->be, v.run_id, &row, &gerr);
  if (grc == WEIR_OK) {
    failed = row.status != WEIR_RUN_SUCCEEDED;
    status = wr_run_status_name(row.status);
  } else if (grc != WEIR_ENOTFOUND) {
    wr_error_move(err, &gerr);
    rc = grc;
    failed = false;
  }
  if (!rc && failed) {
    rc = wr_seterr(err, WEIR_EPARTIAL,
                   "table %s at %s was written by run %s (%s): reverting to it would publish "
                   "the work of a run that did not succeed; pass --allow-partial to revert anyway",
                   table, to_ref && *to_ref ? to_ref : "main", v.run_id, status);
    json_t *d = rc == WEIR_EPARTIAL ? json_pack("[{s:s,s:s,s:[s]}]", "run_id", v.run_id, "status", status,
                                                "tables", table) : NULL;
    if (d) wr_error_set_details(err, d);
    else rc = wr_oom(err);
  }
  if (!rc && !failed) {
    catalog_table_version *vs = NULL;
    size_t n = 0, j;
    json_t *moved = json_array(), *x;
    rc = moved ? cat->be->ops->run_versions(cat->be, v.run_id, &vs, &n, err) : wr_oom(err);
    /* vs is ordered by table: each other table of the run is "at the run's version" when
     * its version on the branch is one the run wrote for it. */
    for (size_t i = 0; i < n && !rc;) {
      size_t k = i;
      while (k < n && strcmp(vs[k].table, vs[i].table) == 0) k++;
      if (strcmp(vs[i].table, table) != 0) {
        wr_table_entry *e = NULL;
        rc = entry_at(cat, root, vs[i].table, &e, err);
        bool at_run = false;
        for (size_t q = i; q < k && e && !at_run; q++) at_run = strcmp(e->metadata_location, vs[q].metadata_location) == 0;
        if (!rc && !at_run && json_array_append_new(moved, json_string(vs[i].table))) rc = wr_oom(err);
        entry_free(e);
      }
      i = k;
    }
    if (!rc && json_array_size(moved) > 0) {
      wr_buf b = WEIR_BUF_INIT;
      json_array_foreach(moved, j, x) wr_buf_printf(&b, "%s%s", j ? ", " : "", json_string_value(x));
      rc = wr_buf_status(&b) ? wr_oom(err) : wr_seterr(err, WEIR_EPARTIAL,
                     "table %s at %s was written by run %s together with %s, which %s no longer at that run's "
                     "versions on branch %s: reverting %s alone would put back one part of the run; pass "
                     "--allow-partial to do it anyway",
                     table, to_ref && *to_ref ? to_ref : "main", v.run_id, wr_buf_cstr(&b),
                     json_array_size(moved) == 1 ? "is" : "are", branch, table);
      json_t *d = rc == WEIR_EPARTIAL ? json_pack("[{s:s,s:s,s:O}]", "run_id", v.run_id, "table", table, "tables", moved) : NULL;
      if (d) wr_error_set_details(err, d);
      else rc = wr_oom(err);
      wr_buf_free(&b);
    }
    json_decref(moved);
    catalog_table_versions_free(vs, n);
  }
  if (grc == WEIR_OK) catalog_run_row_clear(&row);
  weir_error_clear(&gerr);
  catalog_table_version_clear(&v);
  return rc;
}

/* The branch moved past the head the caller decided at: refuse if any of `tables` changed
 * since (docs/versioning.md: a revert never removes rows it did not see). */
static int check_expected(wr_catalog *cat, const char *branch, const char *expected, const char *head,
                          char *const *tables, size_t n, weir_error *err) {
  if (!expected || strcmp(expected, head) == 0) return WEIR_OK;
  int rc = catalog_base_check(cat, branch, expected, head, err);
  if (rc) return rc;
  catalog_serial_report r;
  catalog_serial_init(&r, branch, expected, head);
  for (size_t i = 0; i < n && !rc; i++)
    rc = catalog_serial_check_table(cat, &r, tables[i], false, "this revert would overwrite it unseen", err);
  if (!rc) rc = catalog_serial_error(&r, "revert", "look at the new head and revert again", err);
  catalog_serial_clear(&r);
  return rc;
}

static const catalog_revert_opts NO_OPTS = {0};

static int revert_table_once(wr_catalog *cat, const char *table, const char *to_ref, const char *branch,
                             const catalog_revert_opts *o, json_t **out, bool *retry, weir_error *err) {
  const char *message = o->message;
  bool allow_partial = o->allow_partial;
  *retry = false;
  char head[WEIR_HASH_LEN + 1], to[WEIR_HASH_LEN + 1];
  wr_table_entry *cur = NULL, *target = NULL;
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  rc = cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, branch, head, err);
  if (rc == WEIR_ENOTFOUND)
    wr_seterr(err, rc, "cannot revert %s on '%s': no such branch", table, branch);
  if (!rc) rc = catalog_resolve(cat, to_ref, to, err);
  if (!rc) {
    char *one[] = {(char *)table};
    rc = check_expected(cat, branch, o->expected_head, head, one, 1, err);
  }
  commit_head hh, ht;
  if (!rc) rc = catalog_head_get(cat, head, &hh, err);
  if (!rc) rc = catalog_head_get(cat, to, &ht, err);
  if (!rc) rc = entry_at(cat, hh.tables_root, table, &cur, err);
  if (!rc) rc = entry_at(cat, ht.tables_root, table, &target, err);
  bool unchanged = !rc && catalog_same_version(cur, target);
  if (!rc && !unchanged && cur && !allow_partial)
    rc = check_run_siblings(cat, table, branch, hh.tables_root, cur, err);
  if (!rc && !unchanged && target && !allow_partial)
    rc = check_target_run(cat, table, to_ref, branch, hh.tables_root, target, err);
  if (!rc && !unchanged && o->check) rc = o->check(table, cur, target, o->check_ctx, err);
  /* The table's quarantine (<table>__quarantine) follows it back to its version at `to`,
   * in the same commit: it holds the rows rejected by the writes the table's data came
   * from, so a table reverted without it would keep rejections of rows no longer there. */
  char *qtable = wr_asprintf("%s__quarantine", table);
  wr_table_entry *qcur = NULL, *qtarget = NULL;
  if (!rc && !unchanged) rc = entry_at(cat, hh.tables_root, qtable, &qcur, err);
  if (!rc && !unchanged) rc = entry_at(cat, ht.tables_root, qtable, &qtarget, err);
  bool move_q = !rc && !unchanged && !catalog_same_version(qcur, qtarget);
  rc = catalog_read_end(cat, opened, rc, err);

  char commit[WEIR_HASH_LEN + 1];
  memcpy(commit, head, sizeof commit);
  const char *action = "unchanged";
  if (!rc && !unchanged) {
    action = change_of(cur, target);
    char s[13];
    char *msg = message ? NULL
                : target ? wr_asprintf("Revert %s to %s", table, catalog_short(to, s))
                         : wr_asprintf("Drop %s (absent at %s)", table, catalog_short(to, s));
    wr_table_change c[2] = {{table, target ? target->metadata_location : NULL,
                             target ? target->snapshot_id : -1, target ? target->record_count : 0},
                            {qtable, qtarget ? qtarget->metadata_location : NULL,
                             qtarget ? qtarget->snapshot_id : -1, qtarget ? qtarget->record_count : 0}};
    json_t *props = json_pack("{s:s,s:s}", "reverted_table", table, "reverted_to", to);
    int bad = !props || (!message && !msg);
    wr_commit_request req = {.branch = branch,
                               .expected_head = head,
                               .changes = c,
                               .n_changes = move_q ? 2 : 1,
                               .message = message ? message : msg,
                               .properties = props,
                               .copies_from = to};
    rc = bad ? wr_oom(err) : catalog_commit(cat, &req, commit, err);
    if (rc == WEIR_ECONCURRENT) *retry = branch_moved(cat, branch, head);
    json_decref(props);
    free(msg);
  }
  if (!rc) {
    *out = json_pack("{s:s,s:s,s:s,s:s,s:s}", "commit", commit, "table", table, "change", action,
                     "to", to, "branch", branch);
    if (!*out) rc = wr_oom(err); /* the revert stands (its commit is whole); its report could not be made */
  }
  entry_free(cur);
  entry_free(target);
  entry_free(qcur);
  entry_free(qtarget);
  free(qtable);
  return rc;
}

int catalog_revert_table(wr_catalog *cat, const char *table, const char *to_ref, const char *branch,
                         const catalog_revert_opts *o, json_t **out, weir_error *err) {
  if (!o) o = &NO_OPTS;
  *out = NULL;
  if (!table || !*table || !to_ref || !*to_ref || !branch || !*branch)
    return wr_seterr(err, WEIR_EINVALIDARG, "revert needs a table, a ref to revert to and a branch");
  int rc = WEIR_ECONCURRENT;
  for (int i = 0; i < CATALOG_CAS_ATTEMPTS; i++) {
    bool retry = false;
    rc = revert_table_once(cat, table, to_ref, branch, o, out, &retry, err);
    if (rc == WEIR_OK && i > 0) weir_error_clear(err);
    if (rc != WEIR_ECONCURRENT || !retry) return rc;
  }
  return wr_seterr(err, WEIR_ECONCURRENT,
                     "reverting %s on %s: the branch kept moving (gave up after %d attempts)",
                     table, branch, CATALOG_CAS_ATTEMPTS);
}

/* ---- a whole run -------------------------------------------------------------------- */

static int revert_run_once(wr_catalog *cat, const catalog_run_row *run, char **tables, size_t n_tables,
                           const char *branch, const catalog_revert_opts *o, json_t **out, bool *retry,
                           weir_error *err) {
  const char *message = o->message;
  *retry = false;
  char head[WEIR_HASH_LEN + 1];
  wr_table_change *changes = wr_calloc(n_tables ? n_tables : 1, sizeof *changes);
  wr_table_entry **keep = wr_calloc(n_tables ? n_tables : 1, sizeof *keep);
  size_t n = 0;
  json_t *list = json_array();
  bool opened = false;
  int rc = changes && keep && list ? catalog_read_begin(cat, &opened, err) : wr_oom(err);
  if (rc) {
    free(changes);
    free(keep);
    json_decref(list);
    return rc;
  }
  rc = cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, branch, head, err);
  if (rc == WEIR_ENOTFOUND)
    wr_seterr(err, rc, "cannot revert run %s on '%s': no such branch", run->run_id, branch);
  if (!rc) rc = check_expected(cat, branch, o->expected_head, head, tables, n_tables, err);
  commit_head hh, hb;
  if (!rc) rc = catalog_head_get(cat, head, &hh, err);
  if (!rc) rc = catalog_head_get(cat, run->base_commit, &hb, err);
  /* Only what the run put on the branch is taken back: a table is reverted when it is at
   * a version the run wrote, left alone when it is already as before the run, and a
   * conflict otherwise -- another write changed it since (or the run never published it),
   * and putting the run's base version back would discard that write unseen. */
  catalog_serial_report later;
  const char *since = run->result_commit ? run->result_commit : run->base_commit;
  catalog_serial_init(&later, branch, since, head);
  for (size_t i = 0; i < n_tables && !rc; i++) {
    wr_table_entry *cur = NULL, *before = NULL;
    rc = entry_at(cat, hh.tables_root, tables[i], &cur, err);
    if (!rc) rc = entry_at(cat, hb.tables_root, tables[i], &before, err);
    bool the_runs = false;
    if (!rc && cur && !catalog_same_version(cur, before)) {
      catalog_table_version v;
      bool found = false;
      rc = cat->be->ops->version_get(cat->be, cur->metadata_location, &v, &found, err);
      if (!rc && found) {
        the_runs = v.run_id && strcmp(v.run_id, run->run_id) == 0;
        catalog_table_version_clear(&v);
      }
    }
    if (!rc && !catalog_same_version(cur, before) && !the_runs) {
      if (!o->allow_partial)
        catalog_serial_add(cat, &later, tables[i], false, cur ? "changed" : "was dropped",
                           run->result_commit ? "putting it back as before the run would discard that change"
                                              : "the run never published it, so there is nothing of the run to take back");
      entry_free(cur);
      entry_free(before);
      continue;
    }
    if (!rc && !catalog_same_version(cur, before) && o->check) rc = o->check(tables[i], cur, before, o->check_ctx, err);
    if (!rc && !catalog_same_version(cur, before)) {
      if (json_array_append_new(list, json_pack("{s:s,s:s}", "table", tables[i], "change",
                                                change_of(cur, before))))
        rc = wr_oom(err);
      changes[n] = (wr_table_change){tables[i], before ? before->metadata_location : NULL,
                                       before ? before->snapshot_id : -1,
                                       before ? before->record_count : 0};
      keep[n++] = before; /* owns the strings `changes` points to */
      before = NULL;
    }
    entry_free(cur);
    entry_free(before);
  }
  if (!rc) {
    char *what = wr_asprintf("reverting run %s", run->run_id);
    rc = !what ? wr_oom(err) : catalog_serial_error(&later, what,
                              "revert those tables one by one (weir revert TABLE --to REF), or pass --allow-partial "
                              "to revert only what is still the run's",
                              err);
    free(what);
  }
  catalog_serial_clear(&later);
  rc = catalog_read_end(cat, opened, rc, err);
  char commit[WEIR_HASH_LEN + 1];
  memcpy(commit, head, sizeof commit);
  if (!rc && n > 0) {
    char *msg = message ? NULL : wr_asprintf("Revert run %s", run->run_id);
    json_t *props = json_pack("{s:s}", "reverted_run", run->run_id);
    int bad = !props || (!message && !msg);
    wr_commit_request req = {.branch = branch,
                               .expected_head = head,
                               .changes = changes,
                               .n_changes = n,
                               .message = message ? message : msg,
                               .properties = props,
                               .copies_from = run->base_commit};
    rc = bad ? wr_oom(err) : catalog_commit(cat, &req, commit, err);
    if (rc == WEIR_ECONCURRENT) *retry = branch_moved(cat, branch, head);
    json_decref(props);
    free(msg);
  }
  if (!rc) {
    *out = json_pack("{s:s,s:s,s:s,s:s,s:O}", "commit", commit, "run_id", run->run_id, "branch",
                     branch, "base_commit", run->base_commit, "tables", list);
    if (!*out) rc = wr_oom(err); /* the revert stands; its report could not be made */
  }
  for (size_t i = 0; i < n; i++) entry_free(keep[i]);
  free(keep);
  free(changes);
  json_decref(list);
  return rc;
}

int catalog_revert_run(wr_catalog *cat, const char *run_id, const char *branch, const catalog_revert_opts *o,
                       json_t **out, weir_error *err) {
  if (!o) o = &NO_OPTS;
  *out = NULL;
  if (!run_id || !*run_id) return wr_seterr(err, WEIR_EINVALIDARG, "revert --run needs a run id");
  catalog_run_row run;
  int rc = cat->be->ops->run_get(cat->be, run_id, &run, err);
  if (rc) return rc;
  const char *br = branch && *branch ? branch : run.branch;
  if (!run.base_commit || !br) {
    rc = wr_seterr(err, WEIR_EINVALIDARG,
                     "run %s has no %s recorded: give the branch to revert it on", run_id,
                     run.base_commit ? "target branch" : "base commit");
    catalog_run_row_clear(&run);
    return rc;
  }
  char **tables = NULL;
  size_t n = 0;
  rc = cat->be->ops->run_tables(cat->be, run_id, &tables, &n, err);
  for (int i = 0; !rc; i++) {
    if (i == CATALOG_CAS_ATTEMPTS) {
      rc = wr_seterr(err, WEIR_ECONCURRENT,
                       "reverting run %s on %s: the branch kept moving (gave up after %d "
                       "attempts)",
                       run_id, br, CATALOG_CAS_ATTEMPTS);
      break;
    }
    bool retry = false;
    rc = revert_run_once(cat, &run, tables, n, br, o, out, &retry, err);
    if (rc == WEIR_OK && i > 0) weir_error_clear(err);
    if (rc == WEIR_ECONCURRENT && retry) rc = WEIR_OK;
    else break;
  }
  catalog_strv_free(tables, n);
  catalog_run_row_clear(&run);
  return rc;
}
