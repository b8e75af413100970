/* Commits: canonical form and hashes, CAS on the branch head, recorded changes and
 * provenance, explicit transactions. */
#include <sqlite3.h>

#include "catalog/catalog_internal.h"
#include "fixtures.h"
#include "util/hash.h"

TEST(canonical_json_is_golden) {
  wr_commit_rec c = {0};
  c.author = "alice";
  c.message = "load a";
  memset(c.parents[0], '1', WEIR_HASH_LEN);
  c.parents[0][WEIR_HASH_LEN] = 0;
  c.n_parents = 1;
  c.properties = json_pack("{s:s}", "k", "v");
  snprintf(c.tables_root, sizeof c.tables_root, "%s",
           "78f9f9c90b88d5ca0a43d8a319a3c786cca588133a680444cf5121092b76464e");
  c.time_us = 1700000000000000LL;
  char *s = catalog_commit_canonical(&c);
  CHECK_STR(s, "{\"author\":\"alice\",\"message\":\"load a\",\"parents\":[\"1111111111111111111111111111111111111111111111111111111111111111\"],\"properties\":{\"k\":\"v\"},\"tables\":\"78f9f9c90b88d5ca0a43d8a319a3c786cca588133a680444cf5121092b76464e\",\"time\":1700000000000000}");
  char h[65];
  wr_sha256_hex(s, strlen(s), h);
  CHECK_STR(h, "6a532aa9302769db0a93b0a8e99d244d4fe74d6d29fa7e50087b08202f05f3df");
  free(s);
  json_decref(c.properties);
}

/* Commits the same content on top of the same state in a catalog; returns hash + root. */
static void same_commit(fx *f, char hash[65], char root[65]) {
  wr_table_change ch[3] = {{"default.b", "/w/b/1.json", 2, 20},
                             {"default.a", "/w/a/metadata/00001.metadata.json", 7, 3},
                             {"sales.orders", "/w/o/1.json", 9, 900}};
  json_t *props = json_pack("{s:s,s:s}", "z", "last", "a", "first");
  wr_commit_request req = {.branch = "main", .expected_head = fx_head(f, "main"),
                             .changes = ch, .n_changes = 3, .author = "alice",
                             .message = "load", .properties = props,
                             .time_us = 1700000000000000LL};
  weir_error err = {0};
  CHECK_OK(catalog_commit(f->cat, &req, hash, &err), &err);
  json_decref(props);
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f->cat, hash, &c, &err), &err);
  memcpy(root, c.tables_root, 65);
  /* The stored hash is the SHA-256 of the canonical form of what was stored. */
  char *canon = catalog_commit_canonical(&c);
  char h[65];
  wr_sha256_hex(canon, strlen(canon), h);
  CHECK_STR(h, hash);
  free(canon);
  wr_commit_rec_clear(&c);
}

/* A fresh catalog whose first commit has a fixed time, so histories can be compared. */
static fx fixed_catalog(void) {
  fx f = {0};
  f.dir = test_tmpdir();
  f.path = fx_location(f.dir, "catalog");
  weir_error err = {0};
  CHECK_OK(catalog_open_at_version(f.path, true, "tester", NULL, catalog_schema_latest(),
                                   1700000000000000LL, &f.cat, &err), &err);
  weir_error_clear(&err);
  return f;
}

TEST(same_content_same_hash_in_two_catalogs) {
  fx f = fixed_catalog(), g = fixed_catalog();
  /* {"author":"tester","message":"initial commit","parents":[],"properties":{},
   *  "tables":"d801aa1f...6658","time":1700000000000000} */
  CHECK_STR(fx_head(&f, "main"), "4198def2d005bc6fdc64640e9660b06bcc0571642e97b5d735c2256345dc6b45");
  CHECK_STR(fx_head(&g, "main"), "4198def2d005bc6fdc64640e9660b06bcc0571642e97b5d735c2256345dc6b45");
  char hf[65], hg[65], rf[65], rg[65];
  same_commit(&f, hf, rf);
  same_commit(&g, hg, rg);
  CHECK_STR(rf, rg); /* the table maps are identical, node for node */
  CHECK_STR(hf, hg); /* and so are the commits */
  /* a different author (or anything else hashed) gives a different hash */
  wr_table_change ch = {"default.a", "/w/a2", 1, 1};
  wr_commit_request req = {.branch = "main", .expected_head = hf, .changes = &ch,
                             .n_changes = 1, .author = "alice", .message = "m",
                             .time_us = 1700000000000001LL};
  weir_error err = {0};
  CHECK_OK(catalog_commit(f.cat, &req, hf, &err), &err);
  req.expected_head = hg;
  req.author = "bob";
  CHECK_OK(catalog_commit(g.cat, &req, hg, &err), &err);
  CHECK(strcmp(hf, hg) != 0);
  weir_error_clear(&err);
  fx_free(&f);
  fx_free(&g);
}

