/* Merges: fast-forward, up to date, no-ff, three-way, every conflict kind, and the
 * aborted-work rule. */
#include "catalog/catalog_internal.h"
#include "fixtures.h"

static int merge(fx *f, const char *source, const char *into, bool no_ff, bool allow_partial,
                 const char *run_id, json_t **out, weir_error *err) {
  wr_merge_request req = {.source = source, .into = into, .no_ff = no_ff,
                            .allow_partial = allow_partial, .run_id = run_id};
  json_t *o = NULL;
  int rc = catalog_merge(f->cat, &req, &o, err);
  if (out) *out = o;
  else json_decref(o);
  return rc;
}

TEST(fast_forward) {
  fx f = fx_new();
  fx_branch(&f, "dev", "main");
  fx_set(&f, "dev", "default.a", "/w/a1", NULL);
  fx_set(&f, "dev", "default.b", "/w/b1", NULL);
  char dev[65];
  snprintf(dev, 65, "%s", fx_head(&f, "dev"));
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_OK(merge(&f, "dev", "main", false, false, NULL, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "fast-forward");
  CHECK_STR(wr_json_str(o, "commit", ""), dev);
  CHECK_STR(fx_head(&f, "main"), dev);
  CHECK_INT(json_array_size(json_object_get(o, "tables")), 2);
  CHECK_STR(wr_json_str(json_array_get(json_object_get(o, "tables"), 0), "change", ""), "added");
  CHECK_INT(fx_count(&f, "main"), 3);
  json_decref(o);
  fx_free(&f);
}

TEST(up_to_date) {
  fx f = fx_new();
  fx_branch(&f, "dev", "main");
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  char h[65];
  snprintf(h, 65, "%s", fx_head(&f, "main"));
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_OK(merge(&f, "dev", "main", false, false, NULL, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "up-to-date");
  CHECK_STR(fx_head(&f, "main"), h);
  json_decref(o);
  CHECK_OK(merge(&f, "main", "main", true, false, NULL, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "up-to-date");
  json_decref(o);
  CHECK_INT(fx_count(&f, "main"), 2);
  fx_free(&f);
}

TEST(no_ff_makes_a_merge_commit_with_the_source_map) {
  fx f = fx_new();
  fx_set(&f, "main", "default.keep", "/w/k1", NULL);
  fx_branch(&f, "dev", "main");
  fx_set(&f, "dev", "default.a", "/w/a1", NULL);
  fx_set(&f, "dev", "default.keep", NULL, NULL);
  char m0[65], dev[65];
  snprintf(m0, 65, "%s", fx_head(&f, "main"));
  snprintf(dev, 65, "%s", fx_head(&f, "dev"));
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_OK(merge(&f, "dev", "main", true, false, NULL, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "merge");
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f.cat, fx_head(&f, "main"), &c, &err), &err);
  CHECK_INT(c.n_parents, 2);
  CHECK_STR(c.parents[0], m0);
  CHECK_STR(c.parents[1], dev);
  CHECK_STR(c.message, "Merge dev into main");
  wr_commit_rec d;
  CHECK_OK(catalog_commit_get(f.cat, dev, &d, &err), &err);
  CHECK_STR(c.tables_root, d.tables_root);
  wr_commit_rec_clear(&c);
  wr_commit_rec_clear(&d);
  json_decref(o);
  fx_free(&f);
}

TEST(three_way_without_conflict) {
  fx f = fx_new();
  fx_set(&f, "main", "default.shared", "/w/s1", NULL);
  fx_set(&f, "main", "default.gone", "/w/g1", NULL);
  fx_set(&f, "main", "default.both", "/w/x1", NULL);
  fx_branch(&f, "dev", "main");
  fx_set(&f, "main", "default.a", "/w/a1", NULL);          /* added on main */
  fx_set(&f, "dev", "default.b", "/w/b1", NULL);           /* added on dev */
  fx_set(&f, "dev", "default.shared", "/w/s2", NULL);      /* changed on dev */
  fx_set(&f, "dev", "default.gone", NULL, NULL);           /* dropped on dev */
  fx_set(&f, "main", "default.both", "/w/x2", NULL);       /* same version on both sides */
  fx_set(&f, "dev", "default.both", "/w/x2", NULL);
  char m0[65], dev[65];
  snprintf(m0, 65, "%s", fx_head(&f, "main"));
  snprintf(dev, 65, "%s", fx_head(&f, "dev"));
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_OK(merge(&f, "dev", "main", false, false, NULL, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "merge");
  char *tables = wr_json_canonical(json_object_get(o, "tables"));
  CHECK_STR(tables, "[{\"change\":\"added\",\"table\":\"default.b\"},{\"change\":\"dropped\",\"table\":\"default.gone\"},{\"change\":\"changed\",\"table\":\"default.shared\"}]");
  free(tables);
  CHECK(json_is_string(json_object_get(o, "base")));
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a1");
  CHECK_STR(fx_loc(&f, "main", "default.b"), "/w/b1");
  CHECK_STR(fx_loc(&f, "main", "default.shared"), "/w/s2");
  CHECK_STR(fx_loc(&f, "main", "default.both"), "/w/x2");
  CHECK(fx_loc(&f, "main", "default.gone") == NULL);
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f.cat, fx_head(&f, "main"), &c, &err), &err);
  CHECK_INT(c.n_parents, 2);
  CHECK_STR(c.parents[0], m0);
  CHECK_STR(c.parents[1], dev);
  wr_commit_rec_clear(&c);
  json_t *ch = NULL;
  CHECK_OK(catalog_commit_changes(f.cat, fx_head(&f, "main"), &ch, &err), &err);
  CHECK_INT(json_array_size(ch), 3);
  json_decref(ch);
  json_decref(o);
  /* dev is untouched */
  CHECK_STR(fx_head(&f, "dev"), dev);
  fx_free(&f);
}

TEST(conflict_both_changed_writes_nothing) {
  fx f = fx_new();
  fx_set(&f, "main", "default.titanic", "/w/t1", NULL);
  fx_branch(&f, "dev", "main");
  fx_set(&f, "main", "default.titanic", "/w/t-main", NULL);
  fx_set(&f, "dev", "default.titanic", "/w/t-dev", NULL);
  fx_set(&f, "dev", "default.other", "/w/o", NULL);
  char m0[65];
  snprintf(m0, 65, "%s", fx_head(&f, "main"));
  size_t commits = fx_count(&f, "main");
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_INT(merge(&f, "dev", "main", false, false, NULL, &o, &err), WEIR_ECONFLICT);
  CHECK(o == NULL);
  CHECK_STR(err.message, "merge conflict merging dev into main: 1 table changed on both sides: "
                         "default.titanic (main: changed, dev: changed)");
  json_t *d = json_loads(err.details ? err.details : "null", 0, NULL);
  CHECK_INT(json_array_size(d), 1);
  json_t *c0 = json_array_get(d, 0);
  CHECK_STR(wr_json_str(c0, "table", ""), "default.titanic");
  CHECK_STR(wr_json_str(c0, "ours", ""), "changed");
  CHECK_STR(wr_json_str(c0, "theirs", ""), "changed");
  CHECK_STR(wr_json_str(c0, "base_metadata", ""), "/w/t1");
  CHECK_STR(wr_json_str(c0, "ours_metadata", ""), "/w/t-main");
  CHECK_STR(wr_json_str(c0, "theirs_metadata", ""), "/w/t-dev");
  json_decref(d);
  CHECK_STR(fx_head(&f, "main"), m0);
  CHECK_INT(fx_count(&f, "main"), commits);
  CHECK(fx_loc(&f, "main", "default.other") == NULL);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(conflict_kinds_are_all_listed) {
  fx f = fx_new();
  fx_set(&f, "main", "default.cd", "/w/cd1", NULL); /* changed on main, dropped on dev */
  fx_set(&f, "main", "default.dc", "/w/dc1", NULL); /* dropped on main, changed on dev */
  fx_set(&f, "main", "default.dd", "/w/dd1", NULL); /* dropped on both: fine */
  fx_branch(&f, "dev", "main");
  fx_set(&f, "main", "default.cd", "/w/cd2", NULL);
  fx_set(&f, "dev", "default.cd", NULL, NULL);
  fx_set(&f, "main", "default.dc", NULL, NULL);
  fx_set(&f, "dev", "default.dc", "/w/dc2", NULL);
  fx_set(&f, "main", "default.dd", NULL, NULL);
  fx_set(&f, "dev", "default.dd", NULL, NULL);
  fx_set(&f, "main", "default.new", "/w/new-main", NULL); /* added on both, differently */
  fx_set(&f, "dev", "default.new", "/w/new-dev", NULL);
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_INT(merge(&f, "dev", "main", false, false, NULL, &o, &err), WEIR_ECONFLICT);
  CHECK_CONTAINS(err.message, "3 tables changed on both sides");
  CHECK_CONTAINS(err.message, "default.cd (main: changed, dev: dropped)");
  CHECK_CONTAINS(err.message, "default.dc (main: dropped, dev: changed)");
  CHECK_CONTAINS(err.message, "default.new (main: added, dev: added)");
  json_t *d = json_loads(err.details ? err.details : "null", 0, NULL);
  CHECK_INT(json_array_size(d), 3);
  json_t *n = json_array_get(d, 2);
  CHECK_STR(wr_json_str(n, "table", ""), "default.new");
  CHECK(json_is_null(json_object_get(n, "base_metadata")));
  CHECK_STR(wr_json_str(n, "theirs_metadata", ""), "/w/new-dev");
  json_t *cd = json_array_get(d, 0);
  CHECK(json_is_null(json_object_get(cd, "theirs_metadata")));
  json_decref(d);
  /* the other direction reports the sides swapped */
  CHECK_INT(merge(&f, "main", "dev", false, false, NULL, &o, &err), WEIR_ECONFLICT);
  CHECK_CONTAINS(err.message, "merging main into dev");
  CHECK_CONTAINS(err.message, "default.cd (dev: dropped, main: changed)");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(merge_errors_name_the_refs) {
  fx f = fx_new();
  weir_error err = {0};
  CHECK_INT(merge(&f, "nosuch", "main", false, false, NULL, NULL, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nosuch");
  CHECK_INT(merge(&f, "main", "nobranch", false, false, NULL, NULL, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nobranch");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(merge_from_a_tag_or_hash) {
  fx f = fx_new();
  fx_branch(&f, "dev", "main");
  fx_set(&f, "dev", "default.a", "/w/a1", NULL);
  weir_error err = {0};
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_TAG, "v1", fx_head(&f, "dev"), &err), &err);
  fx_set(&f, "main", "default.m", "/w/m", NULL);
  json_t *o = NULL;
  CHECK_OK(merge(&f, "v1", "main", false, false, NULL, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "merge");
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a1");
  json_decref(o);
  fx_free(&f);
}

/* ---- the aborted-work rule ---------------------------------------------------------- */

/* A failed run r1 that wrote default.x and default.y on run/r1, forked from main. */
static void failed_run(fx *f) {
  weir_error err = {0};
  CHECK_OK(catalog_run_create(f->cat, "r1", "proj", "digest", "main", fx_head(f, "main"),
                              "run/r1", &err), &err);
  fx_branch(f, "run/r1", "main");
  fx_set(f, "run/r1", "default.x", "/w/x-r1", "r1");
  fx_set(f, "run/r1", "default.y", "/w/y-r1", "r1");
  CHECK_OK(catalog_run_finish(f->cat, "r1", WEIR_RUN_FAILED, NULL, NULL, &err), &err);
  weir_error_clear(&err);
}

TEST(failed_run_work_is_refused_by_merge) {
  fx f = fx_new();
  failed_run(&f);
  fx_branch(&f, "explore", "run/r1"); /* someone branches from the failed run */
  fx_set(&f, "explore", "default.z", "/w/z", NULL);
  fx_set(&f, "main", "default.m", "/w/m", NULL);
  char m0[65];
  snprintf(m0, 65, "%s", fx_head(&f, "main"));
  weir_error err = {0};
  CHECK_INT(merge(&f, "explore", "main", false, false, NULL, NULL, &err), WEIR_EPARTIAL);
  CHECK_CONTAINS(err.message, "run r1 (failed)");
  CHECK_CONTAINS(err.message, "default.x, default.y");
  CHECK_CONTAINS(err.message, "--allow-partial");
  CHECK_CONTAINS(err.details, "\"run_id\":\"r1\"");
  CHECK_STR(fx_head(&f, "main"), m0);
  /* also on a fast-forward */
  fx_branch(&f, "ff", "run/r1~2"); /* the fork point: explore fast-forwards it */
  json_t *o = NULL;
  CHECK_INT(merge(&f, "explore", "ff", false, false, NULL, &o, &err), WEIR_EPARTIAL);
  CHECK_INT(merge(&f, "run/r1", "ff", true, false, NULL, &o, &err), WEIR_EPARTIAL);
  CHECK_OK(merge(&f, "run/r1", "ff", false, false, "r1", &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "fast-forward");
  json_decref(o);
  /* allowed explicitly */
  CHECK_OK(merge(&f, "explore", "main", false, true, NULL, NULL, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.x"), "/w/x-r1");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(later_successful_run_clears_the_mark) {
  fx f = fx_new();
  failed_run(&f);
  fx_branch(&f, "explore", "run/r1");
  weir_error err = {0};
  CHECK_OK(catalog_run_create(f.cat, "r2", "proj", "digest", "explore", fx_head(&f, "explore"),
                              "run/r2", &err), &err);
  fx_set(&f, "explore", "default.x", "/w/x-r2", "r2");
  CHECK_INT(merge(&f, "explore", "main", false, false, NULL, NULL, &err), WEIR_EPARTIAL);
  CHECK_CONTAINS(err.message, "default.y");
  fx_set(&f, "explore", "default.y", "/w/y-r2", "r2");
  /* r2 is still running: its work is not published either */
  CHECK_INT(merge(&f, "explore", "main", false, false, NULL, NULL, &err), WEIR_EPARTIAL);
  CHECK_CONTAINS(err.message, "run r2 (running)");
  /* ... except by r2 itself publishing it */
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  CHECK_OK(merge(&f, "explore", "main", false, false, "r2", NULL, &err), &err);
  CHECK_OK(catalog_run_finish(f.cat, "r2", WEIR_RUN_SUCCEEDED, fx_head(&f, "main"), NULL, &err), &err);
  catalog_tx_rollback(f.cat); /* not yet: check that a succeeded r2 clears the mark */
  CHECK(fx_loc(&f, "main", "default.x") == NULL);
  CHECK_OK(catalog_run_finish(f.cat, "r2", WEIR_RUN_SUCCEEDED, NULL, NULL, &err), &err);
  CHECK_OK(merge(&f, "explore", "main", false, false, NULL, NULL, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.x"), "/w/x-r2");
  CHECK_STR(fx_loc(&f, "main", "default.y"), "/w/y-r2");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(run_publishing_its_own_branch_is_exempt_and_atomic) {
  fx f = fx_new();
  weir_error err = {0};
  CHECK_OK(catalog_run_create(f.cat, "r3", "proj", "d", "main", fx_head(&f, "main"), "run/r3", &err), &err);
  fx_branch(&f, "run/r3", "main");
  fx_set(&f, "run/r3", "default.a", "/w/a-r3", "r3");
  fx_set(&f, "main", "default.m", "/w/m", NULL);
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  json_t *o = NULL;
  CHECK_OK(merge(&f, "run/r3", "main", false, false, "r3", &o, &err), &err);
  CHECK_OK(catalog_run_finish(f.cat, "r3", WEIR_RUN_SUCCEEDED, wr_json_str(o, "commit", ""), NULL, &err), &err);
  CHECK_OK(catalog_tx_commit(f.cat, &err), &err);
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f.cat, fx_head(&f, "main"), &c, &err), &err);
  CHECK_STR(c.run_id, "r3");
  wr_commit_rec_clear(&c);
  wr_run_status st;
  CHECK_OK(catalog_run_status(f.cat, "r3", &st, &err), &err);
  CHECK_INT(st, WEIR_RUN_SUCCEEDED);
  json_decref(o);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(commits_of_unknown_runs_are_refused) {
  fx f = fx_new();
  fx_branch(&f, "dev", "main");
  fx_set(&f, "dev", "default.a", "/w/a", "ghost-run");
  weir_error err = {0};
  CHECK_INT(merge(&f, "dev", "main", false, false, NULL, NULL, &err), WEIR_EPARTIAL);
  CHECK_CONTAINS(err.message, "ghost-run (no run record)");
  weir_error_clear(&err);
  fx_free(&f);
}

/* ---- losing the race to another writer ---------------------------------------------- */

/* The handle under test gets a copy of its backend's vtable whose write-transaction begin
 * first lets another handle commit to main, `race_left` times: exactly the window
 * between planning a merge and writing it. */
static catalog_backend_ops race_ops;
static const catalog_backend_ops *real_ops;
static wr_catalog *race_other;
static int race_left, race_n;

static int racing_begin(catalog_backend *be, bool write, weir_error *err) {
  if (write && race_left > 0) {
    race_left--;
    char head[65], out[65], name[32];
    weir_error e = {0};
    snprintf(name, sizeof name, "default.race%d", race_n++);
    wr_table_change c = {name, name, 1, 1};
    if (catalog_ref_get(race_other, WEIR_REF_BRANCH, "main", head, &e) == WEIR_OK) {
      wr_commit_request req = {.branch = "main", .expected_head = head, .changes = &c,
                                 .n_changes = 1, .message = "racer"};
      catalog_commit(race_other, &req, out, &e);
    }
    weir_error_clear(&e);
  }
  return real_ops->begin(be, write, err);
}

static void race_setup(fx *f, int moves) {
  weir_error err = {0};
  CHECK_OK(catalog_open(f->path, false, "racer", &race_other, &err), &err);
  real_ops = f->cat->be->ops;
  race_ops = *real_ops;
  race_ops.begin = racing_begin;
  f->cat->be->ops = &race_ops;
  race_left = moves;
  race_n = 0;
}

static void race_teardown(fx *f) {
  f->cat->be->ops = real_ops;
  catalog_close(race_other);
  race_other = NULL;
}

TEST(merge_retries_when_the_target_moves) {
  fx f = fx_new();
  fx_branch(&f, "dev", "main");
  fx_set(&f, "dev", "default.a", "/w/a", NULL);
  race_setup(&f, 3);
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_OK(merge(&f, "dev", "main", false, false, NULL, &o, &err), &err);
  CHECK(err.message == NULL); /* the lost races leave no message behind */
  race_teardown(&f);
  CHECK_INT(race_left, 0);
  /* it was a fast-forward when planned first, a three-way merge in the end */
  CHECK_STR(wr_json_str(o, "result", ""), "merge");
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a");
  CHECK_STR(fx_loc(&f, "main", "default.race2"), "default.race2"); /* nothing lost */
  json_decref(o);
  fx_free(&f);
}

TEST(merge_gives_up_when_the_target_keeps_moving) {
  fx f = fx_new();
  fx_branch(&f, "dev", "main");
  fx_set(&f, "dev", "default.a", "/w/a", NULL);
  fx_set(&f, "main", "default.m", "/w/m", NULL);
  race_setup(&f, 1000);
  weir_error err = {0};
  CHECK_INT(merge(&f, "dev", "main", false, false, NULL, NULL, &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "kept moving");
  CHECK_INT(race_n, 10);
  race_teardown(&f);
  CHECK(fx_loc(&f, "main", "default.a") == NULL);
  /* revert retries the same way */
  char before_m[65];
  CHECK_OK(catalog_resolve(f.cat, "dev~1", before_m, &err), &err); /* has no default.m */
  race_setup(&f, 2);
  json_t *o = NULL;
  CHECK_OK(catalog_revert_table(f.cat, "default.m", before_m, "main", NULL, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "change", ""), "dropped");
  race_teardown(&f);
  CHECK(fx_loc(&f, "main", "default.m") == NULL);
  CHECK_STR(fx_loc(&f, "main", "default.race1"), "default.race1");
  CHECK_INT(race_n, 2);
  json_decref(o);
  weir_error_clear(&err);
  fx_free(&f);
}

/* Namespace entries (catalog.h: a key without a dot, properties as content) merge per key:
 * the same content on both sides is no conflict, different content a conflict naming the
 * namespace, and neither reaches table readers (catalog_tables, catalog_diff). */
static int count_diff(const char *table, const wr_table_entry *a, const wr_table_entry *b, void *ctx) {
  (void)table, (void)a, (void)b;
  (*(int *)ctx)++;
  return 0;
}

TEST(namespace_entries_merge_per_key_and_are_no_tables) {
  fx f = fx_new();
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  fx_branch(&f, "x", "main");
  fx_branch(&f, "y", "main");
  fx_branch(&f, "z", "main");
  fx_set(&f, "x", "raw", CATALOG_NAMESPACE_PREFIX "{}", NULL);
  fx_set(&f, "y", "raw", CATALOG_NAMESPACE_PREFIX "{}", NULL);
  fx_set(&f, "z", "raw", CATALOG_NAMESPACE_PREFIX "{\"owner\":\"z\"}", NULL);
  CHECK(catalog_key_is_namespace("raw"));
  CHECK(!catalog_key_is_namespace("default.a"));
  weir_error err = {0};
  char hx[65];
  CHECK_OK(catalog_resolve(f.cat, "x", hx, &err), &err);
  wr_table_entry *v = NULL;
  size_t n = 0;
  CHECK_OK(catalog_tables(f.cat, hx, &v, &n, &err), &err);
  CHECK_INT(n, 1);
  CHECK_STR(v[0].table, "default.a");
  wr_table_entries_free(v, n);
  CHECK_OK(catalog_namespace_entries(f.cat, hx, &v, &n, &err), &err);
  CHECK_INT(n, 1);
  CHECK_STR(v[0].table, "raw");
  wr_table_entries_free(v, n);
  char hm[65];
  CHECK_OK(catalog_resolve(f.cat, "main", hm, &err), &err);
  int diffs = 0;
  CHECK_OK(catalog_diff(f.cat, hm, hx, count_diff, &diffs, &err), &err);
  CHECK_INT(diffs, 0);
  /* the change is recorded (for log), no provenance is */
  json_t *ch = NULL;
  CHECK_OK(catalog_commit_changes(f.cat, hx, &ch, &err), &err);
  CHECK_INT(json_array_size(ch), 1);
  CHECK_STR(wr_json_str(json_array_get(ch, 0), "table", ""), "raw");
  json_decref(ch);
  char origin[65];
  CHECK_OK(catalog_version_origin(f.cat, CATALOG_NAMESPACE_PREFIX "{}", origin, &err), &err);
  CHECK_STR(origin, "");
  json_t *o = NULL;
  CHECK_OK(merge(&f, "x", "main", false, false, NULL, &o, &err), &err);
  CHECK_INT(json_array_size(json_object_get(o, "tables")), 0);
  CHECK_STR(wr_json_str(json_array_get(json_object_get(o, "namespaces"), 0), "namespace", ""), "raw");
  json_decref(o);
  CHECK_OK(merge(&f, "y", "main", false, false, NULL, &o, &err), &err); /* same content */
  CHECK_STR(wr_json_str(o, "result", ""), "merge");
  json_decref(o);
  CHECK_INT(merge(&f, "z", "main", false, false, NULL, &o, &err), WEIR_ECONFLICT);
  CHECK(strstr(err.message, "namespace raw (main: added, z: added)") != NULL);
  CHECK(strstr(err.message, "namespace raw has different properties on each side") != NULL);
  weir_error_clear(&err);
  CHECK_STR(fx_loc(&f, "main", "raw"), CATALOG_NAMESPACE_PREFIX "{}");
  /* a merge reviewed at an older head is refused when a namespace it changes changed
   * since, and the message says it is a namespace */
  char reviewed[65];
  snprintf(reviewed, 65, "%s", fx_head(&f, "main"));
  fx_set(&f, "main", "crm", CATALOG_NAMESPACE_PREFIX "{\"owner\":\"m\"}", NULL);
  fx_branch(&f, "w", "main");
  fx_set(&f, "w", "crm", CATALOG_NAMESPACE_PREFIX "{}", NULL);
  wr_merge_request req = {.source = "w", .into = "main", .expected_head = reviewed};
  CHECK_INT(catalog_merge(f.cat, &req, &o, &err), WEIR_ECONCURRENT);
  CHECK(strstr(err.message, "namespace crm changed") != NULL);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
