/* Garbage collection's part of the catalog (gc.c): the live set, and the marks that make
 * collected and expired commits unreadable. Runs on SQLite and PostgreSQL. */
#include "catalog/catalog_internal.h"
#include "fixtures.h"
#include "util/clock.h"

static bool has(const catalog_gc_plan *p, const char *loc) {
  for (size_t i = 0; i < p->n_metadata; i++)
    if (strcmp(p->metadata[i], loc) == 0) return true;
  return false;
}

TEST(live_set_and_unreachable_marks) {
  fx f = fx_new();
  weir_error err = {0};
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  fx_set(&f, "main", "default.a", "/w/a2", NULL);
  fx_branch(&f, "dev", "main");
  fx_set(&f, "dev", "default.b", "/w/b1", NULL);
  char gone[65];
  snprintf(gone, sizeof gone, "%s", fx_head(&f, "dev"));
  CHECK_OK(catalog_ref_delete(f.cat, WEIR_REF_BRANCH, "dev", &err), &err);

  /* A dry run marks nothing but says what it would. */
  catalog_gc_plan p;
  CHECK_OK(catalog_gc_plan_make(f.cat, 0, false, &p, &err), &err);
  CHECK_INT(p.unreachable, 1);
  CHECK_INT(p.expired, 0);
  CHECK_INT(p.live, 3); /* initial, a1, a2 */
  CHECK_INT(p.n_metadata, 2);
  CHECK(has(&p, "/w/a1") && has(&p, "/w/a2") && !has(&p, "/w/b1"));
  catalog_gc_plan_clear(&p);
  char out[65];
  CHECK_OK(catalog_resolve(f.cat, gone, out, &err), &err);

  /* The real one marks the deleted branch's commit: resolving it now says what happened. */
  CHECK_OK(catalog_gc_plan_make(f.cat, 0, true, &p, &err), &err);
  CHECK_INT(p.unreachable, 1);
  CHECK_STR(json_string_value(json_object_get(json_array_get(p.marked, 0), "commit")), gone);
  catalog_gc_plan_clear(&p);
  CHECK_INT(catalog_resolve(f.cat, gone, out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "was collected by gc on");
  CHECK_CONTAINS(err.details, "unreachable");
  /* No ref, branch move or merge parent may name it, even with a hash resolved before gc. */
  CHECK_INT(catalog_ref_create(f.cat, WEIR_REF_TAG, "back", gone, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "collected by gc");
  char main_head[65];
  snprintf(main_head, sizeof main_head, "%s", fx_head(&f, "main"));
  CHECK_INT(catalog_branch_cas(f.cat, "main", main_head, gone, &err), WEIR_ENOTFOUND);
  CHECK_STR(fx_head(&f, "main"), main_head);
  wr_commit_request req = {.branch = "main", .expected_head = main_head, .second_parent = gone,
                           .message = "merge a collected commit"};
  char merged[65];
  CHECK_INT(catalog_commit(f.cat, &req, merged, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "collected by gc");
  CHECK_STR(fx_head(&f, "main"), main_head);
  bool found = false;
  int64_t when = 0;
  char *reason = NULL;
  CHECK_OK(catalog_commit_expiry(f.cat, gone, &when, &reason, &found, &err), &err);
  CHECK(found && when > 0);
  CHECK_STR(reason, "unreachable");
  free(reason);

  /* Marks survive reopening, and a second gc marks nothing new. */
  fx_reopen(&f);
  CHECK_INT(catalog_resolve(f.cat, gone, out, &err), WEIR_ENOTFOUND);
  CHECK_OK(catalog_gc_plan_make(f.cat, 0, true, &p, &err), &err);
  CHECK_INT(p.unreachable, 0);
  CHECK_INT(json_array_size(p.marked), 0);
  catalog_gc_plan_clear(&p);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(expiry_spares_heads_and_tags) {
  fx f = fx_new();
  weir_error err = {0};
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  char tagged[65];
  snprintf(tagged, sizeof tagged, "%s", fx_head(&f, "main"));
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_TAG, "v1", tagged, &err), &err);
  fx_set(&f, "main", "default.a", "/w/a2", NULL);
  char old[65];
  snprintf(old, sizeof old, "%s", fx_head(&f, "main"));
  fx_set(&f, "main", "default.a", "/w/a3", NULL);
  char head[65];
  snprintf(head, sizeof head, "%s", fx_head(&f, "main"));

  catalog_gc_plan p;
  CHECK_OK(catalog_gc_plan_make(f.cat, wr_now_us() + 1, true, &p, &err), &err);
  CHECK_INT(p.expired, 2); /* the initial commit and a2's; not v1's, not the head */
  CHECK_INT(p.live, 2);
  CHECK(has(&p, "/w/a1") && has(&p, "/w/a3") && !has(&p, "/w/a2"));
  catalog_gc_plan_clear(&p);
  char out[65];
  CHECK_INT(catalog_resolve(f.cat, "main~1", out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "was expired by gc on");
  CHECK_CONTAINS(err.message, "main~1");
  CHECK_OK(catalog_resolve(f.cat, "v1", out, &err), &err);
  CHECK_STR(out, tagged);
  CHECK_OK(catalog_resolve(f.cat, "main", out, &err), &err);
  CHECK_STR(out, head);
  /* A revert to it is refused, also when it resolved the commit before gc marked it (the
   * commit copying its versions checks inside its transaction). */
  json_t *rev = NULL;
  CHECK_INT(catalog_revert_table(f.cat, "default.a", old, "main", NULL, &rev, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "was expired by gc on");
  wr_table_change c = {"default.a", "/w/a2", 1, 10};
  wr_commit_request req = {.branch = "main", .expected_head = head, .changes = &c, .n_changes = 1,
                           .message = "revert planned before gc", .copies_from = old};
  char hash[65];
  CHECK_INT(catalog_commit(f.cat, &req, hash, &err), WEIR_ENOTFOUND);
  CHECK_STR(fx_head(&f, "main"), head);
  /* History still walks through the expired commits. */
  CHECK_INT(fx_count(&f, "main"), 4);
  /* A write goes on from the head. */
  fx_set(&f, "main", "default.a", "/w/a4", NULL);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
