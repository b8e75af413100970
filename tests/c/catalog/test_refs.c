/* Branches, tags and ref resolution. */
#include "catalog/catalog_internal.h"
#include "fixtures.h"

TEST(create_list_delete_refs) {
  fx f = fx_new();
  weir_error err = {0};
  char h0[65];
  snprintf(h0, sizeof h0, "%s", fx_head(&f, "main"));
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_BRANCH, "dev", h0, &err), &err);
  CHECK_INT(catalog_ref_create(f.cat, WEIR_REF_BRANCH, "dev", h0, &err), WEIR_EEXISTS);
  CHECK_CONTAINS(err.message, "dev");
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_TAG, "dev", h0, &err), &err); /* own namespace */
  CHECK_INT(catalog_ref_create(f.cat, WEIR_REF_TAG, "v1",
                               "2222222222222222222222222222222222222222222222222222222222222222", &err),
            WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "v1");
  wr_ref_rec *v = NULL;
  size_t n = 0;
  CHECK_OK(catalog_ref_list(f.cat, WEIR_REF_BRANCH, &v, &n, &err), &err);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_STR(v[0].name, "dev");
    CHECK_STR(v[1].name, "main");
    CHECK_STR(v[0].target, h0);
    CHECK(v[0].updated_us > 0);
  }
  wr_ref_recs_free(v, n);
  CHECK_OK(catalog_ref_delete(f.cat, WEIR_REF_BRANCH, "dev", &err), &err);
  CHECK_INT(catalog_ref_delete(f.cat, WEIR_REF_BRANCH, "dev", &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "branch 'dev'");
  char out[65];
  CHECK_INT(catalog_ref_get(f.cat, WEIR_REF_BRANCH, "dev", out, &err), WEIR_ENOTFOUND);
  CHECK_OK(catalog_ref_get(f.cat, WEIR_REF_TAG, "dev", out, &err), &err);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(branch_cas) {
  fx f = fx_new();
  weir_error err = {0};
  char h0[65], h1[65];
  snprintf(h0, sizeof h0, "%s", fx_head(&f, "main"));
  fx_branch(&f, "dev", "main");
  fx_set(&f, "main", "default.a", "/w/a", NULL);
  snprintf(h1, sizeof h1, "%s", fx_head(&f, "main"));
  CHECK_OK(catalog_branch_cas(f.cat, "dev", h0, h1, &err), &err);
  CHECK_STR(fx_head(&f, "dev"), h1);
  CHECK_INT(catalog_branch_cas(f.cat, "dev", h0, h1, &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "dev");
  CHECK_INT(catalog_branch_cas(f.cat, "nope", h0, h1, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nope");
  CHECK_INT(catalog_branch_cas(f.cat, "dev", h1,
                               "3333333333333333333333333333333333333333333333333333333333333333", &err),
            WEIR_ENOTFOUND);
  CHECK_STR(fx_head(&f, "dev"), h1);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(resolve_branch_tag_hash_prefix_and_steps) {
  fx f = fx_new();
  weir_error err = {0};
  char c[4][65], out[65];
  snprintf(c[0], 65, "%s", fx_head(&f, "main"));
  for (int i = 1; i < 4; i++) {
    char loc[32];
    snprintf(loc, sizeof loc, "/w/a%d", i);
    fx_set(&f, "main", "default.a", loc, NULL);
    snprintf(c[i], 65, "%s", fx_head(&f, "main"));
  }
  CHECK_OK(catalog_resolve(f.cat, "main", out, &err), &err);
  CHECK_STR(out, c[3]);
  CHECK_OK(catalog_resolve(f.cat, c[1], out, &err), &err);
  CHECK_STR(out, c[1]);
  /* uppercase hex works */
  char upper[65];
  for (int i = 0; i < 65; i++) upper[i] = (char)((c[2][i] >= 'a' && c[2][i] <= 'f') ? c[2][i] - 32 : c[2][i]);
  CHECK_OK(catalog_resolve(f.cat, upper, out, &err), &err);
  CHECK_STR(out, c[2]);
  char prefix[16];
  snprintf(prefix, sizeof prefix, "%.9s", c[2]);
  CHECK_OK(catalog_resolve(f.cat, prefix, out, &err), &err);
  CHECK_STR(out, c[2]);
  CHECK_OK(catalog_resolve(f.cat, "main~2", out, &err), &err);
  CHECK_STR(out, c[1]);
  CHECK_OK(catalog_resolve(f.cat, "main~1~1", out, &err), &err);
  CHECK_STR(out, c[1]);
  CHECK_OK(catalog_resolve(f.cat, "main~", out, &err), &err);
  CHECK_STR(out, c[2]);
  CHECK_OK(catalog_resolve(f.cat, "main~0", out, &err), &err);
  CHECK_STR(out, c[3]);
  char pre_step[32];
  snprintf(pre_step, sizeof pre_step, "%.10s~2", c[3]);
  CHECK_OK(catalog_resolve(f.cat, pre_step, out, &err), &err);
  CHECK_STR(out, c[1]);
  CHECK_INT(catalog_resolve(f.cat, "main~4", out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "main~4");
  CHECK_INT(catalog_resolve(f.cat, "main~x", out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "main~x");
  CHECK_INT(catalog_resolve(f.cat, "~1", out, &err), WEIR_EINVALIDARG);
  /* Steps that add up to INT64_MAX, then one more "~": refused, not a signed overflow
   * (found by fuzz_ref; UBSan stops the test if it comes back). */
  CHECK_INT(catalog_resolve(f.cat, "main~9223372036854775799~8~", out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "too large");
  /* A ref that is not UTF-8 is quoted in a message that is. */
  CHECK_INT(catalog_resolve(f.cat, "ma\x8ain", out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "'ma\xEF\xBF\xBDin'");
  CHECK_INT(catalog_resolve(f.cat, "", out, &err), WEIR_EINVALIDARG);
  CHECK_INT(catalog_resolve(f.cat, "nosuchref", out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "'nosuchref'");
  CHECK_INT(catalog_resolve(f.cat, "abcdef", out, &err), WEIR_ENOTFOUND); /* too short a prefix */
  /* a 7-digit prefix no commit has (4 commits: a clash has odds of about 1 in 67 million) */
  CHECK_INT(catalog_resolve(f.cat, "0000000", out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "'0000000'");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(branch_wins_over_tag_wins_over_hash) {
  fx f = fx_new();
  weir_error err = {0};
  char h0[65], h1[65], h2[65], out[65];
  snprintf(h0, 65, "%s", fx_head(&f, "main"));
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  snprintf(h1, 65, "%s", fx_head(&f, "main"));
  fx_set(&f, "main", "default.a", "/w/a2", NULL);
  snprintf(h2, 65, "%s", fx_head(&f, "main"));
  char p1[8];
  snprintf(p1, sizeof p1, "%.7s", h1);
  /* a tag named like h1's prefix, pointing at h0: the tag wins over the prefix */
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_TAG, p1, h0, &err), &err);
  CHECK_OK(catalog_resolve(f.cat, p1, out, &err), &err);
  CHECK_STR(out, h0);
  /* a branch of the same name at h2: the branch wins over the tag */
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_BRANCH, p1, h2, &err), &err);
  CHECK_OK(catalog_resolve(f.cat, p1, out, &err), &err);
  CHECK_STR(out, h2);
  /* tag "release" resolves */
  CHECK_OK(catalog_ref_create(f.cat, WEIR_REF_TAG, "release", h1, &err), &err);
  CHECK_OK(catalog_resolve(f.cat, "release~1", out, &err), &err);
  CHECK_STR(out, h0);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(ambiguous_prefix_lists_candidates) {
  fx f = fx_new();
  weir_error err = {0};
  /* Two real commits sharing 7 hex digits would take ~2^14 commits to find by chance;
   * insert two commit rows with colliding prefixes directly through the backend. */
  wr_catalog *cat = f.cat;
  char head[65];
  snprintf(head, 65, "%s", fx_head(&f, "main"));
  commit_head h;
  CHECK_OK(catalog_head_get(cat, head, &h, &err), &err);
  CHECK_OK(catalog_tx_begin(cat, true, &err), &err);
  const char *fake[2] = {"abcdef0111111111111111111111111111111111111111111111111111111111",
                         "abcdef0222222222222222222222222222222222222222222222222222222222"};
  for (int i = 0; i < 2; i++) {
    wr_commit_rec c = {0};
    snprintf(c.hash, 65, "%s", fake[i]);
    snprintf(c.tables_root, 65, "%s", h.tables_root);
    snprintf(c.parents[0], 65, "%s", head);
    c.n_parents = 1;
    c.author = "x";
    c.message = "fake";
    c.properties = json_object();
    c.generation = 2;
    CHECK_OK(cat->be->ops->commit_put(cat->be, &c, &err), &err);
    json_decref(c.properties);
  }
  CHECK_OK(catalog_tx_commit(cat, &err), &err);
  char out[65];
  CHECK_INT(catalog_resolve(cat, "abcdef0", out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "ambiguous");
  CHECK_CONTAINS(err.message, fake[0]);
  CHECK_CONTAINS(err.message, fake[1]);
  CHECK_CONTAINS(err.details, fake[1]);
  CHECK_OK(catalog_resolve(cat, "abcdef01", out, &err), &err);
  CHECK_STR(out, fake[0]);
  CHECK_OK(catalog_resolve(cat, "ABCDEF02", out, &err), &err);
  CHECK_STR(out, fake[1]);
  weir_error_clear(&err);
  fx_free(&f);
}

/* The merge gate's records (access.c, migration 5): required checks replace each other,
 * keep their order, are stored once each, and go with the protection. */
TEST(branch_checks_replace_keep_order_and_go_with_protection) {
  fx f = fx_new();
  weir_error err = {0};
  char **v = NULL;
  size_t n = 9;
  CHECK_OK(catalog_branch_checks(f.cat, "main", &v, &n, &err), &err);
  CHECK_INT(n, 0);
  catalog_strv_free(v, n);
  const char *first[] = {"../b", "/abs/a", "../b"};
  CHECK_OK(catalog_branch_require_checks(f.cat, "main", first, 3, &err), &err);
  bool on = false;
  CHECK_OK(catalog_branch_protected(f.cat, "main", &on, &err), &err);
  CHECK(on);
  CHECK_OK(catalog_branch_checks(f.cat, "main", &v, &n, &err), &err);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_STR(v[0], "../b");
    CHECK_STR(v[1], "/abs/a");
  }
  catalog_strv_free(v, n);
  const char *second[] = {"c"};
  CHECK_OK(catalog_branch_require_checks(f.cat, "main", second, 1, &err), &err);
  CHECK_OK(catalog_branch_protect(f.cat, "main", true, &err), &err); /* protect again: checks stay */
  CHECK_OK(catalog_branch_checks(f.cat, "main", &v, &n, &err), &err);
  CHECK_INT(n, 1);
  if (n == 1) CHECK_STR(v[0], "c");
  catalog_strv_free(v, n);
  const char *empty[] = {""};
  CHECK_INT(catalog_branch_require_checks(f.cat, "main", empty, 1, &err), WEIR_EINVALIDARG);
  CHECK_INT(catalog_branch_require_checks(f.cat, "nope", second, 1, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nope");
  CHECK_OK(catalog_branch_protect(f.cat, "main", false, &err), &err);
  CHECK_OK(catalog_branch_checks(f.cat, "main", &v, &n, &err), &err);
  CHECK_INT(n, 0);
  catalog_strv_free(v, n);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
