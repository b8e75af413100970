/* Reverting a table, the partial-revert rule, and reverting a whole run. */
#include "catalog/catalog_internal.h"
#include "fixtures.h"

static int revert(fx *f, const char *table, const char *to, bool allow_partial, json_t **out,
                  weir_error *err) {
  json_t *o = NULL;
  catalog_revert_opts ro = {.allow_partial = allow_partial};
  int rc = catalog_revert_table(f->cat, table, to, "main", &ro, &o, err);
  if (out) *out = o;
  else json_decref(o);
  return rc;
}

TEST(revert_table_to_an_older_version_or_drop_or_re_add) {
  fx f = fx_new();
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  weir_error err = {0};
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_TAG, "good", fx_head(&f, "main"), &err), &err);
  fx_set(&f, "main", "default.a", "/w/a2", NULL);
  fx_set(&f, "main", "default.b", "/w/b1", NULL);
  json_t *o = NULL;
  CHECK_OK(revert(&f, "default.a", "good", false, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "change", ""), "changed");
  CHECK_STR(wr_json_str(o, "commit", ""), fx_head(&f, "main"));
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a1");
  CHECK_STR(fx_loc(&f, "main", "default.b"), "/w/b1");
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f.cat, fx_head(&f, "main"), &c, &err), &err);
  CHECK_CONTAINS(c.message, "Revert default.a to ");
  CHECK_INT(c.n_parents, 1);
  wr_commit_rec_clear(&c);
  json_decref(o);
  /* b did not exist at "good": dropped */
  CHECK_OK(revert(&f, "default.b", "good", false, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "change", ""), "dropped");
  CHECK(fx_loc(&f, "main", "default.b") == NULL);
  json_decref(o);
  /* and back again from main~1 */
  CHECK_OK(revert(&f, "default.b", "main~1", false, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "change", ""), "added");
  CHECK_STR(fx_loc(&f, "main", "default.b"), "/w/b1");
  json_decref(o);
  /* nothing to do: no commit */
  size_t n = fx_count(&f, "main");
  CHECK_OK(revert(&f, "default.a", "good", false, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "change", ""), "unchanged");
  CHECK_INT(fx_count(&f, "main"), n);
  json_decref(o);
  /* errors name what is missing */
  CHECK_INT(revert(&f, "default.a", "nosuch", false, NULL, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nosuch");
  CHECK_INT(catalog_revert_table(f.cat, "default.a", "good", "nobranch", NULL, &o, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nobranch");
  weir_error_clear(&err);
  fx_free(&f);
}

/* Run r1 wrote default.a (changed) and default.b (added) and was merged into main. */
static void published_run(fx *f) {
  weir_error err = {0};
  fx_set(f, "main", "default.a", "/w/a0", NULL);
  fx_set(f, "main", "default.other", "/w/o0", NULL);
  CHECK_OK(catalog_run_create(f->cat, "r1", "proj", "dg", "main", fx_head(f, "main"), "run/r1", &err), &err);
  fx_branch(f, "run/r1", "main");
  fx_set(f, "run/r1", "default.a", "/w/a-r1", "r1");
  fx_set(f, "run/r1", "default.b", "/w/b-r1", "r1");
  fx_set(f, "main", "default.other", "/w/o1", NULL); /* main moves meanwhile */
  wr_merge_request req = {.source = "run/r1", .into = "main", .run_id = "r1"};
  json_t *o = NULL;
  CHECK_OK(catalog_merge(f->cat, &req, &o, &err), &err);
  CHECK_OK(catalog_run_finish(f->cat, "r1", WEIR_RUN_SUCCEEDED, wr_json_str(o, "commit", NULL), NULL, &err), &err);
  json_decref(o);
  CHECK_OK(catalog_ref_delete(f->cat, WEIR_REF_BRANCH, "run/r1", &err), &err);
  weir_error_clear(&err);
}

TEST(partial_revert_of_a_run_is_refused) {
  fx f = fx_new();
  published_run(&f);
  weir_error err = {0};
  CHECK_INT(revert(&f, "default.a", "main~1", false, NULL, &err), WEIR_EPARTIAL);
  CHECK_CONTAINS(err.message, "run r1");
  CHECK_CONTAINS(err.message, "default.b");
  CHECK_CONTAINS(err.message, "--run r1");
  CHECK_CONTAINS(err.details, "default.b");
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a-r1");
  /* allowed explicitly */
  json_t *o = NULL;
  CHECK_OK(revert(&f, "default.a", "main~1", true, &o, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a0");
  json_decref(o);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(partial_rule_ends_when_siblings_moved_on) {
  fx f = fx_new();
  published_run(&f);
  fx_set(&f, "main", "default.b", "/w/b-later", NULL); /* b no longer at r1's version */
  weir_error err = {0};
  CHECK_OK(revert(&f, "default.a", "main~2", false, NULL, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a0");
  weir_error_clear(&err);
  fx_free(&f);
}

/* The mirror of the partial rule (model/README.md, finding 2): after revert --run, putting
 * one of the run's tables back to the run's version alone is refused. */
TEST(reverting_one_table_back_to_a_runs_version_alone_is_refused) {
  fx f = fx_new();
  published_run(&f);
  char result[WEIR_HASH_LEN + 1];
  memcpy(result, fx_head(&f, "main"), sizeof result);
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_OK(catalog_revert_run(f.cat, "r1", NULL, NULL, &o, &err), &err);
  json_decref(o);
  CHECK_INT(revert(&f, "default.a", result, false, NULL, &err), WEIR_EPARTIAL);
  CHECK_CONTAINS(err.message, "written by run r1 together with default.b");
  CHECK_CONTAINS(err.message, "no longer at that run's versions");
  CHECK_CONTAINS(err.details, "default.b");
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a0");
  weir_error_clear(&err);
  /* Both back, one after the other: the second restores the run's pair, so it is allowed. */
  CHECK_OK(revert(&f, "default.b", result, true, NULL, &err), &err);
  CHECK_OK(revert(&f, "default.a", result, false, NULL, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a-r1");
  CHECK_STR(fx_loc(&f, "main", "default.b"), "/w/b-r1");
  weir_error_clear(&err);
  fx_free(&f);
}

static int refuse_b(const char *table, const wr_table_entry *cur, const wr_table_entry *to, void *ctx,
                    weir_error *err) {
  (void)cur, (void)to;
  ++*(int *)ctx;
  return strcmp(table, "default.b") == 0 ? wr_seterr(err, WEIR_ECONTRACT, "no, not %s", table) : WEIR_OK;
}

TEST(a_revert_check_vetoes_the_whole_revert) {
  fx f = fx_new();
  published_run(&f);
  size_t n = fx_count(&f, "main");
  int calls = 0;
  catalog_revert_opts ro = {.check = refuse_b, .check_ctx = &calls};
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_INT(catalog_revert_run(f.cat, "r1", NULL, &ro, &o, &err), WEIR_ECONTRACT);
  CHECK_STR(err.message, "no, not default.b");
  CHECK_INT(calls, 2);
  CHECK_INT(fx_count(&f, "main"), n);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a-r1"); /* nothing of it was written */
  weir_error_clear(&err);
  fx_free(&f);
}

/* Only what the run put on the branch is taken back (found by the conformance test: a
 * revert of a run that never published rewrote its tables on the target). */
TEST(revert_run_refuses_to_discard_later_writes_of_its_tables) {
  fx f = fx_new();
  published_run(&f);
  fx_set(&f, "main", "default.b", "/w/b-later", NULL);
  char *later = malloc(WEIR_HASH_LEN + 1);
  memcpy(later, fx_head(&f, "main"), WEIR_HASH_LEN + 1);
  size_t n = fx_count(&f, "main");
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_INT(catalog_revert_run(f.cat, "r1", NULL, NULL, &o, &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "reverting run r1 on branch main");
  CHECK_CONTAINS(err.message, "table default.b changed (by commit ");
  CHECK_CONTAINS(err.message, "putting it back as before the run would discard that change");
  CHECK_CONTAINS(err.details, later);
  CHECK_INT(fx_count(&f, "main"), n);
  weir_error_clear(&err);
  /* allow_partial: a is still the run's and goes back; b is left as the later write made it. */
  catalog_revert_opts ro = {.allow_partial = true};
  CHECK_OK(catalog_revert_run(f.cat, "r1", NULL, &ro, &o, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a0");
  CHECK_STR(fx_loc(&f, "main", "default.b"), "/w/b-later");
  json_decref(o);
  free(later);
  fx_free(&f);
}

TEST(revert_of_a_run_that_never_published_takes_nothing_back) {
  fx f = fx_new();
  weir_error err = {0};
  fx_set(&f, "main", "default.a", "/w/a0", NULL);
  CHECK_OK(catalog_run_create(f.cat, "r2", "proj", "dg", "main", fx_head(&f, "main"), "run/r2", &err), &err);
  fx_branch(&f, "run/r2", "main");
  fx_set(&f, "run/r2", "default.a", "/w/a-r2", "r2");
  CHECK_OK(catalog_run_finish(f.cat, "r2", WEIR_RUN_FAILED, NULL, NULL, &err), &err);
  json_t *o = NULL;
  /* Nothing of it reached main, and main did not move: a no-op. */
  CHECK_OK(catalog_revert_run(f.cat, "r2", NULL, NULL, &o, &err), &err);
  CHECK_INT(json_array_size(json_object_get(o, "tables")), 0);
  json_decref(o);
  /* Someone else rewrote a on main: refused, a stays theirs. */
  fx_set(&f, "main", "default.a", "/w/a-theirs", NULL);
  CHECK_INT(catalog_revert_run(f.cat, "r2", NULL, NULL, &o, &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "the run never published it");
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a-theirs");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(revert_run_puts_every_table_back_in_one_commit) {
  fx f = fx_new();
  published_run(&f);
  fx_set(&f, "main", "default.d", "/w/d1", NULL); /* unrelated later work stays */
  size_t n = fx_count(&f, "main");
  json_t *o = NULL;
  weir_error err = {0};
  CHECK_OK(catalog_revert_run(f.cat, "r1", NULL, NULL, &o, &err), &err);
  CHECK_INT(fx_count(&f, "main"), n + 1);
  CHECK_STR(wr_json_str(o, "run_id", ""), "r1");
  char *t = wr_json_canonical(json_object_get(o, "tables"));
  CHECK_STR(t, "[{\"change\":\"changed\",\"table\":\"default.a\"},{\"change\":\"dropped\",\"table\":\"default.b\"}]");
  free(t);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a0");
  CHECK(fx_loc(&f, "main", "default.b") == NULL);
  CHECK_STR(fx_loc(&f, "main", "default.other"), "/w/o1");
  CHECK_STR(fx_loc(&f, "main", "default.d"), "/w/d1");
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f.cat, fx_head(&f, "main"), &c, &err), &err);
  CHECK_CONTAINS(c.message, "r1");
  CHECK_STR(wr_json_str(c.properties, "reverted_run", ""), "r1");
  wr_commit_rec_clear(&c);
  json_decref(o);
  /* again: nothing left to revert, no commit */
  CHECK_OK(catalog_revert_run(f.cat, "r1", "main", NULL, &o, &err), &err);
  CHECK_INT(json_array_size(json_object_get(o, "tables")), 0);
  CHECK_INT(fx_count(&f, "main"), n + 1);
  json_decref(o);
  CHECK_INT(catalog_revert_run(f.cat, "r404", NULL, NULL, &o, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "r404");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
