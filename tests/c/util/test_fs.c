/* Atomic writes, reads and path normalisation. */
#include "harness.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/uuid.h"

TEST(atomic_write_and_read) {
  char *dir = test_tmpdir();
  weir_error err = {0};
  char *sub = wr_path_join(dir, "a/b/c");
  CHECK_OK(wr_fs_mkdirs(sub, &err), &err);
  char *file = wr_path_join(sub, "f.txt");
  CHECK_OK(wr_fs_write_atomic(file, "hello", 5, true, &err), &err);
  CHECK_INT(wr_fs_write_atomic(file, "again", 5, true, &err), WEIR_EEXISTS);
  weir_error_clear(&err);
  char *data = NULL;
  size_t len = 0;
  CHECK_OK(wr_fs_read(file, &data, &len, &err), &err);
  CHECK_INT(len, 5);
  CHECK_STR(data, "hello");
  free(data);
  CHECK_OK(wr_fs_write_atomic(file, "replaced", 8, false, &err), &err);
  CHECK_OK(wr_fs_read(file, &data, &len, &err), &err);
  CHECK_STR(data, "replaced");
  free(data);
  char *missing = wr_path_join(dir, "nope");
  CHECK_INT(wr_fs_read(missing, &data, &len, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nope");
  weir_error_clear(&err);
  free(missing);
  free(file);
  free(sub);
  test_rmtree(dir);
  free(dir);
}

TEST(paths) {
  char *p = wr_path_absolute("/a/./b/../c/");
  CHECK_STR(p, "/a/c");
  free(p);
  p = wr_path_dirname("/x/y/z.json");
  CHECK_STR(p, "/x/y");
  free(p);
  CHECK_STR(wr_path_basename("/x/y/z.json"), "z.json");
  p = wr_path_join("/x/", "y");
  CHECK_STR(p, "/x/y");
  free(p);
}

TEST(sha256_known_vector) {
  char hex[65];
  wr_sha256_hex("abc", 3, hex);
  CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(wr_is_hex(hex, 64));
  CHECK(!wr_is_hex("zz", 2));
}

TEST(canonical_json_sorts_keys) {
  json_t *o = json_pack("{s:i,s:s,s:[i,i]}", "b", 1, "a", "x", "c", 1, 2);
  char *s = wr_json_canonical(o);
  CHECK_STR(s, "{\"a\":\"x\",\"b\":1,\"c\":[1,2]}");
  free(s);
  json_decref(o);
}

TEST(buf_and_time) {
  wr_buf b = WEIR_BUF_INIT;
  for (int i = 0; i < 1000; i++) wr_buf_printf(&b, "%d,", i);
  CHECK_INT(b.len, 3890);
  wr_buf_clear(&b);
  wr_buf_put_quoted(&b, "a\"b\n");
  CHECK_STR(wr_buf_cstr(&b), "\"a\\\"b\\n\"");
  wr_buf_free(&b);
  char t[40];
  wr_format_time_us(1764505496123456LL, t, sizeof t);
  CHECK_STR(t, "2025-11-30T12:24:56.123456Z");
  char u1[37], u2[37];
  wr_uuid4(u1);
  wr_uuid4(u2);
  CHECK(strcmp(u1, u2) != 0);
  CHECK_INT(strlen(u1), 36);
  CHECK(u1[14] == '4');
  CHECK(wr_random_i63() > 0);
}

TEST(error_values) {
  weir_error err = {0};
  CHECK_INT(wr_seterr(&err, WEIR_ENOTFOUND, "table %s not found", "x"), WEIR_ENOTFOUND);
  CHECK_STR(err.message, "table x not found");
  wr_error_prefix(&err, "at %s", "main");
  CHECK_STR(err.message, "at main: table x not found");
  wr_error_add_detail(&err, json_pack("{s:s}", "k", "v"));
  wr_error_add_detail(&err, json_pack("{s:i}", "n", 2));
  CHECK_STR(err.details, "[{\"k\":\"v\"},{\"n\":2}]");
  CHECK_STR(weir_error_name(err.code), "NotFound");
  weir_error_clear(&err);
  CHECK(err.message == NULL && err.details == NULL && err.code == 0);
  CHECK_INT(weir_error_exit_code(WEIR_ECONTRACT), 3);
  CHECK_INT(weir_error_exit_code(WEIR_ECONFLICT), 4);
  CHECK_INT(weir_error_exit_code(WEIR_EINVALIDARG), 2);
  CHECK_INT(weir_error_exit_code(WEIR_EIO), 1);
}

TEST_MAIN()
