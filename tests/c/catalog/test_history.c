/* Log order, ancestry, merge bases (including criss-cross), first-parent steps. */
#include "catalog/catalog_internal.h"
#include "fixtures.h"

/* A commit on `branch` changing `table`, at time `t`, optionally a merge of `second`. */
static void commit_at(fx *f, const char *branch, const char *table, const char *loc, int64_t t,
                      const char *second, char out[65]) {
  wr_table_change c = {table, loc, 1, 1};
  wr_commit_request req = {.branch = branch, .expected_head = fx_head(f, branch),
                             .second_parent = second, .changes = &c, .n_changes = table ? 1 : 0,
                             .message = "m", .time_us = t};
  weir_error err = {0};
  CHECK_OK(catalog_commit(f->cat, &req, out, &err), &err);
  weir_error_clear(&err);
}

static const int64_t T0 = 1800000000000000LL; /* after the initial commit's "now" */

TEST(log_is_newest_first_and_bounded) {
  fx f = fx_new();
  char a[65], b[65], c[65], d[65], m[65];
  fx_branch(&f, "dev", "main");
  commit_at(&f, "main", "default.a", "/w/a1", T0 + 10, NULL, a);
  commit_at(&f, "dev", "default.b", "/w/b1", T0 + 15, NULL, b); /* between a and c */
  commit_at(&f, "main", "default.c", "/w/c1", T0 + 20, NULL, c);
  commit_at(&f, "dev", "default.d", "/w/d1", T0 + 20, NULL, d); /* same time as c */
  commit_at(&f, "main", NULL, NULL, T0 + 40, d, m);             /* merge dev into main */
  wr_commit_rec *v = NULL;
  size_t n = 0;
  weir_error err = {0};
  CHECK_OK(catalog_log(f.cat, m, 0, &v, &n, &err), &err);
  CHECK_INT(n, 6);
  if (n == 6) {
    CHECK_STR(v[0].hash, m);
    /* c and d share a time: the smaller hash first */
    CHECK_STR(v[1].hash, strcmp(c, d) < 0 ? c : d);
    CHECK_STR(v[2].hash, strcmp(c, d) < 0 ? d : c);
    CHECK_STR(v[3].hash, b);
    CHECK_STR(v[4].hash, a);
    CHECK_INT(v[5].n_parents, 0);
    CHECK_INT(v[0].n_parents, 2);
    CHECK_STR(v[0].parents[1], d);
  }
  wr_commit_recs_free(v, n);
  CHECK_OK(catalog_log(f.cat, m, 2, &v, &n, &err), &err);
  CHECK_INT(n, 2);
  wr_commit_recs_free(v, n);
  CHECK_INT(catalog_log(f.cat, "1111111111111111111111111111111111111111111111111111111111111111", 0, &v, &n, &err), WEIR_ENOTFOUND);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(is_ancestor_follows_both_parents) {
  fx f = fx_new();
  char r[65], a[65], b[65], m[65];
  snprintf(r, 65, "%s", fx_head(&f, "main"));
  fx_branch(&f, "dev", "main");
  commit_at(&f, "main", "default.a", "/w/a1", T0 + 1, NULL, a);
  commit_at(&f, "dev", "default.b", "/w/b1", T0 + 2, NULL, b);
  commit_at(&f, "main", NULL, NULL, T0 + 3, b, m);
  weir_error err = {0};
  bool yes = false;
  CHECK_OK(catalog_is_ancestor(f.cat, r, m, &yes, &err), &err);
  CHECK(yes);
  CHECK_OK(catalog_is_ancestor(f.cat, b, m, &yes, &err), &err);
  CHECK(yes);
  CHECK_OK(catalog_is_ancestor(f.cat, m, m, &yes, &err), &err);
  CHECK(yes);
  CHECK_OK(catalog_is_ancestor(f.cat, a, b, &yes, &err), &err);
  CHECK(!yes);
  CHECK_OK(catalog_is_ancestor(f.cat, m, a, &yes, &err), &err);
  CHECK(!yes);
  CHECK_INT(catalog_is_ancestor(f.cat, "nope", m, &yes, &err), WEIR_ENOTFOUND);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(merge_base_is_the_nearest_common_ancestor) {
  fx f = fx_new();
  char b0[65], m1[65], m2[65], d1[65], d2[65], out[65];
  snprintf(b0, 65, "%s", fx_head(&f, "main"));
  fx_branch(&f, "dev", "main");
  commit_at(&f, "main", "default.a", "/w/a1", T0 + 1, NULL, m1);
  commit_at(&f, "dev", "default.b", "/w/b1", T0 + 2, NULL, d1);
  commit_at(&f, "dev", NULL, NULL, T0 + 3, m1, d2); /* dev merged main at m1 */
  commit_at(&f, "main", "default.c", "/w/c1", T0 + 4, NULL, m2);
  bool found = false;
  weir_error err = {0};
  CHECK_OK(catalog_merge_base(f.cat, m2, d2, out, &found, &err), &err);
  CHECK(found);
  CHECK_STR(out, m1);
  CHECK_OK(catalog_merge_base(f.cat, d2, m2, out, &found, &err), &err);
  CHECK_STR(out, m1);
  CHECK_OK(catalog_merge_base(f.cat, m1, d1, out, &found, &err), &err);
  CHECK_STR(out, b0);
  CHECK_OK(catalog_merge_base(f.cat, m1, m2, out, &found, &err), &err); /* linear */
  CHECK_STR(out, m1);
  CHECK_OK(catalog_merge_base(f.cat, m2, m2, out, &found, &err), &err);
  CHECK_STR(out, m2);
  weir_error_clear(&err);
  fx_free(&f);
}

/* x and y fork at B; x1 and y1; then each merges the other's first commit: the two heads
 * have two best common ancestors, x1 and y1. */
static void criss_cross(int64_t tx1, int64_t ty1, char x1[65], char y1[65], char base[65]) {
  fx f = fx_new();
  fx_branch(&f, "x", "main");
  fx_branch(&f, "y", "main");
  char x2[65], y2[65];
  commit_at(&f, "x", "default.a", "/w/a1", tx1, NULL, x1);
  commit_at(&f, "y", "default.b", "/w/b1", ty1, NULL, y1);
  commit_at(&f, "x", NULL, NULL, T0 + 100, y1, x2);
  commit_at(&f, "y", NULL, NULL, T0 + 101, x1, y2);
  bool found = false;
  weir_error err = {0};
  CHECK_OK(catalog_merge_base(f.cat, x2, y2, base, &found, &err), &err);
  CHECK(found);
  char again[65];
  CHECK_OK(catalog_merge_base(f.cat, y2, x2, again, &found, &err), &err);
  CHECK_STR(again, base); /* symmetric */
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(criss_cross_picks_latest_then_smallest_hash) {
  char x1[65], y1[65], base[65];
  criss_cross(T0 + 5, T0 + 6, x1, y1, base);
  CHECK_STR(base, y1); /* y1 is later */
  criss_cross(T0 + 6, T0 + 5, x1, y1, base);
  CHECK_STR(base, x1); /* x1 is later */
  criss_cross(T0 + 5, T0 + 5, x1, y1, base);
  CHECK_STR(base, strcmp(x1, y1) < 0 ? x1 : y1); /* tie: smaller hash */
}

TEST(first_parent_ancestor_walks_first_parents) {
  fx f = fx_new();
  char r[65], a[65], b[65], m[65], out[65];
  snprintf(r, 65, "%s", fx_head(&f, "main"));
  fx_branch(&f, "dev", "main");
  commit_at(&f, "dev", "default.b", "/w/b1", T0 + 1, NULL, b);
  commit_at(&f, "main", "default.a", "/w/a1", T0 + 2, NULL, a);
  commit_at(&f, "main", NULL, NULL, T0 + 3, b, m);
  weir_error err = {0};
  CHECK_OK(catalog_first_parent_ancestor(f.cat, m, 1, out, &err), &err);
  CHECK_STR(out, a);
  CHECK_OK(catalog_first_parent_ancestor(f.cat, m, 2, out, &err), &err);
  CHECK_STR(out, r);
  CHECK_OK(catalog_first_parent_ancestor(f.cat, m, 0, out, &err), &err);
  CHECK_STR(out, m);
  CHECK_INT(catalog_first_parent_ancestor(f.cat, m, 3, out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "2 first-parent ancestors");
  weir_error_clear(&err);
  /* one ancestor, not "1 ... ancestors" */
  CHECK_INT(catalog_first_parent_ancestor(f.cat, a, 2, out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "only 1 first-parent ancestor, not 2");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(long_history_walks_stay_local) {
  /* 2,000 commits on main, then a short branch: ancestry and merge-base answers must not
   * need the whole history (checked by answering correctly with the head cache cleared
   * and counting nothing; correctness on a long chain is the point here). */
  fx f = fx_new();
  char fork[65];
  for (int i = 0; i < 2000; i++) {
    char loc[32];
    snprintf(loc, sizeof loc, "/w/a%d", i);
    fx_set(&f, "main", "default.a", loc, NULL);
  }
  snprintf(fork, 65, "%s", fx_head(&f, "main"));
  fx_branch(&f, "dev", "main");
  fx_set(&f, "dev", "default.b", "/w/b", NULL);
  fx_set(&f, "main", "default.c", "/w/c", NULL);
  char out[65];
  bool found = false, yes = true;
  weir_error err = {0};
  hmap_clear(&f.cat->heads, free);
  CHECK_OK(catalog_merge_base(f.cat, fx_head(&f, "main"), fx_head(&f, "dev"), out, &found, &err), &err);
  CHECK_STR(out, fork);
  /* only the commits near the heads were read */
  CHECK(f.cat->heads.n < 10);
  hmap_clear(&f.cat->heads, free);
  CHECK_OK(catalog_is_ancestor(f.cat, fx_head(&f, "dev"), fx_head(&f, "main"), &yes, &err), &err);
  CHECK(!yes);
  CHECK(f.cat->heads.n < 10);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