static int count_rows(const char *path, const char *sql) {
  char *v = NULL;
  int n = fx_query(path, sql, &v) == 0 && v ? atoi(v) : -1;
  free(v);
  return n;
}

TEST(stale_expected_head_writes_nothing) {
  fx f = fx_new();
  char h0[65];
  snprintf(h0, sizeof h0, "%s", fx_head(&f, "main"));
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  int commits = count_rows(f.path, "SELECT count(*) FROM commits");
  int nodes = count_rows(f.path, "SELECT count(*) FROM tree_nodes");
  int versions = count_rows(f.path, "SELECT count(*) FROM table_versions");
  wr_table_change ch = {"default.b", "/w/b1", 1, 1};
  wr_commit_request req = {.branch = "main", .expected_head = h0, .changes = &ch,
                             .n_changes = 1, .message = "late"};
  char out[65];
  weir_error err = {0};
  CHECK_INT(catalog_commit(f.cat, &req, out, &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "main");
  CHECK_CONTAINS(err.message, "moved");
  CHECK_INT(count_rows(f.path, "SELECT count(*) FROM commits"), commits);
  CHECK_INT(count_rows(f.path, "SELECT count(*) FROM tree_nodes"), nodes);
  CHECK_INT(count_rows(f.path, "SELECT count(*) FROM table_versions"), versions);
  CHECK(fx_loc(&f, "main", "default.b") == NULL);
  /* unknown branch */
  req.branch = "nope";
  CHECK_INT(catalog_commit(f.cat, &req, out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nope");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(commit_records_changes_generation_and_provenance) {
  fx f = fx_new();
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  wr_table_change ch[3] = {{"default.a", "/w/a2", 2, 2},
                             {"default.b", "/w/b1", 1, 1},
                             {"default.ghost", NULL, -1, 0}};
  char h[65];
  weir_error err = {0};
  CHECK_OK(fx_commit_n(&f, "main", ch, 3, "run-7", h, &err), &err);
  json_t *changes = NULL;
  CHECK_OK(catalog_commit_changes(f.cat, h, &changes, &err), &err);
  char *s = wr_json_canonical(changes);
  CHECK_STR(s, "[{\"change\":\"changed\",\"table\":\"default.a\"},{\"change\":\"added\",\"table\":\"default.b\"}]");
  free(s);
  json_decref(changes);
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f.cat, h, &c, &err), &err);
  CHECK_INT(c.generation, 3);
  CHECK_STR(c.run_id, "run-7");
  CHECK_STR(wr_json_str(c.properties, "run_id", ""), "run-7");
  wr_commit_rec_clear(&c);
  /* drop */
  fx_set(&f, "main", "default.a", NULL, NULL);
  CHECK_OK(catalog_commit_changes(f.cat, fx_head(&f, "main"), &changes, &err), &err);
  s = wr_json_canonical(changes);
  CHECK_STR(s, "[{\"change\":\"dropped\",\"table\":\"default.a\"}]");
  free(s);
  json_decref(changes);
  CHECK_INT(count_rows(f.path, "SELECT count(*) FROM table_versions WHERE run_id = 'run-7'"), 2);
  CHECK_INT(count_rows(f.path, "SELECT count(*) FROM table_versions WHERE metadata_location = '/w/a1' AND run_id IS NULL"), 1);
  /* time travel: the old commit still has the old map */
  CHECK_STR(fx_loc(&f, h, "default.a"), "/w/a2");
  CHECK(fx_loc(&f, "main", "default.a") == NULL);
  wr_table_entry e;
  CHECK_INT(catalog_table_get(f.cat, fx_head(&f, "main"), "default.a", &e, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "default.a");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(commit_writes_few_nodes_in_a_big_lake) {
  fx f = fx_new();
  enum { N = 3000 };
  wr_table_change *ch = calloc(N, sizeof *ch);
  char (*names)[32] = calloc(N, 32);
  for (int i = 0; i < N; i++) {
    snprintf(names[i], 32, "default.t%d", i);
    ch[i] = (wr_table_change){names[i], "/w/x.json", 1, 1};
  }
  weir_error err = {0};
  CHECK_OK(fx_commit_n(&f, "main", ch, N, NULL, NULL, &err), &err);
  int before = count_rows(f.path, "SELECT count(*) FROM tree_nodes");
  fx_set(&f, "main", "default.t17", "/w/y.json", NULL);
  int after = count_rows(f.path, "SELECT count(*) FROM tree_nodes");
  CHECK(after - before >= 2 && after - before <= 4); /* one path: depth 3 for 3000 tables */
  free(ch);
  free(names);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(bad_requests_are_refused) {
  fx f = fx_new();
  weir_error err = {0};
  char out[65];
  wr_commit_request req = {.branch = "main", .expected_head = "abc", .message = "x"};
  CHECK_INT(catalog_commit(f.cat, &req, out, &err), WEIR_EINVALIDARG);
  req.expected_head = fx_head(&f, "main");
  json_t *props = json_pack("{s:i}", "n", 1);
  req.properties = props;
  CHECK_INT(catalog_commit(f.cat, &req, out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "'n'");
  json_decref(props);
  req.properties = NULL;
  wr_table_change bad = {"default.a", "", 1, 1};
  req.changes = &bad;
  req.n_changes = 1;
  CHECK_INT(catalog_commit(f.cat, &req, out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "default.a");
  req.n_changes = 0;
  req.second_parent = "1111111111111111111111111111111111111111111111111111111111111111";
  CHECK_INT(catalog_commit(f.cat, &req, out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "second parent");
  CHECK_INT(fx_count(&f, "main"), 1);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(explicit_transactions_group_and_nest) {
  fx f = fx_new();
  weir_error err = {0};
  /* rollback of the outer transaction undoes both commits */
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  fx_set(&f, "main", "default.b", "/w/b1", NULL);
  catalog_tx_rollback(f.cat);
  CHECK_INT(fx_count(&f, "main"), 1);
  CHECK(fx_loc(&f, "main", "default.a") == NULL);
  /* an inner rollback undoes only the inner work */
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  fx_set(&f, "main", "default.b", "/w/b1", NULL);
  catalog_tx_rollback(f.cat);
  CHECK_OK(catalog_tx_commit(f.cat, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a1");
  CHECK(fx_loc(&f, "main", "default.b") == NULL);
  CHECK_INT(fx_count(&f, "main"), 2);
  /* a failed commit inside an explicit transaction leaves the rest intact */
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  fx_set(&f, "main", "default.c", "/w/c1", NULL);
  wr_commit_request req = {.branch = "main", .expected_head = "1111111111111111111111111111111111111111111111111111111111111111", .message = "x"};
  char out[65];
  CHECK_INT(catalog_commit(f.cat, &req, out, &err), WEIR_ECONCURRENT);
  CHECK_OK(catalog_tx_commit(f.cat, &err), &err);
  CHECK_STR(fx_loc(&f, "main", "default.c"), "/w/c1");
  /* writes inside a read transaction are refused */
  CHECK_OK(catalog_tx_begin(f.cat, false, &err), &err);
  wr_table_change ch = {"default.d", "/w/d", 1, 1};
  CHECK_INT(fx_commit_n(&f, "main", &ch, 1, NULL, NULL, &err), WEIR_ECATALOG);
  CHECK_CONTAINS(err.message, "read transaction");
  catalog_tx_rollback(f.cat);
  CHECK_INT(catalog_tx_commit(f.cat, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
