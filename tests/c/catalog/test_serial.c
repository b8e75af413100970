/* A named base (expected head) for merges and reverts, and the reports of what changed
 * since a base (serial.c). */
#include "catalog/catalog_internal.h"
#include "fixtures.h"

static char *copy_head(fx *f, const char *branch) {
  char *h = malloc(WEIR_HASH_LEN + 1);
  memcpy(h, fx_head(f, branch), WEIR_HASH_LEN + 1);
  return h;
}

TEST(report_names_each_table_and_the_commit_that_changed_it) {
  fx f = fx_new();
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  fx_set(&f, "main", "default.b", "/w/b1", NULL);
  char *base = copy_head(&f, "main");
  fx_set(&f, "main", "default.a", "/w/a2", NULL);
  char *changed_a = copy_head(&f, "main");
  fx_set(&f, "main", "default.b", NULL, NULL); /* dropped */
  char *dropped_b = copy_head(&f, "main");
  fx_set(&f, "main", "default.c", "/w/c1", NULL);
  char *head = copy_head(&f, "main");
  weir_error err = {0};
  catalog_serial_report r;
  catalog_serial_init(&r, "main", base, head);
  CHECK_OK(catalog_serial_check_table(f.cat, &r, "default.a", false, "it was replaced", &err), &err);
  CHECK_OK(catalog_serial_check_table(f.cat, &r, "default.b", true, "it was read", &err), &err);
  CHECK_OK(catalog_serial_check_table(f.cat, &r, "default.zz", true, "never there", &err), &err);
  CHECK_INT(json_array_size(r.items), 2);
  CHECK_INT(r.conflicts, 1);
  CHECK_INT(r.stale_reads, 1);
  json_t *a = json_array_get(r.items, 0), *b = json_array_get(r.items, 1);
  CHECK_STR(wr_json_str(a, "changed_by", ""), changed_a); /* provenance of the head's version */
  CHECK_STR(wr_json_str(a, "kind", ""), "write");
  CHECK_STR(wr_json_str(b, "changed_by", ""), dropped_b); /* found by the first-parent walk */
  CHECK_STR(wr_json_str(b, "kind", ""), "read");
  CHECK_STR(wr_json_str(b, "changed_by_message", ""), "test commit");
  CHECK_INT(catalog_serial_error(&r, "import", "retry", &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "import on branch main: since the base ");
  CHECK_CONTAINS(err.message, "table default.a changed (by commit ");
  CHECK_CONTAINS(err.message, ", and it was replaced; table default.b changed");
  CHECK_CONTAINS(err.message, "nothing was committed: retry");
  CHECK(err.details != NULL);
  weir_error_clear(&err);
  catalog_serial_clear(&r);
  /* Only reads: a stale read. */
  catalog_serial_init(&r, "main", base, head);
  CHECK_OK(catalog_serial_check_table(f.cat, &r, "default.a", true, "it was read", &err), &err);
  CHECK_INT(catalog_serial_error(&r, "run", NULL, &err), WEIR_ESTALEREAD);
  weir_error_clear(&err);
  catalog_serial_clear(&r);
  /* Nothing changed: no error. */
  catalog_serial_init(&r, "main", head, head);
  CHECK_OK(catalog_serial_check_table(f.cat, &r, "default.a", false, "x", &err), &err);
  CHECK_OK(catalog_serial_error(&r, "x", NULL, &err), &err);
  catalog_serial_clear(&r);
  free(base);
  free(changed_a);
  free(dropped_b);
  free(head);
  fx_free(&f);
}

TEST(base_must_be_in_the_branch_history) {
  fx f = fx_new();
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  char *old = copy_head(&f, "main");
  weir_error err = {0};
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_BRANCH, "dev", old, &err), &err);
  fx_set(&f, "dev", "default.x", "/w/x1", NULL);
  fx_set(&f, "main", "default.a", "/w/a2", NULL);
  CHECK_OK(catalog_base_check(f.cat, "main", old, fx_head(&f, "main"), &err), &err);
  CHECK_INT(catalog_base_check(f.cat, "main", fx_head(&f, "dev"), fx_head(&f, "main"), &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "is not in the history of branch main");
  weir_error_clear(&err);
  free(old);
  fx_free(&f);
}

