/* The table-map trie: canonical shape, golden hashes, and get/list/diff against a naive
 * map under random changes. */
#include "catalog/catalog_internal.h"
#include "catalog/tree.h"
#include "fixtures.h"
#include "util/hash.h"

static const char *EMPTY_ROOT = "d801aa1fb7ddcc330a5e3173372ea6af4a3d08ec58074478e85aa5603e926658";

/* Applies changes in one write transaction; returns the new root in out. */
static int apply(wr_catalog *cat, const char *root, const wr_table_change *c, size_t n,
                 char out[WEIR_HASH_LEN + 1], size_t *n_applied) {
  weir_error err = {0};
  int rc = catalog_tx_begin(cat, true, &err);
  tree_applied *ap = NULL;
  size_t na = 0;
  if (!rc) rc = tree_apply(cat, root, c, n, out, &ap, &na, &err);
  rc = catalog_tx_end(cat, rc, &err);
  if (rc) TEST_FAIL_("tree_apply failed: %s", test_err_message_(&err));
  for (size_t i = 1; i < na; i++) CHECK(strcmp(ap[i - 1].table, ap[i].table) < 0);
  if (n_applied) *n_applied = na;
  tree_applied_free(ap, na);
  weir_error_clear(&err);
  return rc;
}

TEST(empty_root_is_golden) {
  CHECK_STR(tree_empty_root(), EMPTY_ROOT);
  char h[65];
  wr_sha256_hex(tree_empty_body(), strlen(tree_empty_body()), h);
  CHECK_STR(h, EMPTY_ROOT);
  fx f = fx_new();
  wr_commit_rec c;
  weir_error err = {0};
  CHECK_OK(catalog_commit_get(f.cat, fx_head(&f, "main"), &c, &err), &err);
  CHECK_STR(c.tables_root, EMPTY_ROOT);
  wr_commit_rec_clear(&c);
  fx_free(&f);
}

TEST(leaf_body_is_golden) {
  /* {"entries":[{"metadata_location":"/w/a/metadata/00001.metadata.json","record_count":3,
   *  "snapshot_id":7,"table":"default.a"}]} */
  fx f = fx_new();
  wr_table_change ch = {"default.a", "/w/a/metadata/00001.metadata.json", 7, 3};
  char root[65];
  apply(f.cat, EMPTY_ROOT, &ch, 1, root, NULL);
  CHECK_STR(root, "78f9f9c90b88d5ca0a43d8a319a3c786cca588133a680444cf5121092b76464e");
  fx_free(&f);
}

/* Roots computed by an independent Python implementation of the same canonical trie
 * (sorted keys, no whitespace; split above 32 entries by the d-th hex digit of
 * SHA-256(name)); tables "ns<i%3>.t<i:05>" -> "/w/t<i:05>/v1.json", snapshot i, rows 10i. */
static void golden_lake(fx *f, int n, char root[65]) {
  wr_table_change *c = calloc((size_t)n, sizeof *c);
  char (*names)[32] = calloc((size_t)n, 32);
  char (*locs)[48] = calloc((size_t)n, 48);
  for (int i = 0; i < n; i++) {
    snprintf(names[i], 32, "ns%d.t%05d", i % 3, i);
    snprintf(locs[i], 48, "/w/t%05d/v1.json", i);
    c[i] = (wr_table_change){names[i], locs[i], i, i * 10};
  }
  apply(f->cat, EMPTY_ROOT, c, (size_t)n, root, NULL);
  free(c);
  free(names);
  free(locs);
}

TEST(internal_nodes_and_escaped_strings_are_golden) {
  fx f = fx_new();
  char root[65];
  golden_lake(&f, 33, root); /* one internal root over small leaves */
  CHECK_STR(root, "1688d7cbb5a4c9d0b2009683e737c3e83c9eb952c52cb2f4a0d167ae1f6f1d4f");
  golden_lake(&f, 1000, root); /* three levels */
  CHECK_STR(root, "2574abaf04d4c1d4311933f6080ab618d73ad5656b8d84b4471a89e0315c34fb");
  /* strings that need escaping (a quote, a backslash) and non-ASCII UTF-8 */
  wr_table_change odd[2] = {{"default.r", "/w/r.json", -1, 0},
                              {"default.q", "/w/a \"quoted\" \\ path/\xc3\xa9.json", 1, 2}};
  apply(f.cat, EMPTY_ROOT, odd, 2, root, NULL);
  CHECK_STR(root, "301470342775f23b71d2b761f6a518740d5de484065683b5f7875fc7eebe77ef");
  wr_table_entry e = {0};
  bool found = false;
  weir_error err = {0};
  CHECK_OK(tree_get(f.cat, root, "default.q", &e, &found, &err), &err);
  CHECK_STR(e.metadata_location, odd[1].metadata_location);
  wr_table_entry_clear(&e);
  fx_free(&f);
}

