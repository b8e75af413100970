/*
 * test_location.c -- locations: parsing every accepted form, the URIs weir writes, and
 * the characters refused where a lake or warehouse is made (storage/location.h).
 */
#include "harness.h"
#include "storage/location.h"
#include "storage/storage.h"
#include "util/fs.h"

static void from_uri(const char *in, const char *want) {
  char *p = wr_location_from_uri(in);
  CHECK_STR(p, want);
  free(p);
}

TEST(reads_every_form_of_a_local_location) {
  from_uri("file:///a/b", "/a/b");
  from_uri("file:/a/b", "/a/b");
  from_uri("file://localhost/a/b", "/a/b");
  from_uri("/a/b", "/a/b");                          /* old lakes: plain paths, literal */
  from_uri("file:///my%20lake/x.avro", "/my lake/x.avro"); /* encoded by another writer */
  from_uri("file:///my lake/x.avro", "/my lake/x.avro");   /* what weir and Java write */
  from_uri("/100%25/x", "/100%25/x");                /* a plain path is never decoded */
}

TEST(reads_s3_uris) {
  from_uri("s3://bucket/a/b.json", "s3://bucket/a/b.json");
  from_uri("s3a://bucket/a/b.json", "s3://bucket/a/b.json");
  from_uri("s3n://bucket/a", "s3://bucket/a");
  wr_location l;
  weir_error err = {0};
  CHECK_OK(wr_location_parse("s3://my-bucket/pre/fix/k", &l, &err), &err);
  CHECK_INT(l.kind, WR_LOCATION_S3);
  CHECK_STR(l.bucket, "my-bucket");
  CHECK_STR(l.key, "pre/fix/k");
  wr_location_clear(&l);
  CHECK_OK(wr_location_parse("s3://my-bucket", &l, &err), &err);
  CHECK_STR(l.key, "");
  wr_location_clear(&l);
}

TEST(refuses_what_it_cannot_open) {
  wr_location l;
  weir_error err = {0};
  CHECK_INT(wr_location_parse("relative/x", &l, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  CHECK_INT(wr_location_parse("gs://b/k", &l, &err), WEIR_EINVALIDARG);
  CHECK(strstr(err.message, "not gs://") != NULL);
  weir_error_clear(&err);
  CHECK_INT(wr_location_parse("file://otherhost/x", &l, &err), WEIR_EINVALIDARG);
  CHECK(strstr(err.message, "otherhost") != NULL);
  weir_error_clear(&err);
  CHECK_INT(wr_location_parse("file:///a%2", &l, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  CHECK_INT(wr_location_parse("s3://Bad_Bucket/k", &l, &err), WEIR_EINVALIDARG);
  CHECK(strstr(err.message, "Bad_Bucket") != NULL);
  weir_error_clear(&err);
  CHECK_INT(wr_location_parse("s3://ab/k", &l, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
}

TEST(writes_full_uris) {
  char *u = wr_location_to_uri("/lake/warehouse/default/t");
  CHECK_STR(u, "file:///lake/warehouse/default/t");
  free(u);
  u = wr_location_to_uri("/my lake/w");
  CHECK_STR(u, "file:///my lake/w"); /* readers take the path literally: see location.h */
  free(u);
  u = wr_location_to_uri("s3://b-1/p/t");
  CHECK_STR(u, "s3://b-1/p/t");
  free(u);
  /* What weir writes reads back as the same location. */
  const char *locs[] = {"/a/b c/d", "/x/ü/é", "s3://bkt/pre fix/t"};
  for (size_t i = 0; i < 3; i++) {
    char *uri = wr_location_to_uri(locs[i]);
    char *back = wr_location_from_uri(uri);
    CHECK_STR(back, locs[i]);
    free(uri);
    free(back);
  }
}

TEST(joins_and_parents) {
  char *j = wr_location_join("s3://b1c/p/", "/metadata");
  CHECK_STR(j, "s3://b1c/p/metadata");
  free(j);
  j = wr_location_join("/a", "b");
  CHECK_STR(j, "/a/b");
  free(j);
  char *d = wr_location_dirname("s3://b1c/p/q/x.json");
  CHECK_STR(d, "s3://b1c/p/q");
  free(d);
  d = wr_location_dirname("/a/b/c");
  CHECK_STR(d, "/a/b");
  free(d);
}

TEST(refuses_characters_readers_would_misread) {
  weir_error err = {0};
  CHECK_OK(wr_location_check_safe("/tmp/my lake (copy)/ü", "the lake path", &err), &err);
  const char *bad[] = {"/tmp/a#b", "/tmp/a?b", "/tmp/100%", "/tmp/a\nb"};
  for (size_t i = 0; i < 4; i++) {
    CHECK_INT(wr_location_check_safe(bad[i], "the lake path", &err), WEIR_EINVALIDARG);
    CHECK(strstr(err.message, "the lake path") != NULL);
    weir_error_clear(&err);
  }
}

TEST(local_storage_round_trip) {
  char tmpl[] = "/tmp/weir storage XXXXXX";
  char *dir = mkdtemp(tmpl);
  CHECK(dir != NULL);
  weir_error err = {0};
  char *sub = wr_location_join(dir, "a/b");
  CHECK_OK(wr_storage_mkdirs(sub, &err), &err);
  char *obj = wr_location_join(sub, "x.json");
  CHECK_OK(wr_storage_write(obj, "{}", 2, true, &err), &err);
  CHECK_INT(wr_storage_write(obj, "{}", 2, true, &err), WEIR_EEXISTS);
  weir_error_clear(&err);
  char *uri = wr_location_to_uri(obj);
  char *text = NULL;
  size_t len = 0;
  CHECK_OK(wr_storage_read(uri, &text, &len, &err), &err);
  CHECK_INT(len, 2);
  CHECK_STR(text, "{}");
  free(text);
  bool there = false;
  CHECK_OK(wr_storage_exists(obj, &there, &err), &err);
  CHECK(there);
  char **v = NULL;
  size_t n = 0;
  CHECK_OK(wr_storage_list(dir, &v, &n, &err), &err);
  CHECK_INT(n, 1);
  if (n == 1) CHECK_STR(v[0], obj);
  wr_storage_list_free(v, n);
  CHECK_OK(wr_storage_delete(obj, &err), &err);
  CHECK_OK(wr_storage_delete(obj, &err), &err); /* missing is fine */
  CHECK_INT(wr_storage_read(obj, &text, &len, &err), WEIR_ENOTFOUND);
  weir_error_clear(&err);
  free(uri);
  free(obj);
  free(sub);
  CHECK_OK(wr_fs_remove_tree(dir, &err), &err);
}

TEST_MAIN()