TEST(merge_with_a_stale_expected_head_is_refused_only_for_tables_it_changes) {
  fx f = fx_new();
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  char *reviewed = copy_head(&f, "main");
  weir_error err = {0};
  /* main moves on `a` after the review; dev is cut after that and rewrites `a`. */
  fx_set(&f, "main", "default.a", "/w/a2", NULL);
  char *moved = copy_head(&f, "main");
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_BRANCH, "dev", moved, &err), &err);
  fx_set(&f, "dev", "default.a", "/w/a3", NULL);
  json_t *o = NULL;
  wr_merge_request req = {.source = "dev", .into = "main", .expected_head = reviewed};
  CHECK_INT(catalog_merge(f.cat, &req, &o, &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "merging dev into main on branch main");
  CHECK_CONTAINS(err.message, "table default.a changed");
  CHECK_STR(fx_head(&f, "main"), moved);
  weir_error_clear(&err);
  /* Without the expectation the same merge is a fast-forward. */
  req.expected_head = moved;
  CHECK_OK(catalog_merge(f.cat, &req, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "fast-forward");
  json_decref(o);
  /* A merge that touches only tables unchanged since the reviewed head lands. */
  char *before = copy_head(&f, "main");
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_BRANCH, "dev2", reviewed, &err), &err);
  fx_set(&f, "dev2", "default.b", "/w/b1", NULL);
  req = (wr_merge_request){.source = "dev2", .into = "main", .expected_head = reviewed};
  CHECK_OK(catalog_merge(f.cat, &req, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "merge");
  CHECK_STR(fx_loc(&f, "main", "default.b"), "/w/b1");
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a3");
  json_decref(o);
  free(before);
  free(reviewed);
  free(moved);
  fx_free(&f);
}

/* A run publishes by merging three-way against its own base (model/README.md, finding 1):
 * if part of its branch reached the target already (an allow-partial merge) and a table
 * it wrote changed there since, the publish conflicts instead of being "up to date". */
TEST(publish_against_the_run_base_sees_changes_after_a_partial_merge) {
  fx f = fx_new();
  fx_set(&f, "main", "default.p", "/w/p0", NULL);
  fx_set(&f, "main", "default.c", "/w/c0", NULL);
  char *base = copy_head(&f, "main");
  weir_error err = {0};
  CHECK_OK(catalog_run_create(f.cat, "r1", "proj", "dg", "main", base, "run/r1", &err), &err);
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_BRANCH, "run/r1", base, &err), &err);
  fx_set(&f, "run/r1", "default.p", "/w/p-r1", "r1");
  fx_set(&f, "run/r1", "default.c", "/w/c-r1", "r1");
  json_t *o = NULL;
  wr_merge_request leak = {.source = "run/r1", .into = "main", .allow_partial = true};
  CHECK_OK(catalog_merge(f.cat, &leak, &o, &err), &err);
  json_decref(o);
  fx_set(&f, "main", "default.c", "/w/c-later", NULL);
  char *now = copy_head(&f, "main");
  /* The ordinary merge says up to date: the run's C would be lost without a word. */
  wr_merge_request plain = {.source = "run/r1", .into = "main", .run_id = "r1"};
  CHECK_OK(catalog_merge(f.cat, &plain, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "up-to-date");
  json_decref(o);
  /* Against the run's base, C conflicts; nothing is written. */
  wr_merge_request publish = {.source = "run/r1", .into = "main", .run_id = "r1", .base = base};
  CHECK_INT(catalog_merge(f.cat, &publish, &o, &err), WEIR_ECONFLICT);
  CHECK_CONTAINS(err.message, "default.c");
  CHECK_STR(fx_head(&f, "main"), now);
  weir_error_clear(&err);
  /* Main put the run's C back: every output is there, the publish is up to date. */
  fx_set(&f, "main", "default.c", "/w/c-r1", NULL);
  CHECK_OK(catalog_merge(f.cat, &publish, &o, &err), &err);
  CHECK_STR(wr_json_str(o, "result", ""), "up-to-date");
  json_decref(o);
  free(base);
  free(now);
  fx_free(&f);
}

TEST(revert_with_a_stale_expected_head_is_refused) {
  fx f = fx_new();
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  char *first = copy_head(&f, "main");
  fx_set(&f, "main", "default.a", "/w/a2", NULL);
  char *decided = copy_head(&f, "main");
  fx_set(&f, "main", "default.a", "/w/a3", NULL);
  fx_set(&f, "main", "default.b", "/w/b1", NULL);
  weir_error err = {0};
  json_t *o = NULL;
  CHECK_INT(catalog_revert_table(f.cat, "default.a", first, "main", &(catalog_revert_opts){.expected_head = decided}, &o, &err),
            WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "table default.a changed");
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a3");
  weir_error_clear(&err);
  /* b did not change since `decided`... it did not exist: it was added, which is a change. */
  CHECK_INT(catalog_revert_table(f.cat, "default.b", first, "main", &(catalog_revert_opts){.expected_head = decided}, &o, &err),
            WEIR_ECONCURRENT);
  weir_error_clear(&err);
  /* At the head itself, the revert goes through. */
  char *now = copy_head(&f, "main");
  CHECK_OK(catalog_revert_table(f.cat, "default.a", first, "main", &(catalog_revert_opts){.expected_head = now}, &o, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a1");
  json_decref(o);
  free(first);
  free(decided);
  free(now);
  fx_free(&f);
}
TEST_MAIN()