#define BIG 5000

TEST(same_set_in_any_order_gives_same_root) {
  fx f = fx_new();
  wr_table_change *c = calloc(BIG, sizeof *c);
  char (*names)[32] = calloc(BIG, 32);
  char (*locs)[48] = calloc(BIG, 48);
  for (int i = 0; i < BIG; i++) {
    snprintf(names[i], 32, "ns%d.t%05d", i % 7, i);
    snprintf(locs[i], 48, "/w/t%05d/v1.json", i);
    c[i] = (wr_table_change){names[i], locs[i], i, i * 10};
  }
  /* A: all at once. */
  char ra[65];
  apply(f.cat, EMPTY_ROOT, c, BIG, ra, NULL);
  /* B: in reverse order, in batches of 37 (so nodes split as they fill). */
  char rb[65];
  snprintf(rb, sizeof rb, "%s", EMPTY_ROOT);
  wr_table_change *rev = calloc(BIG, sizeof *rev);
  for (int i = 0; i < BIG; i++) rev[i] = c[BIG - 1 - i];
  for (int i = 0; i < BIG; i += 37) {
    char next[65];
    apply(f.cat, rb, rev + i, (size_t)(BIG - i < 37 ? BIG - i : 37), next, NULL);
    memcpy(rb, next, sizeof next);
  }
  CHECK_STR(rb, ra);
  /* C: in a separate fresh catalog, odd indexes first then even, one by one in a few. */
  fx g = fx_new();
  char rcc[65];
  snprintf(rcc, sizeof rcc, "%s", EMPTY_ROOT);
  wr_table_change *odd = calloc(BIG, sizeof *odd);
  int k = 0;
  for (int i = 1; i < BIG; i += 2) odd[k++] = c[i];
  for (int i = 0; i < BIG; i += 2) odd[k++] = c[i];
  char next[65];
  apply(g.cat, rcc, odd, BIG / 2, next, NULL);
  apply(g.cat, next, odd + BIG / 2, BIG - BIG / 2, rcc, NULL);
  CHECK_STR(rcc, ra);
  /* Listing is sorted by name and complete. */
  wr_table_entry *all = NULL;
  size_t n = 0;
  weir_error err = {0};
  CHECK_OK(tree_list(g.cat, rcc, &all, &n, &err), &err);
  CHECK_INT(n, BIG);
  for (size_t i = 1; i < n; i++) CHECK(strcmp(all[i - 1].table, all[i].table) < 0);
  wr_table_entries_free(all, n);
  /* Deleting everything (in another order) gives the empty root again. */
  wr_table_change *del = calloc(BIG, sizeof *del);
  for (int i = 0; i < BIG; i++) del[i] = (wr_table_change){names[(i * 7919) % BIG], NULL, -1, 0};
  char half[65], empty[65];
  size_t na = 0;
  apply(f.cat, ra, del, BIG / 3, half, &na);
  CHECK_INT(na, BIG / 3);
  apply(f.cat, half, del + BIG / 3, BIG - BIG / 3, empty, &na);
  CHECK_INT(na, BIG - BIG / 3);
  CHECK_STR(empty, EMPTY_ROOT);
  free(del);
  free(odd);
  free(rev);
  free(c);
  free(names);
  free(locs);
  fx_free(&g);
  fx_free(&f);
}

/* ---- random changes against a naive map --------------------------------------------- */

#define POOL 700

typedef struct naive {
  bool present[POOL];
  char loc[POOL][40];
  int64_t snap[POOL];
} naive;

static char pool_names[POOL][24];

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* pool_names are generated so that index order == name order. */
static int name_index(const char *t) { return atoi(t + 3); }

typedef struct diff_ctx {
  const naive *a, *b;
  int seen;
  int bad;
} diff_ctx;

TEST(random_changes_match_a_naive_map) {
  for (int i = 0; i < POOL; i++) snprintf(pool_names[i], sizeof pool_names[i], "ns.%04d", i);
  fx f = fx_new();
  naive *m = calloc(1, sizeof *m), *prev = calloc(1, sizeof *prev);
  char root[65];
  snprintf(root, sizeof root, "%s", EMPTY_ROOT);
  weir_error err = {0};
  int version = 0;
  for (int round = 0; round < 300; round++) {
    *prev = *m;
    char prev_root[65];
    memcpy(prev_root, root, sizeof root);
    /* A batch of distinct tables: bias towards growth early and shrinkage late. */
    size_t n = 1 + rnd() % (round % 50 == 0 ? 400 : 20);
    wr_table_change c[400];
    char locs[400][40];
    bool used[POOL] = {0};
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
      int t = (int)(rnd() % POOL);
      if (used[t]) continue;
      used[t] = true;
      bool drop = (rnd() % 100) < (round < 150 ? 25u : 70u);
      snprintf(locs[k], sizeof locs[k], "/w/%d/v%d.json", t, ++version);
      c[k] = (wr_table_change){pool_names[t], drop ? NULL : locs[k], version, t};
      if (drop) m->present[t] = false;
      else {
        m->present[t] = true;
        snprintf(m->loc[t], sizeof m->loc[t], "%s", locs[k]);
        m->snap[t] = version;
      }
      k++;
    }
    apply(f.cat, prev_root, c, k, root, NULL);

    /* Canonical: equal to building the naive map from scratch. */
    wr_table_change all[POOL];
    size_t na = 0;
    for (int t = 0; t < POOL; t++)
      if (m->present[t]) all[na++] = (wr_table_change){pool_names[t], m->loc[t], m->snap[t], t};
    char fresh[65];
    apply(f.cat, EMPTY_ROOT, all, na, fresh, NULL);
    CHECK_STR(root, fresh);

    /* get */
    for (int q = 0; q < 20; q++) {
      int t = (int)(rnd() % POOL);
      wr_table_entry e = {0};
      bool found = false;
      CHECK_OK(tree_get(f.cat, root, pool_names[t], &e, &found, &err), &err);
      CHECK_INT(found, m->present[t]);
      if (found) {
        CHECK_STR(e.metadata_location, m->loc[t]);
        CHECK_INT(e.snapshot_id, m->snap[t]);
        CHECK_INT(e.record_count, t);
      }
      wr_table_entry_clear(&e);
    }
    /* list */
    wr_table_entry *lst = NULL;
    size_t nl = 0;
    CHECK_OK(tree_list(f.cat, root, &lst, &nl, &err), &err);
    CHECK_INT(nl, na);
    for (size_t i = 0; i < nl && i < na; i++) CHECK_STR(lst[i].table, all[i].table);
    wr_table_entries_free(lst, nl);
    /* diff against the previous root, both directions */
    tree_diff_item *d = NULL;
    size_t nd = 0;
    CHECK_OK(tree_diff(f.cat, prev_root, root, &d, &nd, &err), &err);
    size_t expect = 0;
    for (int t = 0; t < POOL; t++) {
      bool differs = prev->present[t] != m->present[t] ||
                     (m->present[t] && strcmp(prev->loc[t], m->loc[t]) != 0);
      expect += differs;
    }
    CHECK_INT(nd, expect);
    for (size_t i = 0; i < nd; i++) {
      int t = name_index(d[i].table);
      if (i) CHECK(strcmp(d[i - 1].table, d[i].table) < 0);
      CHECK_INT(d[i].a != NULL, prev->present[t]);
      CHECK_INT(d[i].b != NULL, m->present[t]);
      if (d[i].a) CHECK_STR(d[i].a->metadata_location, prev->loc[t]);
      if (d[i].b) CHECK_STR(d[i].b->metadata_location, m->loc[t]);
    }
    tree_diff_free(d, nd);
    CHECK_OK(tree_diff(f.cat, root, prev_root, &d, &nd, &err), &err);
    CHECK_INT(nd, expect);
    tree_diff_free(d, nd);
  }
  free(m);
  free(prev);
  fx_free(&f);
}

TEST(noop_changes_are_not_reported_and_duplicates_refused) {
  fx f = fx_new();
  wr_table_change c[2] = {{"default.a", "/w/a1", 1, 5}, {"default.b", "/w/b1", 1, 5}};
  char r1[65], r2[65];
  size_t na = 0;
  apply(f.cat, EMPTY_ROOT, c, 2, r1, &na);
  CHECK_INT(na, 2);
  wr_table_change same[2] = {{"default.a", "/w/a1", 1, 5}, {"default.zz", NULL, -1, 0}};
  apply(f.cat, r1, same, 2, r2, &na);
  CHECK_INT(na, 0);
  CHECK_STR(r2, r1);
  wr_table_change dup[2] = {{"default.a", "/w/a2", 1, 5}, {"default.a", "/w/a3", 1, 5}};
  weir_error err = {0};
  tree_applied *ap = NULL;
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  CHECK_INT(tree_apply(f.cat, r1, dup, 2, r2, &ap, &na, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "default.a");
  catalog_tx_rollback(f.cat);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(corrupt_node_is_reported) {
  fx f = fx_new();
  weir_error err = {0};
  wr_table_entry e;
  bool found;
  const char *bogus = "0000000000000000000000000000000000000000000000000000000000000000";
  CHECK_INT(tree_get(f.cat, bogus, "default.a", &e, &found, &err), WEIR_ECATALOG);
  CHECK_CONTAINS(err.message, "missing");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
